/* SPDX-License-Identifier: MIT */
/* The scheduler of costly calls on its own: whose call is served next, the
 * unprivileged share timed by a fake clock, the wait bound, the caps, and a
 * sender leaving, with plain integers for calls. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "basic/util.h"
#include "call-scheduler.h"

#define SEC 1000000ULL

typedef struct Fixture {
        CallScheduler s;
        uint64_t now;
        int calls[32]; /* calls[i] is call i; its value counts how often it was freed */
        unsigned n_freed;
        unsigned n_visited;
        unsigned visited_n_callers;
} Fixture;

static Fixture *fixture; /* for free_call, which gets only the call */

static uint64_t fake_clock(void *userdata) {
        Fixture *f = userdata;
        return f->now;
}

static void free_call(void *call) {
        (*(int *) call)++;
        fixture->n_freed++;
}

static void visit(void *call, const char *sender, uint64_t arrived_usec, void *userdata) {
        Fixture *f = userdata;

        assert_int_equal(*(int *) call, 0); /* not freed yet */
        f->n_visited++;
        f->visited_n_callers = call_scheduler_n_callers(&f->s);
}

static void start(Fixture *f, unsigned share_percent, uint64_t pause_usec) {
        CallSchedulerLimits limits = {
                .calls_max = 4,
                .callers_max = 4,
                .wait_max_usec = 20 * SEC,
                .share_percent = share_percent,
                .pause_usec = pause_usec,
        };

        call_scheduler_init(&f->s, &limits, fake_clock, f, free_call);
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));

        assert_non_null(f);
        f->now = 1000 * SEC;
        fixture = f;
        /* Every answer is free: the share never holds a call back unless a test says so. */
        start(f, 100, 0);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        call_scheduler_clear(&f->s);
        assert_int_equal(call_scheduler_n_callers(&f->s), 0);
        /* Each call queued was freed exactly once. */
        for (size_t i = 0; i < ELEMENTSOF(f->calls); i++)
                assert_in_range(f->calls[i], 0, 1);
        free(f);
        fixture = NULL;
        return 0;
}

static void enqueue(Fixture *f, unsigned call, const char *sender, uid_t uid) {
        assert_int_equal(call_scheduler_enqueue(&f->s, &f->calls[call], sender, uid), 0);
}

/* The call served next, answered without a reply that counts against the share. */
static int serve(Fixture *f) {
        int *call = call_scheduler_next(&f->s, NULL);

        assert_non_null(call);
        call_scheduler_done(&f->s, false);
        return (int) (call - f->calls);
}

static void test_root_first(void **state) {
        Fixture *f = *state;

        enqueue(f, 0, ":1.1", 1000);
        enqueue(f, 1, ":1.2", 1001);
        enqueue(f, 2, ":1.3", 0);
        enqueue(f, 3, ":1.3", 0);
        assert_int_equal(serve(f), 2);
        assert_int_equal(serve(f), 3);
        assert_int_equal(serve(f), 0);
        /* Root again, queued behind someone waiting. */
        enqueue(f, 4, ":1.4", 0);
        assert_int_equal(serve(f), 4);
        assert_int_equal(serve(f), 1);
        assert_null(call_scheduler_next(&f->s, NULL));
}

static void test_one_call_per_connection(void **state) {
        Fixture *f = *state;
        int *call;

        enqueue(f, 0, ":1.1", 1000);
        enqueue(f, 1, ":1.1", 1000);
        call = call_scheduler_next(&f->s, NULL);
        assert_ptr_equal(call, &f->calls[0]);
        /* Asking again while it is served gives the same call. */
        assert_ptr_equal(call_scheduler_next(&f->s, NULL), call);
        assert_ptr_equal(call_scheduler_current(&f->s), call);
        assert_string_equal(call_scheduler_current_sender(&f->s), ":1.1");
        call_scheduler_done(&f->s, false);
        assert_int_equal(f->calls[0], 1);
        assert_int_equal(serve(f), 1);
        assert_int_equal(call_scheduler_n_callers(&f->s), 0);
}

