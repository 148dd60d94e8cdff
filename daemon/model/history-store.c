/* SPDX-License-Identifier: MIT */
#include "history-store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "state-file.h"
#include "worker.h"

/* A key's latest history and how its writes go. */
typedef struct StoreEntry {
        char *key;
        LinkHistory history;
        bool dirty;               /* changed since its last write started */
        bool writing;             /* in the job under way */
        uint64_t last_write_usec; /* CLOCK_MONOTONIC when its last write started, 0: none yet */
} StoreEntry;

/* One file of a job: what the thread writes, and how that went. */
typedef struct JobFile {
        char *key;
        char *text;
        size_t len;
        int error;
} JobFile;

typedef struct WriteJob {
        HistoryStore *store; /* the loop's side only */
        int dir_fd;          /* the store's: it outlives every job */
        JobFile *files;
        size_t n_files;
} WriteJob;

struct HistoryStore {
        sd_event *event;
        char *dir;
        int dir_fd;
        StoreEntry *entries;
        size_t n_entries, allocated;
        sd_event_source *timer;
        Worker *worker; /* the job under way, if any */
        WriteJob *job;
        bool failing; /* the last write failed: logged once until one succeeds */
};

static void write_job_free(WriteJob *j) {
        if (!j)
                return;
        for (size_t i = 0; i < j->n_files; i++) {
                free(j->files[i].key);
                free(j->files[i].text);
        }
        free(j->files);
        free(j);
}

static void write_job_run(void *arg) {
        WriteJob *j = arg;

        for (size_t i = 0; i < j->n_files; i++)
                j->files[i].error =
                        state_file_write_atomic(j->dir_fd, j->files[i].key, j->files[i].text, j->files[i].len, 0644);
}

static StoreEntry *store_find(HistoryStore *s, const char *key) {
        for (size_t i = 0; i < s->n_entries; i++)
                if (streq(s->entries[i].key, key))
                        return &s->entries[i];
        return NULL;
}

/* How the files of a job went: logged, and their entries free to go. */
static void store_job_finished(HistoryStore *s, WriteJob *j) {
        for (size_t i = 0; i < j->n_files; i++) {
                JobFile *f = &j->files[i];
                StoreEntry *e = store_find(s, f->key);

                if (e)
                        e->writing = false;
                if (f->error < 0) {
                        log_debug_errno(f->error, "Link history: a write failed: %s/%s: %m", s->dir, f->key);
                        if (!s->failing)
                                log_warning_errno(f->error,
                                                  "Failed to write the link history %s/%s: %m. Keeping it in memory "
                                                  "only; the next change tries again.",
                                                  s->dir, f->key);
                        s->failing = true;
                        continue;
                }
                if (s->failing)
                        log_info("Link history written to %s again.", s->dir);
                s->failing = false;
                log_debug("Link history written: %s/%s.", s->dir, f->key);
        }
}

/* Entries written a second ago or more and not changed since: the file has
 * them, a load reads it. */
static void store_forget_written(HistoryStore *s, uint64_t now) {
        size_t k = 0;

        for (size_t i = 0; i < s->n_entries; i++) {
                StoreEntry *e = &s->entries[i];

                if (!e->dirty && !e->writing && e->last_write_usec + USEC_PER_SEC <= now) {
                        free(e->key);
                        continue;
                }
                s->entries[k++] = *e;
        }
        s->n_entries = k;
}

static void store_schedule(HistoryStore *s);

static void on_job_done(Worker *w, void *arg) {
        WriteJob *j = arg;
        HistoryStore *s = j->store;

        s->worker = worker_free(w);
        s->job = NULL;
        store_job_finished(s, j);
        write_job_free(j);
        store_schedule(s);
}

/* Every dirty entry whose second is over, written by one job on a thread. */
static void store_start_job(HistoryStore *s, uint64_t now) {
        WriteJob *j = calloc(1, sizeof(WriteJob));
        int r;

        if (j)
                j->files = calloc(s->n_entries, sizeof(JobFile));
        if (!j || !j->files) {
                write_job_free(j);
                return (void) log_oom();
        }
        j->store = s;
        j->dir_fd = s->dir_fd;
        for (size_t i = 0; i < s->n_entries; i++) {
                StoreEntry *e = &s->entries[i];
                JobFile *f = &j->files[j->n_files];

                if (!e->dirty || (e->last_write_usec > 0 && e->last_write_usec + USEC_PER_SEC > now))
                        continue;
                /* Tried now, written or not: the next try is a second away. */
                e->last_write_usec = now;
                f->key = strdup(e->key);
                f->text = link_history_format(&e->history, e->key, &f->len);
                if (!f->key || !f->text) {
                        free(f->key);
                        free(f->text);
                        *f = (JobFile){};
                        log_oom();
                        continue;
                }
                j->n_files++;
                e->dirty = false;
                e->writing = true;
        }
        if (j->n_files == 0) {
                write_job_free(j);
                return;
        }
        r = worker_start(s->event, write_job_run, on_job_done, j, &s->worker);
        if (r < 0) {
                /* No thread now: the entries wait for the next second. */
                log_warning_errno(r, "Failed to start a thread to write the link history: %m");
                for (size_t i = 0; i < j->n_files; i++) {
                        StoreEntry *e = store_find(s, j->files[i].key);
                        if (e) {
                                e->dirty = true;
                                e->writing = false;
                        }
                }
                write_job_free(j);
                return;
        }
        s->job = j;
}

static int on_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        store_schedule(userdata);
        return 0;
}

