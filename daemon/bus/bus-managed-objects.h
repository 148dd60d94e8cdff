/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-objects.h"
#include "call-scheduler.h"
#include "caller.h"

/* ObjectManager.GetManagedObjects, answered without starving everyone else.
 * sd-bus builds the whole reply in one callback: 300-500 ms on the one event
 * loop at 2048 devices, and any caller may ask in a loop. Here a bus filter
 * takes the call first and the reply is built a few milliseconds at a time
 * from the lowest-priority event source, so every other message, timer and
 * signal of the daemon runs between two pieces (and a storm of those still
 * leaves it a piece every MANAGED_OBJECTS_STARVED_USEC). The reply is the
 * one sd-bus would send (the same find callbacks and vtables, in its order).
 *
 * Callers are served one build at a time: one call of a connection is
 * built at once, the others of the same connection wait behind it (at most
 * MANAGED_OBJECTS_CALLS_MAX, for at most MANAGED_OBJECTS_WAIT_MAX_USEC, then
 * org.rdmad1.Error.Busy), and a connection that leaves the bus takes its
 * calls, and the build in progress, with it. Root's connections are served
 * first. The others take turns by user (the user served longest ago first),
 * so a user with many connections gets no more than one with one.
 *
 * A reply is sent only once the previous one has left for the bus: what
 * the daemon sends after it (root's replies, signals) waits behind one big
 * reply at most, not behind a queue of them. And the replies to
 * unprivileged callers may keep the daemon's one bus connection busy at
 * most MANAGED_OBJECTS_UNPRIVILEGED_SHARE percent of the time: after such a
 * reply has taken t to leave (sd-bus's queue and the socket both empty), the
 * next unprivileged one is not built before t * (100 - share) / share has
 * passed. dbus-daemon takes a 12 MiB reply in 100-300 ms; anything the
 * daemon sends meanwhile waits behind it, so this is what keeps root's
 * calls and the signals fast under a flood.
 *
 * A reply is never a mix of before and after a change: the model's
 * generation is bumped by every change (bus_managed_objects_changed()), and
 * a build that sees it move starts again; after MANAGED_OBJECTS_RESTARTS_MAX
 * restarts it is finished in one go. */

/* The reply being built (bus-managed-objects-reply.h). */
typedef struct ManagedObjectsReply ManagedObjectsReply;

/* The object paths under the root, as the node enumerator lists them. */
typedef int (*ManagedObjectsListPaths)(void *userdata, char ***ret_paths, size_t *ret_n);

/* Calls of one connection held at once (the one being built included). */
#define MANAGED_OBJECTS_CALLS_MAX 4
/* Connections with calls held at once. */
#define MANAGED_OBJECTS_CALLERS_MAX 1024
/* A call not answered within this is answered with Busy: before the 25 s
 * after which sd-bus, GDBus and busctl give up by default. */
#define MANAGED_OBJECTS_WAIT_MAX_USEC (20 * 1000000ULL)
/* Percent of the time replies to callers other than root may occupy the
 * daemon's bus connection. */
#define MANAGED_OBJECTS_UNPRIVILEGED_SHARE 10
/* ... but after one slow reply the others wait at most this long: the share
 * recovers in seconds, whatever that reply took to leave. */
#define MANAGED_OBJECTS_PAUSE_MAX_USEC (2 * 1000000ULL)
#define MANAGED_OBJECTS_RESTARTS_MAX   3
/* Building runs at most this long per event-loop iteration. */
#define MANAGED_OBJECTS_SLICE_USEC 4000
/* ... and gets a slice at least this often, however busy the loop. */
#define MANAGED_OBJECTS_STARVED_USEC 50000
/* dbus-daemon's default max_message_size on the system bus is 32 MiB; a
 * larger message makes it drop the sender's connection. The size counted
 * while building is at least the body's (getters are counted by upper
 * bounds); the header needs a few hundred bytes more. */
#define MANAGED_OBJECTS_REPLY_MAX (31u * 1024 * 1024)

/* What rdmad's options change of the above (rdmad(8), main.c); 0 in a
 * field: its default. Set before bus_managed_objects_start(). */
typedef struct ManagedObjectsTuning {
        bool builtin;                     /* --gmo-builtin: sd-bus answers, in one go */
        unsigned slice_objects;           /* --gmo-slice-objects: objects a slice instead of a time */
        unsigned unprivileged_share;      /* --gmo-unprivileged-share: percent, 1..100 */
        uint64_t unprivileged_pause_usec; /* --gmo-unprivileged-pause: this pause, whatever a reply took */
        uint64_t wait_max_usec;           /* --gmo-wait-max */
        uint64_t reply_max;               /* --gmo-reply-max: bytes */
} ManagedObjectsTuning;

typedef struct ManagedObjectsQueue {
        ManagedObjectsTuning tuning;
        sd_bus *bus; /* not owned */
        const char *root;
        const BusObjectType *const *types;
        size_t n_types;
        ManagedObjectsListPaths list_paths;
        void *userdata;           /* of the find callbacks, the getters and list_paths */
        CallerRegistry *registry; /* the uids of callers, cached; not owned */

        sd_bus_slot *filter_slot;
        sd_event_source *build_event;   /* a slice, when nothing else is pending */
        sd_event_source *starved_event; /* a slice at least this often */
        sd_event_source *flush_event;   /* has the bus taken what was queued? */
        sd_event_source *share_event;   /* polls the socket while draining; wakes when the share allows */
        uint64_t last_slice_usec;

        CallScheduler scheduler; /* the calls held (sd_bus_message), whose turn */

        /* The reply of the call served, and why it may be built again. */
        ManagedObjectsReply *build;
        uint64_t build_generation;
        unsigned restarts;
        uint64_t generation; /* of the model */

        bool trim_after_send; /* a reply is leaving: its megabytes go back once it has */
        size_t reply_max;
        unsigned slice_objects; /* this many objects a slice instead of a time (0: a time) */
        bool warned_too_large;
} ManagedObjectsQueue;

/* Installs the filter and the build source, as q->tuning says. userdata is
 * what the types' find callbacks and list_paths get. */
int bus_managed_objects_start(ManagedObjectsQueue *q, sd_bus *bus, sd_event *event, const char *root,
                              const BusObjectType *const *types, size_t n_types, ManagedObjectsListPaths list_paths,
                              void *userdata, CallerRegistry *registry);

/* An object was added, removed or changed: a build in progress starts again. */
void bus_managed_objects_changed(ManagedObjectsQueue *q);

/* A connection left the bus (the caller registry's one NameOwnerChanged
 * match says so): its calls are dropped, a reply being built for it too. */
void bus_managed_objects_drop_sender(ManagedObjectsQueue *q, const char *name);

/* At exit: held calls are dropped unanswered. */
void bus_managed_objects_clear(ManagedObjectsQueue *q);
