/* SPDX-License-Identifier: MIT */
/* The bus side of the counters' reads: the calls waiting, their bounds, the
 * cache of what the last reads found, and the replies shared between calls.
 * A read itself runs in counters-read.c. */
#include "counters-worker.h"

#include <assert.h>

#include "bus-util.h"
#include "basic/list.h"
#include "basic/log.h"
#include "basic/time-util.h"
#include "reader-pool.h"
#include "basic/util.h"

typedef struct PendingCall PendingCall;
struct PendingCall {
        LIST_FIELDS(PendingCall, calls); /* on the reader's queue or its running read's calls */
        sd_bus_message *call;
        CounterEntry *targets;
        size_t n_targets;
        CounterReplyFn reply;
        uid_t uid; /* bus-verified */
};

/* A reply kept for the calls that ask for the same snapshots. */
typedef struct SharedReply {
        CounterReplyFn reply;
        CounterSnapshot **snapshots; /* refs: their identity is the content's */
        size_t n;
        CounterShare *share;
} SharedReply;

struct CounterReader {
        sd_event *event;
        ReaderPool *pool;
        CounterReaderHost host;
        CounterRead *running;
        PendingCall *running_calls;        /* answered when the running read is done */
        PendingCall *queued, *queued_tail; /* for the next read, in arrival order */
        CounterEntry *cache;               /* sorted by path; nothing older than COUNTERS_MIN_AGE_USEC */
        size_t n_cache;
        sd_event_source *expire_event; /* drops the cache when it is too old to serve anyone */
        SharedReply shared[COUNTERS_SHARES_MAX];
        size_t n_shared;
};

CounterShare *counter_share_ref(CounterShare *s) {
        if (s)
                s->n_ref++;
        return s;
}

CounterShare *counter_share_unref(CounterShare *s) {
        if (!s || --s->n_ref > 0)
                return NULL;
        sd_bus_message_unref(s->body);
        free(s);
        return NULL;
}

static PendingCall *pending_call_free(PendingCall *c) {
        if (!c)
                return NULL;
        sd_bus_message_unref(c->call);
        counter_entries_free(c->targets, c->n_targets);
        free(c);
        return NULL;
}

static void pending_calls_free(PendingCall *calls) {
        LIST_FOREACH_SAFE(calls, c, next, calls)
                pending_call_free(c);
}

static void pending_call_fail(PendingCall *c, int error) {
        int r;

        r = sd_bus_reply_method_errorf(c->call, RDMAD_ERROR_FAILED, "Cannot read the counters: %s", strerror(-error));
        if (r < 0)
                log_warning_errno(r, "Failed to answer a counters call: %m");
        pending_call_free(c);
}

static void shared_clear(CounterReader *reader) {
        for (size_t i = 0; i < reader->n_shared; i++) {
                counter_snapshots_free(reader->shared[i].snapshots, reader->shared[i].n);
                counter_share_unref(reader->shared[i].share);
        }
        reader->n_shared = 0;
}

/* The share of the calls answered by `reply` from exactly these snapshots
 * (a new one if there is room), or NULL. */
static CounterShare *shared_find(CounterReader *reader, CounterReplyFn reply, CounterSnapshot **snapshots, size_t n) {
        SharedReply *e;

        for (size_t i = 0; i < reader->n_shared; i++) {
                e = &reader->shared[i];
                if (e->reply == reply && e->n == n && memcmp(e->snapshots, snapshots, n * sizeof(*snapshots)) == 0)
                        return e->share;
        }
        if (reader->n_shared >= COUNTERS_SHARES_MAX)
                return NULL;
        e = &reader->shared[reader->n_shared];
        *e = (SharedReply){ .reply = reply, .n = n };
        e->snapshots = calloc(n ?: 1, sizeof(CounterSnapshot *));
        e->share = calloc(1, sizeof(CounterShare));
        if (!e->snapshots || !e->share) {
                free(e->snapshots);
                free(e->share);
                return NULL;
        }
        e->share->n_ref = 1;
        for (size_t i = 0; i < n; i++)
                e->snapshots[i] = counter_snapshot_ref(snapshots[i]);
        reader->n_shared++;
        return e->share;
}

/* Answers from the cache, where every target of the call is. */
static void pending_call_answer(CounterReader *reader, PendingCall *c) {
        CounterSnapshot **snapshots;
        int r;

        snapshots = calloc(c->n_targets ?: 1, sizeof(CounterSnapshot *));
        if (!snapshots) {
                pending_call_fail(c, -ENOMEM);
                return;
        }
        for (size_t i = 0; i < c->n_targets; i++) {
                const CounterEntry *e = counter_entries_find(reader->cache, reader->n_cache, c->targets[i].path);

                snapshots[i] = e ? counter_snapshot_ref(e->snapshot) : counter_snapshot_new();
                if (!snapshots[i]) {
                        counter_snapshots_free(snapshots, i);
                        pending_call_fail(c, -ENOMEM);
                        return;
                }
        }
        r = c->reply(c->call, TAKE_PTR(c->targets), snapshots, c->n_targets,
                     shared_find(reader, c->reply, snapshots, c->n_targets));
        if (r < 0)
                log_warning_errno(r, "Failed to answer a counters call: %m");
        c->n_targets = 0;
        pending_call_free(c);
}

