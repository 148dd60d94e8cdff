/* SPDX-License-Identifier: MIT */
/* The reader pool: lanes, their queues, the threads that run them and the
 * results on the loop, and each read's notes for the read timeout, whose
 * check is reader-watch.c. */
#include "reader-pool.h"

#include <sys/poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/eventfd.h>

#include "basic/list.h"
#include "basic/log.h"
#include "basic/util.h"
#include "reader-pool-internal.h"
#include "worker.h"

/* An idle thread ends after this long without work: a poll every second
 * keeps its threads, an idle host has none. */
#define READER_IDLE_USEC (30 * USEC_PER_SEC)

/* A thread whose job started less than this long ago is taken to be
 * reading, not stuck: it takes the next job when it is done, so a burst
 * of work (a poll's round of every device) runs on one thread and wakes
 * nobody, instead of waking a thread per job (BENCHMARKS.md, "Reads on the
 * reader pool"). */
#define READER_HANDOFF_USEC (1 * USEC_PER_MSEC)

/* The loop looks at the pool this often while work waits or results are
 * held back: a job queued behind one that turned out slow gets a thread of
 * its own, and results held for a batch reach the loop. */
#define READER_STALL_USEC (2 * USEC_PER_MSEC)

/* A thread with more work at hand tells the loop of its results in
 * batches of this many, instead of waking it once per job. */
#define READER_NOTIFY_BATCH 32

static void lane_free(ReaderLane *l) {
        if (l->free_context)
                l->free_context(l->context);
        free(l->name);
        free(l);
}

/* Under the mutex; frees the lane when its last reference goes. */
static void lane_unref_locked(ReaderLane *l) {
        assert(l->n_ref > 0);
        if (--l->n_ref > 0)
                return;
        LIST_REMOVE(lanes, l->pool->lanes, l);
        lane_free(l);
}

static void job_free_locked(ReaderJob *j) {
        if (j->free_arg)
                j->free_arg(j->arg);
        lane_unref_locked(j->lane);
        free(j);
}

static void lane_make_ready_locked(ReaderLane *l) {
        ReaderPool *p = l->pool;

        if (l->ready || l->running || !l->queue)
                return;
        l->ready = true;
        l->ready_first = l->n_first > 0;
        LIST_APPEND(ready, p->ready[l->ready_first], p->ready_tail[l->ready_first], l);
}

static void lane_unready_locked(ReaderLane *l) {
        ReaderPool *p = l->pool;

        assert(l->ready);
        LIST_REMOVE_TAIL(ready, p->ready[l->ready_first], p->ready_tail[l->ready_first], l);
        l->ready = l->ready_first = false;
}

/* Under the mutex: j leaves its lane's queue (taken by a thread, or
 * cancelled); a lane whose queue was emptied by cancelling leaves the
 * ready list. */
static void lane_dequeue_locked(ReaderLane *l, ReaderJob *j) {
        LIST_REMOVE_TAIL(queue, l->queue, l->queue_tail, j);
        if (j->first)
                l->n_first--;
        if (l->ready && !l->queue)
                lane_unready_locked(l);
}

/* Under the mutex: the only work ready is l's next job. */
static bool pool_only_ready_locked(const ReaderPool *p, const ReaderLane *l) {
        return (p->ready[true] ?: p->ready[false]) == l && !l->ready_next && !(p->ready[true] && p->ready[false]);
}

/* Under the mutex: the loop hears of the results held back. */
static void pool_notify_locked(ReaderPool *p) {
        if (p->n_unnotified == 0)
                return;
        (void) eventfd_write(p->fd, 1);
        p->n_unnotified = 0;
}

/* Under the mutex, which it releases. */
static void pool_unref_locked_last(ReaderPool *p) {
        if (--p->n_ref > 0) {
                pthread_mutex_unlock(&p->mutex);
                return;
        }
        /* Lanes still referenced only by abandoned jobs' owners are gone with them. */
        LIST_FOREACH_SAFE(lanes, l, next, p->lanes)
                lane_free(l);
        if (p->fd >= 0)
                close(p->fd);
        pthread_cond_destroy(&p->work);
        pthread_cond_destroy(&p->gone);
        pthread_mutex_unlock(&p->mutex);
        pthread_mutex_destroy(&p->mutex);
        free(p);
}

