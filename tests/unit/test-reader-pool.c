/* SPDX-License-Identifier: MIT */
/* The reader pool on its own, with real threads and jobs that block in the
 * kernel (a read of a pipe nobody writes, as a hung firmware command holds
 * a sysfs read): a lane's jobs in order and one at a time, other lanes
 * served while one is stuck, the bound of 8 threads whatever number of
 * lanes hang, a result finished before a job that hangs still reaching
 * the loop, the stuck and unstuck reports, and the start-up wait. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "basic/time-util.h"
#include "basic/util.h"
#include "reader-pool.h"

#define LANES 24

typedef struct Pool {
        sd_event *event;
        ReaderPool *pool;
        int gate[2]; /* a job with .gate reads a byte here first */
        unsigned n_applied, n_stuck, n_unstuck;
        char stuck_reason[512];
        atomic_int running[LANES]; /* jobs of each lane running now */
        atomic_int overlap;        /* a lane ran two jobs at once */
        atomic_int started;
        atomic_uint run_seq; /* jobs taken by a thread so far */
} Pool;

typedef struct Job {
        Pool *pool;
        unsigned lane, seq;
        bool gate;
        unsigned n_reads; /* reads of read_ms each (a slow adapter that answers) */
        unsigned read_ms;
        bool spin;          /* ... spent running, not asleep (a thread starved of the CPU looks the same) */
        unsigned run_index; /* where in the pool's order a thread took it */
        bool applied;
        bool stuck;         /* what apply() was told */
        unsigned *order;    /* apply() appends seq here */
        unsigned *n_order;  /* ... at this index */
        ReaderLane *cancel; /* apply() cancels this lane (its device went) */
} Job;

static void job_run(ReaderLane *lane, void *arg) {
        Job *j = arg;
        Pool *p = j->pool;

        atomic_fetch_add(&p->started, 1);
        j->run_index = atomic_fetch_add(&p->run_seq, 1);
        if (atomic_fetch_add(&p->running[j->lane], 1) != 0)
                atomic_store(&p->overlap, 1);
        if (j->gate) {
                char c, path[128];

                snprintf(path, sizeof(path), "/sys/devices/x/infiniband/lane%u/ports/1/state", j->lane);
                reader_read_begin(AT_FDCWD, path);
                (void) !read(p->gate[0], &c, 1);
                reader_read_end(AT_FDCWD, path, 0);
        } else if (j->n_reads > 0)
                for (unsigned k = 0; k < j->n_reads; k++) {
                        char path[128];
                        uint64_t until = now_usec(CLOCK_MONOTONIC) + j->read_ms * USEC_PER_MSEC;

                        snprintf(path, sizeof(path), "/sys/devices/x/infiniband/lane%u/ports/1/counters/c%u", j->lane,
                                 k);
                        reader_read_begin(AT_FDCWD, path);
                        if (j->spin)
                                while (now_usec(CLOCK_MONOTONIC) < until)
                                        ;
                        else
                                usleep(j->read_ms * 1000);
                        reader_read_end(AT_FDCWD, path, 0);
                }
        else
                usleep(50);
        atomic_fetch_sub(&p->running[j->lane], 1);
}

static void job_apply(void *arg, const ReaderResult *result, void *userdata) {
        Job *j = arg;
        Pool *p = userdata;

        assert_ptr_equal(p, j->pool);
        assert_false(j->applied);
        j->applied = true;
        j->stuck = result->stuck;
        p->n_applied++;
        if (j->cancel)
                reader_lane_cancel(j->cancel, NULL, NULL);
        if (j->order)
                j->order[(*j->n_order)++] = j->seq;
}

static void on_stuck(ReaderLane *lane, const char *reason, void *userdata) {
        Pool *p = userdata;

        p->n_stuck++;
        snprintf(p->stuck_reason, sizeof(p->stuck_reason), "%s %s", reader_lane_name(lane), reason);
}

static void on_unstuck(ReaderLane *lane, void *userdata) {
        ((Pool *) userdata)->n_unstuck++;
}

static const ReaderPoolEvents events = { .stuck = on_stuck, .unstuck = on_unstuck };

