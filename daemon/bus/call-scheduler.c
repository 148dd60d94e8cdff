/* SPDX-License-Identifier: MIT */
#include "call-scheduler.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/time-util.h"
#include "basic/util.h"

typedef struct ScheduledCall {
        void *call;
        uint64_t arrived_usec;
} ScheduledCall;

struct CallSchedulerCaller {
        LIST_FIELDS(CallSchedulerCaller, callers);
        char *sender;
        uid_t uid;
        unsigned n_calls;
        ScheduledCall calls[]; /* limits.calls_max, in arrival order; calls[0] is the one served */
};

static uint64_t scheduler_now(const CallScheduler *s) {
        return s->clock ? s->clock(s->clock_userdata) : now_usec(CLOCK_MONOTONIC);
}

static bool caller_privileged(const CallSchedulerCaller *c) {
        return c->uid == 0;
}

static void scheduler_free_call(CallScheduler *s, CallSchedulerCaller *c, unsigned i) {
        if (s->free_call)
                s->free_call(c->calls[i].call);
        c->n_calls--;
        memmove(c->calls + i, c->calls + i + 1, (c->n_calls - i) * sizeof(c->calls[0]));
}

static CallSchedulerCaller *caller_find(const CallScheduler *s, const char *sender) {
        CallSchedulerCaller *head = s->callers; /* LIST_FOREACH's cursor takes the head's type */

        LIST_FOREACH(callers, c, head)
                if (streq(c->sender, sender))
                        return c;
        return NULL;
}

/* ---------- whose turn ---------- */

static CallSchedulerTurn *turn_find(CallScheduler *s, uid_t uid) {
        for (size_t i = 0; i < s->n_turns; i++)
                if (s->turns[i].uid == uid)
                        return &s->turns[i];
        return NULL;
}

static CallSchedulerTurn *turn_get(CallScheduler *s, uid_t uid) {
        CallSchedulerTurn *t = turn_find(s, uid);

        if (!t) {
                if (ARRAY_RESERVE(s->turns, s->allocated_turns, s->n_turns + 1) < 0)
                        return NULL;
                t = &s->turns[s->n_turns++];
                *t = (CallSchedulerTurn){ .uid = uid };
        }
        return t;
}

/* The debt of t, paid down to `now`. */
static uint64_t turn_debt(const CallScheduler *s, CallSchedulerTurn *t, uint64_t now) {
        uint64_t paid;

        if (s->limits.uid_bytes_per_sec == 0)
                return 0;
        if (now > t->debt_usec) {
                paid = (now - t->debt_usec) * s->limits.uid_bytes_per_sec / USEC_PER_SEC;
                t->debt = t->debt > paid ? t->debt - paid : 0;
        }
        t->debt_usec = now;
        return t->debt;
}

void call_scheduler_charge(CallScheduler *s, uid_t uid, uint64_t bytes) {
        CallSchedulerTurn *t;

        assert(s);
        if (uid == 0 || s->limits.uid_bytes_per_sec == 0)
                return;
        t = turn_get(s, uid);
        if (!t)
                return;
        (void) turn_debt(s, t, scheduler_now(s));
        t->debt += bytes;
}

/* The calls held of uid's connections. */
static unsigned uid_calls(CallScheduler *s, uid_t uid) {
        unsigned n = 0;

        LIST_FOREACH(callers, c, s->callers)
                if (c->uid == uid)
                        n += c->n_calls;
        return n;
}

/* A user with no calls left and nothing owed starts afresh: the table holds only those. */
static void turn_forget_idle(CallScheduler *s) {
        uint64_t now = scheduler_now(s);

        for (size_t i = 0; i < s->n_turns;)
                if (turn_debt(s, &s->turns[i], now) > 0 || uid_calls(s, s->turns[i].uid) > 0)
                        i++;
                else
                        s->turns[i] = s->turns[--s->n_turns];
}

static void caller_remove(CallScheduler *s, CallSchedulerCaller *c) {
        if (s->current == c)
                s->current = NULL;
        LIST_REMOVE_TAIL(callers, s->callers, s->callers_tail, c);
        for (unsigned i = c->n_calls; i > 0; i--)
                scheduler_free_call(s, c, i - 1);
        free(c->sender);
        free(c);
        s->n_callers--;
        turn_forget_idle(s);
}

