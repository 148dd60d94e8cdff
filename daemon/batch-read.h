/* SPDX-License-Identifier: MIT */
#pragma once

#include <linux/aio_abi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads many kept-open descriptors from offset 0 in one system call (Linux
 * AIO: io_submit() and io_getevents(), both in @system-service), pread() one
 * by one where AIO is not available. The poll reads thousands of small
 * sysfs files a second this way: on this kind of host a pread() costs about
 * 2.6 µs of CPU, one read in a batch about 0.8 µs (BENCHMARKS.md). */

#define BATCH_READ_MAX  256
#define BATCH_READ_SIZE 64 /* what is read of each file: a port's state is at most 16 bytes */

typedef struct BatchRead {
        aio_context_t aio; /* 0: no AIO, pread() */
        size_t n;
        struct iocb iocbs[BATCH_READ_MAX];
        struct iocb *queue[BATCH_READ_MAX];
        struct io_event events[BATCH_READ_MAX];
        ssize_t result[BATCH_READ_MAX]; /* after batch_read_run(): bytes read into buf[i], or -errno */
        char buf[BATCH_READ_MAX][BATCH_READ_SIZE];
} BatchRead;

int batch_read_new(BatchRead **ret);
BatchRead *batch_read_free(BatchRead *b);

/* Queues fd (at most BATCH_READ_MAX before a run); returns its slot. */
size_t batch_read_add(BatchRead *b, int fd);
static inline bool batch_read_full(const BatchRead *b) {
        return b->n == BATCH_READ_MAX;
}

/* Reads everything queued into buf[slot] and result[slot]. */
void batch_read_run(BatchRead *b);

/* Empties the queue for the next batch. */
static inline void batch_read_clear(BatchRead *b) {
        b->n = 0;
}