/* A user with three connections gets no more turns than a user with one. */
static void test_turns_by_user(void **state) {
        Fixture *f = *state;
        unsigned turns[2] = {};

        enqueue(f, 0, ":1.1", 1000);
        enqueue(f, 1, ":1.1", 1000);
        enqueue(f, 2, ":1.2", 1000);
        enqueue(f, 3, ":1.2", 1000);
        enqueue(f, 4, ":1.3", 1000);
        enqueue(f, 5, ":1.3", 1000);
        enqueue(f, 10, ":1.9", 2000);
        enqueue(f, 11, ":1.9", 2000);
        enqueue(f, 12, ":1.9", 2000);
        enqueue(f, 13, ":1.9", 2000);

        /* While both wait, they alternate. */
        for (unsigned i = 0; i < 8; i++) {
                int call = serve(f);
                unsigned user = call >= 10;

                turns[user]++;
                assert_true(turns[user] <= turns[!user] + 1);
        }
        assert_int_equal(turns[0], 4);
        assert_int_equal(turns[1], 4);
        /* The rest are the first user's. */
        assert_true(serve(f) < 10);
        assert_true(serve(f) < 10);
        assert_null(call_scheduler_next(&f->s, NULL));
}

/* A connection's first call says whose it is; the next ones may not know. */
static void test_uid_of_first_call(void **state) {
        Fixture *f = *state;
        CallSchedulerLimits limits = f->s.limits;

        limits.uid_calls_max = 3;
        call_scheduler_init(&f->s, &limits, fake_clock, f, free_call);
        assert_int_equal(call_scheduler_enqueue(&f->s, &f->calls[0], ":1.1", UID_UNKNOWN), -EINVAL);
        assert_int_equal(f->calls[0], 0);
        enqueue(f, 1, ":1.2", 1000);
        enqueue(f, 2, ":1.1", 0);
        enqueue(f, 3, ":1.1", UID_UNKNOWN);
        enqueue(f, 4, ":1.2", UID_UNKNOWN);
        enqueue(f, 5, ":1.3", 1000);
        /* Counted as user 1000's: the fourth is refused. */
        assert_int_equal(call_scheduler_enqueue(&f->s, &f->calls[6], ":1.2", UID_UNKNOWN), -EDQUOT);
        /* Both of root's connection first, then user 1000's. */
        assert_int_equal(serve(f), 2);
        assert_int_equal(serve(f), 3);
        assert_int_equal(serve(f), 1);
}

/* After an unprivileged reply took t to leave, the next waits t * 90 / 10. */
static void test_share_delay(void **state) {
        Fixture *f = *state;
        uint64_t wake = 1, busy = 0, pause;

        start(f, 10, 0);
        enqueue(f, 0, ":1.1", 1000);
        enqueue(f, 1, ":1.2", 1001);

        assert_ptr_equal(call_scheduler_next(&f->s, &wake), &f->calls[0]);
        assert_int_equal(wake, 0);
        call_scheduler_done(&f->s, true);
        assert_true(call_scheduler_draining(&f->s));

        /* Leaving: what it costs is not known yet. */
        f->now += 300 * 1000;
        assert_null(call_scheduler_next(&f->s, &wake));
        assert_int_equal(wake, 0);

        /* Root is served meanwhile. */
        enqueue(f, 2, ":1.3", 0);
        assert_int_equal(serve(f), 2);

        f->now += 200 * 1000;
        pause = call_scheduler_drained(&f->s, &busy);
        assert_int_equal(busy, 500 * 1000);
        assert_int_equal(pause, 4500 * 1000);
        assert_false(call_scheduler_draining(&f->s));

        f->now += pause - 1;
        assert_null(call_scheduler_next(&f->s, &wake));
        assert_int_equal(wake, f->now + 1);
        f->now += 1;
        assert_ptr_equal(call_scheduler_next(&f->s, &wake), &f->calls[1]);
        /* An error answer sends nothing that takes time to leave. */
        call_scheduler_done(&f->s, false);
        assert_false(call_scheduler_draining(&f->s));
}

/* A reply that took minutes to leave pauses the others seconds at most. */
static void test_share_pause_bounded(void **state) {
        Fixture *f = *state;
        CallSchedulerLimits limits = f->s.limits;
        uint64_t busy = 0;

        limits.share_percent = 10;
        limits.pause_max_usec = 2 * SEC;
        call_scheduler_init(&f->s, &limits, fake_clock, f, free_call);
        enqueue(f, 0, ":1.1", 1000);
        assert_ptr_equal(call_scheduler_next(&f->s, NULL), &f->calls[0]);
        call_scheduler_done(&f->s, true);
        f->now += 60 * SEC;
        assert_int_equal(call_scheduler_drained(&f->s, &busy), 2 * SEC);
        assert_int_equal(busy, 60 * SEC);
}

