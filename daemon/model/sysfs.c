/* SPDX-License-Identifier: MIT */
#include "sysfs.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>

#include "basic/log.h"
#include "basic/parse.h"
#include "basic/utf8.h"
#include "basic/util.h"
#include "reader-pool.h"

/* Attribute names and values repeat across a big host's hundreds of
 * thousands of attributes (a few dozen names; "4: ACTIVE", "0x0", "up" on
 * every port): each distinct string is kept once, counted, and freed with
 * its last holder. An open-addressing table of entries, linear probing;
 * the reader threads load devices at once, so it is locked. The only state
 * outside the Manager. */
typedef struct PooledString {
        unsigned n_ref;
        uint32_t hash;
        char s[];
} PooledString;

static struct {
        PooledString **slots;
        size_t n, n_slots; /* n_slots: 0 or a power of two */
} string_pool;
static pthread_mutex_t string_pool_mutex = PTHREAD_MUTEX_INITIALIZER;

static uint32_t string_hash(const char *s, size_t len) {
        uint32_t h = 2166136261u; /* FNV-1a */

        for (size_t i = 0; i < len; i++)
                h = (h ^ (uint8_t) s[i]) * 16777619u;
        return h;
}

/* Where s is, or the empty slot where it would go. */
static size_t pool_slot(uint32_t hash, const char *s, size_t len) {
        size_t i = hash & (string_pool.n_slots - 1);

        for (PooledString *e; (e = string_pool.slots[i]); i = (i + 1) & (string_pool.n_slots - 1))
                if (e->hash == hash && strncmp(e->s, s, len) == 0 && e->s[len] == '\0')
                        return i;
        return i;
}

static int pool_grow(void) {
        PooledString **old = string_pool.slots;
        size_t n_old = string_pool.n_slots, n = n_old ? 2 * n_old : 256;

        string_pool.slots = calloc(n, sizeof(PooledString *));
        if (!string_pool.slots) {
                string_pool.slots = old;
                return -ENOMEM;
        }
        string_pool.n_slots = n;
        for (size_t i = 0; i < n_old; i++)
                if (old[i])
                        string_pool.slots[pool_slot(old[i]->hash, old[i]->s, strlen(old[i]->s))] = old[i];
        free(old);
        return 0;
}

static const char *pool_ref_locked(const char *s, size_t len) {
        uint32_t hash = string_hash(s, len);
        PooledString *e;
        size_t i;

        if ((string_pool.n + 1) * 4 > string_pool.n_slots * 3 && pool_grow() < 0)
                return NULL;
        i = pool_slot(hash, s, len);
        e = string_pool.slots[i];
        if (e) {
                e->n_ref++;
                return e->s;
        }
        e = malloc(offsetof(PooledString, s) + len + 1);
        if (!e)
                return NULL;
        *e = (PooledString){ .n_ref = 1, .hash = hash };
        memcpy(e->s, s, len);
        e->s[len] = '\0';
        string_pool.slots[i] = e;
        string_pool.n++;
        return e->s;
}

static void pool_unref_locked(const char *s) {
        PooledString *e = (PooledString *) (s - offsetof(PooledString, s));
        size_t i, j;

        if (--e->n_ref > 0)
                return;
        i = pool_slot(e->hash, e->s, strlen(e->s));
        free(e);
        string_pool.slots[i] = NULL;
        string_pool.n--;
        /* Backward shift: the entries after the hole that probed past it move in. */
        for (j = (i + 1) & (string_pool.n_slots - 1); string_pool.slots[j]; j = (j + 1) & (string_pool.n_slots - 1)) {
                size_t home = string_pool.slots[j]->hash & (string_pool.n_slots - 1);

                if (((j - home) & (string_pool.n_slots - 1)) >= ((j - i) & (string_pool.n_slots - 1))) {
                        string_pool.slots[i] = string_pool.slots[j];
                        string_pool.slots[j] = NULL;
                        i = j;
                }
        }
        if (string_pool.n == 0) {
                string_pool.slots = mfree(string_pool.slots);
                string_pool.n_slots = 0;
        }
}