/* ---------- the queue ---------- */

void call_scheduler_init(CallScheduler *s, const CallSchedulerLimits *limits, CallSchedulerClock clock,
                         void *clock_userdata, CallSchedulerFree free_call) {
        assert(s);
        assert(limits);
        assert(limits->calls_max > 0);
        assert(limits->share_percent >= 1 && limits->share_percent <= 100);

        *s = (CallScheduler){
                .limits = *limits,
                .clock = clock,
                .clock_userdata = clock_userdata,
                .free_call = free_call,
        };
}

void call_scheduler_clear(CallScheduler *s) {
        assert(s);

        LIST_FOREACH_SAFE(callers, c, n, s->callers)
                caller_remove(s, c);
        s->turns = mfree(s->turns);
        s->n_turns = s->allocated_turns = 0;
}

int call_scheduler_enqueue(CallScheduler *s, void *call, const char *sender, uid_t uid) {
        CallSchedulerCaller *c;

        assert(s);
        assert(sender);

        c = caller_find(s, sender);
        if (c)
                uid = c->uid;
        else if (uid == UID_UNKNOWN)
                return -EINVAL;
        if (s->limits.uid_calls_max > 0 && uid != 0 && uid_calls(s, uid) >= s->limits.uid_calls_max)
                return -EDQUOT;
        if (!c) {
                if (s->n_callers >= s->limits.callers_max)
                        return -EUSERS;
                c = calloc(1, offsetof(CallSchedulerCaller, calls) + s->limits.calls_max * sizeof(ScheduledCall));
                if (!c)
                        return -ENOMEM;
                c->sender = strdup(sender);
                if (!c->sender) {
                        free(c);
                        return -ENOMEM;
                }
                c->uid = uid;
                LIST_APPEND(callers, s->callers, s->callers_tail, c);
                s->n_callers++;
        } else if (c->n_calls >= s->limits.calls_max)
                return -EBUSY;

        c->calls[c->n_calls++] = (ScheduledCall){
                .call = call,
                .arrived_usec = scheduler_now(s),
        };
        return 0;
}

bool call_scheduler_has_sender(const CallScheduler *s, const char *sender) {
        assert(s);
        return caller_find(s, sender);
}

unsigned call_scheduler_n_callers(const CallScheduler *s) {
        assert(s);
        return s->n_callers;
}

/* ---------- serving ---------- */

/* Root first, in arrival order; then, while the share allows, the user
 * served longest ago, the first to arrive of its connections. */
static CallSchedulerCaller *pick(CallScheduler *s, uint64_t *ret_wake_usec) {
        CallSchedulerCaller *best = NULL;
        uint64_t best_served = UINT64_MAX;

        *ret_wake_usec = 0;
        LIST_FOREACH(callers, c, s->callers)
                if (caller_privileged(c))
                        return c;

        if (s->share == CALL_SCHEDULER_SHARE_DRAINING)
                return NULL;
        if (s->share == CALL_SCHEDULER_SHARE_PAUSED) {
                if (scheduler_now(s) < s->not_before_usec) {
                        *ret_wake_usec = s->not_before_usec;
                        return NULL;
                }
                s->share = CALL_SCHEDULER_SHARE_OPEN;
        }

        LIST_FOREACH(callers, c, s->callers) {
                CallSchedulerTurn *t;
                uint64_t served, now;

                t = turn_find(s, c->uid);
                /* Owing more than the burst: not before the debt is paid down to it. */
                if (t && s->limits.uid_bytes_per_sec > 0 &&
                    turn_debt(s, t, now = scheduler_now(s)) > s->limits.uid_bytes_burst) {
                        uint64_t at =
                                now +
                                (t->debt - s->limits.uid_bytes_burst) * USEC_PER_SEC / s->limits.uid_bytes_per_sec + 1;

                        if (*ret_wake_usec == 0 || at < *ret_wake_usec)
                                *ret_wake_usec = at;
                        continue;
                }
                /* When it was last served: 0 for never, or not since its calls were all answered. */
                served = t ? t->served : 0;
                if (served < best_served) {
                        best = c;
                        best_served = served;
                }
        }
        if (best)
                *ret_wake_usec = 0;
        return best;
}

