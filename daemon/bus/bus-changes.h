/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model-events.h"

/* The property changes the bus has not announced yet, by object identity
 * (device name, port number, netdev name), not by pointer: the model
 * replaces a device's structs when it re-reads it, and the changes of the
 * old snapshot are still owed. The model reports changes through its
 * ModelEvents; this store is the bus side's alone, and the emitter takes
 * everything from it once per loop iteration (bus-objects.c). */

typedef struct PendingPort {
        uint32_t number;
        uint32_t mask; /* PROPERTY_BIT(PORT_PROP_*) */
} PendingPort;

typedef struct PendingNetDev {
        char *name;
        uint32_t mask; /* NETDEV_PROP_* bits */
} PendingNetDev;

typedef struct PendingDevice {
        char *name;
        uint32_t device;    /* DEVICE_PROP_* bits */
        uint32_t sriov;     /* SRIOV_PROP_* bits */
        PendingPort *ports; /* sorted by number */
        size_t n_ports, allocated_ports;
        PendingNetDev *netdevs; /* sorted by name */
        size_t n_netdevs, allocated_netdevs;
} PendingDevice;

typedef struct PendingChanges {
        PendingDevice *devices; /* sorted by name */
        size_t n_devices, allocated;
        /* A change could not be recorded (no memory): everything is announced
         * as changed at the next emission, so that nothing is lost. */
        bool everything;
} PendingChanges;

/* ORs mask into the object's pending bits. */
void pending_changes_add(PendingChanges *c, ModelObjectKind kind, const void *object, uint32_t mask);
/* The object is going: nothing of it is announced. */
void pending_changes_drop_device(PendingChanges *c, const char *device);
void pending_changes_drop_netdev(PendingChanges *c, const char *device, const char *netdev);
/* Everything pending is forgotten (after an emission). */
void pending_changes_clear(PendingChanges *c);
/* ... and the store's memory freed. */
void pending_changes_done(PendingChanges *c);