/* Calls per user over all its connections; root is not counted. */
static void test_calls_per_user(void **state) {
        Fixture *f = *state;
        CallSchedulerLimits limits = f->s.limits;

        limits.uid_calls_max = 3;
        call_scheduler_init(&f->s, &limits, fake_clock, f, free_call);
        enqueue(f, 0, ":1.1", 1000);
        enqueue(f, 1, ":1.1", 1000);
        enqueue(f, 2, ":1.2", 1000);
        assert_int_equal(call_scheduler_enqueue(&f->s, &f->calls[3], ":1.3", 1000), -EDQUOT);
        enqueue(f, 3, ":1.3", 1001);
        enqueue(f, 4, ":1.4", 0);
        enqueue(f, 5, ":1.4", 0);
        enqueue(f, 6, ":1.4", 0);
        enqueue(f, 7, ":1.4", 0);
}

/* A user owing more than the burst waits until its debt is paid down; the
 * other user and root are served meanwhile. */
static void test_bytes_per_user(void **state) {
        Fixture *f = *state;
        CallSchedulerLimits limits = f->s.limits;
        uint64_t wake = 0;

        limits.uid_bytes_per_sec = 1000;
        limits.uid_bytes_burst = 500;
        call_scheduler_init(&f->s, &limits, fake_clock, f, free_call);
        enqueue(f, 0, ":1.1", 1000);
        enqueue(f, 1, ":1.1", 1000);
        assert_int_equal(serve(f), 0);
        call_scheduler_charge(&f->s, 1000, 1500);
        call_scheduler_charge(&f->s, 0, 1000000); /* root: not rationed */
        assert_null(call_scheduler_next(&f->s, &wake));
        assert_int_equal(wake, f->now + SEC + 1);
        enqueue(f, 2, ":1.2", 1001);
        enqueue(f, 3, ":1.3", 0);
        assert_int_equal(serve(f), 3);
        assert_int_equal(serve(f), 2);
        f->now += SEC + 1;
        assert_int_equal(serve(f), 1);
}

/* Root's replies do not count against the share; a fixed pause replaces it. */
static void test_share_root_and_pause(void **state) {
        Fixture *f = *state;
        uint64_t busy;

        start(f, 10, 2 * SEC);
        enqueue(f, 0, ":1.1", 0);
        assert_ptr_equal(call_scheduler_next(&f->s, NULL), &f->calls[0]);
        call_scheduler_done(&f->s, true);
        assert_false(call_scheduler_draining(&f->s));

        enqueue(f, 1, ":1.2", 1000);
        assert_ptr_equal(call_scheduler_next(&f->s, NULL), &f->calls[1]);
        call_scheduler_done(&f->s, true);
        f->now += 7 * SEC;
        assert_int_equal(call_scheduler_drained(&f->s, &busy), 2 * SEC);
        assert_int_equal(busy, 7 * SEC);
}

static void test_wait_bound(void **state) {
        Fixture *f = *state;

        enqueue(f, 0, ":1.1", 1000);
        enqueue(f, 1, ":1.1", 1000);
        assert_ptr_equal(call_scheduler_next(&f->s, NULL), &f->calls[0]);
        f->now += SEC;
        enqueue(f, 2, ":1.2", 1001);

        f->now += 19 * SEC - 1;
        assert_int_equal(call_scheduler_expire(&f->s, visit, f), 0);
        /* 20 s: the call waiting behind the one served goes, not the one served. */
        f->now += 1;
        assert_int_equal(call_scheduler_expire(&f->s, visit, f), 1);
        assert_int_equal(f->calls[1], 1);
        assert_int_equal(f->calls[0], 0);
        assert_int_equal(f->visited_n_callers, 2);
        assert_ptr_equal(call_scheduler_current(&f->s), &f->calls[0]);

        f->now += SEC;
        assert_int_equal(call_scheduler_expire(&f->s, visit, f), 1);
        assert_int_equal(f->calls[2], 1);
        assert_int_equal(f->visited_n_callers, 2); /* counted with its sender */
        assert_int_equal(call_scheduler_n_callers(&f->s), 1);
        assert_false(call_scheduler_has_sender(&f->s, ":1.2"));

        /* The one served is its owner's to answer, however long it takes. */
        f->now += 100 * SEC;
        assert_int_equal(call_scheduler_expire(&f->s, visit, f), 0);
        call_scheduler_done(&f->s, false);
        assert_int_equal(f->n_visited, 2);
        assert_int_equal(f->n_freed, 3);
}