static ReaderLane *lanes[LANES];

static int setup(void **state) {
        Pool *p = calloc(1, sizeof(Pool));

        assert_non_null(p);
        assert_int_equal(sd_event_new(&p->event), 0);
        assert_int_equal(reader_pool_new(p->event, 200 * USEC_PER_MSEC, &events, p, &p->pool), 0);
        assert_int_equal(pipe(p->gate), 0);
        for (unsigned i = 0; i < LANES; i++) {
                char name[16];

                snprintf(name, sizeof(name), "lane%u", i);
                lanes[i] = reader_pool_lane(p->pool, name);
                assert_non_null(lanes[i]);
        }
        *state = p;
        return 0;
}

static int teardown(void **state) {
        Pool *p = *state;

        /* Whatever is still blocked lets go: nothing is left behind. */
        for (unsigned i = 0; i < 2 * LANES; i++)
                (void) !write(p->gate[1], "x", 1);
        for (unsigned i = 0; i < LANES; i++)
                lanes[i] = reader_lane_unref(lanes[i]);
        p->pool = reader_pool_free(p->pool);
        sd_event_unref(p->event);
        close(p->gate[0]);
        close(p->gate[1]);
        free(p);
        return 0;
}

static void submit(Pool *p, Job *j) {
        j->pool = p;
        assert_int_equal(reader_pool_submit(p->pool, lanes[j->lane], job_run, job_apply, NULL, j, NULL), 0);
}

static void submit_first(Pool *p, Job *j) {
        j->pool = p;
        assert_int_equal(reader_pool_submit_first(p->pool, lanes[j->lane], job_run, job_apply, NULL, j, NULL), 0);
}

/* Runs the loop until cond holds, for at most 5 s. */
#define RUN_UNTIL(p, cond)                                                                                             \
        do {                                                                                                           \
                uint64_t _deadline = now_usec(CLOCK_MONOTONIC) + 5 * USEC_PER_SEC;                                     \
                while (!(cond)) {                                                                                      \
                        assert_true(now_usec(CLOCK_MONOTONIC) < _deadline);                                            \
                        assert_true(sd_event_run((p)->event, 100 * USEC_PER_MSEC) >= 0);                               \
                }                                                                                                      \
        } while (0)

/* A job that is done, waiting to be applied in the same batch as one
 * whose apply cancels its lane (its device was removed by the first),
 * is not applied: its device is gone, and it may hold a pointer to it. */
static void test_cancel_reaches_the_batch_being_applied(void **state) {
        Pool *p = *state;
        Job first = { .lane = 0, .cancel = lanes[1] }, second = { .lane = 1, .n_reads = 1, .read_ms = 20 };
        uint64_t deadline = now_usec(CLOCK_MONOTONIC) + 5 * USEC_PER_SEC;

        submit(p, &first);
        submit(p, &second);
        /* Both done before the loop dispatches: one batch, first then second. */
        while (atomic_load(&p->started) < 2 || atomic_load(&p->running[0]) > 0 || atomic_load(&p->running[1]) > 0) {
                assert_true(now_usec(CLOCK_MONOTONIC) < deadline);
                usleep(1000);
        }
        usleep(10 * 1000);
        RUN_UNTIL(p, first.applied);
        assert_int_equal(sd_event_run(p->event, 50 * USEC_PER_MSEC) >= 0, 1);
        assert_false(second.applied);
        assert_int_equal(reader_lane_pending(lanes[1]), 0);
        assert_int_equal(p->n_applied, 1);
}

static bool job_is_odd(void *arg, void *userdata) {
        return ((Job *) arg)->seq % 2 == 1;
}

/* A lane's jobs of one object (a netdev that went while its device stays)
 * are cancelled, the running one among them; the others are applied. The
 * first job's result is not held while the next one of its lane blocks. */
