/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "basic/list.h"

/* Which held call of a costly method is answered next, with no bus and no
 * event loop: the owner queues calls (an opaque pointer, the sender's unique
 * name, its uid), asks which one to serve, says when it was answered, and
 * answers Busy what the scheduler expires. Time comes from an injected clock,
 * so the policy can be tested without waiting.
 *
 * The policy: one call at a time is served. Root's calls come first, in
 * arrival order. The others take turns by user, the user served longest ago
 * first, so a user with many connections gets no more turns than one with
 * one; a connection served goes to the back of the queue. A connection holds
 * at most calls_max calls (the served one included), at most callers_max
 * connections hold calls, and a call not served within wait_max_usec is
 * expired. Answers to users other than root may keep the one connection they
 * leave by busy at most share_percent of the time: after one has taken t to
 * leave, the next unprivileged call is not served before
 * t * (100 - share) / share has passed, and never later than pause_max_usec
 * (when set): the share recovers in bounded time, whatever one reply cost.
 *
 * Optional bounds: a user holds at most uid_calls_max calls over all its
 * connections; and replies to a user other than root are rationed in bytes
 * (the owner says what a served call cost, call_scheduler_charge()): a user
 * whose debt exceeds uid_bytes_burst is not served until it is paid down
 * at uid_bytes_per_sec. */

#define UID_UNKNOWN ((uid_t) -1)

typedef uint64_t (*CallSchedulerClock)(void *userdata);
typedef void (*CallSchedulerFree)(void *call);
/* A call leaving the queue unanswered by its owner (expired, its sender
 * gone); freed with the free callback right after. */
typedef void (*CallSchedulerVisit)(void *call, const char *sender, uint64_t arrived_usec, void *userdata);

typedef struct CallSchedulerLimits {
        unsigned calls_max;         /* per connection, the one served included */
        unsigned callers_max;       /* connections with calls held */
        uint64_t wait_max_usec;     /* a call waiting this long is expired */
        unsigned share_percent;     /* 1..100 */
        uint64_t pause_usec;        /* when > 0: this pause after an unprivileged answer, whatever it took */
        uint64_t pause_max_usec;    /* when > 0: the longest pause the share gives */
        unsigned uid_calls_max;     /* when > 0: per user over all its connections */
        uint64_t uid_bytes_per_sec; /* when > 0: what a user's debt is paid down by */
        uint64_t uid_bytes_burst;   /* the debt a user may have and still be served */
} CallSchedulerLimits;

/* Whether an unprivileged call may be served now; root's may always be. */
typedef enum CallSchedulerShare {
        CALL_SCHEDULER_SHARE_OPEN,
        CALL_SCHEDULER_SHARE_DRAINING, /* an unprivileged answer is leaving: what it costs is not known yet */
        CALL_SCHEDULER_SHARE_PAUSED,   /* it has left: the others wait until not_before */
} CallSchedulerShare;

typedef struct CallSchedulerCaller CallSchedulerCaller;

/* When each user with calls held was last served. */
typedef struct CallSchedulerTurn {
        uid_t uid;
        uint64_t served; /* a counter: larger is more recent */
        uint64_t debt;   /* bytes, as of debt_usec */
        uint64_t debt_usec;
} CallSchedulerTurn;

typedef struct CallScheduler {
        CallSchedulerLimits limits;
        CallSchedulerClock clock;
        void *clock_userdata;
        CallSchedulerFree free_call;

        CallSchedulerCaller *callers, *callers_tail; /* arrival order, a connection served to the back */
        unsigned n_callers;
        CallSchedulerCaller *current; /* the connection whose first call is served; NULL: none */

        CallSchedulerTurn *turns;
        size_t n_turns, allocated_turns;
        uint64_t turn_counter;

        CallSchedulerShare share;
        uint64_t drain_started_usec;
        uint64_t not_before_usec;
} CallScheduler;

/* clock NULL: CLOCK_MONOTONIC. free_call NULL: calls are not the scheduler's to free. */
void call_scheduler_init(CallScheduler *s, const CallSchedulerLimits *limits, CallSchedulerClock clock,
                         void *clock_userdata, CallSchedulerFree free_call);
/* Every held call is freed unanswered. */
void call_scheduler_clear(CallScheduler *s);

/* Queues `call` of `sender`. The uid of a connection's first call counts:
 * the next ones may pass UID_UNKNOWN. The scheduler owns the call on success.
 * -EINVAL: UID_UNKNOWN for a connection holding no calls; -EUSERS:
 * callers_max connections hold calls already; -EBUSY: this one holds
 * calls_max; -EDQUOT: its user holds uid_calls_max; -ENOMEM. */
int call_scheduler_enqueue(CallScheduler *s, void *call, const char *sender, uid_t uid);
bool call_scheduler_has_sender(const CallScheduler *s, const char *sender);
unsigned call_scheduler_n_callers(const CallScheduler *s);

/* The call being served, or the next one to serve (then being served), or
 * NULL when none may be now: when unprivileged calls wait for the share,
 * *ret_wake_usec is when to ask again (0: when call_scheduler_drained() says
 * so, or a call is queued). */
void *call_scheduler_next(CallScheduler *s, uint64_t *ret_wake_usec);
void *call_scheduler_current(const CallScheduler *s);
const char *call_scheduler_current_sender(const CallScheduler *s);

/* The call being served was answered and is freed; `sent`: with a reply that
 * now leaves, whose time counts against the share if unprivileged. */
void call_scheduler_done(CallScheduler *s, bool sent);

/* A call of `uid` was served with a reply of about `bytes` (root's are not rationed). */
void call_scheduler_charge(CallScheduler *s, uid_t uid, uint64_t bytes);

/* An unprivileged answer is leaving (call_scheduler_done() with sent). */
bool call_scheduler_draining(const CallScheduler *s);
/* ... and has left: returns how long from now the next unprivileged call
 * waits; *ret_busy_usec: how long it took to leave. */
uint64_t call_scheduler_drained(CallScheduler *s, uint64_t *ret_busy_usec);

/* Calls that waited wait_max_usec or longer, the one served excepted, are
 * handed to `visit` (the queue as it was: n_callers counts their sender) and
 * freed. Returns how many. */
unsigned call_scheduler_expire(CallScheduler *s, CallSchedulerVisit visit, void *userdata);

/* The sender left: its calls, the one served included, are handed to
 * `visit` (may be NULL) and freed. Returns how many; *ret_was_current: one
 * of them was being served. */
unsigned call_scheduler_drop_sender(CallScheduler *s, const char *sender, CallSchedulerVisit visit, void *userdata,
                                    bool *ret_was_current);

/* Every held call, the one served included, is handed to `visit` and freed. Returns how many. */
unsigned call_scheduler_drop_all(CallScheduler *s, CallSchedulerVisit visit, void *userdata);