/* The job this thread runs (NULL on the loop): its reads are noted in it,
 * for the watch (reader-watch.c). */
static __thread ReaderJob *reader_current_job;

void reader_read_begin(int dirfd, const char *name) {
        ReaderJob *j = reader_current_job;

        if (!j)
                return;
        pthread_mutex_lock(&j->pool->mutex);
        j->note_fd = dirfd;
        j->note_name = name;
        j->read_usec = now_usec(CLOCK_MONOTONIC);
        pthread_mutex_unlock(&j->pool->mutex);
}

void reader_read_end(int dirfd, const char *name, int r) {
        ReaderJob *j = reader_current_job;

        if (!j)
                return;
        pthread_mutex_lock(&j->pool->mutex);
        j->note_name = NULL;
        j->read_usec = 0;
        j->progress_usec = now_usec(CLOCK_MONOTONIC);
        pthread_mutex_unlock(&j->pool->mutex);
        if (errno_is_io(r))
                reader_read_failed(dirfd, name, r);
}

void reader_read_failed(int dirfd, const char *name, int r) {
        ReaderJob *j = reader_current_job;

        if (!j || j->result.io_error < 0)
                return;
        j->result.io_error = r;
        reader_note_resolve(j, dirfd, name, j->result.io_file, sizeof(j->result.io_file));
}

static void *reader_thread(void *userdata) {
        ReaderPool *p = userdata;
        pid_t tid = gettid(); /* a system call: once, not per job */

        pthread_mutex_lock(&p->mutex);
        p->n_starting--;
        for (;;) {
                ReaderLane *l;
                ReaderJob *j;

                if (!pool_has_ready_locked(p))
                        pool_notify_locked(p);
                while (!p->shutdown && !pool_has_ready_locked(p)) {
                        struct timespec ts;
                        int r;

                        clock_gettime(CLOCK_MONOTONIC, &ts);
                        ts.tv_sec += READER_IDLE_USEC / USEC_PER_SEC;
                        p->n_idle++;
                        r = pthread_cond_timedwait(&p->work, &p->mutex, &ts);
                        p->n_idle--;
                        if (p->n_woken > 0)
                                p->n_woken--;
                        if (r == ETIMEDOUT && !pool_has_ready_locked(p))
                                goto out;
                }
                if (p->shutdown)
                        break;

                l = p->ready[true] ?: p->ready[false];
                lane_unready_locked(l);
                j = l->queue;
                lane_dequeue_locked(l, j);
                j->state = JOB_RUNNING;
                j->progress_usec = now_usec(CLOCK_MONOTONIC);
                j->read_usec = 0;
                j->tid = tid;
                l->running = j;
                LIST_PREPEND(running, p->running, j);
                pthread_mutex_unlock(&p->mutex);

                reader_current_job = j;
                j->run(l, j->arg);
                reader_current_job = NULL;

                pthread_mutex_lock(&p->mutex);
                LIST_REMOVE(running, p->running, j);
                l->running = NULL;
                if (l->stuck) {
                        l->stuck = false;
                        j->result.stuck = true;
                }
                if (p->shutdown) {
                        job_free_locked(j);
                        break;
                }
                j->state = JOB_DONE;
                LIST_APPEND(queue, p->done, p->done_tail, j);
                p->n_unnotified++;
                lane_make_ready_locked(l);
                /* With more work at hand, the results go in a batch (the
                 * loop's stall check takes them if the next job hangs);
                 * but not a job that went first (an event waits for it),
                 * nor when the only work left is this lane's next job:
                 * this thread takes it, and if it hangs no stall check
                 * would be armed to take what is held. */
                if (j->first || !pool_has_ready_locked(p) || pool_only_ready_locked(p, l) ||
                    p->n_unnotified >= READER_NOTIFY_BATCH)
                        pool_notify_locked(p);
        }
out:
        p->n_threads--;
        pthread_cond_broadcast(&p->gone);
        pool_unref_locked_last(p);
        return NULL;
}