static void test_cancel_only_the_matching_jobs(void **state) {
        Pool *p = *state;
        static Job jobs[5];

        for (unsigned k = 0; k < 5; k++) {
                jobs[k] = (Job){ .lane = 0, .seq = k, .gate = k < 2 };
                submit(p, &jobs[k]);
        }
        /* jobs[0] waits at the gate; then jobs[1], running, is cancelled too. */
        RUN_UNTIL(p, atomic_load(&p->started) == 1);
        (void) !write(p->gate[1], "x", 1);
        RUN_UNTIL(p, jobs[0].applied && atomic_load(&p->started) == 2);
        reader_lane_cancel(lanes[0], job_is_odd, NULL);
        assert_int_equal(reader_lane_pending(lanes[0]), 2);
        (void) !write(p->gate[1], "x", 1);
        RUN_UNTIL(p, jobs[2].applied && jobs[4].applied);
        assert_int_equal(sd_event_run(p->event, 50 * USEC_PER_MSEC) >= 0, 1);
        assert_false(jobs[1].applied);
        assert_false(jobs[3].applied);
        assert_int_equal(p->n_applied, 3);
        assert_int_equal(reader_lane_pending(lanes[0]), 0);
}

/* A burst over many lanes: every job applied once, each lane's in the
 * order submitted, never two of one lane at once, within the bound. */
static void test_lanes_in_order_one_at_a_time(void **state) {
        Pool *p = *state;
        enum { PER_LANE = 40 };
        static Job jobs[LANES][PER_LANE];
        unsigned order[LANES][PER_LANE], n_order[LANES] = {};

        for (unsigned k = 0; k < PER_LANE; k++)
                for (unsigned i = 0; i < LANES; i++) {
                        jobs[i][k] = (Job){ .lane = i, .seq = k, .order = order[i], .n_order = &n_order[i] };
                        submit(p, &jobs[i][k]);
                }
        assert_int_equal(reader_lane_pending(lanes[0]), PER_LANE);
        RUN_UNTIL(p, p->n_applied == LANES * PER_LANE);
        for (unsigned i = 0; i < LANES; i++) {
                assert_int_equal(n_order[i], PER_LANE);
                for (unsigned k = 0; k < PER_LANE; k++)
                        assert_int_equal(order[i][k], k);
                assert_int_equal(reader_lane_pending(lanes[i]), 0);
        }
        assert_int_equal(atomic_load(&p->overlap), 0);
        assert_true(reader_pool_threads(p->pool) <= READER_POOL_THREADS_MAX);
        assert_int_equal(p->n_stuck, 0);
}

/* Every thread busy and work queued in turn (a poll's batch): a job that
 * goes first (an event's read) is the next one a thread takes, ahead of
 * the queue; on a lane with a job queued in turn before it, that job runs
 * first, then it: a lane keeps its order. */
static void test_first_goes_ahead_of_the_queue(void **state) {
        Pool *p = *state;
        enum { N_BUSY = READER_POOL_THREADS_MAX, N_QUEUED = 4 };
        static Job busy[N_BUSY], queued[N_QUEUED], event, behind, lane_event;
        unsigned lane = 0;

        for (unsigned i = 0; i < N_BUSY; i++) {
                busy[i] = (Job){ .lane = lane++, .gate = true };
                submit(p, &busy[i]);
        }
        RUN_UNTIL(p, atomic_load(&p->started) == N_BUSY);
        for (unsigned i = 0; i < N_QUEUED; i++) {
                queued[i] = (Job){ .lane = lane++, .seq = i };
                submit(p, &queued[i]);
        }
        event = (Job){ .lane = lane++ };
        submit_first(p, &event);
        behind = (Job){ .lane = lane };
        submit(p, &behind);
        lane_event = (Job){ .lane = lane };
        submit_first(p, &lane_event);
        assert_true(lane < LANES);
        assert_int_equal(atomic_load(&p->started), N_BUSY);

        /* One thread free: it takes the work in the order it is due. */
        (void) !write(p->gate[1], "x", 1);
        RUN_UNTIL(p, event.applied && lane_event.applied && queued[N_QUEUED - 1].applied);
        assert_int_equal(event.run_index, N_BUSY);
        assert_int_equal(behind.run_index, N_BUSY + 1);
        assert_int_equal(lane_event.run_index, N_BUSY + 2);
        for (unsigned i = 0; i < N_QUEUED; i++)
                assert_int_equal(queued[i].run_index, N_BUSY + 3 + i);
        for (unsigned i = 0; i < N_BUSY; i++)
                (void) !write(p->gate[1], "x", 1);
        RUN_UNTIL(p, p->n_applied == N_BUSY + N_QUEUED + 3);
        assert_int_equal(atomic_load(&p->overlap), 0);
}