/* The first time a dirty entry may be written; UINT64_MAX for none. */
static uint64_t store_next_due(const HistoryStore *s) {
        uint64_t due = UINT64_MAX;

        for (size_t i = 0; i < s->n_entries; i++) {
                const StoreEntry *e = &s->entries[i];
                uint64_t d = e->last_write_usec > 0 ? e->last_write_usec + USEC_PER_SEC : 0;

                if (e->dirty && d < due)
                        due = d;
        }
        return due;
}

/* Starts what is due, or arms the timer for the first entry that will be. */
static void store_schedule(HistoryStore *s) {
        uint64_t now = now_usec(CLOCK_MONOTONIC), due;
        int r;

        /* One job at a time; its end schedules again. */
        if (s->job)
                return;
        store_forget_written(s, now);
        if (store_next_due(s) <= now)
                store_start_job(s, now);
        due = s->job ? UINT64_MAX : store_next_due(s);
        if (due == UINT64_MAX) {
                if (s->timer)
                        (void) sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
                return;
        }
        if (!s->timer)
                r = sd_event_add_time(s->event, &s->timer, CLOCK_MONOTONIC, due, 10 * USEC_PER_MSEC, on_timer, s);
        else {
                r = sd_event_source_set_time(s->timer, due);
                if (r >= 0)
                        r = sd_event_source_set_enabled(s->timer, SD_EVENT_ONESHOT);
        }
        if (r < 0)
                log_warning_errno(r, "Failed to arm the link history's timer: %m");
}

int history_store_save(HistoryStore *s, const char *key, const LinkHistory *h) {
        StoreEntry *e;

        assert(s);
        assert(key);
        e = store_find(s, key);
        if (!e) {
                char *k = strdup(key);

                if (!k || ARRAY_RESERVE(s->entries, s->allocated, s->n_entries + 1) < 0) {
                        free(k);
                        return -ENOMEM;
                }
                e = &s->entries[s->n_entries++];
                *e = (StoreEntry){ .key = k };
        }
        e->history = *h;
        e->dirty = true;
        store_schedule(s);
        return 0;
}

void history_store_load(HistoryStore *s, const char *key, LinkHistory *ret) {
        _cleanup_free_ char *text = NULL;
        const StoreEntry *e;
        struct stat st;
        size_t len = 0;
        int fd, r = 0;

        assert(s);
        assert(key);
        *ret = (LinkHistory){};
        e = store_find(s, key);
        if (e) {
                /* Newer than the file, or being written to it. */
                *ret = e->history;
                return;
        }

        fd = openat(s->dir_fd, key, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0) {
                if (errno == ENOENT)
                        log_debug("%s/%s: no link history yet.", s->dir, key);
                else
                        log_warning_errno(errno, "%s/%s: failed to read the link history: %m. Starting an empty one.",
                                          s->dir, key);
                return;
        }
        if (fstat(fd, &st) < 0)
                r = -errno;
        else if (!S_ISREG(st.st_mode) || st.st_size > LINK_HISTORY_FILE_MAX)
                r = -EBADMSG;
        else if (!(text = malloc(LINK_HISTORY_FILE_MAX + 1)))
                r = -ENOMEM;
        while (r >= 0 && len <= LINK_HISTORY_FILE_MAX) {
                ssize_t k = read(fd, text + len, LINK_HISTORY_FILE_MAX + 1 - len);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        r = -errno;
                else if (k == 0)
                        break;
                else
                        len += (size_t) k;
        }
        close(fd);
        if (r >= 0)
                r = link_history_parse(text, len, key, ret);
        if (r == -EBADMSG)
                log_warning("%s/%s: the link history is truncated or damaged. Starting an empty one.", s->dir, key);
        else if (r < 0)
                log_warning_errno(r, "%s/%s: failed to read the link history: %m. Starting an empty one.", s->dir, key);
        if (r < 0)
                *ret = (LinkHistory){};
}

int history_store_new(sd_event *event, const char *dir, HistoryStore **ret) {
        HistoryStore *s;
        int r;

        assert(event);
        assert(dir);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                log_debug_errno(errno, "Failed to make %s: %m", dir);
        s = calloc(1, sizeof(HistoryStore));
        if (!s)
                return -ENOMEM;
        s->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        r = s->dir_fd < 0 ? -errno : 0;
        s->dir = strdup(dir);
        if (r >= 0 && !s->dir)
                r = -ENOMEM;
        if (r < 0) {
                history_store_free(s);
                return r;
        }
        s->event = sd_event_ref(event);
        *ret = s;
        return 0;
}

HistoryStore *history_store_free(HistoryStore *s) {
        if (!s)
                return NULL;
        if (s->worker) {
                /* Joined: done() is not called, so its accounting is ours. */
                s->worker = worker_free(s->worker);
                store_job_finished(s, s->job);
                write_job_free(s->job);
        }
        /* The loop is over: what still waits is written now, or lost at exit. */
        for (size_t i = 0; i < s->n_entries; i++) {
                StoreEntry *e = &s->entries[i];
                WriteJob j = { .store = s, .dir_fd = s->dir_fd, .n_files = 1 };
                JobFile f = { .key = e->key };

                if (!e->dirty)
                        continue;
                f.text = link_history_format(&e->history, e->key, &f.len);
                if (!f.text) {
                        log_oom();
                        continue;
                }
                j.files = &f;
                write_job_run(&j);
                store_job_finished(s, &j); /* f.key is the entry's */
                free(f.text);
        }
        for (size_t i = 0; i < s->n_entries; i++)
                free(s->entries[i].key);
        free(s->entries);
        sd_event_source_disable_unref(s->timer);
        sd_event_unref(s->event);
        closep(&s->dir_fd);
        free(s->dir);
        free(s);
        return NULL;
}