/* Under the mutex: a thread runs a job it started just now, and will take
 * the next one soon. */
static bool pool_has_fresh_runner_locked(ReaderPool *p) {
        uint64_t now = now_usec(CLOCK_MONOTONIC);

        LIST_FOREACH(running, j, p->running) {
                if (!j->lane->stuck && now < j->progress_usec + READER_HANDOFF_USEC)
                        return true;
        }
        return false;
}

/* Under the mutex: a thread for the ready work, unless one is on its way
 * (woken, or busy with a job it just started: not for a job that goes
 * first, which does not wait for a job of another lane to end); an idle
 * one first, a new one if the bound allows. */
static void pool_wake_locked(ReaderPool *p, bool first) {
        sigset_t all, old;
        pthread_attr_t attr;
        pthread_t t;
        int r;

        if (p->n_woken > 0 || p->n_starting > 0 || (!first && pool_has_fresh_runner_locked(p)))
                return;
        if (p->n_idle > 0) {
                p->n_woken++;
                pthread_cond_signal(&p->work);
                return;
        }
        if (p->n_threads >= READER_POOL_THREADS_MAX)
                return; /* the next thread that is done takes it */

        /* Signals are the loop's (signalfd); a small stack, the reads need little. */
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 256 * 1024);
        r = pthread_create(&t, &attr, reader_thread, p);
        pthread_attr_destroy(&attr);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r != 0) {
                /* The threads there are take the work; with none, the next submission retries. */
                return (void) log_warning_errno(r, "Failed to start a reader thread: %m");
        }
        p->n_threads++;
        p->n_starting++;
        p->n_ref++;
}

static void pool_dispatch(ReaderPool *p) {
        pthread_mutex_lock(&p->mutex);
        LIST_FOREACH_SAFE(queue, j, next, p->done) {
                /* Appended to what a dispatch under way has left, in order. */
                LIST_REMOVE_TAIL(queue, p->done, p->done_tail, j);
                LIST_APPEND(queue, p->dispatching, p->dispatching_tail, j);
        }
        p->n_unnotified = 0;
        (void) eventfd_read(p->fd, &(eventfd_t){ 0 });
        pthread_mutex_unlock(&p->mutex);

        for (;;) {
                ReaderJob *j;
                ReaderLane *l;

                pthread_mutex_lock(&p->mutex);
                j = p->dispatching;
                if (j)
                        LIST_REMOVE_TAIL(queue, p->dispatching, p->dispatching_tail, j);
                pthread_mutex_unlock(&p->mutex);
                if (!j)
                        break;
                l = j->lane;
                if (!j->cancelled)
                        l->n_pending--;
                if (j->result.stuck && p->events.unstuck)
                        p->events.unstuck(l, p->userdata);
                if (!j->cancelled && j->apply)
                        j->apply(j->arg, &j->result, p->userdata);
                pthread_mutex_lock(&p->mutex);
                job_free_locked(j);
                pthread_mutex_unlock(&p->mutex);
        }
}

static int on_done(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        pool_dispatch(userdata);
        return 0;
}

/* Arms the timer s, off until now, at usec (from the loop's time if relative). */
static void pool_arm(sd_event_source *s, uint64_t usec, bool relative, const char *what) {
        int enabled = SD_EVENT_OFF, r;

        if (!s || (sd_event_source_get_enabled(s, &enabled) >= 0 && enabled != SD_EVENT_OFF))
                return;
        r = relative ? sd_event_source_set_time_relative(s, usec) : sd_event_source_set_time(s, usec);
        if (r >= 0)
                r = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        if (r < 0)
                log_error_errno(r, "Failed to arm the %s: %m", what);
}

static int on_timeout_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        ReaderPool *p = userdata;
        uint64_t next = reader_watch_check(p, now_usec(CLOCK_MONOTONIC));

        if (next != UINT64_MAX)
                pool_arm(p->timer_event, next, false, "read timeout");
        return 0;
}