/* One lane blocked: the others' jobs, queued after it, are all applied
 * while it blocks; it is reported stuck with the file it waits for, and
 * its job applied (told it was stuck) once it returns. */
static void test_others_served_while_one_is_stuck(void **state) {
        Pool *p = *state;
        static Job blocked, others[LANES - 1][4];

        blocked = (Job){ .lane = 0, .gate = true };
        submit(p, &blocked);
        for (unsigned k = 0; k < 4; k++)
                for (unsigned i = 1; i < LANES; i++) {
                        others[i - 1][k] = (Job){ .lane = i, .seq = k };
                        submit(p, &others[i - 1][k]);
                }
        RUN_UNTIL(p, p->n_applied == (LANES - 1) * 4 && p->n_stuck == 1);
        assert_false(blocked.applied);
        assert_true(reader_lane_stuck(lanes[0]));
        /* The time it has waited when the check saw it: the timeout, or
         * more on a loaded machine. */
        {
                const char *prefix = "lane0 ports/1/state: no answer for ";
                double waited;
                char unit[4];

                assert_true(strncmp(p->stuck_reason, prefix, strlen(prefix)) == 0);
                assert_int_equal(sscanf(p->stuck_reason + strlen(prefix), "%lf %3s", &waited, unit), 2);
                assert_true(waited >= 0.2);
                assert_string_equal(unit, "s");
        }

        assert_int_equal(write(p->gate[1], "x", 1), 1);
        RUN_UNTIL(p, blocked.applied);
        assert_true(blocked.stuck);
        assert_int_equal(p->n_unstuck, 1);
        assert_false(reader_lane_stuck(lanes[0]));
}

/* Every lane blocked at once: the pool stops at its bound; the jobs beyond
 * it wait, and all run once the reads let go. */
static void test_bound_holds_whatever_hangs(void **state) {
        Pool *p = *state;
        static Job jobs[LANES];

        for (unsigned i = 0; i < LANES; i++) {
                jobs[i] = (Job){ .lane = i, .gate = true };
                submit(p, &jobs[i]);
        }
        RUN_UNTIL(p, p->n_stuck == READER_POOL_THREADS_MAX);
        /* Past several timeouts and stall checks: still the bound. */
        for (unsigned i = 0; i < 10; i++)
                assert_true(sd_event_run(p->event, 100 * USEC_PER_MSEC) >= 0);
        assert_int_equal(reader_pool_threads(p->pool), READER_POOL_THREADS_MAX);
        assert_int_equal(atomic_load(&p->started), READER_POOL_THREADS_MAX);
        assert_int_equal(p->n_applied, 0);

        for (unsigned i = 0; i < LANES; i++)
                assert_int_equal(write(p->gate[1], "x", 1), 1);
        RUN_UNTIL(p, p->n_applied == LANES);
        assert_true(reader_pool_threads(p->pool) <= READER_POOL_THREADS_MAX);
}

/* A result finished just before its thread's next job hangs still reaches
 * the loop: held for a batch, it is not held for the hung read. */
static void test_result_before_a_hang_is_not_held(void **state) {
        Pool *p = *state;
        static Job quick[8], blocked;

        /* Quick jobs, then one that hangs, submitted at once: one thread
         * may well take them all in turn. */
        for (unsigned i = 0; i < ELEMENTSOF(quick); i++) {
                quick[i] = (Job){ .lane = 1 + i };
                submit(p, &quick[i]);
        }
        blocked = (Job){ .lane = 0, .gate = true };
        submit(p, &blocked);
        RUN_UNTIL(p, p->n_applied == ELEMENTSOF(quick));
        /* Before the read timeout: not waiting for the stuck check. */
        assert_int_equal(p->n_stuck, 0);
        assert_false(blocked.applied);
        assert_int_equal(write(p->gate[1], "x", 1), 1);
        RUN_UNTIL(p, blocked.applied);
}

