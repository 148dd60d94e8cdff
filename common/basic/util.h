/* SPDX-License-Identifier: MIT */
#pragma once

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void freep(void *p) {
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void *mfree(void *p) {
        free(p);
        return NULL;
}

/* NULL-terminated string arrays, as sd-bus's node enumerator wants them. */
static inline char **strv_free(char **l) {
        for (char **i = l; i && *i; i++)
                free(*i);
        free(l);
        return NULL;
}
static inline void strv_freep(char ***l) {
        strv_free(*l);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)

static inline size_t strv_length(char *const *l) {
        size_t n = 0;

        for (; l && l[n]; n++)
                ;
        return n;
}

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
#define _cleanup_close_ _cleanup_(closep)

static inline void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}
#define _cleanup_closedir_ _cleanup_(closedirp)

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Hand a pointer over to the caller without the cleanup handler freeing it. */
#define TAKE_PTR(p)                                                                                                    \
        ({                                                                                                             \
                __typeof__(p) _taken = (p);                                                                            \
                (p) = NULL;                                                                                            \
                _taken;                                                                                                \
        })

#define SWAP_VALUES(a, b)                                                                                              \
        do {                                                                                                           \
                __typeof__(a) _swapped = (a);                                                                          \
                (a) = (b);                                                                                             \
                (b) = _swapped;                                                                                        \
        } while (0)

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

static inline bool streq(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}

static inline bool strv_contains(char *const *l, const char *s) {
        for (; l && *l; l++)
                if (streq(*l, s))
                        return true;
        return false;
}

static inline const char *strempty(const char *s) {
        return s ?: "";
}

static inline const char *strna(const char *s) {
        return s ?: "n/a";
}

/* Replace *p with a copy of s; -ENOMEM on failure, *p untouched. */
static inline int free_and_strdup(char **p, const char *s) {
        char *t = NULL;

        if (s) {
                t = strdup(s);
                if (!t)
                        return -ENOMEM;
        }
        free(*p);
        *p = t;
        return 0;
}

/* The value of a lowercase hexadecimal digit (as sd_bus_path_encode() and
 * the kernel write them), -1 for any other character. */
static inline int unhexchar_lower(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        return -1;
}

static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}

/* An I/O error of a device, as opposed to a file that is not there or not
 * readable in its state (ENOENT, EINVAL, EOPNOTSUPP...). */
static inline bool errno_is_io(int r) {
        return r == -EIO || r == -ETIMEDOUT || r == -ENXIO || r == -EREMOTEIO || r == -EPROTO;
}

/* Out of memory or out of file descriptors: the failure says nothing about
 * the file, so it must not be taken as "attribute missing". The caller
 * keeps what it had and the read is retried later. r is -errno. */
static inline bool errno_is_resource(int r) {
        return r == -ENOMEM || r == -EMFILE || r == -ENFILE || r == -ENOBUFS;
}

/* Makes room for at least `need` elements of `size` bytes in *p, doubling. */
static inline int array_reserve(void **p, size_t *allocated, size_t need, size_t size) {
        size_t n;
        void *q;

        if (need <= *allocated)
                return 0;
        n = *allocated ? *allocated * 2 : 8;
        if (n < need)
                n = need;
        q = reallocarray(*p, n, size);
        if (!q)
                return -ENOMEM;
        *p = q;
        *allocated = n;
        return 0;
}
#define ARRAY_RESERVE(p, allocated, need) array_reserve((void **) &(p), &(allocated), (need), sizeof(*(p)))

/* Gives back what ARRAY_RESERVE's doubling left unused: a loaded model is
 * read many times and grown rarely. */
static inline void array_shrink(void **p, size_t *allocated, size_t n, size_t size) {
        void *q;

        if (n == 0 || n >= *allocated)
                return;
        q = reallocarray(*p, n, size);
        if (q) {
                *p = q;
                *allocated = n;
        }
}
#define ARRAY_SHRINK(p, allocated, n) array_shrink((void **) &(p), &(allocated), (n), sizeof(*(p)))

/* Appends s to the list of *n (NULL-terminated after it), taking it; s is
 * freed on failure, and a NULL s is -ENOMEM (pass strdup() directly). */
static inline int strv_push_take(char ***l, size_t *n, size_t *allocated, char *s) {
        if (!s)
                return -ENOMEM;
        if (ARRAY_RESERVE(*l, *allocated, *n + 2) < 0) {
                free(s);
                return -ENOMEM;
        }
        (*l)[(*n)++] = s;
        (*l)[*n] = NULL;
        return 0;
}