static bool entry_expired(const CounterEntry *e, uint64_t now) {
        return now - e->read_usec >= COUNTERS_MIN_AGE_USEC;
}

static bool call_cached(const CounterReader *reader, const PendingCall *c, uint64_t now) {
        for (size_t i = 0; i < c->n_targets; i++) {
                const CounterEntry *e = counter_entries_find(reader->cache, reader->n_cache, c->targets[i].path);

                if (!e || entry_expired(e, now))
                        return false;
        }
        return true;
}

static bool call_covered_by(const CounterRead *read, const PendingCall *c) {
        for (size_t i = 0; i < c->n_targets; i++)
                if (!counter_read_covers(read, c->targets[i].device, c->targets[i].path))
                        return false;
        return true;
}

typedef struct CallCount {
        unsigned sender, uid, all;
} CallCount;

static void count_calls_of(const PendingCall *c, const char *sender, uid_t uid, CallCount *count) {
        LIST_FOREACH(calls, i, c) {
                count->sender += streq_ptr(sd_bus_message_get_sender(i->call), sender);
                count->uid += i->uid == uid;
                count->all++;
        }
}

/* Drops the cached entries too old to serve anyone. */
static void cache_expire(CounterReader *reader, uint64_t now) {
        size_t k = 0;

        shared_clear(reader);
        for (size_t i = 0; i < reader->n_cache; i++)
                if (entry_expired(&reader->cache[i], now))
                        counter_entry_clear(&reader->cache[i]);
                else
                        reader->cache[k++] = reader->cache[i];
        reader->n_cache = k;
}

/* Takes the read's entries (sorted by path) into the cache, replacing older
 * ones for the same paths, and drops the ones too old to serve anyone. */
static int cache_merge(CounterReader *reader, CounterEntry *entries, size_t n_entries, uint64_t now) {
        CounterEntry *merged;
        size_t i = 0, j = 0, k = 0;

        merged = reallocarray(NULL, reader->n_cache + n_entries + 1, sizeof(CounterEntry));
        if (!merged) {
                counter_entries_free(entries, n_entries);
                return -ENOMEM;
        }
        cache_expire(reader, now);
        while (i < reader->n_cache || j < n_entries) {
                int c = i == reader->n_cache ? 1 : j == n_entries ? -1 : strcmp(reader->cache[i].path, entries[j].path);

                if (c == 0)
                        counter_entry_clear(&reader->cache[i++]);
                merged[k++] = c < 0 ? reader->cache[i++] : entries[j++];
        }
        free(reader->cache);
        free(entries);
        reader->cache = merged;
        reader->n_cache = k;
        return 0;
}

static void start_next_read(CounterReader *reader);

