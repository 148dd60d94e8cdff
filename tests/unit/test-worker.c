/* SPDX-License-Identifier: MIT */
/* The worker runner on its own: a job's end heard on the event loop, many
 * jobs at once, a job freed while running (waited for), one abandoned while
 * running (not waited for, freed by its thread) or after it ended. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "basic/time-util.h"
#include "basic/util.h"
#include "worker.h"

typedef struct Job {
        Worker *worker;
        int gate;              /* >= 0: run() first waits for a byte here */
        atomic_bool ran;       /* run() returned */
        bool done;             /* done() was called, on the loop */
        bool ran_before_done;  /* what done() saw */
        atomic_int n_released; /* release() calls */
        unsigned *n_done;      /* shared by the jobs of one test */
} Job;

static void job_run(void *arg) {
        Job *j = arg;

        if (j->gate >= 0) {
                char c;
                (void) !read(j->gate, &c, 1);
        }
        atomic_store(&j->ran, true);
}

static void job_done(Worker *w, void *arg) {
        Job *j = arg;

        assert_ptr_equal(w, j->worker);
        assert_false(j->done);
        j->done = true;
        j->ran_before_done = atomic_load(&j->ran);
        if (j->n_done)
                (*j->n_done)++;
        j->worker = worker_free(w);
}

static void job_release(void *arg) {
        Job *j = arg;

        atomic_fetch_add(&j->n_released, 1);
}

/* Runs the loop until *n is at least `want`, for at most 5 s. */
static void run_until(sd_event *e, const unsigned *n, unsigned want) {
        uint64_t deadline = now_usec(CLOCK_MONOTONIC) + 5 * USEC_PER_SEC;

        while (*n < want) {
                assert_true(now_usec(CLOCK_MONOTONIC) < deadline);
                assert_true(sd_event_run(e, 100 * USEC_PER_MSEC) >= 0);
        }
}

/* Waits (off the loop) until n is at least `want`, for at most 5 s. */
static void wait_count(atomic_int *n, int want) {
        uint64_t deadline = now_usec(CLOCK_MONOTONIC) + 5 * USEC_PER_SEC;

        while (atomic_load(n) < want) {
                assert_true(now_usec(CLOCK_MONOTONIC) < deadline);
                usleep(1000);
        }
}

static int setup(void **state) {
        sd_event *e = NULL;

        assert_int_equal(sd_event_new(&e), 0);
        *state = e;
        return 0;
}

static int teardown(void **state) {
        sd_event_unref(*state);
        return 0;
}

static void test_done_follows_run_on_the_loop(void **state) {
        sd_event *e = *state;
        unsigned n_done = 0;
        Job j = { .gate = -1, .n_done = &n_done };

        assert_int_equal(worker_start(e, job_run, job_done, &j, &j.worker), 0);
        assert_false(j.done); /* never before the loop runs */
        run_until(e, &n_done, 1);
        assert_true(j.done);
        assert_true(j.ran_before_done);
        assert_null(j.worker);
        assert_int_equal(atomic_load(&j.n_released), 0);
}

static void test_many_at_once(void **state) {
        sd_event *e = *state;
        enum { N = 64 };
        Job jobs[N];
        int gate[2];
        unsigned n_done = 0;

        /* All of them running together: each waits for its byte. */
        assert_int_equal(pipe(gate), 0);
        for (size_t i = 0; i < N; i++) {
                jobs[i] = (Job){ .gate = gate[0], .n_done = &n_done };
                assert_int_equal(worker_start(e, job_run, job_done, &jobs[i], &jobs[i].worker), 0);
        }
        assert_int_equal(sd_event_run(e, 10 * USEC_PER_MSEC) >= 0, 1);
        assert_int_equal(n_done, 0);
        for (size_t i = 0; i < N; i++)
                assert_int_equal(write(gate[1], "x", 1), 1);

        run_until(e, &n_done, N);
        assert_int_equal(n_done, N);
        for (size_t i = 0; i < N; i++) {
                assert_true(jobs[i].done);
                assert_true(jobs[i].ran_before_done);
                assert_null(jobs[i].worker);
        }
        close(gate[0]);
        close(gate[1]);
}

/* At exit: worker_free() waits for the job and calls nothing. */
static void test_free_waits_for_a_running_job(void **state) {
        sd_event *e = *state;
        Job j = { .gate = -1 };
        int gate[2];

        assert_int_equal(pipe(gate), 0);
        j.gate = gate[0];
        assert_int_equal(worker_start(e, job_run, job_done, &j, &j.worker), 0);
        assert_int_equal(write(gate[1], "x", 1), 1);
        j.worker = worker_free(j.worker);
        assert_true(atomic_load(&j.ran));
        assert_int_equal(sd_event_run(e, 10 * USEC_PER_MSEC) >= 0, 1);
        assert_false(j.done);
        close(gate[0]);
        close(gate[1]);
}

/* A job stuck in its I/O: abandoning it returns at once; when (if) it
 * returns, its thread releases the argument and frees the worker. */
static void test_abandoned_while_running(void **state) {
        sd_event *e = *state;
        Job *j = calloc(1, sizeof(Job));
        int gate[2];

        assert_non_null(j);
        assert_int_equal(pipe(gate), 0);
        j->gate = gate[0];
        assert_int_equal(worker_start(e, job_run, job_done, j, &j->worker), 0);
        worker_abandon(TAKE_PTR(j->worker), job_release);
        assert_false(atomic_load(&j->ran));
        assert_int_equal(atomic_load(&j->n_released), 0);

        /* The loop goes on meanwhile. */
        assert_int_equal(sd_event_run(e, 10 * USEC_PER_MSEC) >= 0, 1);

        assert_int_equal(write(gate[1], "x", 1), 1);
        wait_count(&j->n_released, 1);
        assert_true(atomic_load(&j->ran));
        /* Its end never reaches the loop. */
        assert_int_equal(sd_event_run(e, 10 * USEC_PER_MSEC) >= 0, 1);
        assert_false(j->done);
        assert_int_equal(atomic_load(&j->n_released), 1);
        /* The thread frees the worker after release(): let it. */
        usleep(50 * 1000);
        close(gate[0]);
        close(gate[1]);
        free(j);
}

/* A job that ended before the loop heard of it: released right away. */
static void test_abandoned_after_it_ended(void **state) {
        sd_event *e = *state;
        Job j = { .gate = -1 };

        assert_int_equal(worker_start(e, job_run, job_done, &j, &j.worker), 0);
        while (!atomic_load(&j.ran))
                usleep(1000);
        /* run() returned; the thread may still be publishing that: either side frees. */
        worker_abandon(TAKE_PTR(j.worker), job_release);
        wait_count(&j.n_released, 1);
        assert_int_equal(sd_event_run(e, 10 * USEC_PER_MSEC) >= 0, 1);
        assert_false(j.done);
        usleep(50 * 1000);
        assert_int_equal(atomic_load(&j.n_released), 1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_done_follows_run_on_the_loop, setup, teardown),
                cmocka_unit_test_setup_teardown(test_many_at_once, setup, teardown),
                cmocka_unit_test_setup_teardown(test_free_waits_for_a_running_job, setup, teardown),
                cmocka_unit_test_setup_teardown(test_abandoned_while_running, setup, teardown),
                cmocka_unit_test_setup_teardown(test_abandoned_after_it_ended, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
