/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "forward.h"

/* How the model tells whoever publishes it (the bus layer; a test's
 * recorder) what happened, without knowing who listens. Objects are
 * findable in the Manager's table during each call: an added object is in
 * it already, a removing one still. The mask of changed() is the whole
 * news: the model keeps no record of what is unannounced, so a listener
 * that publishes later (the bus, once per iteration: bus-objects.h) keeps
 * its own. Every member may be NULL. */

/* In the order a device's changes are emitted (bus-objects.c sorts by it):
 * the device, its ports, its netdevs, its SR-IOV control. */
typedef enum ModelObjectKind {
        MODEL_DEVICE,     /* object: Device; mask: DEVICE_PROP_* bits */
        MODEL_PORT,       /* Port; PORT_PROP_* */
        MODEL_NETDEV,     /* NetDev; NETDEV_PROP_* */
        MODEL_SRIOV,      /* Device (its SR-IOV control); SRIOV_PROP_* */
        MODEL_DEVICE_SET, /* object NULL, mask 0: a device came or went */
        _MODEL_OBJECT_KIND_MAX,
} ModelObjectKind;

typedef struct ModelEvents {
        void (*device_added)(Device *d, void *userdata);
        void (*device_removing)(Device *d, void *userdata);
        void (*netdev_added)(NetDev *n, void *userdata);
        void (*netdev_removing)(NetDev *n, void *userdata);
        void (*changed)(ModelObjectKind kind, void *object, PropertyMask mask, void *userdata);
        /* Every read a rescan asked for is applied: what it found is in the model. */
        void (*rescanned)(void *userdata);
} ModelEvents;