size_t attr_strings_held(void) {
        size_t n;

        pthread_mutex_lock(&string_pool_mutex);
        n = string_pool.n;
        pthread_mutex_unlock(&string_pool_mutex);
        return n;
}

/* Both strings under one lock. */
static int attr_make(const char *name, const char *value, size_t value_len, Attr *ret) {
        const char *n, *v = NULL;

        pthread_mutex_lock(&string_pool_mutex);
        n = pool_ref_locked(name, strlen(name));
        if (n && !(v = pool_ref_locked(value, value_len)))
                pool_unref_locked(n);
        pthread_mutex_unlock(&string_pool_mutex);
        if (!v)
                return -ENOMEM;
        *ret = (Attr){ .name = n, .value = v };
        return 0;
}

static void attr_done(Attr *a) {
        pthread_mutex_lock(&string_pool_mutex);
        pool_unref_locked(a->name);
        pool_unref_locked(a->value);
        pthread_mutex_unlock(&string_pool_mutex);
}

void attr_list_clear(AttrList *l) {
        for (size_t i = 0; i < l->n; i++)
                attr_done(&l->items[i]);
        free(l->items);
        l->items = NULL;
        l->n = 0;
}

bool attr_list_equal(const AttrList *a, const AttrList *b) {
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (!streq(a->items[i].name, b->items[i].name) || !streq(a->items[i].value, b->items[i].value))
                        return false;
        return true;
}

static int attr_compare(const void *a, const void *b) {
        return strcmp(((const Attr *) a)->name, ((const Attr *) b)->name);
}

const char *attr_list_get(const AttrList *l, const char *name) {
        Attr key = { .name = (char *) name };
        Attr *found;

        if (l->n == 0)
                return NULL;
        found = bsearch(&key, l->items, l->n, sizeof(Attr), attr_compare);
        return found ? found->value : NULL;
}

int attr_list_set(AttrList *l, const char *name, const char *value) {
        size_t lo = 0, hi = l->n;
        Attr a, *items;

        /* Binary search for the slot: the list stays sorted. */
        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                int c = strcmp(l->items[mid].name, name);
                if (c == 0) {
                        if (!value) {
                                attr_done(&l->items[mid]);
                                memmove(l->items + mid, l->items + mid + 1, (l->n - mid - 1) * sizeof(Attr));
                                l->n--;
                                return 0;
                        }
                        if (attr_make(name, value, strlen(value), &a) < 0)
                                return -ENOMEM;
                        attr_done(&l->items[mid]);
                        l->items[mid] = a;
                        return 0;
                }
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        if (!value)
                return 0;

        items = reallocarray(l->items, l->n + 1, sizeof(Attr));
        if (!items)
                return -ENOMEM;
        l->items = items;
        if (attr_make(name, value, strlen(value), &a) < 0)
                return -ENOMEM;
        memmove(l->items + lo + 1, l->items + lo, (l->n - lo) * sizeof(Attr));
        l->items[lo] = a;
        l->n++;
        return 0;
}

size_t sysfs_trim_trailing_space(const char *buf, size_t len) {
        while (len > 0 && strchr(" \t\n\r\v\f", buf[len - 1]) && buf[len - 1] != '\0')
                len--;
        return len;
}

/* An attribute's text from fd, dirfd/path opened, the reader pool told:
 * NUL-terminated, trailing whitespace removed. One read(): sysfs hands out an attribute in one go
 * (the kernel renders the whole page on the first read), so a short read is
 * the end and a second read() to see EOF would only cost a system call, for
 * every file of every scan and sweep (systemd's read_virtual_file() reads
 * them the same way). */
static int read_attribute_fd(int dirfd, const char *path, int fd, char *buf, size_t size, size_t *ret_len) {
        ssize_t k;
        int r = 0;

        reader_read_begin(dirfd, path);
        do
                k = read(fd, buf, size - 1);
        while (k < 0 && errno == EINTR);
        if (k < 0)
                r = negative_errno();
        reader_read_end(dirfd, path, r);
        if (r < 0)
                return r;
        *ret_len = sysfs_trim_trailing_space(buf, (size_t) k);
        buf[*ret_len] = '\0';
        return 0;
}

