/* SPDX-License-Identifier: MIT */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "basic/time-util.h"

/* The reader pool: every read of a device's sysfs files runs here, never on
 * the event loop (rdmad(8), SICK ADAPTERS). A read of a failing
 * adapter is a firmware command that can sit in the kernel for a minute or
 * for good, deaf to signals; the loop must go on answering meanwhile.
 *
 * Work goes to lanes, one per device (by name): a lane's jobs run in order,
 * on one thread at a time. At most READER_POOL_THREADS_MAX threads run in
 * all, started when there is work and no idle thread, ended after a while
 * idle. A read that has not returned after the read timeout (timed from
 * reader_read_begin(), not from the job's start: a job of many reads that
 * each answer is never stuck; a thread that only waits for a CPU is not
 * either) makes its lane stuck (reported to the owner, with the file it
 * waits for and that read's own age); its thread is
 * abandoned, never joined, and still counts against the bound, so the pool
 * never grows whatever number of devices hang. The loop hears of finished
 * jobs through an eventfd and applies their results in order.
 *
 * Lanes with work wait in the order their work came, except that a job an
 * event waits for goes first (reader_pool_submit_first()): a poll's round
 * or a start's loads are queued in turn and may be hundreds of jobs.
 *
 * reader-pool.c keeps the lanes and runs the threads; reader-watch.c times
 * the reads (reader_read_begin() and the rest below) and finds the stuck. */

#define READER_POOL_THREADS_MAX   8
#define READ_TIMEOUT_USEC_DEFAULT (5 * USEC_PER_SEC)

typedef struct ReaderPool ReaderPool;
typedef struct ReaderLane ReaderLane;
typedef struct ReaderJob ReaderJob;

/* What the thread found besides what run() stored in its argument. */
typedef struct ReaderResult {
        int io_error;      /* the first read that failed with an I/O error (errno_is_io()), or 0 */
        char io_file[256]; /* ... which file, relative to the device ("ports/1/state") */
        bool stuck;        /* a read of the job outlived the read timeout: its lane was reported stuck */
} ReaderResult;

/* On a pool thread; the lane's context is the thread's alone meanwhile. */
typedef void (*ReaderRun)(ReaderLane *lane, void *arg);
/* On the loop, after run() returned, unless the job was cancelled. */
typedef void (*ReaderApply)(void *arg, const ReaderResult *result, void *userdata);
/* Frees the argument: on the loop, or on the thread of a job abandoned at exit. */
typedef void (*ReaderFree)(void *arg);

typedef struct ReaderPoolEvents {
        /* A read of the lane has not returned within the timeout; reason
         * names the file ("ports/1/state: no answer for 5.0 s"). */
        void (*stuck)(ReaderLane *lane, const char *reason, void *userdata);
        /* The stuck read returned; called before its job's apply(). */
        void (*unstuck)(ReaderLane *lane, void *userdata);
} ReaderPoolEvents;

int reader_pool_new(sd_event *event, uint64_t timeout_usec, const ReaderPoolEvents *events, void *userdata,
                    ReaderPool **ret);
/* Drops what is queued and leaves the running threads to finish on their
 * own: a thread stuck in the kernel is never waited for. */
ReaderPool *reader_pool_free(ReaderPool *p);

uint64_t reader_pool_timeout(const ReaderPool *p);
/* Threads alive now (running, stuck or idle). */
unsigned reader_pool_threads(ReaderPool *p);

/* The lane called name, made if there is none; a reference. */
ReaderLane *reader_pool_lane(ReaderPool *p, const char *name);
ReaderLane *reader_lane_ref(ReaderLane *l);
ReaderLane *reader_lane_unref(ReaderLane *l);
const char *reader_lane_name(const ReaderLane *l);
/* Whose lane it is now (the device it reads), for the events to reach it
 * without a search; NULL when none. On the loop only. */
void *reader_lane_owner(const ReaderLane *l);
void reader_lane_set_owner(ReaderLane *l, void *owner);
/* A read of the lane is stuck now. */
bool reader_lane_stuck(ReaderLane *l);
/* Jobs of the lane queued or running, not yet applied. */
unsigned reader_lane_pending(ReaderLane *l);
/* Every job of the lane not yet applied whose arg match() holds for (an
 * object of theirs is gone; every job with a NULL match: its device is
 * gone) is cancelled, except those without apply(): nothing of theirs comes
 * back to the model, and what they do must be done (closing a verbs
 * context). match() is called under the pool's lock: it may only look at arg. */
void reader_lane_cancel(ReaderLane *l, bool (*match)(void *arg, void *userdata), void *userdata);

/* The lane's context, for run() only: what a device's reads keep between
 * jobs (the poll's open descriptors). Set once; freed with the lane. */
void *reader_lane_context(ReaderLane *l);
void reader_lane_set_context(ReaderLane *l, void *context, void (*free_context)(void *));

/* Queues run(arg) on the lane; apply follows on the loop, then free. On
 * failure nothing is queued and arg is the caller's. *ret (optional) is
 * valid until apply() or reader_job_cancel(). */
int reader_pool_submit(ReaderPool *p, ReaderLane *lane, ReaderRun run, ReaderApply apply, ReaderFree free_arg,
                       void *arg, ReaderJob **ret);
/* The same for a job an event waits for: its lane goes ahead of the lanes
 * whose work is queued in turn (a poll's round, a start's loads), a thread
 * is woken for it, and its result reaches the loop at once instead of in a
 * batch. The lane's own jobs keep their order. */
int reader_pool_submit_first(ReaderPool *p, ReaderLane *lane, ReaderRun run, ReaderApply apply, ReaderFree free_arg,
                             void *arg, ReaderJob **ret);
/* apply() is not called; arg is freed now or when run() returns. */
void reader_job_cancel(ReaderJob *j);

/* For the start-up, before the loop runs: waits until a job is done or
 * until (CLOCK_MONOTONIC), applies what is done, and reports what is stuck
 * by then. -ETIME past until. */
int reader_pool_wait(ReaderPool *p, uint64_t until);

/* For the reading code, on a pool thread (no-ops elsewhere): a read of
 * name (in the directory dirfd, or AT_FDCWD) begins, and how it ended
 * (-errno or >= 0). The pool names the file when the read hangs or fails. */
void reader_read_begin(int dirfd, const char *name);
void reader_read_end(int dirfd, const char *name, int r);
/* A read that returned what cannot be a value of its file (-EBADMSG): a
 * failed read of the device, as an I/O error is. */
void reader_read_failed(int dirfd, const char *name, int r);
