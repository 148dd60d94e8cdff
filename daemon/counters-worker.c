/* SPDX-License-Identifier: MIT */
#include "counters-worker.h"

#include <assert.h>

#include "bus-util.h"
#include "list.h"
#include "log.h"
#include "time-util.h"
#include "util.h"
#include "worker.h"

/* The counters of one directory, as a read left them. */
typedef struct CacheEntry {
        char *path;
        bool port_dir;
        CounterSnapshot *snapshot;
        uint64_t read_usec; /* CLOCK_MONOTONIC when the read that filled it started */
} CacheEntry;

typedef struct PendingCall PendingCall;
struct PendingCall {
        LIST_FIELDS(PendingCall, calls); /* on the reader's queue or a read's calls */
        sd_bus_message *call;
        CounterTarget *targets;
        size_t n_targets;
        CounterReplyFn reply;
        uid_t uid; /* bus-verified */
};

/* One read in the worker thread: its entries (sorted by path) are the
 * thread's alone until run() returns. */
typedef struct ReadJob {
        CounterReader *reader;
        CacheEntry *entries;
        size_t n_entries;
        int error; /* a lack of memory or descriptors stopped the read */
        uint64_t start_usec;
        Worker *worker;
        PendingCall *calls; /* answered when it is done */
} ReadJob;

/* A reply kept for the calls that ask for the same snapshots. */
typedef struct SharedReply {
        CounterReplyFn reply;
        CounterSnapshot **snapshots; /* refs: their identity is the content's */
        size_t n;
        CounterShare *share;
} SharedReply;

struct CounterReader {
        sd_event *event;
        ReadJob *running;
        PendingCall *queued, *queued_tail; /* for the next read, in arrival order */
        CacheEntry *cache;                 /* sorted by path; nothing older than COUNTERS_MIN_AGE_USEC */
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

void counter_targets_free(CounterTarget *t, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(t[i].device);
                free(t[i].path);
        }
        free(t);
}

static CounterSnapshot *counter_snapshot_new(void) {
        CounterSnapshot *s = calloc(1, sizeof(CounterSnapshot));

        if (s)
                s->n_ref = 1;
        return s;
}

static CounterSnapshot *counter_snapshot_ref(CounterSnapshot *s) {
        s->n_ref++;
        return s;
}

CounterSnapshot *counter_snapshot_unref(CounterSnapshot *s) {
        if (!s || --s->n_ref > 0)
                return NULL;
        counter_list_clear(&s->counters);
        free(s);
        return NULL;
}

void counter_snapshots_free(CounterSnapshot **s, size_t n) {
        for (size_t i = 0; s && i < n; i++)
                counter_snapshot_unref(s[i]);
        free(s);
}

static void cache_entry_clear(CacheEntry *e) {
        free(e->path);
        counter_snapshot_unref(e->snapshot);
}

static void entries_free(CacheEntry *e, size_t n) {
        for (size_t i = 0; i < n; i++)
                cache_entry_clear(&e[i]);
        free(e);
}

static int entry_compare(const void *a, const void *b) {
        return strcmp(((const CacheEntry *) a)->path, ((const CacheEntry *) b)->path);
}

static const CacheEntry *entries_find(const CacheEntry *e, size_t n, const char *path) {
        CacheEntry key = { .path = (char *) path };

        if (n == 0)
                return NULL;
        return bsearch(&key, e, n, sizeof(CacheEntry), entry_compare);
}

static PendingCall *pending_call_free(PendingCall *c) {
        if (!c)
                return NULL;
        sd_bus_message_unref(c->call);
        counter_targets_free(c->targets, c->n_targets);
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
                log_warning_errno(r, "Cannot answer a counters call: %m");
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
                const CacheEntry *e = entries_find(reader->cache, reader->n_cache, c->targets[i].path);

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
                log_warning_errno(r, "Cannot answer a counters call: %m");
        c->n_targets = 0;
        pending_call_free(c);
}

static bool call_cached(const CounterReader *reader, const PendingCall *c, uint64_t now) {
        for (size_t i = 0; i < c->n_targets; i++) {
                const CacheEntry *e = entries_find(reader->cache, reader->n_cache, c->targets[i].path);

                if (!e || now - e->read_usec >= COUNTERS_MIN_AGE_USEC)
                        return false;
        }
        return true;
}

