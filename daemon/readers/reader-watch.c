/* SPDX-License-Identifier: MIT */
/* The reader pool's watch over its reads, on the loop: from the notes the
 * reading code leaves of each read (reader_read_begin(), reader-pool.c),
 * the check finds a read that has not returned within the read timeout,
 * tells a stuck device from a thread that only waits for a CPU, and names
 * the file in the report ("ports/1/state: no answer for 5.0 s"); a job's
 * first I/O error is named the same way. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/util.h"
#include "reader-pool-internal.h"
#include "reader-pool.h"

/* Where name's file is relative to the device: after ".../<lane>/", else
 * its last two components ("eth0/mtu", "0000:3b:00.0/sriov_numvfs"). */
static void relative_name(const char *lane, const char *path, char *buf, size_t size) {
        char key[300];
        const char *found = NULL, *s, *slash, *prev;

        snprintf(key, sizeof(key), "/%s/", lane);
        for (s = strstr(path, key); s; s = strstr(s + 1, key))
                found = s;
        if (found) {
                snprintf(buf, size, "%s", found + strlen(key));
                return;
        }
        slash = strrchr(path, '/');
        /* The '/' before the last, not next to it. */
        prev = slash && slash - path > 1 ? memrchr(path, '/', (size_t) (slash - path - 1)) : NULL;
        snprintf(buf, size, "%s", prev ? prev + 1 : slash ? slash + 1 : path);
}

void reader_note_resolve(const ReaderJob *j, int dirfd, const char *name, char *buf, size_t size) {
        char link[64], dir[4096], full[4096 + 256];
        ssize_t n;

        if (!name) {
                snprintf(buf, size, "(between reads)");
                return;
        }
        if (name[0] == '/' || dirfd == AT_FDCWD)
                snprintf(full, sizeof(full), "%s", name);
        else {
                snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
                n = readlink(link, dir, sizeof(dir) - 1);
                if (n < 0)
                        n = 0;
                dir[n] = '\0';
                snprintf(full, sizeof(full), "%s%s%s", dir, *name ? "/" : "", name);
        }
        relative_name(j->lane->name, full, buf, size);
}

typedef struct StuckReport {
        /* Alive while reported: its stuck job holds a reference, and only
         * the loop, which reports, frees a job. */
        ReaderLane *lane;
        char reason[512];
} StuckReport;

/* Whether thread tid of this process is running or waits for a CPU (state
 * R in /proc): a thread that only waits for its turn on a loaded machine
 * is not waiting for its device, whatever the clock says. Anything else
 * (D: in a driver, S: asleep in the kernel) counts as waiting. */
static bool thread_runnable(pid_t tid) {
        char path[64], buf[512];
        const char *close_paren;
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int) tid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return false;
        buf[n] = '\0';
        /* "tid (comm) S ...": comm may hold anything, the state follows the last ')'. */
        close_paren = strrchr(buf, ')');
        return close_paren && close_paren[1] == ' ' && close_paren[2] == 'R';
}

static uint64_t min_usec(uint64_t a, uint64_t b) {
        return a < b ? a : b;
}

/* A thread found runnable past its deadline is looked at again this soon. */
#define READER_STARVED_RECHECK_USEC (100 * USEC_PER_MSEC)

/* What is timed is the read in progress (from reader_read_begin()), or the
 * work since the last read returned: a job of many reads that each answer
 * is never stuck, however long the job. */
uint64_t reader_watch_check(ReaderPool *p, uint64_t now) {
        StuckReport reports[READER_POOL_THREADS_MAX];
        unsigned n = 0;
        uint64_t next = UINT64_MAX;

        if (p->timeout_usec == 0)
                return UINT64_MAX;
        pthread_mutex_lock(&p->mutex);
        LIST_FOREACH(running, j, p->running) {
                uint64_t since = j->read_usec ?: j->progress_usec;

                if (j->lane->stuck)
                        continue;
                if (now < since + p->timeout_usec) {
                        next = min_usec(next, since + p->timeout_usec);
                        continue;
                }
                if (thread_runnable(j->tid)) {
                        /* Starved of the CPU, not stuck in the device. */
                        next = min_usec(next, now + READER_STARVED_RECHECK_USEC);
                        continue;
                }
                j->lane->stuck = true;
                if (n < ELEMENTSOF(reports)) {
                        char file[256];

                        reader_note_resolve(j, j->note_fd, j->note_name, file, sizeof(file));
                        reports[n].lane = j->lane;
                        snprintf(reports[n].reason, sizeof(reports[n].reason), "%s: no answer for %.1f s", file,
                                 (double) (now - since) / USEC_PER_SEC);
                        n++;
                }
        }
        /* Work waiting for a thread: it starts at the earliest now. */
        if (p->ready[true] || p->ready[false])
                next = min_usec(next, now + p->timeout_usec);
        pthread_mutex_unlock(&p->mutex);

        for (unsigned i = 0; i < n; i++)
                if (p->events.stuck)
                        p->events.stuck(reports[i].lane, reports[i].reason, p->userdata);
        return next;
}
