/* SPDX-License-Identifier: MIT */
#include "counters-worker.h"

#include <assert.h>

#include "bus-util.h"
#include "basic/list.h"
#include "basic/log.h"
#include "basic/time-util.h"
#include "reader-pool.h"
#include "basic/util.h"

/* The counters of one directory, as a read left them. */
typedef struct CacheEntry {
        char *path;
        char *device;
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

typedef struct ReadJob ReadJob;

/* A device's part of a read, on its lane of the reader pool: the entries
 * are the thread's alone until run() returns. */
typedef struct PieceArg {
        ReadJob *job; /* the loop's: apply() only */
        size_t index; /* in job->pieces */
        CacheEntry *entries;
        size_t n_entries;
        int error;
} PieceArg;

/* The loop's side of a piece: enough to answer without it. */
typedef struct Piece {
        char *device;
        ReaderJob *handle;   /* until applied or cancelled */
        CacheEntry *entries; /* the paths (snapshots marked unresponsive if it never answers) */
        size_t n_entries;
        bool done;
} Piece;

/* One read: its entries (sorted by path) once every piece is done. */
struct ReadJob {
        CounterReader *reader;
        CacheEntry *entries;
        size_t n_entries;
        int error; /* a lack of memory or descriptors stopped the read */
        uint64_t start_usec;
        Piece *pieces;
        size_t n_pieces, n_done;
        sd_event_source *deadline; /* looks at the pieces not done: a stuck one is left out */
        uint64_t give_up_usec;     /* CLOCK_MONOTONIC: every piece not done by then is left out */
        PendingCall *calls;        /* answered when it is done */
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
        free(e->device);
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
        for (size_t i = 0; i < c->n_targets; i++) {
                bool found = false;

                for (size_t j = 0; j < job->n_pieces && !found; j++)
                        found = streq(job->pieces[j].device, c->targets[i].device) &&
                                entries_find(job->pieces[j].entries, job->pieces[j].n_entries, c->targets[i].path);
                if (!found)
                        return false;
        }
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

static void piece_run(ReaderLane *lane, void *userdata) {
        PieceArg *a = userdata;

        for (size_t i = 0; i < a->n_entries; i++) {
                CacheEntry *e = &a->entries[i];
                int r;

                r = counters_read_path(e->path, e->port_dir, &e->snapshot->counters, &e->snapshot->present);
                if (r < 0) {
                        a->error = r;
                        break;
                }
        }
}

static void piece_arg_free(void *userdata) {
        PieceArg *a = userdata;

        entries_free(a->entries, a->n_entries);
        free(a);
}

static ReadJob *read_job_free(ReadJob *job) {
        if (!job)
                return NULL;
        /* A piece still running is left to its thread, which frees it. */
        for (size_t i = 0; i < job->n_pieces; i++) {
                reader_job_cancel(job->pieces[i].handle);
                free(job->pieces[i].device);
                entries_free(job->pieces[i].entries, job->pieces[i].n_entries);
        }
        free(job->pieces);
        sd_event_source_disable_unref(job->deadline);
        entries_free(job->entries, job->n_entries);
        pending_calls_free(job->calls);
        free(job);
        return NULL;
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

/* Every piece answered or was given up: the entries in path order. */
static int read_job_gather(ReadJob *job) {
        size_t n = 0;

        for (size_t i = 0; i < job->n_pieces; i++)
                n += job->pieces[i].n_entries;
        job->entries = calloc(n + 1, sizeof(CacheEntry));
        if (!job->entries)
                return -ENOMEM;
        for (size_t i = 0; i < job->n_pieces; i++) {
                Piece *p = &job->pieces[i];

                memcpy(job->entries + job->n_entries, p->entries, p->n_entries * sizeof(CacheEntry));
                job->n_entries += p->n_entries;
                p->entries = mfree(p->entries);
                p->n_entries = 0;
        }
        if (job->n_entries > 1)
                qsort(job->entries, job->n_entries, sizeof(CacheEntry), entry_compare);
        return 0;
}

static void on_read_done(ReadJob *job) {
        CounterReader *reader = job->reader;
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        PendingCall *calls, *queued;
        int r;

        reader->running = NULL;

        r = job->error < 0 ? job->error : read_job_gather(job);
        if (r >= 0)
                r = cache_merge(reader, job, now);
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
                                             .device = strdup(c->targets[i].device),
                                             .port_dir = c->targets[i].port > 0,
                                             .snapshot = counter_snapshot_new() };
                        n++;
                        if (!e[n - 1].path || !e[n - 1].device || !e[n - 1].snapshot)
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

static void piece_finish(ReadJob *job, Piece *p) {
        p->done = true;
        p->handle = NULL;
        if (++job->n_done == job->n_pieces) {
                job->deadline = sd_event_source_disable_unref(job->deadline);
                on_read_done(job);
        }
}

/* A device that does not answer: its entries say so, and are left out of
 * GetAllCounters; GetCounters about it fails with Unresponsive. */
static void piece_give_up(Piece *p) {
        for (size_t i = 0; i < p->n_entries; i++)
                p->entries[i].snapshot->unresponsive = true;
}

static void piece_apply(void *userdata, const ReaderResult *result, void *host_userdata) {
        PieceArg *a = userdata;
        ReadJob *job = a->job;
        Piece *p = &job->pieces[a->index];

        if (job->reader->host.read_result)
                job->reader->host.read_result(p->device, result, job->reader->host.userdata);
        if (a->error < 0 && job->error == 0)
                job->error = a->error;
        /* The thread's entries, read, replace the stand-ins. */
        entries_free(p->entries, p->n_entries);
        p->entries = TAKE_PTR(a->entries);
        p->n_entries = a->n_entries;
        a->n_entries = 0;
        piece_finish(job, p);
}

/* A read of a device that answers, however slowly (a busy firmware: 100 ms
 * a file), is waited for; one whose read is stuck (the reader pool's read
 * timeout, per read) is left out at once, and whatever has not answered
 * after COUNTERS_GIVE_UP_TIMEOUTS read timeouts is left out too, so that a
 * call is never held past what its caller waits (25 s by default). */
#define COUNTERS_GIVE_UP_TIMEOUTS 4
/* ... looked at this often: a read found stuck is left out within this of it. */
#define COUNTERS_DEADLINE_CHECK_USEC (100 * USEC_PER_MSEC)
#define MIN_USEC(a, b)               ((a) < (b) ? (a) : (b))

static int on_read_deadline(sd_event_source *s, uint64_t usec, void *userdata) {
        ReadJob *job = userdata;
        CounterReader *reader = job->reader;
        size_t n = job->n_pieces;
        bool all = usec >= job->give_up_usec;

        for (size_t i = 0; i < n; i++) {
                Piece *p = &job->pieces[i];

                if (p->done)
                        continue;
                if (!all && !(reader->host.unresponsive && reader->host.unresponsive(p->device, reader->host.userdata)))
                        continue;
                log_warning("%s: %s; answering without its counters.", p->device,
                            all ? "its counters are not read after four read timeouts" : "a read does not answer");
                reader_job_cancel(TAKE_PTR(p->handle));
                piece_give_up(p);
                /* The last one ends the job, which may free it: nothing after. */
                if (job->n_done + 1 == job->n_pieces) {
                        piece_finish(job, p);
                        return 0;
                }
                piece_finish(job, p);
        }
        (void) sd_event_source_set_time(s, MIN_USEC(job->give_up_usec, usec + COUNTERS_DEADLINE_CHECK_USEC));
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return 0;
}

/* Copies of the entries for the loop's side, and the thread's. */
static int entries_copy(const CacheEntry *e, size_t n, CacheEntry **ret) {
        CacheEntry *c = calloc(n + 1, sizeof(CacheEntry));

        if (!c)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                c[i] = (CacheEntry){ .path = strdup(e[i].path),
                                     .device = strdup(e[i].device),
                                     .port_dir = e[i].port_dir,
                                     .snapshot = counter_snapshot_new(),
                                     .read_usec = e[i].read_usec };
                if (!c[i].path || !c[i].device || !c[i].snapshot) {
                        entries_free(c, i + 1);
                        return -ENOMEM;
                }
        }
        *ret = c;
        return 0;
}

/* The job's entries split by device, a piece each. */
static int read_job_split(ReadJob *job) {
        size_t allocated = 0;

        for (size_t i = 0; i < job->n_entries; i++) {
                CacheEntry *e = &job->entries[i];
                Piece *p = NULL;

                if (job->n_pieces > 0 && streq(job->pieces[job->n_pieces - 1].device, e->device))
                        p = &job->pieces[job->n_pieces - 1];
                for (size_t j = 0; !p && j < job->n_pieces; j++)
                        if (streq(job->pieces[j].device, e->device))
                                p = &job->pieces[j];
                if (!p) {
                        if (ARRAY_RESERVE(job->pieces, allocated, job->n_pieces + 1) < 0)
                                return -ENOMEM;
                        p = &job->pieces[job->n_pieces++];
                        *p = (Piece){ .device = strdup(e->device) };
                        if (!p->device)
                                return -ENOMEM;
                }
                {
                        CacheEntry *entries = reallocarray(p->entries, p->n_entries + 1, sizeof(CacheEntry));
                        if (!entries)
                                return -ENOMEM;
                        p->entries = entries;
                        p->entries[p->n_entries++] = *e;
                        *e = (CacheEntry){};
                }
        }
        job->entries = mfree(job->entries);
        job->n_entries = 0;
        return 0;
}

static int read_job_submit(CounterReader *reader, ReadJob *job) {
        uint64_t timeout = reader->pool ? reader_pool_timeout(reader->pool) : 0;
        size_t n = job->n_pieces;
        int r;

        for (size_t i = 0; i < n; i++) {
                Piece *p = &job->pieces[i];
                ReaderLane *lane = NULL;
                PieceArg *a;

                if (reader->host.unresponsive && reader->host.unresponsive(p->device, reader->host.userdata)) {
                        piece_give_up(p);
                        p->done = true;
                        job->n_done++;
                        continue;
                }
                a = calloc(1, sizeof(PieceArg));
                if (!a)
                        return -ENOMEM;
                a->job = job;
                a->index = i;
                r = entries_copy(p->entries, p->n_entries, &a->entries);
                if (r < 0) {
                        free(a);
                        return r;
                }
                a->n_entries = p->n_entries;
                if (reader->pool && reader->host.lane)
                        lane = reader->host.lane(p->device, reader->host.userdata);
                if (!lane) {
                        /* No pool (tests) or a device gone meanwhile: read here. */
                        piece_run(NULL, a);
                        entries_free(p->entries, p->n_entries);
                        p->entries = TAKE_PTR(a->entries);
                        p->n_entries = a->n_entries;
                        if (a->error < 0 && job->error == 0)
                                job->error = a->error;
                        a->n_entries = 0;
                        piece_arg_free(a);
                        p->done = true;
                        job->n_done++;
                        continue;
                }
                r = reader_pool_submit(reader->pool, lane, piece_run, piece_apply, piece_arg_free, a, &p->handle);
                if (r < 0) {
                        piece_arg_free(a);
                        return r;
                }
        }
        if (job->n_done < job->n_pieces && timeout > 0) {
                job->give_up_usec = now_usec(CLOCK_MONOTONIC) + COUNTERS_GIVE_UP_TIMEOUTS * timeout;
                r = sd_event_add_time_relative(reader->event, &job->deadline, CLOCK_MONOTONIC,
                                               MIN_USEC(timeout, COUNTERS_DEADLINE_CHECK_USEC), 0, on_read_deadline,
                                               job);
                if (r < 0)
                        return r;
        }
        return 0;
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
        r = read_job_split(job);
        if (r < 0)
                goto fail;
        job->calls = TAKE_PTR(reader->queued);
        reader->queued_tail = NULL;
        reader->running = job;
        log_debug("Reading the counters of %zu devices.", job->n_pieces);
        r = read_job_submit(reader, job);
        if (r < 0) {
                /* What was submitted is cancelled with the job. */
                PendingCall *calls = TAKE_PTR(job->calls);

                reader->running = NULL;
                read_job_free(job);
                LIST_FOREACH_SAFE(calls, c, next, calls) {
                        LIST_REMOVE(calls, calls, c);
                        pending_call_fail(c, r);
                }
                return;
        }
        if (job->n_done == job->n_pieces)
                on_read_done(job);
        return;

fail:
        log_warning_errno(r, "Cannot start reading the counters: %m");
        read_job_free(job);
        LIST_FOREACH_SAFE(calls, c, next, reader->queued) {
                LIST_REMOVE_TAIL(calls, reader->queued, reader->queued_tail, c);
                pending_call_fail(c, r);
        }
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