static bool call_covered_by(const ReadJob *job, const PendingCall *c) {
        for (size_t i = 0; i < c->n_targets; i++)
                if (!entries_find(job->entries, job->n_entries, c->targets[i].path))
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

static void read_run(void *userdata) {
        ReadJob *job = userdata;

        for (size_t i = 0; i < job->n_entries; i++) {
                CacheEntry *e = &job->entries[i];
                int r;

                r = counters_read_path(e->path, e->port_dir, &e->snapshot->counters, &e->snapshot->present);
                if (r < 0) {
                        job->error = r;
                        break;
                }
        }
}

static ReadJob *read_job_free(ReadJob *job) {
        if (!job)
                return NULL;
        worker_free(job->worker); /* waits for a read in progress */
        entries_free(job->entries, job->n_entries);
        pending_calls_free(job->calls);
        free(job);
        return NULL;
}

/* The thread's side of an abandoned read: the entries it fills, the job. */
static void read_job_release(void *userdata) {
        ReadJob *job = userdata;

        entries_free(job->entries, job->n_entries);
        free(job);
}

static bool entry_expired(const CacheEntry *e, uint64_t now) {
        return now - e->read_usec >= COUNTERS_MIN_AGE_USEC;
}

/* Takes the job's entries into the cache (replacing older ones for the
 * same paths) and drops the ones too old to serve anyone. */
static int cache_merge(CounterReader *reader, ReadJob *job, uint64_t now) {
        CacheEntry *merged;
        size_t i = 0, j = 0, k = 0;

        merged = reallocarray(NULL, reader->n_cache + job->n_entries + 1, sizeof(CacheEntry));
        if (!merged)
                return -ENOMEM;
        shared_clear(reader);
        while (i < reader->n_cache || j < job->n_entries) {
                int c = i == reader->n_cache  ? 1
                        : j == job->n_entries ? -1
                                              : strcmp(reader->cache[i].path, job->entries[j].path);

                if (c < 0) {
                        if (!entry_expired(&reader->cache[i], now))
                                merged[k++] = reader->cache[i];
                        else
                                cache_entry_clear(&reader->cache[i]);
                        i++;
                        continue;
                }
                if (c == 0)
                        cache_entry_clear(&reader->cache[i++]);
                merged[k++] = job->entries[j++];
        }
        free(reader->cache);
        free(job->entries);
        job->entries = NULL;
        job->n_entries = 0;
        reader->cache = merged;
        reader->n_cache = k;
        return 0;
}

static void start_next_read(CounterReader *reader);

/* An idle daemon keeps no counters: they are dropped once they are too old to be served. */
static int on_cache_expire(sd_event_source *s, uint64_t usec, void *userdata) {
        CounterReader *reader = userdata;
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        size_t k = 0;

        shared_clear(reader);
        for (size_t i = 0; i < reader->n_cache; i++) {
                if (entry_expired(&reader->cache[i], now))
                        cache_entry_clear(&reader->cache[i]);
                else
                        reader->cache[k++] = reader->cache[i];
        }
        reader->n_cache = k;
        if (k == 0) {
                free(reader->cache);
                reader->cache = NULL;
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
                log_warning_errno(r, "Cannot arm the expiry of the counters cache: %m");
}

static void on_read_done(Worker *w, void *userdata) {
        ReadJob *job = userdata;
        CounterReader *reader = job->reader;
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        PendingCall *calls, *queued;
        int r;

        reader->running = NULL;

        r = job->error < 0 ? job->error : cache_merge(reader, job, now);
        if (r < 0)
                log_warning_errno(r, "Cannot read the counters: %m");
        else
                arm_cache_expiry(reader);
        calls = TAKE_PTR(job->calls);
        read_job_free(job);
        LIST_FOREACH_SAFE(calls, c, next, calls) {
                LIST_REMOVE(calls, calls, c);
                if (r < 0)
                        pending_call_fail(c, r);
                else
                        pending_call_answer(reader, c);
        }

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

static int collect_entries(const PendingCall *calls, CacheEntry **ret, size_t *ret_n) {
        CacheEntry *e = NULL;
        size_t n = 0, allocated = 0, kept = 0;

        LIST_FOREACH(calls, c, calls)
        for (size_t i = 0; i < c->n_targets; i++) {
                if (ARRAY_RESERVE(e, allocated, n + 1) < 0)
                        goto oom;
                e[n] = (CacheEntry){ .path = strdup(c->targets[i].path),
                                     .port_dir = c->targets[i].port > 0,
                                     .snapshot = counter_snapshot_new() };
                n++;
                if (!e[n - 1].path || !e[n - 1].snapshot)
                        goto oom;
        }
        if (n > 1)
                qsort(e, n, sizeof(CacheEntry), entry_compare);
        for (size_t i = 0; i < n; i++) {
                if (kept > 0 && streq(e[kept - 1].path, e[i].path)) {
                        cache_entry_clear(&e[i]);
                        continue;
                }
                e[kept++] = e[i];
        }
        *ret = e;
        *ret_n = kept;
        return 0;
oom:
        entries_free(e, n);
        return -ENOMEM;
}

/* Starts a read for every queued call, unless one runs. */
static void start_next_read(CounterReader *reader) {
        ReadJob *job;
        int r;

        if (reader->running || !reader->queued)
                return;

        job = calloc(1, sizeof(ReadJob));
        if (!job) {
                r = -ENOMEM;
                goto fail;
        }
        job->reader = reader;
        job->start_usec = now_usec(CLOCK_MONOTONIC);
        r = collect_entries(reader->queued, &job->entries, &job->n_entries);
        if (r < 0)
                goto fail;
        for (size_t i = 0; i < job->n_entries; i++)
                job->entries[i].read_usec = job->start_usec;
        r = worker_start(reader->event, read_run, on_read_done, job, &job->worker);
        if (r < 0)
                goto fail;
        job->calls = TAKE_PTR(reader->queued);
        reader->queued_tail = NULL;
        reader->running = job;
        log_debug("Reading the counters of %zu directories.", job->n_entries);
        return;

fail:
        log_warning_errno(r, "Cannot start reading the counters: %m");
        read_job_free(job);
        LIST_FOREACH_SAFE(calls, c, next, reader->queued) {
                LIST_REMOVE_TAIL(calls, reader->queued, reader->queued_tail, c);
                pending_call_fail(c, r);
        }
}

int counter_reader_new(sd_event *event, CounterReader **ret) {
        CounterReader *reader;

        assert(event);
        reader = calloc(1, sizeof(CounterReader));
        if (!reader)
                return -ENOMEM;
        reader->event = sd_event_ref(event);
        *ret = reader;
        return 0;
}

CounterReader *counter_reader_free(CounterReader *reader) {
        if (!reader)
                return NULL;
        if (reader->running && reader->running->worker) {
                /* At exit a read stuck in a driver must not hold the daemon:
                 * the calls are dropped now, the thread finishes on its own. */
                ReadJob *job = TAKE_PTR(reader->running);

                pending_calls_free(TAKE_PTR(job->calls));
                job->reader = NULL;
                worker_abandon(TAKE_PTR(job->worker), read_job_release);
        }
        read_job_free(reader->running);
        pending_calls_free(reader->queued);
        shared_clear(reader);
        entries_free(reader->cache, reader->n_cache);
        sd_event_source_disable_unref(reader->expire_event);
        sd_event_unref(reader->event);
        free(reader);
        return NULL;
}

int counter_reader_submit(CounterReader *reader, sd_bus_message *call, uid_t uid, CounterTarget *targets,
                          size_t n_targets, CounterReplyFn reply) {
        const char *sender = sd_bus_message_get_sender(call);
        CallCount count = {};
        PendingCall *c;

        assert(reader);
        assert(call);
        assert(reply);

        c = calloc(1, sizeof(PendingCall));
        if (!c) {
                counter_targets_free(targets, n_targets);
                return -ENOMEM;
        }
        c->call = sd_bus_message_ref(call);
        c->targets = targets;
        c->n_targets = n_targets;
        c->reply = reply;
        c->uid = uid;

        count_calls_of(reader->queued, sender, uid, &count);
        if (reader->running)
                count_calls_of(reader->running->calls, sender, uid, &count);
        if (count.sender >= COUNTERS_CALLS_PER_CALLER_MAX) {
                pending_call_free(c);
                return -EBUSY;
        }
        /* Root has no bound but the one of all: no other user can make its calls fail. */
        if ((uid != 0 && (count.uid >= COUNTERS_CALLS_PER_USER_MAX || count.all >= COUNTERS_CALLS_MAX)) ||
            count.all >= COUNTERS_CALLS_MAX + COUNTERS_CALLS_ROOT_MAX) {
                pending_call_free(c);
                return -EUSERS;
        }
        if (n_targets == 0 || (uid != 0 && call_cached(reader, c, now_usec(CLOCK_MONOTONIC)))) {
                pending_call_answer(reader, c);
                return 0;
        }
        if (reader->running && call_covered_by(reader->running, c)) {
                LIST_PREPEND(calls, reader->running->calls, c);
                return 0;
        }
        LIST_APPEND(calls, reader->queued, reader->queued_tail, c);
        start_next_read(reader);
        return 0;
}
