/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model-events.h"

/* The property changes the bus has not announced yet, by object: the
 * model's objects keep their address while they exist, and an object's
 * entry goes with it (pending_changes_drop*() on the model's removal
 * events). The model reports changes through its ModelEvents; this store
 * is the bus side's alone, and the emitter takes everything from it once
 * per loop iteration (bus-objects.c). */

typedef struct PendingChange {
        const void *object; /* NULL: dropped */
        ModelObjectKind kind;
        PropertyMask mask; /* PROPERTY_BIT()s of the kind's properties */
} PendingChange;

typedef struct PendingChanges {
        PendingChange *changes; /* in the order of their first report */
        size_t n, allocated;
        /* An open-addressing index of changes by object and kind: an index
         * into changes plus one, 0 for an empty slot; n_slots a power of two. */
        size_t *slots;
        size_t n_slots;
        /* A change could not be recorded (no memory): everything is announced
         * as changed at the next emission, so that nothing is lost. */
        bool everything;
} PendingChanges;

/* ORs mask into the object's pending bits. */
void pending_changes_add(PendingChanges *c, ModelObjectKind kind, const void *object, PropertyMask mask);
/* The object is going: nothing of it is announced. A device's drop is
 * also its SR-IOV control's, its ports' and its netdevs'. */
void pending_changes_drop_device(PendingChanges *c, const Device *d);
void pending_changes_drop_netdev(PendingChanges *c, const NetDev *n);
/* The changes in the order they are announced: by device name, and within
 * a device the device, its ports, its netdevs, its SR-IOV control. Dropped
 * ones last, with a NULL object. */
void pending_changes_sort(PendingChanges *c);
/* Everything pending is forgotten (after an emission). */
void pending_changes_clear(PendingChanges *c);
/* ... and the store's memory freed. */
void pending_changes_done(PendingChanges *c);
