/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "basic/time-util.h"
#include "bus-util.h"
#include "call-scheduler.h"
#include "caller.h"

/* The methods whose reply costs something (Properties.Get and GetAll,
 * Introspect, GetCounters, GetAllCounters, ResolveAddress), rationed per user. A bus filter
 * takes them before the vtables: GetAll's interface name is checked first
 * (one longer than any valid one is refused, quoting none of it; Get's and
 * Set's names are checked where no object took them, bus-objects.c's
 * on_unknown(), off a Get's path); root's calls
 * go on at once; the others wait in the one call scheduler
 * (call-scheduler.h) and are dispatched again (sd_bus_enqueue_for_read())
 * one at a time, only when nothing else of the bus waits to be read and
 * little waits to be written, the user served least recently first, and a
 * user's replies rationed in bytes per second. So a flood of one user
 * delays that user, not root, and not the other users more than by their
 * turn. The size of a reply is estimated (the cost callback) before it is
 * built; what is charged is that estimate. */

/* Calls held per connection, per user over all its connections, connections. */
#define RATION_CALLS_PER_CONNECTION_MAX 16
#define RATION_CALLS_PER_USER_MAX       64
#define RATION_CALLERS_MAX              1024
/* A held call not dispatched by then is answered Busy (before the 25 s of clients). */
#define RATION_WAIT_MAX_USEC (20 * USEC_PER_SEC)
/* Reply bytes one user (root excepted) may be sent, per second and at once. */
#define RATION_BYTES_PER_SEC (4u * 1024 * 1024)
#define RATION_BYTES_BURST   (8u * 1024 * 1024)
/* Messages queued for the bus above which nothing more is dispatched. */
#define RATION_WRITE_QUEUE_MAX 4

/* A call refused by the bounds per connection, per user or of connections
 * is answered Busy only after this, held meanwhile (at most
 * RATION_REFUSED_MAX calls; beyond, at once): a caller that calls again for
 * each refusal would otherwise keep rdmad's incoming queue full of calls to
 * refuse, and root's calls would wait behind them. */
#define RATION_REFUSE_DELAY_USEC (1 * USEC_PER_SEC)
#define RATION_REFUSED_MAX       8192

/* The estimated size of the reply to `call`. */
typedef uint64_t (*RationCost)(sd_bus_message *call, void *userdata);

typedef struct RefusedCall {
        sd_bus_message *message;
        int error;
        uint64_t usec; /* when it was refused */
} RefusedCall;

typedef struct BusRation {
        sd_bus *bus;              /* not owned */
        CallerRegistry *registry; /* not owned */
        const char *root;         /* the calls to objects under it */
        RationCost cost;
        void *userdata;

        CallScheduler scheduler;
        sd_bus_slot *filter;
        sd_event_source *dispatch_event; /* one held call again, when the bus is idle */
        sd_event_source *post_event;     /* ... looked at after each dispatch while held back */
        sd_event_source *wake_event;     /* expiry, and when a user's debt is paid down */

        /* Refused, answered at refused[i].usec + RATION_REFUSE_DELAY_USEC; a ring in arrival order. */
        RefusedCall *refused;
        size_t refused_head, n_refused;
        sd_event_source *refuse_event;

        /* Dispatched again: they pass the filter once. */
        HeldCalls admitted;
} BusRation;

int bus_ration_start(BusRation *r, sd_bus *bus, sd_event *event, const char *root, CallerRegistry *registry,
                     RationCost cost, void *userdata);

/* The caller left the bus: its held calls go unanswered. */
void bus_ration_drop_sender(BusRation *r, const char *sender);

/* On SIGTERM: held calls fail with org.rdmad1.Error.Failed and `reason`. */
void bus_ration_fail_all(BusRation *r, const char *reason);

/* At exit: held calls are dropped unanswered. */
void bus_ration_clear(BusRation *r);