/* While work waits or results are held back: a thread for the work if the
 * one expected to take it is slow, and the results to the loop. */
static int on_stall(sd_event_source *s, uint64_t usec, void *userdata) {
        ReaderPool *p = userdata;
        bool held, waiting;

        pthread_mutex_lock(&p->mutex);
        if (pool_has_ready_locked(p))
                pool_wake_locked(p, false);
        held = p->n_unnotified > 0;
        waiting = pool_has_ready_locked(p) || held;
        pthread_mutex_unlock(&p->mutex);
        if (held)
                pool_dispatch(p);
        if (waiting)
                pool_arm(p->stall_event, READER_STALL_USEC, true, "reader pool's stall check");
        return 0;
}

int reader_pool_new(sd_event *event, uint64_t timeout_usec, const ReaderPoolEvents *events, void *userdata,
                    ReaderPool **ret) {
        pthread_condattr_t ca;
        ReaderPool *p;
        int r;

        assert(event);
        assert(ret);

        p = calloc(1, sizeof(ReaderPool));
        if (!p)
                return -ENOMEM;
        pthread_mutex_init(&p->mutex, NULL);
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&p->work, &ca);
        pthread_cond_init(&p->gone, &ca);
        pthread_condattr_destroy(&ca);
        p->n_ref = 1;
        p->timeout_usec = timeout_usec;
        p->events = events ? *events : (ReaderPoolEvents){};
        p->userdata = userdata;
        r = loop_watch_eventfd(event, on_done, p, &p->fd, &p->fd_event);
        if (r < 0)
                goto fail;
        (void) sd_event_source_set_description(p->fd_event, "reader-pool");
        r = sd_event_add_time(event, &p->timer_event, CLOCK_MONOTONIC, UINT64_MAX, 100 * USEC_PER_MSEC,
                              on_timeout_timer, p);
        if (r < 0)
                goto fail;
        (void) sd_event_source_set_enabled(p->timer_event, SD_EVENT_OFF);
        (void) sd_event_source_set_description(p->timer_event, "read-timeout");
        r = sd_event_add_time(event, &p->stall_event, CLOCK_MONOTONIC, UINT64_MAX, USEC_PER_MSEC, on_stall, p);
        if (r < 0)
                goto fail;
        (void) sd_event_source_set_enabled(p->stall_event, SD_EVENT_OFF);
        (void) sd_event_source_set_description(p->stall_event, "reader-stall");
        *ret = p;
        return 0;
fail:
        reader_pool_free(p);
        return r;
}

/* Threads that are stuck in a read: their lane says so. */
static unsigned pool_stuck_locked(ReaderPool *p) {
        unsigned n = 0;

        LIST_FOREACH(running, j, p->running)
                n += j->lane->stuck;
        return n;
}

/* Under the mutex, at the end: rdmad is about to exit, and a thread still
 * running a read in user space (in libudev, in a preloaded library) while
 * exit() runs the libraries' destructors may crash the exit. The threads
 * that are not stuck end within a read's time; they are waited for, at
 * most READER_EXIT_WAIT_USEC. A stuck one sits in the kernel and runs
 * nothing until the process is gone: it is not waited for. */
#define READER_EXIT_WAIT_USEC (500 * USEC_PER_MSEC)

static void reader_pool_wait_threads_locked(ReaderPool *p) {
        uint64_t until = now_usec(CLOCK_MONOTONIC) + READER_EXIT_WAIT_USEC;

        while (p->n_threads > pool_stuck_locked(p)) {
                struct timespec ts = { .tv_sec = (time_t) (until / USEC_PER_SEC),
                                       .tv_nsec = (long) (until % USEC_PER_SEC) * 1000 };

                if (now_usec(CLOCK_MONOTONIC) >= until || pthread_cond_timedwait(&p->gone, &p->mutex, &ts) == ETIMEDOUT)
                        break;
        }
}

