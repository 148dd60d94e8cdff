/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

#include "bus-objects.h"

/* The reply to ObjectManager.GetManagedObjects, a{oa{sa{sv}}}, appended one
 * object at a time, with its marshalled size counted on the way: no event
 * loop and no scheduling here, the caller decides how many objects a slice
 * takes and when the next one runs.
 *
 * The reply must be the one sd-bus sends for the same vtables when it
 * answers the call itself (test-gmo compares the two): the objects in the
 * order of the path list; for each object found, the standard interfaces
 * Peer, Introspectable and Properties first, with no properties, then every
 * type whose vtable serves the path, with the properties GetAll would
 * return. */

/* The caller reads message, size, next_path and n_paths; the rest is the
 * builder's. */
typedef struct ManagedObjectsReply {
        sd_bus *bus; /* what the getters and find callbacks get */
        const BusObjectType *const *types;
        size_t n_types;
        void *userdata;

        sd_bus_message *message;
        char **paths;
        size_t n_paths, next_path; /* next_path: how many paths are in */
        /* At least the body's marshalled size so far (getters other than the
         * attribute maps' are counted by their types' upper bounds). */
        size_t size;
        bool complete;
} ManagedObjectsReply;

/* The reply to `call`, empty; `paths` (n_paths of them, NULL-terminated) is
 * taken, also on failure. `userdata` is what the find callbacks get. */
int managed_objects_reply_new(sd_bus *bus, sd_bus_message *call, const BusObjectType *const *types, size_t n_types,
                              void *userdata, char **paths, size_t n_paths, ManagedObjectsReply **ret);
ManagedObjectsReply *managed_objects_reply_free(ManagedObjectsReply *r);
static inline void managed_objects_reply_freep(ManagedObjectsReply **r) {
        managed_objects_reply_free(*r);
}

/* Paths left to append? */
bool managed_objects_reply_has_more(const ManagedObjectsReply *r);

/* The object at the next path, or nothing when no type finds it there; a
 * getter's or find callback's failure in *error, or as -errno. */
int managed_objects_reply_append_next(ManagedObjectsReply *r, sd_bus_error *error);

/* Closes the reply once every path is in: it is ready to send. */
int managed_objects_reply_close(ManagedObjectsReply *r);
