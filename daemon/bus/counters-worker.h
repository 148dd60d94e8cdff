/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "basic/time-util.h"
#include "counters-read.h"
#include "forward.h"

/* GetCounters and GetAllCounters: the sysfs reads run on the reader pool,
 * each device's on its lane, so that the event loop answers other calls
 * while a big host is read and a sick device holds up only itself
 * (counters-read.c, the thread side). A read gets the directories to read
 * (paths, never the live model); the loop hears when it is done. A device
 * that has not answered within the read timeout is given up for this read.
 *
 * Calls that arrive while a read runs and ask for nothing more than it
 * reads share it; the others are queued and share the next read. One read
 * runs at a time. The results are cached: a caller other than root whose
 * every directory was read less than COUNTERS_MIN_AGE_USEC ago gets the
 * cached values, so no unprivileged caller makes the daemon read sysfs
 * more often than once per second per port. Root always gets a read that
 * started after its call, or the one it shares. Results are dropped once
 * they are older than that: an idle daemon holds no counters. */

#define COUNTERS_MIN_AGE_USEC USEC_PER_SEC
/* Calls one bus connection may have waiting for counters; one user over
 * all its connections; all users but root together; root besides. */
#define COUNTERS_CALLS_PER_CALLER_MAX 16
#define COUNTERS_CALLS_PER_USER_MAX   64
#define COUNTERS_CALLS_MAX            1024
#define COUNTERS_CALLS_ROOT_MAX       256
/* Replies kept for sharing: one per distinct request since the cache changed. */
#define COUNTERS_SHARES_MAX 64

typedef struct CounterReader CounterReader;

/* One reply's body for every call answered from the same snapshots: the
 * first reply built is kept (sealed, as sent) and the next calls get a
 * copy of its body instead of marshalling the counters again. Dropped when
 * the cache changes; only the event loop touches it. */
typedef struct CounterShare {
        unsigned n_ref;
        sd_bus_message *body; /* NULL until the first reply is sent */
} CounterShare;

CounterShare *counter_share_ref(CounterShare *s);
CounterShare *counter_share_unref(CounterShare *s);

/* Builds and sends the reply to `call`, from snapshots[i] for targets[i]
 * (or a copy of share->body when set; sets it once sent, if still unset);
 * takes both arrays (a big reply is built over several loop iterations). */
typedef int (*CounterReplyFn)(sd_bus_message *call, CounterEntry *targets, CounterSnapshot **snapshots, size_t n,
                              CounterShare *share);

/* pool NULL: the reads run on the loop (tests). */
int counter_reader_new(sd_event *event, struct ReaderPool *pool, const CounterReaderHost *host, CounterReader **ret);
/* Waits for a running read; pending calls are dropped unanswered (exit). */
CounterReader *counter_reader_free(CounterReader *r);

/* Takes the targets (freed by the reader in any case). Answers `call` of
 * the bus-verified `uid` through reply now (cached) or when its read is
 * done. -EBUSY when the connection has COUNTERS_CALLS_PER_CALLER_MAX calls
 * waiting, -EUSERS past the bound of its user or of all. */
int counter_reader_submit(CounterReader *r, sd_bus_message *call, uid_t uid, CounterEntry *targets, size_t n_targets,
                          CounterReplyFn reply);
