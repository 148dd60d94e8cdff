/* SPDX-License-Identifier: MIT */
/* The daemon's sd_notify socket and the harness thread that empties it
 * (notify.h says why). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "harness-private.h"

/* Messages kept until taken: a watchdog of 200 ms pings 10 times a second,
 * so this is minutes of pings; past it the oldest go. */
#define NOTIFY_KEPT 4096

typedef struct NotifyMessage {
        uint64_t usec;
        char text[256];
} NotifyMessage;

struct NotifyReader {
        int fd;
        int stop[2]; /* a pipe: written to end the thread */
        pthread_t thread;
        pthread_mutex_t mutex;
        pthread_cond_t came;
        NotifyMessage *kept; /* a ring of NOTIFY_KEPT */
        size_t head, n;
};

static void *reader_thread(void *userdata) {
        NotifyReader *r = userdata;

        for (;;) {
                struct pollfd p[2] = { { .fd = r->fd, .events = POLLIN }, { .fd = r->stop[0], .events = POLLIN } };
                char buf[sizeof(((NotifyMessage *) NULL)->text)];
                ssize_t n;

                if (poll(p, 2, -1) < 0 && errno != EINTR)
                        break;
                if (p[1].revents)
                        break;
                if (!(p[0].revents & POLLIN))
                        continue;
                n = recv(r->fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
                if (n <= 0)
                        continue;
                buf[n] = '\0';
                pthread_mutex_lock(&r->mutex);
                if (r->n == NOTIFY_KEPT) {
                        r->head = (r->head + 1) % NOTIFY_KEPT;
                        r->n--;
                }
                NotifyMessage *m = &r->kept[(r->head + r->n++) % NOTIFY_KEPT];
                m->usec = now_usec();
                memcpy(m->text, buf, (size_t) n + 1);
                pthread_cond_signal(&r->came);
                pthread_mutex_unlock(&r->mutex);
        }
        return NULL;
}

void open_notify_socket(Harness *h) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        pthread_condattr_t attr;
        NotifyReader *r = calloc(1, sizeof(NotifyReader));

        assert_non_null(r);
        r->kept = calloc(NOTIFY_KEPT, sizeof(NotifyMessage));
        assert_non_null(r->kept);
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", h->tmpdir);
        r->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_true(r->fd >= 0);
        assert_int_equal(bind(r->fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
        /* sd_notify() needs write access to the socket. */
        if (daemon_unprivileged)
                assert_int_equal(chown(sa.sun_path, daemon_uid, daemon_gid), 0);
        snprintf(h->notify_path, sizeof(h->notify_path), "%s", sa.sun_path);

        assert_int_equal(pipe2(r->stop, O_CLOEXEC), 0);
        pthread_mutex_init(&r->mutex, NULL);
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&r->came, &attr);
        pthread_condattr_destroy(&attr);
        assert_int_equal(pthread_create(&r->thread, NULL, reader_thread, r), 0);
        h->notify = r;
}

void close_notify_socket(Harness *h) {
        NotifyReader *r = h->notify;

        if (!r)
                return;
        (void) !write(r->stop[1], "", 1);
        pthread_join(r->thread, NULL);
        close(r->stop[0]);
        close(r->stop[1]);
        close(r->fd);
        pthread_cond_destroy(&r->came);
        pthread_mutex_destroy(&r->mutex);
        free(r->kept);
        free(r);
        h->notify = NULL;
}

bool harness_notify_next(Harness *h, int timeout_ms, char *buf, size_t size, uint64_t *ret_usec) {
        NotifyReader *r = h->notify;
        uint64_t until = now_usec() + (uint64_t) (timeout_ms > 0 ? timeout_ms : 0) * 1000;
        struct timespec ts = { .tv_sec = (time_t) (until / 1000000), .tv_nsec = (long) (until % 1000000) * 1000 };
        bool got = false;

        assert_non_null(r);
        pthread_mutex_lock(&r->mutex);
        while (r->n == 0 && now_usec() < until)
                if (pthread_cond_timedwait(&r->came, &r->mutex, &ts) == ETIMEDOUT)
                        break;
        if (r->n > 0) {
                NotifyMessage *m = &r->kept[r->head];

                if (size > 0)
                        snprintf(buf, size, "%s", m->text);
                if (ret_usec)
                        *ret_usec = m->usec;
                r->head = (r->head + 1) % NOTIFY_KEPT;
                r->n--;
                got = true;
        }
        pthread_mutex_unlock(&r->mutex);
        return got;
}

void harness_notify_forget(Harness *h) {
        NotifyReader *r = h->notify;

        assert_non_null(r);
        pthread_mutex_lock(&r->mutex);
        r->head = r->n = 0;
        pthread_mutex_unlock(&r->mutex);
}

unsigned harness_count_notify(Harness *h, const char *needle, int ms) {
        uint64_t start = now_usec(), deadline = now_ms() + (uint64_t) ms, came;
        unsigned count = 0;
        char buf[256];

        for (uint64_t now = now_ms(); now < deadline; now = now_ms())
                if (harness_notify_next(h, (int) (deadline - now), buf, sizeof(buf), &came) && came >= start &&
                    strstr(buf, needle))
                        count++;
        return count;
}