void *call_scheduler_next(CallScheduler *s, uint64_t *ret_wake_usec) {
        uint64_t wake = 0;

        assert(s);

        if (!s->current)
                s->current = pick(s, &wake);
        if (ret_wake_usec)
                *ret_wake_usec = wake;
        return call_scheduler_current(s);
}

void *call_scheduler_current(const CallScheduler *s) {
        assert(s);
        return s->current ? s->current->calls[0].call : NULL;
}

const char *call_scheduler_current_sender(const CallScheduler *s) {
        assert(s);
        return s->current ? s->current->sender : NULL;
}

void call_scheduler_done(CallScheduler *s, bool sent) {
        CallSchedulerCaller *c;

        assert(s);
        assert(s->current);

        c = TAKE_PTR(s->current);
        if (!caller_privileged(c)) {
                CallSchedulerTurn *t = turn_get(s, c->uid);

                if (sent) {
                        s->share = CALL_SCHEDULER_SHARE_DRAINING;
                        s->drain_started_usec = scheduler_now(s);
                }
                if (t) /* else it keeps its place: fairness, not correctness */
                        t->served = ++s->turn_counter;
        }

        scheduler_free_call(s, c, 0);
        if (c->n_calls == 0)
                caller_remove(s, c);
        else {
                LIST_REMOVE_TAIL(callers, s->callers, s->callers_tail, c);
                LIST_APPEND(callers, s->callers, s->callers_tail, c);
        }
}

bool call_scheduler_draining(const CallScheduler *s) {
        assert(s);
        return s->share == CALL_SCHEDULER_SHARE_DRAINING;
}

uint64_t call_scheduler_drained(CallScheduler *s, uint64_t *ret_busy_usec) {
        uint64_t now, busy, pause;
        unsigned share;

        assert(s);
        assert(s->share == CALL_SCHEDULER_SHARE_DRAINING);

        now = scheduler_now(s);
        busy = now - s->drain_started_usec;
        share = s->limits.share_percent;
        pause = s->limits.pause_usec ?: busy * (100 - share) / share;
        if (!s->limits.pause_usec && s->limits.pause_max_usec > 0 && pause > s->limits.pause_max_usec)
                pause = s->limits.pause_max_usec;
        s->not_before_usec = now + pause;
        s->share = CALL_SCHEDULER_SHARE_PAUSED;
        if (ret_busy_usec)
                *ret_busy_usec = busy;
        return pause;
}

unsigned call_scheduler_expire(CallScheduler *s, CallSchedulerVisit visit, void *userdata) {
        uint64_t now;
        unsigned n = 0;

        assert(s);

        now = scheduler_now(s);
        LIST_FOREACH_SAFE(callers, c, next, s->callers) {
                /* The call served is answered by its owner. */
                for (unsigned i = c == s->current ? 1 : 0; i < c->n_calls;) {
                        if (now < c->calls[i].arrived_usec + s->limits.wait_max_usec) {
                                i++;
                                continue;
                        }
                        if (visit)
                                visit(c->calls[i].call, c->sender, c->calls[i].arrived_usec, userdata);
                        scheduler_free_call(s, c, i);
                        n++;
                }
                if (c->n_calls == 0)
                        caller_remove(s, c);
        }
        return n;
}

/* c's calls, handed to `visit` first (NULL: dropped unanswered), and c: how many. */
static unsigned caller_drop(CallScheduler *s, CallSchedulerCaller *c, CallSchedulerVisit visit, void *userdata) {
        unsigned n = c->n_calls;

        for (unsigned i = 0; visit && i < n; i++)
                visit(c->calls[i].call, c->sender, c->calls[i].arrived_usec, userdata);
        caller_remove(s, c);
        return n;
}

unsigned call_scheduler_drop_sender(CallScheduler *s, const char *sender, CallSchedulerVisit visit, void *userdata,
                                    bool *ret_was_current) {
        CallSchedulerCaller *c;

        assert(s);
        assert(sender);

        c = caller_find(s, sender);
        if (ret_was_current)
                *ret_was_current = c && c == s->current;
        return c ? caller_drop(s, c, visit, userdata) : 0;
}

unsigned call_scheduler_drop_all(CallScheduler *s, CallSchedulerVisit visit, void *userdata) {
        unsigned n = 0;

        assert(s);

        LIST_FOREACH_SAFE(callers, c, next, s->callers)
                n += caller_drop(s, c, visit, userdata);
        return n;
}
