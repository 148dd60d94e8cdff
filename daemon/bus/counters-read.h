/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "counters.h"
#include "forward.h"

/* The thread side of the counters' reads (counters-worker.c is the bus
 * side: the calls, the cache, the shared replies): one read of a set of
 * counter directories, each device's on its lane of the reader pool, so
 * that the loop answers other calls meanwhile and a sick device holds up
 * only itself. A device whose read is stuck (the pool's read timeout) is
 * left out at once; whatever has not answered after
 * COUNTERS_GIVE_UP_TIMEOUTS read timeouts is left out too. */

/* The counters of one directory as one read found them. Shared by the
 * cache and the replies still being built; only the event loop touches the
 * reference count. */
typedef struct CounterSnapshot {
        unsigned n_ref;
        bool present;      /* a counter directory exists there */
        bool unresponsive; /* its device did not answer within the read timeout */
        CounterList counters;
} CounterSnapshot;

CounterSnapshot *counter_snapshot_new(void);
CounterSnapshot *counter_snapshot_ref(CounterSnapshot *s);
CounterSnapshot *counter_snapshot_unref(CounterSnapshot *s);
/* Unrefs every snapshot and frees the array. */
void counter_snapshots_free(CounterSnapshot **s, size_t n);

/* The counters of one directory, as a read left them; in a request (a
 * call's targets), the directory alone. */
typedef struct CounterEntry {
        char *path;
        char *device;
        struct ReaderLane *lane; /* a reference, until the read takes it: where the device reads; NULL: here */
        uint32_t port;           /* > 0: .../ports/<port>; 0: the device-wide hw_counters, the device directory */
        CounterSnapshot *snapshot;
        uint64_t read_usec; /* CLOCK_MONOTONIC when the read that filled it started */
} CounterEntry;

/* *ret: a copy of e (its lane referenced too) with a new, empty snapshot. */
int counter_entry_copy(const CounterEntry *e, CounterEntry *ret);
void counter_entry_clear(CounterEntry *e);
void counter_entries_free(CounterEntry *e, size_t n);
/* By path, for qsort() and bsearch(). */
int counter_entry_compare(const void *a, const void *b);
/* In e, sorted by path. */
const CounterEntry *counter_entries_find(const CounterEntry *e, size_t n, const char *path);

/* How the reads go: a device's counters on its lane of the pool. */
typedef struct CounterReaderHost {
        /* A device whose reads hang: nothing is queued for it. */
        bool (*unresponsive)(struct ReaderLane *lane, void *userdata);
        /* How a device's read went (an I/O error sets its health). */
        void (*read_result)(struct ReaderLane *lane, const struct ReaderResult *result, void *userdata);
        void *userdata;
} CounterReaderHost;

typedef struct CounterRead CounterRead;

/* On the loop, when every device has answered or been left out; the read
 * may be freed here. Never called from within counter_read_start(). */
typedef void (*CounterReadDone)(CounterRead *read, void *userdata);

/* Reads the entries (sorted by path, one per path; taken whatever happens),
 * their snapshots filled in place: each device's on its lane of pool (an
 * entry without a lane is -ENOMEM), or here when pool is NULL (tests). */
int counter_read_start(sd_event *event, ReaderPool *pool, const CounterReaderHost *host, CounterEntry *entries,
                       size_t n_entries, uint64_t start_usec, CounterReadDone done, void *userdata, CounterRead **ret);
/* A read not finished: what runs on a thread is left to it. */
CounterRead *counter_read_free(CounterRead *read);

/* Every device answered or was left out (done() is not called for a read
 * that finished within counter_read_start()). */
bool counter_read_finished(const CounterRead *read);
/* Whether the read covers path of device. */
bool counter_read_covers(const CounterRead *read, const char *device, const char *path);
/* The entries read, sorted by path, the caller's; or why the read failed
 * (a lack of memory or descriptors). */
int counter_read_take_entries(CounterRead *read, CounterEntry **ret, size_t *ret_n);
