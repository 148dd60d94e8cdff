/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "counters.h"

/* GetCounters and GetAllCounters: the sysfs reads run in a worker thread,
 * so that the event loop answers other calls while a big host is read.
 * The thread gets a snapshot of the directories to read (paths, never the
 * live model) and reports through a pipe the loop watches.
 *
 * Calls that arrive while a read runs and ask for nothing more than it
 * reads share it; the others are queued and share the next read. One read
 * runs at a time. The results are cached: a caller other than root whose
 * every directory was read less than COUNTERS_MIN_AGE_USEC ago gets the
 * cached values, so no unprivileged caller makes the daemon read sysfs
 * more often than once per second per port. Root always gets a read that
 * started after its call, or the one it shares. */

#define COUNTERS_MIN_AGE_USEC (1000 * 1000ULL)
/* Cached results older than this are dropped (the cache holds what the
 * scrapers of the last minute asked for, not every device ever seen). */
#define COUNTERS_CACHE_KEEP_USEC (60 * 1000 * 1000ULL)
/* Calls one bus connection may have waiting for counters. */
#define COUNTERS_CALLS_PER_CALLER_MAX 16

typedef struct CounterReader CounterReader;

/* One directory of a request: a port (.../ports/<n>, port > 0) or the
 * device-wide hw_counters (the device directory, port 0). */
typedef struct CounterTarget {
        char *device;
        uint32_t port;
        char *path;
} CounterTarget;

/* What the reply gets for each target: its counters, and whether any
 * counter directory exists there. */
typedef struct CounterResult {
        const CounterList *counters;
        bool present;
} CounterResult;

/* Builds and sends the reply to `call` from results[i] for targets[i]. */
typedef int (*CounterReplyFn)(sd_bus_message *call, const CounterTarget *targets, const CounterResult *results,
                              size_t n);

int counter_reader_new(sd_event *event, CounterReader **ret);
/* Waits for a running read; pending calls are dropped unanswered (exit). */
CounterReader *counter_reader_free(CounterReader *r);

/* Takes the targets (freed by the reader in any case). Answers `call`
 * through reply now (cached) or when its read is done. -EBUSY when the
 * caller has COUNTERS_CALLS_PER_CALLER_MAX calls waiting. */
int counter_reader_submit(CounterReader *r, sd_bus_message *call, CounterTarget *targets, size_t n_targets,
                          CounterReplyFn reply);

void counter_targets_free(CounterTarget *t, size_t n);