ReaderPool *reader_pool_free(ReaderPool *p) {
        if (!p)
                return NULL;
        p->fd_event = sd_event_source_disable_unref(p->fd_event);
        p->timer_event = sd_event_source_disable_unref(p->timer_event);
        p->stall_event = sd_event_source_disable_unref(p->stall_event);

        pthread_mutex_lock(&p->mutex);
        p->shutdown = true;
        /* Queued and done work is dropped; running jobs are freed by their
         * threads. A lane's last job takes the lane with it: the next lane
         * is taken first. */
        LIST_FOREACH_SAFE(lanes, l, next_lane, p->lanes)
                LIST_FOREACH_SAFE(queue, j, next, l->queue) {
                        LIST_REMOVE_TAIL(queue, l->queue, l->queue_tail, j);
                        job_free_locked(j);
                }
        LIST_FOREACH_SAFE(queue, j, next, p->done) {
                LIST_REMOVE_TAIL(queue, p->done, p->done_tail, j);
                job_free_locked(j);
        }
        pthread_cond_broadcast(&p->work);
        reader_pool_wait_threads_locked(p);
        pool_unref_locked_last(p);
        return NULL;
}

uint64_t reader_pool_timeout(const ReaderPool *p) {
        return p->timeout_usec;
}

unsigned reader_pool_threads(ReaderPool *p) {
        unsigned n;

        pthread_mutex_lock(&p->mutex);
        n = p->n_threads;
        pthread_mutex_unlock(&p->mutex);
        return n;
}

ReaderLane *reader_pool_lane(ReaderPool *p, const char *name) {
        ReaderLane *l;

        assert(p);
        assert(name);

        pthread_mutex_lock(&p->mutex);
        LIST_FOREACH(lanes, i, p->lanes)
                if (streq(i->name, name)) {
                        i->n_ref++;
                        pthread_mutex_unlock(&p->mutex);
                        return i;
                }
        l = calloc(1, sizeof(ReaderLane));
        if (l && !(l->name = strdup(name)))
                l = mfree(l);
        if (l) {
                l->pool = p;
                l->n_ref = 1;
                LIST_PREPEND(lanes, p->lanes, l);
        }
        pthread_mutex_unlock(&p->mutex);
        return l;
}

ReaderLane *reader_lane_ref(ReaderLane *l) {
        if (!l)
                return NULL;
        pthread_mutex_lock(&l->pool->mutex);
        l->n_ref++;
        pthread_mutex_unlock(&l->pool->mutex);
        return l;
}

ReaderLane *reader_lane_unref(ReaderLane *l) {
        ReaderPool *p;

        if (!l)
                return NULL;
        p = l->pool;
        pthread_mutex_lock(&p->mutex);
        lane_unref_locked(l);
        pthread_mutex_unlock(&p->mutex);
        return NULL;
}

const char *reader_lane_name(const ReaderLane *l) {
        return l->name;
}

void *reader_lane_owner(const ReaderLane *l) {
        return l ? l->owner : NULL;
}

void reader_lane_set_owner(ReaderLane *l, void *owner) {
        if (l)
                l->owner = owner;
}

bool reader_lane_stuck(ReaderLane *l) {
        bool b;

        pthread_mutex_lock(&l->pool->mutex);
        b = l->stuck;
        pthread_mutex_unlock(&l->pool->mutex);
        return b;
}

unsigned reader_lane_pending(ReaderLane *l) {
        return l->n_pending;
}

static bool job_matches(const ReaderJob *j, bool (*match)(void *arg, void *userdata), void *userdata) {
        return j->apply && !j->cancelled && (!match || match(j->arg, userdata));
}

/* Under the mutex: a queued job goes now; one that runs or ran is marked,
 * the loop frees it. */
static void job_cancel_locked(ReaderJob *j) {
        if (!j->cancelled)
                j->lane->n_pending--;
        j->cancelled = true;
        if (j->state == JOB_QUEUED) {
                lane_dequeue_locked(j->lane, j);
                job_free_locked(j);
        }
}

