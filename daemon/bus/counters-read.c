/* SPDX-License-Identifier: MIT */
#include "counters-read.h"

#include <assert.h>

#include "basic/log.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "reader-pool.h"

/* A device that answers, however slowly (a busy firmware: 100 ms a file),
 * is waited for, up to this many read timeouts: a call is never held past
 * what its caller waits (25 s by default). A stuck read is left out at once. */
#define COUNTERS_GIVE_UP_TIMEOUTS 4
/* ... looked at this often: a read found stuck is left out within this of it. */
#define COUNTERS_DEADLINE_CHECK_USEC (100 * USEC_PER_MSEC)
#define MIN_USEC(a, b)               ((a) < (b) ? (a) : (b))

/* A device's part of a read, on its lane of the reader pool: the entries
 * are the thread's alone until run() returns. */
typedef struct PieceArg {
        CounterRead *read; /* the loop's: apply() only */
        size_t index;      /* in read->pieces */
        CounterEntry *entries;
        size_t n_entries;
        int error;
} PieceArg;

/* The loop's side of a piece: enough to answer without it. */
typedef struct Piece {
        char *device;
        ReaderLane *lane;      /* a reference; NULL: read on the loop */
        ReaderJob *handle;     /* until applied or cancelled */
        CounterEntry *entries; /* the paths (snapshots marked unresponsive if it never answers) */
        size_t n_entries;
        bool done;
} Piece;

/* One read: its entries (sorted by path) once every piece is done. */
struct CounterRead {
        sd_event *event;
        ReaderPool *pool;
        CounterReaderHost host;
        CounterEntry *entries;
        size_t n_entries;
        int error; /* a lack of memory or descriptors stopped the read */
        Piece *pieces;
        size_t n_pieces, n_done;
        sd_event_source *deadline; /* looks at the pieces not done: a stuck one is left out */
        uint64_t give_up_usec;     /* CLOCK_MONOTONIC: every piece not done by then is left out */
        CounterReadDone done;
        void *userdata;
};

/* ---------- snapshots and entries ---------- */

CounterSnapshot *counter_snapshot_new(void) {
        CounterSnapshot *s = calloc(1, sizeof(CounterSnapshot));

        if (s)
                s->n_ref = 1;
        return s;
}

