/* SPDX-License-Identifier: MIT */
#pragma once

/* The reader pool's insides, shared by its two halves: reader-pool.c (the
 * lanes, their queues, the threads and the results on the loop) and
 * reader-watch.c (the read timeout: what each thread reads now, and the
 * check that finds the reads that outlived it). Nothing outside
 * daemon/readers/ includes this. */

#include <pthread.h>
#include <sys/types.h>

#include "basic/list.h"
#include "reader-pool.h"

enum { JOB_QUEUED, JOB_RUNNING, JOB_DONE };

struct ReaderJob {
        ReaderPool *pool;
        ReaderLane *lane; /* a reference */
        ReaderRun run;
        ReaderApply apply;
        ReaderFree free_arg;
        void *arg;
        int state;
        bool cancelled;
        bool first; /* ahead of the jobs queued in turn (reader_pool_submit_first()) */
        /* CLOCK_MONOTONIC: when the thread last made progress (took the
         * job, or a read returned), and when its read in progress began
         * (0: none). The read timeout times one read, or the work between
         * two: never the job as a whole, whose reads may each take long
         * on a busy adapter and still answer. */
        uint64_t progress_usec;
        uint64_t read_usec;
        pid_t tid; /* the thread running it */
        /* What the thread reads now, for the loop to name when it hangs. */
        int note_fd;
        const char *note_name;
        ReaderResult result;
        LIST_FIELDS(ReaderJob, queue); /* the lane's queue, or the pool's done list */
        LIST_FIELDS(ReaderJob, running);
};

struct ReaderLane {
        ReaderPool *pool;
        char *name;
        unsigned n_ref;     /* the owner's, and one per job not yet freed */
        unsigned n_pending; /* jobs not yet applied or cancelled */
        ReaderJob *queue, *queue_tail;
        ReaderJob *running;
        unsigned n_first; /* queued jobs that go first */
        bool ready;       /* on one of the pool's ready lists */
        bool ready_first; /* ... on its first one */
        bool stuck;
        void *owner; /* the loop's alone */
        void *context;
        void (*free_context)(void *);
        LIST_FIELDS(ReaderLane, ready);
        LIST_FIELDS(ReaderLane, lanes);
};

struct ReaderPool {
        pthread_mutex_t mutex;
        pthread_cond_t work;
        pthread_cond_t gone; /* a thread ended (reader_pool_free() waits for them) */
        unsigned n_ref;      /* the loop's, and one per thread */
        bool shutdown;

        ReaderLane *lanes; /* every lane with a reference */
        /* Lanes with a job for a thread, in the order they became ready;
         * a lane with a job that goes first waits on the first list,
         * [true] (its ready_first), which the threads empty before [false]. */
        ReaderLane *ready[2], *ready_tail[2];
        ReaderJob *running;
        ReaderJob *done, *done_tail;
        /* The done jobs pool_dispatch() took and is applying, one at a
         * time: an apply may cancel a lane (its device is gone), which must
         * reach the jobs of this batch not yet applied too. */
        ReaderJob *dispatching, *dispatching_tail;
        unsigned n_threads, n_idle, n_woken;
        unsigned n_starting;   /* threads created that have not looked for work yet */
        unsigned n_unnotified; /* results on the done list the eventfd has not told of */

        int fd; /* eventfd: jobs are done */
        /* The loop's alone: */
        sd_event_source *fd_event, *timer_event, *stall_event;
        uint64_t timeout_usec;
        ReaderPoolEvents events;
        void *userdata;
};

/* Under the mutex: a lane has a job for a thread. */
static inline bool pool_has_ready_locked(const ReaderPool *p) {
        return p->ready[true] || p->ready[false];
}

/* reader-watch.c: marks the reads that outlived the timeout and reports
 * their lanes; the next deadline, or UINT64_MAX when nothing runs or waits. */
uint64_t reader_watch_check(ReaderPool *p, uint64_t now);
/* Where the file name (in dirfd, or AT_FDCWD) of j's read is, relative to
 * its device ("ports/1/state"), for a report. */
void reader_note_resolve(const ReaderJob *j, int dirfd, const char *name, char *buf, size_t size);
