/* SPDX-License-Identifier: MIT */
#include "batch-read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

int batch_read_new(BatchRead **ret) {
        BatchRead *b;

        assert(ret);

        b = calloc(1, sizeof(BatchRead));
        if (!b)
                return -ENOMEM;
        /* Not available (seccomp, aio-max-nr reached, no CONFIG_AIO): pread() does the same. */
        if (syscall(SYS_io_setup, BATCH_READ_MAX, &b->aio) < 0) {
                log_debug_errno(errno, "No AIO for the poll (%m); reading one file at a time.");
                b->aio = 0;
        }
        *ret = b;
        return 0;
}

BatchRead *batch_read_free(BatchRead *b) {
        if (!b)
                return NULL;
        if (b->aio != 0)
                (void) syscall(SYS_io_destroy, b->aio);
        free(b);
        return NULL;
}

size_t batch_read_add(BatchRead *b, int fd) {
        size_t i;

        assert(b);
        assert(fd >= 0);
        assert(b->n < BATCH_READ_MAX);

        i = b->n++;
        b->iocbs[i] = (struct iocb){
                .aio_data = i,
                .aio_lio_opcode = IOCB_CMD_PREAD,
                .aio_fildes = (uint32_t) fd,
                .aio_buf = (uint64_t) (uintptr_t) b->buf[i],
                .aio_nbytes = BATCH_READ_SIZE,
        };
        b->queue[i] = &b->iocbs[i];
        b->result[i] = -EINPROGRESS;
        return i;
}

static void read_one(BatchRead *b, size_t i) {
        ssize_t n = pread((int) b->iocbs[i].aio_fildes, b->buf[i], BATCH_READ_SIZE, 0);

        b->result[i] = n < 0 ? -errno : n;
}

/* Submits the queue and collects the completions; false if AIO failed
 * (then the caller reads what is left with pread()). */
static bool run_aio(BatchRead *b) {
        size_t submitted = 0, done = 0;

        while (submitted < b->n) {
                long r = syscall(SYS_io_submit, b->aio, (long) (b->n - submitted), b->queue + submitted);
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (r == 0)
                        break;
                submitted += (size_t) r;
        }

        while (done < submitted) {
                long r = syscall(SYS_io_getevents, b->aio, (long) (submitted - done), (long) (submitted - done),
                                 b->events, NULL);
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        /* Cannot happen with a valid context; give up on AIO for good, io_destroy()
                         * waits for what is in flight. */
                        log_warning_errno(errno, "io_getevents() failed, reading one file at a time from now on: %m");
                        (void) syscall(SYS_io_destroy, b->aio);
                        b->aio = 0;
                        return false;
                }
                for (long k = 0; k < r; k++) {
                        size_t i = (size_t) b->events[k].data;

                        assert(i < b->n);
                        b->result[i] = (ssize_t) b->events[k].res;
                }
                done += (size_t) r;
        }
        return submitted == b->n;
}

void batch_read_run(BatchRead *b) {
        assert(b);

        if (b->n == 0)
                return;
        if (b->aio == 0 || !run_aio(b))
                for (size_t i = 0; i < b->n; i++)
                        if (b->result[i] == -EINPROGRESS)
                                read_one(b, i);
}