/* A slow adapter that answers: each read takes 60 % of the read timeout,
 * the job ten of them (three timeouts in all). The timeout times a read,
 * not the job: never stuck (issue 42: a job timed as a whole made a busy
 * adapter unresponsive after one GetAllCounters). */
static void test_slow_reads_that_answer_are_not_stuck(void **state) {
        Pool *p = *state;
        static Job slow[3];

        for (unsigned i = 0; i < ELEMENTSOF(slow); i++) {
                slow[i] = (Job){ .lane = i, .n_reads = 10, .read_ms = 120 };
                submit(p, &slow[i]);
        }
        RUN_UNTIL(p, p->n_applied == ELEMENTSOF(slow));
        assert_int_equal(p->n_stuck, 0);
        for (unsigned i = 0; i < ELEMENTSOF(slow); i++)
                assert_false(slow[i].stuck);
}

/* A thread that runs (or waits for a CPU) past the timeout is not waiting
 * for its device: a loaded machine does not make a device unresponsive. A
 * read spinning for twice the timeout stands in for a starved one; a read
 * that sleeps as long beside it is reported. */
static void test_running_thread_is_not_stuck(void **state) {
        Pool *p = *state;
        static Job spinning, blocked;

        if (RUNNING_ON_VALGRIND) {
                /* Valgrind runs one thread at a time: the others wait in the kernel, as a stuck one does. */
                fprintf(stderr, "skipping under valgrind: the gcc and ASan + UBSan passes run this\n");
                skip();
        }

        spinning = (Job){ .lane = 1, .n_reads = 1, .read_ms = 400, .spin = true };
        submit(p, &spinning);
        blocked = (Job){ .lane = 0, .gate = true };
        submit(p, &blocked);
        RUN_UNTIL(p, spinning.applied && p->n_stuck == 1);
        assert_false(spinning.stuck);
        assert_true(strncmp(p->stuck_reason, "lane0 ", 6) == 0);
        assert_int_equal(write(p->gate[1], "x", 1), 1);
        RUN_UNTIL(p, blocked.applied);
        assert_true(blocked.stuck);
}

/* Before the loop runs (start-up): the wait returns the healthy lanes'
 * results while one hangs, and reports it stuck at the deadline. */
static void test_start_up_wait(void **state) {
        Pool *p = *state;
        static Job blocked, others[LANES - 1];
        uint64_t until = now_usec(CLOCK_MONOTONIC) + 300 * USEC_PER_MSEC;

        blocked = (Job){ .lane = 0, .gate = true };
        submit(p, &blocked);
        for (unsigned i = 1; i < LANES; i++) {
                others[i - 1] = (Job){ .lane = i };
                submit(p, &others[i - 1]);
        }
        while (p->n_applied < LANES - 1)
                assert_int_equal(reader_pool_wait(p->pool, until), 0);
        while (reader_pool_wait(p->pool, until) != -ETIME)
                ;
        assert_int_equal(p->n_stuck, 1);
        assert_false(blocked.applied);
        assert_int_equal(write(p->gate[1], "x", 1), 1);
        RUN_UNTIL(p, blocked.applied);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_lanes_in_order_one_at_a_time, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cancel_reaches_the_batch_being_applied, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cancel_only_the_matching_jobs, setup, teardown),
                cmocka_unit_test_setup_teardown(test_others_served_while_one_is_stuck, setup, teardown),
                cmocka_unit_test_setup_teardown(test_first_goes_ahead_of_the_queue, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bound_holds_whatever_hangs, setup, teardown),
                cmocka_unit_test_setup_teardown(test_result_before_a_hang_is_not_held, setup, teardown),
                cmocka_unit_test_setup_teardown(test_start_up_wait, setup, teardown),
                cmocka_unit_test_setup_teardown(test_slow_reads_that_answer_are_not_stuck, setup, teardown),
                cmocka_unit_test_setup_teardown(test_running_thread_is_not_stuck, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
