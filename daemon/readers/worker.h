/* SPDX-License-Identifier: MIT */
#pragma once

#include <systemd/sd-event.h>

/* One job on a thread of its own, its end heard on the event loop: for
 * sysfs I/O that can take seconds (or, with a broken driver, forever) while
 * the bus must be answered. The thread signals an eventfd the loop watches;
 * the loop joins the thread, then calls the completion callback. */

typedef struct Worker Worker;

/* On the new thread. */
typedef void (*WorkerRun)(void *arg);
/* On the event loop, once run() has returned and the thread is joined;
 * `w` may be freed here. */
typedef void (*WorkerDone)(Worker *w, void *arg);
/* Frees arg after worker_abandon(), on whichever side is done last. */
typedef void (*WorkerRelease)(void *arg);

/* Runs run(arg) on a new thread; done(w, arg) follows on the loop of
 * `event`. On failure nothing runs and arg is left to the caller. */
int worker_start(sd_event *event, WorkerRun run, WorkerDone done, void *arg, Worker **ret);

/* Waits for a job still running (it cannot be interrupted), then frees the
 * worker; done() is not called. */
Worker *worker_free(Worker *w);

/* An eventfd (*ret_fd, non-blocking) that threads write and the loop of
 * `event` watches: the worker's, and the reader pool's. */
int loop_watch_eventfd(sd_event *event, sd_event_io_handler_t cb, void *userdata, int *ret_fd, sd_event_source **ret);

/* Gives the job up without waiting: done() is never called, the thread is
 * detached and frees the worker itself when run() returns, calling
 * release(arg) then (or here, if run() already returned). */
void worker_abandon(Worker *w, WorkerRelease release);
