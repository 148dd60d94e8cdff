/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "basic/list.h"
#include "basic/time-util.h"

/* Who is calling. Limits are per user: the uid the bus daemon vouches for
 * (GetConnectionCredentials, never what a message claims), asked once per
 * unique name without waiting and cached until that name leaves the bus.
 * A call whose caller is not known yet waits here, bounded, and is
 * dispatched again (sd_bus_enqueue_for_read()) once the answer is in: the
 * event loop never waits for the bus daemon, whose answer queues behind
 * whatever the daemon is sending.
 *
 * Lifetimes are per connection: one NameOwnerChanged match for the whole
 * daemon tells when a unique name is gone, and the owner drops everything
 * that caller made it hold. One match rather than an sd_bus_track per
 * caller: the bus allows a connection a few hundred match rules, and a
 * caller must not be able to use them up. That signal can be lost (the bus
 * drops what does not fit in rdmad's queue): while anything is cached the
 * names are asked again (GetNameOwner) every CALLER_REVALIDATE_USEC, and at
 * once when a question to the bus failed, and the names that are gone are
 * dropped as if the signal had come. */

/* Unique names whose uid is cached (callers holding something are among them). */
#define CALLER_CACHE_MAX 4096
/* GetConnectionCredentials questions in flight; more wait their turn. The
 * bus daemon lets a connection wait for 128 replies at a time: these, the
 * polkit checks (POLKIT_QUERIES_MAX) and the re-validation's batch share
 * them. */
#define CALLER_LOOKUPS_MAX 48
/* Calls waiting for their caller's uid, per connection (as many as the
 * largest bound of a method per user, WaitForState's) and in all. */
#define CALLER_PARKED_PER_SENDER_MAX 256
#define CALLER_PARKED_MAX            8192
/* A question the bus daemon has not answered by then fails the calls. */
#define CALLER_LOOKUP_TIMEOUT_USEC (5 * USEC_PER_SEC)
/* The cached names asked again, at most CALLER_REVALIDATE_BATCH at a time. */
#define CALLER_REVALIDATE_USEC  (5 * USEC_PER_SEC)
#define CALLER_REVALIDATE_BATCH 16
/* ... sooner when an answer was lost (each question waits
 * CALLER_LOOKUP_TIMEOUT_USEC at most). */
#define CALLER_REVALIDATE_RETRY_USEC (USEC_PER_SEC / 2)

typedef void (*CallerGone)(const char *sender, void *userdata);

typedef struct CallerUid {
        char *sender;
        uid_t uid;
        pid_t pid; /* 0: not told; for messages only, never for a decision */
} CallerUid;

typedef struct CallerLookup CallerLookup;

typedef struct CallerRegistry {
        CallerUid *uids; /* the cache */
        size_t n_uids, allocated;
        sd_bus *bus;        /* not owned */
        sd_bus_slot *match; /* the filter that reads what the bus-side match brings */
        CallerGone gone;
        void *userdata;

        CallerLookup *lookups;                   /* uids asked, with the calls waiting for them */
        CallerLookup *waiting, *waiting_tail;    /* ... not asked yet, in arrival order */
        unsigned n_lookups, n_waiting, n_parked; /* n_lookups: in flight */

        /* Re-validation: the names of the cache as it was, asked in batches. */
        sd_event_source *revalidate_timer;
        char **sweep;
        size_t n_sweep, sweep_next;
        CallerLookup *checks;
        unsigned n_checks;
        bool sweep_failed; /* a question of this sweep got no answer */
        /* rdmad --ignore-name-owner-changed (set before the start): every
         * NameOwnerChanged is lost, and re-validation alone finds who left. */
        bool ignore_name_owner_changed;
} CallerRegistry;

void caller_registry_init(CallerRegistry *registry, CallerGone gone, void *userdata);

/* Subscribes to NameOwnerChanged on `bus` (start-up: before the name is
 * taken) and adds the re-validation timer to `event`. */
int caller_registry_start(CallerRegistry *registry, sd_bus *bus, sd_event *event);

/* The bus-verified effective uid of the sender of `call` (the peer's on a
 * direct connection): 1 with *ret set when known; 0 when the bus daemon is
 * asked and `call` waits here: the handler returns 1 and runs again with
 * the same message once the answer is in (or the call is answered with an
 * error, or dropped if its caller left). < 0 with `error` set: a bound
 * (org.rdmad1.Error.Busy, naming it) or no memory. */
int caller_resolve_uid(CallerRegistry *registry, sd_bus_message *call, uid_t *ret, sd_bus_error *error);

/* The cached uid of `sender`, without asking anyone: -ENOENT when not known. */
int caller_peek_uid(CallerRegistry *registry, const char *sender, uid_t *ret);
/* "<sender> (uid U, pid P)" from the cache, for the log; caller frees. */
char *caller_describe(CallerRegistry *registry, const char *sender);

/* Asks the cached names again now (a message may have been lost). */
void caller_registry_revalidate(CallerRegistry *registry);

/* At exit: calls waiting for a uid are dropped unanswered. */
void caller_registry_clear(CallerRegistry *registry);