int sysfs_read_buf_at(int dirfd, const char *path, char *buf, size_t size, size_t *ret_len) {
        _cleanup_close_ int fd = -EBADF;

        fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return negative_errno();
        return read_attribute_fd(dirfd, path, fd, buf, size, ret_len);
}

/* The checks are made on the open descriptor: fstat() walks no path, where
 * an fstatat() by name before the open walked it twice for every attribute
 * of every scan. Opening is harmless: only a read makes sysfs render. */
int sysfs_read_entry_at(int dirfd, const struct dirent *de, char *buf, size_t size, size_t *ret_len) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        if (de->d_name[0] == '.')
                return -ENOENT;
        if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN)
                return -EISDIR;
        /* Not through a link; a FIFO would not block the loop. */
        fd = openat(dirfd, de->d_name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EISDIR;
        /* Only what every user may read: the bus is open to everyone, and
         * root-only attributes are root's (write-only ones the kernel would
         * refuse to read anyway). */
        if (!(st.st_mode & S_IROTH))
                return -EACCES;
        return read_attribute_fd(dirfd, de->d_name, fd, buf, size, ret_len);
}

int sysfs_read_at(int dirfd, const char *path, char **ret) {
        char buf[SYSFS_ATTR_MAX + 1];
        size_t len;
        int r;

        r = sysfs_read_buf_at(dirfd, path, buf, sizeof(buf), &len);
        if (r < 0)
                return r;
        *ret = utf8_sanitize(buf, len);
        return *ret ? 0 : -ENOMEM;
}

int sysfs_readlink_basename_at(int dirfd, const char *path, char **ret) {
        char buf[4096];
        const char *base;
        ssize_t n;

        n = readlinkat(dirfd, path, buf, sizeof(buf) - 1);
        if (n < 0)
                return negative_errno();
        buf[n] = '\0';

        while (n > 1 && buf[n - 1] == '/')
                buf[--n] = '\0';
        base = strrchr(buf, '/');
        base = base ? base + 1 : buf;
        if (!*base)
                return -EINVAL;

        *ret = utf8_sanitize(base, strlen(base));
        return *ret ? 0 : -ENOMEM;
}

