/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

#include "forward.h"

/* Publication: what the manager's table holds, on the bus. Registration of
 * every interface from one table, the object paths of a device (for the
 * node enumerator and InterfacesAdded/Removed alike), and the deferred
 * emission of PropertiesChanged once per event-loop iteration. */

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
