/* SPDX-License-Identifier: MIT */
#include "counters.h"

#include <assert.h>
#include <fcntl.h>

#include "basic/utf8.h"
#include "basic/util.h"
#include "sysfs.h"

static const char *const source_directories[_COUNTER_SOURCE_MAX] = {
        [COUNTER_SOURCE_COUNTERS] = "counters",
        [COUNTER_SOURCE_COUNTERS_EXT] = "counters_ext",
        [COUNTER_SOURCE_HW_COUNTERS] = "hw_counters",
};

void counter_list_clear(CounterList *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->items[i].name);
        free(l->items);
        *l = (CounterList){};
}

int counter_list_add(CounterList *l, const char *name, uint64_t value) {
        char *copy;

        if (ARRAY_RESERVE(l->items, l->allocated, l->n + 1) < 0)
                return -ENOMEM;
        copy = strdup(name);
        if (!copy)
                return -ENOMEM;
        l->items[l->n++] = (Counter){ .name = copy, .value = value };
        return 0;
}

static int counter_name_compare(const void *a, const void *b) {
        return strcmp(((const Counter *) a)->name, ((const Counter *) b)->name);
}

static int counter_compare(const void *a, const void *b) {
        const Counter *x = a, *y = b;
        int c = counter_name_compare(x, y);

        /* Equal names: insertion order, so that the first source wins. */
        if (c == 0)
                return x < y ? -1 : x > y;
        return c;
}

void counter_list_finish(CounterList *l) {
        size_t kept = 0;

        if (l->n > 1)
                qsort(l->items, l->n, sizeof(Counter), counter_compare);
        for (size_t i = 0; i < l->n; i++) {
                if (kept > 0 && streq(l->items[kept - 1].name, l->items[i].name)) {
                        free(l->items[i].name);
                        continue;
                }
                l->items[kept++] = l->items[i];
        }
        l->n = kept;
        ARRAY_SHRINK(l->items, l->allocated, l->n);
}

int counter_parse_number(const char *text, uint64_t *ret) {
        uint64_t v = 0;
        const char *p = text;

        if (*p < '0' || *p > '9')
                return -EINVAL; /* also "", "-1", " 7" */
        for (; *p >= '0' && *p <= '9'; p++) {
                unsigned digit = (unsigned) (*p - '0');

                if (v > (UINT64_MAX - digit) / 10)
                        return -ERANGE;
                v = v * 10 + digit;
        }
        for (; *p; p++)
                if (!strchr(" \t\n\r\v\f", *p))
                        return -EINVAL; /* "12 packets", "0x10" */
        *ret = v;
        return 0;
}

/* IBTA PortXmitData/PortRcvData: "octets divided by 4". */
static bool counts_four_octet_words(CounterSource source, const char *name) {
        static const char *const names[] = { "port_rcv_data", "port_xmit_data", "port_rcv_data_64",
                                             "port_xmit_data_64" };

        if (source == COUNTER_SOURCE_HW_COUNTERS)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(name, names[i]))
                        return true;
        return false;
}

int counter_value(CounterSource source, const char *name, const char *text, uint64_t *ret) {
        uint64_t v;
        int r;

        /* The interval (ms) after which the kernel re-reads the driver's stats. */
        if (source == COUNTER_SOURCE_HW_COUNTERS && streq(name, "lifespan"))
                return -ENOENT;

        r = counter_parse_number(text, &v);
        if (r < 0)
                return r;
        if (counts_four_octet_words(source, name)) {
                if (v > UINT64_MAX / 4)
                        return -ERANGE;
                v *= 4;
        }
        *ret = v;
        return 0;
}

int counters_read_source_at(int parent_fd, CounterSource source, CounterList *l) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        int fd, r;

        assert(source >= 0 && source < _COUNTER_SOURCE_MAX);
        r = sysfs_opendir_at(parent_fd, source_directories[source], &d);
        if (errno_is_resource(r))
                return r;
        if (r < 0)
                return 0; /* no such directory (or not one): this driver has none */
        fd = dirfd(d);

        while ((de = readdir(d))) {
                _cleanup_free_ char *name = NULL;
                char buf[128];
                uint64_t value;
                size_t len;

                /* A counter is at most 20 digits; a longer text is no counter and is cut, then refused. */
                r = sysfs_read_entry_at(fd, de, buf, sizeof(buf), &len);
                if (errno_is_resource(r))
                        return r;
                if (r < 0 || strlen(buf) != len) /* EINVAL, EOPNOTSUPP, EACCES, ENOENT; a NUL inside */
                        continue;

                name = utf8_sanitize(de->d_name, strlen(de->d_name));
                if (!name)
                        return -ENOMEM;
                if (counter_value(source, name, buf, &value) < 0)
                        continue;
                r = counter_list_add(l, name, value);
                if (r < 0)
                        return r;
        }
        return 1;
}

int counters_read_path(const char *path, bool port_dir, CounterList *ret, bool *ret_present) {
        _cleanup_close_ int fd = -EBADF;
        CounterList l = {};
        bool present = false;
        int r;

        assert(path);
        assert(ret);
        assert(ret_present);

        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                r = negative_errno();
                if (errno_is_resource(r))
                        return r;
                /* The device went away since the request: no counters. */
                *ret = (CounterList){};
                *ret_present = false;
                return 0;
        }

        for (CounterSource s = port_dir ? COUNTER_SOURCE_COUNTERS : COUNTER_SOURCE_HW_COUNTERS; s < _COUNTER_SOURCE_MAX;
             s++) {
                r = counters_read_source_at(fd, s, &l);
                if (r < 0) {
                        counter_list_clear(&l);
                        return r;
                }
                present = present || r > 0;
        }
        counter_list_finish(&l);
        *ret = l;
        *ret_present = present;
        return 0;
}
