/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-objects.h"

/* ObjectManager.GetManagedObjects, answered without starving everyone else.
 * sd-bus builds the whole reply in one callback: 300-500 ms on the one event
 * loop at 2048 devices, and any caller may ask in a loop. Here a bus filter
 * takes the call first and the reply is built a few milliseconds at a time
 * from the lowest-priority event source, so every other message, timer and
 * signal of the daemon runs between two pieces (and a storm of those still
 * leaves it a piece every MANAGED_OBJECTS_STARVED_USEC). The reply is the
 * one sd-bus would send (the same find callbacks and vtables, in its order).
 *
 * Callers are served one build at a time, round-robin: one call of a
 * connection is built at once, the others of the same connection wait
 * behind it (at most MANAGED_OBJECTS_CALLS_MAX), and a connection that
 * leaves the bus takes its calls, and the build in progress, with it.
 *
 * A reply is sent only once the previous one has left for the bus: what
 * the daemon sends after it (root's replies, signals) waits behind one big
 * reply at most, not behind a queue of them.
 *
 * A reply is never a mix of before and after a change: the model's
 * generation is bumped by every change (bus_managed_objects_changed()), and
 * a build that sees it move starts again; after MANAGED_OBJECTS_RESTARTS_MAX
 * restarts it is finished in one go. */

typedef struct ManagedObjectsCaller ManagedObjectsCaller;

/* The object paths under the root, as the node enumerator lists them. */
typedef int (*ManagedObjectsListPaths)(void *userdata, char ***ret_paths, size_t *ret_n);

/* Calls of one connection held at once (the one being built included). */
#define MANAGED_OBJECTS_CALLS_MAX 4
/* Connections with calls held at once. */
#define MANAGED_OBJECTS_CALLERS_MAX 1024
#define MANAGED_OBJECTS_RESTARTS_MAX 3
/* Building runs at most this long per event-loop iteration. */
#define MANAGED_OBJECTS_SLICE_USEC 4000
/* ... and gets a slice at least this often, however busy the loop. */
#define MANAGED_OBJECTS_STARVED_USEC 50000
/* dbus-daemon's default max_message_size on the system bus is 32 MiB; a
 * larger message makes it drop the sender's connection. The size counted
 * while building is at least the body's (getters are counted by upper
 * bounds); the header needs a few hundred bytes more. */
#define MANAGED_OBJECTS_REPLY_MAX (31u * 1024 * 1024)

typedef struct ManagedObjectsQueue {
        sd_bus *bus; /* not owned */
        const char *root;
        const BusObjectType *types;
        size_t n_types;
        ManagedObjectsListPaths list_paths;
        void *userdata; /* of the find callbacks, the getters and list_paths */

        sd_bus_slot *filter_slot;
        sd_event_source *build_event;
        sd_event_source *flush_event; /* a built reply waits for the previous one to leave */
        sd_event_source *starved_event;
        uint64_t last_slice_usec;

        ManagedObjectsCaller *callers, *callers_tail; /* the head is being served */
        unsigned n_callers;

        uint64_t generation; /* of the model */
        size_t reply_max;
        unsigned slice_objects; /* tests: this many objects a slice instead of a time */
        bool warned_too_large;

        /* The build in progress: for the head's first call. */
        sd_bus_message *reply;
        char **paths;
        size_t n_paths, next_path;
        uint64_t build_generation;
        unsigned restarts;
        size_t reply_size; /* counted as marshalled */
        bool complete;
} ManagedObjectsQueue;

/* Installs the filter and the build source. userdata is what the types'
 * find callbacks and list_paths get. */
int bus_managed_objects_start(ManagedObjectsQueue *q, sd_bus *bus, sd_event *event, const char *root,
                              const BusObjectType *types, size_t n_types, ManagedObjectsListPaths list_paths,
                              void *userdata);

/* An object was added, removed or changed: a build in progress starts again. */
void bus_managed_objects_changed(ManagedObjectsQueue *q);

/* A connection left the bus (the caller registry's one NameOwnerChanged
 * match says so): its calls are dropped, a reply being built for it too. */
void bus_managed_objects_drop_sender(ManagedObjectsQueue *q, const char *name);

/* At exit: held calls are dropped unanswered. */
void bus_managed_objects_clear(ManagedObjectsQueue *q);
