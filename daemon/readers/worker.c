/* SPDX-License-Identifier: MIT */
#include "worker.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/eventfd.h>

#include "basic/util.h"

enum {
        WORKER_RUNNING,
        WORKER_FINISHED,  /* run() returned */
        WORKER_ABANDONED, /* the loop let go: the thread frees the worker */
};

struct Worker {
        WorkerRun run;
        WorkerDone done;
        WorkerRelease release; /* set before the abandonment is published */
        void *arg;
        pthread_t thread;
        bool joinable;
        int fd; /* eventfd: written once, when run() returned */
        sd_event_source *source;
        /* Who frees the worker after an abandonment: the last of the thread and the loop. */
        atomic_int state;
};

/* What the thread also uses; the rest is the loop's. release is set only
 * when the loop abandoned the worker. */
static void worker_free_shared(Worker *w) {
        if (w->release)
                w->release(w->arg);
        if (w->fd >= 0)
                close(w->fd);
        free(w);
}

static void *worker_thread(void *userdata) {
        Worker *w = userdata;

        w->run(w->arg);
        (void) eventfd_write(w->fd, 1);
        /* The loop gave up on it: nobody else will free it. */
        if (atomic_exchange(&w->state, WORKER_FINISHED) == WORKER_ABANDONED)
                worker_free_shared(w);
        return NULL;
}

static int on_worker_done(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Worker *w = userdata;

        /* The thread wrote its last byte; it only has to return now. */
        pthread_join(w->thread, NULL);
        w->joinable = false;
        w->source = sd_event_source_disable_unref(w->source);
        /* Last: done() may free w. */
        w->done(w, w->arg);
        return 0;
}

int loop_watch_eventfd(sd_event *event, sd_event_io_handler_t cb, void *userdata, int *ret_fd, sd_event_source **ret) {
        *ret_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (*ret_fd < 0)
                return negative_errno();
        return sd_event_add_io(event, ret, *ret_fd, EPOLLIN, cb, userdata);
}

int worker_start(sd_event *event, WorkerRun run, WorkerDone done, void *arg, Worker **ret) {
        Worker *w;
        int r;

        assert(event);
        assert(run);
        assert(done);
        assert(ret);

        w = calloc(1, sizeof(Worker));
        if (!w)
                return -ENOMEM;
        *w = (Worker){ .run = run, .done = done, .arg = arg, .fd = -EBADF };
        atomic_init(&w->state, WORKER_RUNNING);

        r = loop_watch_eventfd(event, on_worker_done, w, &w->fd, &w->source);
        if (r < 0)
                goto fail;
        r = -pthread_create(&w->thread, NULL, worker_thread, w);
        if (r < 0)
                goto fail;
        w->joinable = true;
        *ret = w;
        return 0;

fail:
        worker_free(w);
        return r;
}

Worker *worker_free(Worker *w) {
        if (!w)
                return NULL;
        if (w->joinable)
                pthread_join(w->thread, NULL);
        sd_event_source_disable_unref(w->source);
        worker_free_shared(w);
        return NULL;
}

void worker_abandon(Worker *w, WorkerRelease release) {
        if (!w)
                return;

        w->source = sd_event_source_disable_unref(w->source);
        w->release = release;
        if (w->joinable) {
                (void) pthread_detach(w->thread);
                w->joinable = false;
        }
        /* A job that is done, or joined already, is freed here. */
        if (atomic_exchange(&w->state, WORKER_ABANDONED) == WORKER_FINISHED)
                worker_free_shared(w);
}