CounterSnapshot *counter_snapshot_ref(CounterSnapshot *s) {
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

int counter_entry_copy(const CounterEntry *e, CounterEntry *ret) {
        *ret = (CounterEntry){ .path = strdup(e->path),
                               .device = strdup(e->device),
                               .lane = reader_lane_ref(e->lane),
                               .port = e->port,
                               .snapshot = counter_snapshot_new(),
                               .read_usec = e->read_usec };
        return ret->path && ret->device && ret->snapshot ? 0 : -ENOMEM;
}

void counter_entry_clear(CounterEntry *e) {
        free(e->path);
        free(e->device);
        reader_lane_unref(e->lane);
        counter_snapshot_unref(e->snapshot);
}

void counter_entries_free(CounterEntry *e, size_t n) {
        for (size_t i = 0; i < n; i++)
                counter_entry_clear(&e[i]);
        free(e);
}

int counter_entry_compare(const void *a, const void *b) {
        return strcmp(((const CounterEntry *) a)->path, ((const CounterEntry *) b)->path);
}

const CounterEntry *counter_entries_find(const CounterEntry *e, size_t n, const char *path) {
        CounterEntry key = { .path = (char *) path };

        if (n == 0)
                return NULL;
        return bsearch(&key, e, n, sizeof(CounterEntry), counter_entry_compare);
}

/* ---------- the pieces, on the threads ---------- */

static void piece_run(ReaderLane *lane, void *userdata) {
        PieceArg *a = userdata;

        for (size_t i = 0; i < a->n_entries; i++) {
                CounterEntry *e = &a->entries[i];
                int r;

                r = counters_read_path(e->path, e->port > 0, &e->snapshot->counters, &e->snapshot->present);
                if (r < 0) {
                        a->error = r;
                        break;
                }
        }
}

static void piece_arg_free(void *userdata) {
        PieceArg *a = userdata;

        counter_entries_free(a->entries, a->n_entries);
        free(a);
}

CounterRead *counter_read_free(CounterRead *read) {
        if (!read)
                return NULL;
        /* A piece still running is left to its thread, which frees it. */
        for (size_t i = 0; i < read->n_pieces; i++) {
                reader_job_cancel(read->pieces[i].handle);
                free(read->pieces[i].device);
                reader_lane_unref(read->pieces[i].lane);
                counter_entries_free(read->pieces[i].entries, read->pieces[i].n_entries);
        }
        free(read->pieces);
        sd_event_source_disable_unref(read->deadline);
        counter_entries_free(read->entries, read->n_entries);
        sd_event_unref(read->event);
        free(read);
        return NULL;
}

bool counter_read_finished(const CounterRead *read) {
        return read->n_done == read->n_pieces;
}

bool counter_read_covers(const CounterRead *read, const char *device, const char *path) {
        for (size_t j = 0; j < read->n_pieces; j++)
                if (streq(read->pieces[j].device, device) &&
                    counter_entries_find(read->pieces[j].entries, read->pieces[j].n_entries, path))
                        return true;
        return false;
}

int counter_read_take_entries(CounterRead *read, CounterEntry **ret, size_t *ret_n) {
        CounterEntry *entries;
        size_t n = 0;

        if (read->error < 0)
                return read->error;
        for (size_t i = 0; i < read->n_pieces; i++)
                n += read->pieces[i].n_entries;
        entries = calloc(n + 1, sizeof(CounterEntry));
        if (!entries)
                return -ENOMEM;
        n = 0;
        for (size_t i = 0; i < read->n_pieces; i++) {
                Piece *p = &read->pieces[i];

                memcpy(entries + n, p->entries, p->n_entries * sizeof(CounterEntry));
                n += p->n_entries;
                p->entries = mfree(p->entries);
                p->n_entries = 0;
        }
        if (n > 1)
                qsort(entries, n, sizeof(CounterEntry), counter_entry_compare);
        *ret = entries;
        *ret_n = n;
        return 0;
}

/* True when it was the last: the read is over, and may be freed. */
static bool piece_finish(CounterRead *read, Piece *p) {
        p->done = true;
        p->handle = NULL;
        if (++read->n_done < read->n_pieces)
                return false;
        read->deadline = sd_event_source_disable_unref(read->deadline);
        read->done(read, read->userdata);
        return true;
}

/* A device that does not answer: its entries say so, and are left out of
 * GetAllCounters; GetCounters about it fails with Unresponsive. */
static void piece_give_up(Piece *p) {
        for (size_t i = 0; i < p->n_entries; i++)
                p->entries[i].snapshot->unresponsive = true;
}

/* The thread's entries, read, replace the stand-ins. */
static void piece_take(CounterRead *read, Piece *p, PieceArg *a) {
        if (a->error < 0 && read->error == 0)
                read->error = a->error;
        counter_entries_free(p->entries, p->n_entries);
        p->entries = TAKE_PTR(a->entries);
        p->n_entries = a->n_entries;
        a->n_entries = 0;
}

static void piece_apply(void *userdata, const ReaderResult *result, void *host_userdata) {
        PieceArg *a = userdata;
        CounterRead *read = a->read;
        Piece *p = &read->pieces[a->index];

        if (read->host.read_result)
                read->host.read_result(p->lane, result, read->host.userdata);
        piece_take(read, p, a);
        (void) piece_finish(read, p);
}

static int on_read_deadline(sd_event_source *s, uint64_t usec, void *userdata) {
        CounterRead *read = userdata;
        size_t n = read->n_pieces;
        bool all = usec >= read->give_up_usec;

        for (size_t i = 0; i < n; i++) {
                Piece *p = &read->pieces[i];

                if (p->done)
                        continue;
                if (!all && !(read->host.unresponsive && read->host.unresponsive(p->lane, read->host.userdata)))
                        continue;
                log_warning("%s: %s; answering without its counters.", p->device,
                            all ? "its counters are not read after four read timeouts" : "a read does not answer");
                reader_job_cancel(TAKE_PTR(p->handle));
                piece_give_up(p);
                if (piece_finish(read, p))
                        return 0; /* the read may be freed: nothing after */
        }
        (void) sd_event_source_set_time(s, MIN_USEC(read->give_up_usec, usec + COUNTERS_DEADLINE_CHECK_USEC));
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return 0;
}

/* ---------- the start ---------- */

/* Copies of the entries for the loop's side, and the thread's (the piece has the lane). */
static int entries_copy(const CounterEntry *e, size_t n, CounterEntry **ret) {
        CounterEntry *c = calloc(n + 1, sizeof(CounterEntry));

        if (!c)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (counter_entry_copy(&e[i], &c[i]) < 0) {
                        counter_entries_free(c, i + 1);
                        return -ENOMEM;
                }
        *ret = c;
        return 0;
}

/* The read's entries split by device, a piece each. */
static int read_split(CounterRead *read) {
        size_t allocated = 0;

        for (size_t i = 0; i < read->n_entries; i++) {
                CounterEntry *e = &read->entries[i], *entries;
                Piece *p = NULL;

                /* From the last: the entries of a device mostly come together. */
                for (size_t j = read->n_pieces; !p && j-- > 0;)
                        if (streq(read->pieces[j].device, e->device))
                                p = &read->pieces[j];
                if (!p) {
                        if (ARRAY_RESERVE(read->pieces, allocated, read->n_pieces + 1) < 0)
                                return -ENOMEM;
                        p = &read->pieces[read->n_pieces++];
                        *p = (Piece){ .device = strdup(e->device), .lane = TAKE_PTR(e->lane) };
                        if (!p->device)
                                return -ENOMEM;
                }
                e->lane = reader_lane_unref(e->lane); /* the piece's has it */
                entries = reallocarray(p->entries, p->n_entries + 1, sizeof(CounterEntry));
                if (!entries)
                        return -ENOMEM;
                p->entries = entries;
                p->entries[p->n_entries++] = *e;
                *e = (CounterEntry){};
        }
        read->entries = mfree(read->entries);
        read->n_entries = 0;
        return 0;
}

static int read_submit(CounterRead *read) {
        uint64_t timeout = read->pool ? reader_pool_timeout(read->pool) : 0;
        size_t n = read->n_pieces;
        int r;

        for (size_t i = 0; i < n; i++) {
                Piece *p = &read->pieces[i];
                PieceArg *a;

                if (!read->pool) /* tests: read here */
                        p->lane = reader_lane_unref(p->lane);
                else if (!p->lane)
                        return -ENOMEM; /* a device in the table has one: a pool's reads never run here */
                if (p->lane && read->host.unresponsive && read->host.unresponsive(p->lane, read->host.userdata)) {
                        piece_give_up(p);
                        p->done = true;
                        read->n_done++;
                        continue;
                }
                a = calloc(1, sizeof(PieceArg));
                if (!a)
                        return -ENOMEM;
                *a = (PieceArg){ .read = read, .index = i, .n_entries = p->n_entries };
                r = entries_copy(p->entries, p->n_entries, &a->entries);
                if (r < 0) {
                        free(a);
                        return r;
                }
                if (!p->lane) {
                        /* No pool (tests): read here. */
                        piece_run(NULL, a);
                        piece_take(read, p, a);
                        piece_arg_free(a);
                        p->done = true;
                        read->n_done++;
                        continue;
                }
                r = reader_pool_submit(read->pool, p->lane, piece_run, piece_apply, piece_arg_free, a, &p->handle);
                if (r < 0) {
                        piece_arg_free(a);
                        return r;
                }
        }
        if (read->n_done < read->n_pieces && timeout > 0) {
                read->give_up_usec = now_usec(CLOCK_MONOTONIC) + COUNTERS_GIVE_UP_TIMEOUTS * timeout;
                r = sd_event_add_time_relative(read->event, &read->deadline, CLOCK_MONOTONIC,
                                               MIN_USEC(timeout, COUNTERS_DEADLINE_CHECK_USEC), 0, on_read_deadline,
                                               read);
                if (r < 0)
                        return r;
        }
        return 0;
}

int counter_read_start(sd_event *event, ReaderPool *pool, const CounterReaderHost *host, CounterEntry *entries,
                       size_t n_entries, uint64_t start_usec, CounterReadDone done, void *userdata, CounterRead **ret) {
        CounterRead *read;
        int r;

        assert(event);
        assert(done);
        assert(ret);

        read = calloc(1, sizeof(CounterRead));
        if (!read) {
                counter_entries_free(entries, n_entries);
                return -ENOMEM;
        }
        *read = (CounterRead){ .event = sd_event_ref(event),
                               .pool = pool,
                               .host = host ? *host : (CounterReaderHost){},
                               .entries = entries,
                               .n_entries = n_entries,
                               .done = done,
                               .userdata = userdata };
        for (size_t i = 0; i < n_entries; i++)
                entries[i].read_usec = start_usec;
        r = read_split(read);
        if (r < 0)
                log_warning_errno(r, "Failed to start reading the counters: %m");
        else {
                log_debug("Reading the counters of %zu devices.", read->n_pieces);
                r = read_submit(read);
        }
        if (r < 0) {
                /* What was submitted is cancelled with the read. */
                counter_read_free(read);
                return r;
        }
        *ret = read;
        return 0;
}
