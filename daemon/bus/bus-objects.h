/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

#include "forward.h"
#include "model-events.h"

/* Publication: what the manager's table holds, on the bus. Registration of
 * every interface from one table, the object paths of a device (for the
 * node enumerator and InterfacesAdded/Removed alike), the changes the model
 * reported and the bus has not announced yet, and their deferred emission
 * as PropertiesChanged once per event-loop iteration. */

/* An interface we serve. Objects are not registered one by one: a fallback
 * vtable per interface under the prefix finds them in the manager's table
 * (userdata of every entry is the BusServer; bus_object_find() for all).
 * Each bus-<kind>.c defines its <kind>_object, so that its vtable and size
 * bound stay its own and registration is one table of them. */
typedef struct BusObjectType {
        const char *path; /* the one object, or the prefix of a fallback */
        const char *interface;
        const sd_bus_vtable *vtable;
        sd_bus_object_find_t find; /* NULL: a single object at path */
        /* At least what the vtable's getters marshal for the object found at a
         * path of path_len, attribute maps aside (GetManagedObjects counts its
         * reply against the bus's message limit without reading it back). */
        size_t (*getters_size_max)(const void *object, size_t path_len);
} BusObjectType;

/* Subscribes to the model's events and adds the vtables, the node
 * enumerator, the object manager and the emission source; s->bus exists. */
int bus_objects_register(BusServer *s);

/* Every object path of a device, the device first, then its ports, netdevs
 * and sriov; appended to *l (n entries, NULL-terminated). */
int bus_objects_device_paths(const Device *d, char ***l, size_t *n, size_t *allocated);

/* The D-Bus name of a kind's property bit (PORT_PROP_STATE: "State"); NULL
 * past the last. */
const char *bus_property_name(ModelObjectKind kind, unsigned bit);

/* The property changes the bus has not announced yet, by object: the
 * model's objects keep their address while they exist, and an object's
 * entry goes with it (dropped on the model's removal
 * events). The model reports changes through its ModelEvents; this store
 * is the bus side's alone, and the emission takes everything from it once
 * per loop iteration; it is freed with the emission's source. */

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
/* The device is going: nothing of it, its SR-IOV control, its ports and
 * its netdevs is announced. */
void pending_changes_drop_device(PendingChanges *c, const Device *d);
/* The changes in the order they are announced: by device name, and within
 * a device the device, its ports, its netdevs, its SR-IOV control. Dropped
 * ones last, with a NULL object. */
void pending_changes_sort(PendingChanges *c);
/* Everything pending is forgotten (after an emission). */
void pending_changes_clear(PendingChanges *c);
/* ... and the store's memory freed. */
void pending_changes_done(PendingChanges *c);