int sysfs_opendir_at(int parent_fd, const char *path, DIR **ret) {
        int fd;

        fd = openat(parent_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        *ret = fdopendir(fd);
        if (!*ret) {
                closep(&fd); /* keeps errno */
                return negative_errno();
        }
        return 0;
}

int sysfs_read_attributes_at(int parent_fd, const char *subdir, AttrList *ret) {
        _cleanup_closedir_ DIR *d = NULL;
        AttrList l = {};
        size_t allocated = 0;
        struct dirent *de;
        int fd, r;

        r = sysfs_opendir_at(parent_fd, subdir, &d);
        if (r < 0)
                return r;
        fd = dirfd(d);

        while ((de = readdir(d))) {
                _cleanup_free_ char *name = NULL, *value = NULL;
                char buf[SYSFS_ATTR_MAX + 1];
                size_t len;

                r = sysfs_read_entry_at(fd, de, buf, sizeof(buf), &len);
                if (errno_is_resource(r)) {
                        attr_list_clear(&l);
                        return r;
                }
                if (r < 0)
                        continue;

                value = utf8_sanitize(buf, len);
                name = utf8_sanitize(de->d_name, strlen(de->d_name));
                if (!value || !name || ARRAY_RESERVE(l.items, allocated, l.n + 1) < 0 ||
                    attr_make(name, value, strlen(value), &l.items[l.n]) < 0) {
                        attr_list_clear(&l);
                        return -ENOMEM;
                }
                l.n++;
        }

        if (l.n > 0)
                qsort(l.items, l.n, sizeof(Attr), attr_compare);
        ARRAY_SHRINK(l.items, allocated, l.n);
        *ret = l;
        return 0;
}

char *path_join_normalize(const char *base, const char *rel) {
        _cleanup_free_ char *joined = NULL;
        char *out, *p, *save = NULL;
        size_t len;

        if (rel[0] == '/')
                joined = strdup(rel);
        else if (asprintf(&joined, "%s/%s", base, rel) < 0)
                joined = NULL;
        if (!joined)
                return NULL;

        out = malloc(strlen(joined) + 2);
        if (!out)
                return NULL;
        out[0] = '\0';
        len = 0;

        for (p = strtok_r(joined, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
                if (streq(p, "."))
                        continue;
                if (streq(p, "..")) {
                        char *slash = strrchr(out, '/');
                        len = slash ? (size_t) (slash - out) : 0;
                        out[len] = '\0';
                        continue;
                }
                out[len++] = '/';
                strcpy(out + len, p);
                len += strlen(p);
        }
        if (len == 0)
                strcpy(out, "/");
        return out;
}

/* The attributes of the model's objects, and the files the poll re-reads
 * into them: read on a reader thread, stored on the loop. */

int resource_errno_or_zero(void) {
        int r = negative_errno();
        return errno_is_resource(r) ? r : 0;
}

int attr_dup(const AttrList *l, const char *name, char **ret) {
        return str_set(ret, attr_list_get(l, name));
}

int str_set(char **p, const char *s) {
        return free_and_strdup(p, s ?: "");
}

uint32_t attr_u32(const AttrList *l, const char *name) {
        const char *v = attr_list_get(l, name);
        uint32_t u = 0;

        if (v && parse_u32(v, &u) < 0)
                log_debug("Ignoring unparsable %s=\"%s\".", name, v);
        return u;
}

/* Allocates only when the contents changed. */
int attr_list_refresh(AttrList *l, const char *name, int read_result, const char *buf, size_t len) {
        const char *cur = attr_list_get(l, name);
        _cleanup_free_ char *sanitized = NULL;
        int r;

        if (errno_is_resource(read_result))
                return read_result;
        if (read_result < 0) {
                if (!cur)
                        return 0;
                r = attr_list_set(l, name, NULL);
                return r < 0 ? r : 1;
        }
        if (cur && strlen(cur) == len && memcmp(cur, buf, len) == 0)
                return 0;
        if (!utf8_is_valid_n(buf, len)) {
                sanitized = utf8_sanitize(buf, len);
                if (!sanitized)
                        return -ENOMEM;
                if (cur && streq(cur, sanitized))
                        return 0;
        }
        r = attr_list_set(l, name, sanitized ?: buf);
        return r < 0 ? r : 1;
}

static char *memdup_nul(const char *buf, size_t len) {
        char *s = malloc(len + 1);

        if (s) {
                memcpy(s, buf, len);
                s[len] = '\0';
        }
        return s;
}

void file_values_clear(FileValue *v, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(v[i].value);
                v[i] = (FileValue){};
        }
}

int object_read_files(const char *dir, const PolledFile *files, size_t n_files, bool skip_ib_addressing,
                      FileValue *values) {
        char path[4096], buf[SYSFS_ATTR_MAX + 1];

        for (size_t i = 0; i < n_files; i++) {
                size_t len = 0;
                int r;

                values[i] = (FileValue){ .result = -ENOENT };
                if (skip_ib_addressing && files[i].infiniband_addressing) {
                        values[i].skipped = true;
                        continue;
                }
                snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
                r = sysfs_read_buf_at(AT_FDCWD, path, buf, sizeof(buf), &len);
                if (errno_is_resource(r))
                        return r;
                if (r >= 0 && files[i].parses && !files[i].parses(buf)) {
                        r = -EBADMSG;
                        reader_read_failed(AT_FDCWD, path, r);
                }
                values[i].result = r;
                if (r >= 0) {
                        values[i].value = memdup_nul(buf, len);
                        if (!values[i].value)
                                return -ENOMEM;
                        values[i].len = len;
                }
        }
        return 0;
}