static void test_caps(void **state) {
        Fixture *f = *state;

        for (unsigned i = 0; i < 4; i++)
                enqueue(f, i, ":1.1", 1000);
        assert_int_equal(call_scheduler_enqueue(&f->s, &f->calls[4], ":1.1", 1000), -EBUSY);
        enqueue(f, 5, ":1.2", 1000);
        enqueue(f, 6, ":1.3", 1000);
        enqueue(f, 10, ":1.4", 1000);
        assert_int_equal(call_scheduler_enqueue(&f->s, &f->calls[7], ":1.5", 0), -EUSERS);
        /* Refused calls stay the caller's. */
        assert_int_equal(f->calls[4], 0);
        assert_int_equal(f->calls[7], 0);
        /* A connection already queued may still add to its own. */
        enqueue(f, 8, ":1.2", 1000);
        assert_int_equal(call_scheduler_n_callers(&f->s), 4);

        /* The one served counts: room again only once it is answered. */
        assert_int_equal(serve(f), 0);
        enqueue(f, 9, ":1.1", 1000);
}

static void test_drop_sender_queued(void **state) {
        Fixture *f = *state;
        bool was_current = true;

        enqueue(f, 0, ":1.1", 1000);
        enqueue(f, 1, ":1.2", 1001);
        enqueue(f, 2, ":1.2", 1001);
        enqueue(f, 3, ":1.3", 1002);
        assert_int_equal(call_scheduler_drop_sender(&f->s, ":1.2", visit, f, &was_current), 2);
        assert_false(was_current);
        assert_int_equal(f->n_visited, 2);
        assert_int_equal(f->calls[1] + f->calls[2], 2);
        assert_int_equal(call_scheduler_drop_sender(&f->s, ":1.2", NULL, NULL, &was_current), 0);
        assert_int_equal(serve(f), 0);
        assert_int_equal(serve(f), 3);
        assert_int_equal(call_scheduler_n_callers(&f->s), 0);
}

static void test_drop_sender_served(void **state) {
        Fixture *f = *state;
        bool was_current = false;

        enqueue(f, 0, ":1.1", 1000);
        enqueue(f, 1, ":1.1", 1000);
        enqueue(f, 2, ":1.2", 1001);
        assert_ptr_equal(call_scheduler_next(&f->s, NULL), &f->calls[0]);
        assert_int_equal(call_scheduler_drop_sender(&f->s, ":1.1", NULL, NULL, &was_current), 2);
        assert_true(was_current);
        assert_null(call_scheduler_current(&f->s));
        assert_null(call_scheduler_current_sender(&f->s));
        assert_int_equal(f->calls[0] + f->calls[1], 2);
        assert_int_equal(serve(f), 2);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_root_first, setup, teardown),
                cmocka_unit_test_setup_teardown(test_one_call_per_connection, setup, teardown),
                cmocka_unit_test_setup_teardown(test_turns_by_user, setup, teardown),
                cmocka_unit_test_setup_teardown(test_uid_of_first_call, setup, teardown),
                cmocka_unit_test_setup_teardown(test_share_delay, setup, teardown),
                cmocka_unit_test_setup_teardown(test_share_root_and_pause, setup, teardown),
                cmocka_unit_test_setup_teardown(test_share_pause_bounded, setup, teardown),
                cmocka_unit_test_setup_teardown(test_calls_per_user, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bytes_per_user, setup, teardown),
                cmocka_unit_test_setup_teardown(test_wait_bound, setup, teardown),
                cmocka_unit_test_setup_teardown(test_caps, setup, teardown),
                cmocka_unit_test_setup_teardown(test_drop_sender_queued, setup, teardown),
                cmocka_unit_test_setup_teardown(test_drop_sender_served, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