/* An idle daemon keeps no counters: they are dropped once they are too old to be served. */
static int on_cache_expire(sd_event_source *s, uint64_t usec, void *userdata) {
        CounterReader *reader = userdata;

        cache_expire(reader, now_usec(CLOCK_MONOTONIC));
        if (reader->n_cache == 0) {
                reader->cache = mfree(reader->cache);
                return 0;
        }
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static void arm_cache_expiry(CounterReader *reader) {
        int r;

        if (reader->expire_event) {
                r = sd_event_source_set_time_relative(reader->expire_event, COUNTERS_MIN_AGE_USEC);
                if (r >= 0)
                        r = sd_event_source_set_enabled(reader->expire_event, SD_EVENT_ONESHOT);
        } else
                r = sd_event_add_time_relative(reader->event, &reader->expire_event, CLOCK_MONOTONIC,
                                               COUNTERS_MIN_AGE_USEC, 0, on_cache_expire, reader);
        if (r < 0)
                log_warning_errno(r, "Failed to arm the expiry of the counters cache: %m");
}

static void on_read_done(CounterRead *read, void *userdata) {
        CounterReader *reader = userdata;
        CounterEntry *entries = NULL;
        size_t n_entries = 0;
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        PendingCall *queued;
        int r;

        reader->running = NULL;

        r = counter_read_take_entries(read, &entries, &n_entries);
        counter_read_free(read);
        if (r >= 0)
                r = cache_merge(reader, entries, n_entries, now);
        if (r < 0)
                log_warning_errno(r, "Failed to read the counters: %m");
        else
                arm_cache_expiry(reader);
        LIST_FOREACH_SAFE(calls, c, next, TAKE_PTR(reader->running_calls))
                if (r < 0)
                        pending_call_fail(c, r);
                else
                        pending_call_answer(reader, c);

        /* Who waited for this read to end: callers other than root may find all they asked for now. */
        queued = TAKE_PTR(reader->queued);
        reader->queued_tail = NULL;
        LIST_FOREACH_SAFE(calls, c, next, queued) {
                LIST_REMOVE(calls, queued, c);
                if (c->uid != 0 && call_cached(reader, c, now))
                        pending_call_answer(reader, c);
                else
                        LIST_APPEND(calls, reader->queued, reader->queued_tail, c);
        }
        start_next_read(reader);
}

static int collect_entries(const PendingCall *calls, CounterEntry **ret, size_t *ret_n) {
        CounterEntry *e = NULL;
        size_t n = 0, allocated = 0, kept = 0;

        LIST_FOREACH(calls, c, calls)
                for (size_t i = 0; i < c->n_targets; i++)
                        if (ARRAY_RESERVE(e, allocated, n + 1) < 0 || counter_entry_copy(&c->targets[i], &e[n++]) < 0)
                                goto oom;
        if (n > 1)
                qsort(e, n, sizeof(CounterEntry), counter_entry_compare);
        for (size_t i = 0; i < n; i++)
                if (kept > 0 && streq(e[kept - 1].path, e[i].path))
                        counter_entry_clear(&e[i]);
                else
                        e[kept++] = e[i];
        *ret = e;
        *ret_n = kept;
        return 0;
oom:
        counter_entries_free(e, n);
        return -ENOMEM;
}

/* Starts a read for every queued call, unless one runs. */
static void start_next_read(CounterReader *reader) {
        CounterEntry *entries = NULL;
        size_t n_entries = 0;
        CounterRead *read;
        int r;

        if (reader->running || !reader->queued)
                return;

        r = collect_entries(reader->queued, &entries, &n_entries);
        if (r < 0) {
                log_warning_errno(r, "Failed to start reading the counters: %m");
                goto fail;
        }
        r = counter_read_start(reader->event, reader->pool, &reader->host, entries, n_entries,
                               now_usec(CLOCK_MONOTONIC), on_read_done, reader, &read);
        if (r < 0)
                goto fail;
        reader->running = read;
        reader->running_calls = TAKE_PTR(reader->queued);
        reader->queued_tail = NULL;
        if (counter_read_finished(read))
                on_read_done(read, reader);
        return;

fail:
        reader->queued_tail = NULL;
        LIST_FOREACH_SAFE(calls, c, next, TAKE_PTR(reader->queued))
                pending_call_fail(c, r);
}

int counter_reader_new(sd_event *event, ReaderPool *pool, const CounterReaderHost *host, CounterReader **ret) {
        CounterReader *reader;

        assert(event);
        reader = calloc(1, sizeof(CounterReader));
        if (!reader)
                return -ENOMEM;
        reader->event = sd_event_ref(event);
        reader->pool = pool;
        if (host)
                reader->host = *host;
        *ret = reader;
        return 0;
}

CounterReader *counter_reader_free(CounterReader *reader) {
        if (!reader)
                return NULL;
        /* At exit a read stuck in a driver must not hold the daemon: the
         * calls are dropped, the pieces left to their threads. */
        counter_read_free(reader->running);
        pending_calls_free(reader->running_calls);
        pending_calls_free(reader->queued);
        shared_clear(reader);
        counter_entries_free(reader->cache, reader->n_cache);
        sd_event_source_disable_unref(reader->expire_event);
        sd_event_unref(reader->event);
        free(reader);
        return NULL;
}

int counter_reader_submit(CounterReader *reader, sd_bus_message *call, uid_t uid, CounterEntry *targets,
                          size_t n_targets, CounterReplyFn reply) {
        const char *sender = sd_bus_message_get_sender(call);
        CallCount count = {};
        PendingCall *c = NULL;
        int r = 0;

        assert(reader);
        assert(call);
        assert(reply);

        count_calls_of(reader->queued, sender, uid, &count);
        count_calls_of(reader->running_calls, sender, uid, &count);
        if (count.sender >= COUNTERS_CALLS_PER_CALLER_MAX)
                r = -EBUSY;
        /* Root has no bound but the one of all: no other user can make its calls fail. */
        else if ((uid != 0 && (count.uid >= COUNTERS_CALLS_PER_USER_MAX || count.all >= COUNTERS_CALLS_MAX)) ||
                 count.all >= COUNTERS_CALLS_MAX + COUNTERS_CALLS_ROOT_MAX)
                r = -EUSERS;
        else
                c = calloc(1, sizeof(PendingCall));
        if (!c) {
                counter_entries_free(targets, n_targets);
                return r ?: -ENOMEM;
        }
        *c = (PendingCall){
                .call = sd_bus_message_ref(call), .targets = targets, .n_targets = n_targets, .reply = reply, .uid = uid
        };
        if (n_targets == 0 || (uid != 0 && call_cached(reader, c, now_usec(CLOCK_MONOTONIC)))) {
                pending_call_answer(reader, c);
                return 0;
        }
        if (reader->running && call_covered_by(reader->running, c)) {
                LIST_PREPEND(calls, reader->running_calls, c);
                return 0;
        }
        LIST_APPEND(calls, reader->queued, reader->queued_tail, c);
        start_next_read(reader);
        return 0;
}
