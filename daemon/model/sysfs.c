/* SPDX-License-Identifier: MIT */
#include "sysfs.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>

#include "basic/utf8.h"
#include "basic/util.h"
#include "reader-pool.h"
#include "reader-watch.h"

/* Sorted; the names of sysfs attributes, a few dozen distinct ones. The
 * only state outside the Manager: a constant pool, freed at exit. */
static struct {
        char **names;
        size_t n, allocated;
} name_pool;

/* The reader threads load devices at once: the pool is shared. */
static pthread_mutex_t name_pool_mutex = PTHREAD_MUTEX_INITIALIZER;

static const char *attr_name_intern_locked(const char *name) {
        size_t lo = 0, hi = name_pool.n;
        char *copy;

        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                int c = strcmp(name_pool.names[mid], name);
                if (c == 0)
                        return name_pool.names[mid];
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        if (ARRAY_RESERVE(name_pool.names, name_pool.allocated, name_pool.n + 1) < 0)
                return NULL;
        copy = strdup(name);
        if (!copy)
                return NULL;
        memmove(name_pool.names + lo + 1, name_pool.names + lo, (name_pool.n - lo) * sizeof(char *));
        name_pool.names[lo] = copy;
        name_pool.n++;
        return copy;
}

const char *attr_name_intern(const char *name) {
        const char *s;

        pthread_mutex_lock(&name_pool_mutex);
        s = attr_name_intern_locked(name);
        pthread_mutex_unlock(&name_pool_mutex);
        return s;
}

void attr_names_free(void) {
        for (size_t i = 0; i < name_pool.n; i++)
                free(name_pool.names[i]);
        free(name_pool.names);
        name_pool.names = NULL;
        name_pool.n = name_pool.allocated = 0;
}

static int attr_make(const char *name, const char *value, size_t value_len, Attr *ret) {
        const char *n = attr_name_intern(name);
        char *v;

        if (!n)
                return -ENOMEM;
        v = strndup(value, value_len);
        if (!v)
                return -ENOMEM;
        *ret = (Attr){ .name = n, .value = v };
        return 0;
}

void attr_list_clear(AttrList *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->items[i].value);
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
                                free(l->items[mid].value);
                                memmove(l->items + mid, l->items + mid + 1, (l->n - mid - 1) * sizeof(Attr));
                                l->n--;
                                return 0;
                        }
                        if (attr_make(name, value, strlen(value), &a) < 0)
                                return -ENOMEM;
                        free(l->items[mid].value);
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

/* One read(): sysfs hands out an attribute in one go (the kernel renders
 * the whole page on the first read), so a short read is the end and a second
 * read() to see EOF would only cost a system call, for every file of every
 * scan and sweep (systemd's read_virtual_file() reads them the same way). */
static int read_fd_bounded(int fd, char *buf, size_t size, size_t *ret_len) {
        ssize_t k;

        do
                k = read(fd, buf, size);
        while (k < 0 && errno == EINTR);
        if (k < 0)
                return negative_errno();
        *ret_len = (size_t) k;
        return 0;
}

size_t sysfs_trim_trailing_space(const char *buf, size_t len) {
        while (len > 0 && strchr(" \t\n\r\v\f", buf[len - 1]) && buf[len - 1] != '\0')
                len--;
        return len;
}

/* An attribute's text from its open descriptor: NUL-terminated, trailing whitespace removed. */
static int read_attribute_fd(int fd, char *buf, size_t size, size_t *ret_len) {
        size_t len;
        int r;

        r = read_fd_bounded(fd, buf, size - 1, &len);
        if (r < 0)
                return r;

        len = sysfs_trim_trailing_space(buf, len);
        buf[len] = '\0';
        *ret_len = len;
        return 0;
}

int sysfs_read_buf_at(int dirfd, const char *path, char *buf, size_t size, size_t *ret_len) {
        _cleanup_close_ int fd = -EBADF;

        int r;

        fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return negative_errno();
        reader_read_begin(dirfd, path);
        r = read_attribute_fd(fd, buf, size, ret_len);
        reader_read_end(dirfd, path, r);
        return r;
}

/* The checks are made on the open descriptor: fstat() walks no path, where
 * an fstatat() by name before the open walked it twice for every attribute
 * of every scan. Opening is harmless: only a read makes sysfs render. */
int sysfs_read_entry_at(int dirfd, const struct dirent *de, char *buf, size_t size, size_t *ret_len) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        int r;

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
        reader_read_begin(dirfd, de->d_name);
        r = read_attribute_fd(fd, buf, size, ret_len);
        reader_read_end(dirfd, de->d_name, r);
        return r;
}

int sysfs_read_at(int dirfd, const char *path, char **ret) {
        char buf[SYSFS_ATTR_MAX + 1];
        size_t len;
        char *s;
        int r;

        r = sysfs_read_buf_at(dirfd, path, buf, sizeof(buf), &len);
        if (r < 0)
                return r;

        s = utf8_sanitize(buf, len);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
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
        int fd, r;

        fd = openat(parent_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        *ret = fdopendir(fd);
        if (!*ret) {
                r = negative_errno();
                close(fd);
                return r;
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