void reader_lane_cancel(ReaderLane *l, bool (*match)(void *arg, void *userdata), void *userdata) {
        ReaderPool *p = l->pool;

        pthread_mutex_lock(&p->mutex);
        LIST_FOREACH_SAFE(queue, j, next, l->queue)
                if (job_matches(j, match, userdata))
                        job_cancel_locked(j);
        /* Running (on no queue: a list of one), or run and not yet applied. */
        ReaderJob *started[] = { l->running, p->done, p->dispatching };
        for (size_t i = 0; i < ELEMENTSOF(started); i++)
                LIST_FOREACH(queue, j, started[i])
                        if (j->lane == l && job_matches(j, match, userdata))
                                job_cancel_locked(j);
        pthread_mutex_unlock(&p->mutex);
}

void *reader_lane_context(ReaderLane *l) {
        return l->context;
}

void reader_lane_set_context(ReaderLane *l, void *context, void (*free_context)(void *)) {
        l->context = context;
        l->free_context = free_context;
}

static int pool_submit(ReaderPool *p, ReaderLane *lane, bool first, ReaderRun run, ReaderApply apply,
                       ReaderFree free_arg, void *arg, ReaderJob **ret) {
        ReaderJob *j;

        assert(p);
        assert(lane);
        assert(run);

        j = calloc(1, sizeof(ReaderJob));
        if (!j)
                return -ENOMEM;
        *j = (ReaderJob){
                .pool = p, .lane = lane, .run = run, .apply = apply, .free_arg = free_arg, .arg = arg, .note_fd = -EBADF
        };
        j->first = first;

        pthread_mutex_lock(&p->mutex);
        lane->n_ref++;
        lane->n_pending++;
        LIST_APPEND(queue, lane->queue, lane->queue_tail, j);
        lane->n_first += first;
        /* Waiting in turn: it moves to the first list. */
        if (first && lane->ready && !lane->ready_first)
                lane_unready_locked(lane);
        lane_make_ready_locked(lane);
        if (lane->ready)
                pool_wake_locked(p, first);
        pthread_mutex_unlock(&p->mutex);

        /* The read timeout counts from when a thread takes the job: the
         * check comes at the earliest a timeout from now. */
        if (p->timeout_usec > 0)
                pool_arm(p->timer_event, p->timeout_usec, true, "read timeout");
        pool_arm(p->stall_event, READER_STALL_USEC, true, "reader pool's stall check");
        if (ret)
                *ret = j;
        return 0;
}

int reader_pool_submit(ReaderPool *p, ReaderLane *lane, ReaderRun run, ReaderApply apply, ReaderFree free_arg,
                       void *arg, ReaderJob **ret) {
        return pool_submit(p, lane, false, run, apply, free_arg, arg, ret);
}

int reader_pool_submit_first(ReaderPool *p, ReaderLane *lane, ReaderRun run, ReaderApply apply, ReaderFree free_arg,
                             void *arg, ReaderJob **ret) {
        return pool_submit(p, lane, true, run, apply, free_arg, arg, ret);
}

void reader_job_cancel(ReaderJob *j) {
        ReaderPool *p;

        if (!j)
                return;
        p = j->pool;
        pthread_mutex_lock(&p->mutex);
        job_cancel_locked(j);
        pthread_mutex_unlock(&p->mutex);
}

int reader_pool_wait(ReaderPool *p, uint64_t until) {
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
        int r = 0;

        if (now < until) {
                /* No loop runs yet to check for stalls: this does, as often. */
                uint64_t wait = until - now < READER_STALL_USEC ? until - now : READER_STALL_USEC;

                r = poll(&pfd, 1, (int) ((wait + USEC_PER_MSEC - 1) / USEC_PER_MSEC));
                if (r < 0 && errno != EINTR)
                        return -errno;
                pthread_mutex_lock(&p->mutex);
                if (pool_has_ready_locked(p))
                        pool_wake_locked(p, false);
                pthread_mutex_unlock(&p->mutex);
                pool_dispatch(p);
                now = now_usec(CLOCK_MONOTONIC);
        }
        if (r != 0 || now < until)
                return 0;
        (void) reader_watch_check(p, now);
        return -ETIME;
}
