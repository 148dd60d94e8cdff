/* SPDX-License-Identifier: MIT */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounded sysfs reads relative to an open directory. A kernel attribute is at
 * most one page; anything longer is cut at SYSFS_ATTR_MAX bytes. */
#define SYSFS_ATTR_MAX 4096

/* A big host holds hundreds of thousands of these, with a few dozen distinct
 * names and mostly repeated values: both are shared, counted, in one pool
 * (sysfs.c); a list's clear drops its references. */
typedef struct Attr {
        const char *name;
        const char *value;
} Attr;

/* Name → value map, sorted by name. */
typedef struct AttrList {
        Attr *items;
        size_t n;
} AttrList;

void attr_list_clear(AttrList *l);

/* How many distinct names and values the lists hold now (tests). */
size_t attr_strings_held(void);
bool attr_list_equal(const AttrList *a, const AttrList *b);
const char *attr_list_get(const AttrList *l, const char *name);
/* Sets name to a copy of value, inserting it in order; value NULL removes it. */
int attr_list_set(AttrList *l, const char *name, const char *value);

/* The length of buf[0..len) without its trailing whitespace: some drivers
 * print blank lines or spaces after a value. */
size_t sysfs_trim_trailing_space(const char *buf, size_t len);

/* Reads dirfd/path: trailing whitespace removed, invalid UTF-8 and NUL bytes
 * replaced. -errno on failure: -ENOENT, -EISDIR, the kernel's -EINVAL, ... */
int sysfs_read_at(int dirfd, const char *path, char **ret);

/* Reads dirfd/path into buf (NUL-terminated, at most size-1 bytes, trailing
 * whitespace removed), without allocating and without UTF-8 checks. */
int sysfs_read_buf_at(int dirfd, const char *path, char *buf, size_t size, size_t *ret_len);

/* The target's last path component of the symlink dirfd/path ("mlx5_core"). */
int sysfs_readlink_basename_at(int dirfd, const char *path, char **ret);

/* dirfd/path as a directory stream (its descriptor: dirfd(*ret)). -errno on failure. */
int sysfs_opendir_at(int dirfd, const char *path, DIR **ret);

/* The directory entry de of dirfd read into buf as sysfs_read_buf_at()
 * does, if it is a regular file every user may read: not ".", a directory,
 * a link, a write-only or a root-only attribute (-ENOENT, -EISDIR, -ELOOP,
 * -EACCES for those; -errno for a failed open or read). */
int sysfs_read_entry_at(int dirfd, const struct dirent *de, char *buf, size_t size, size_t *ret_len);

/* Every readable regular file directly in dirfd/subdir (subdir may be "."). */
int sysfs_read_attributes_at(int dirfd, const char *subdir, AttrList *ret);

/* Collapses "." and ".." in an absolute path lexically; sysfs links are
 * relative and /sys/devices has no symlinked directories. */
char *path_join_normalize(const char *base, const char *rel);

/* One file as a reader thread found it: its contents (trimmed) or -errno. */
typedef struct FileValue {
        int result;
        bool skipped;
        char *value;
        size_t len;
} FileValue;
void file_values_clear(FileValue *v, size_t n);

/* After a failed open: the error if it is a lack of resources (to be
 * retried), else 0 (the file or directory is not there, or not one). */
int resource_errno_or_zero(void);

/* *ret = copy of the attribute, "" if the kernel did not let us read it. */
int attr_dup(const AttrList *l, const char *name, char **ret);
uint32_t attr_u32(const AttrList *l, const char *name);
/* *p = copy of s, "" for NULL. */
int str_set(char **p, const char *s);

/* A file the poll re-reads into an object's attribute map. */
typedef struct PolledFile {
        const char *name;
        /* InfiniBand addressing, which the kernel reports as 0 for good on an
         * Ethernet link layer (RoCE, iWARP): there the scan's values stand. */
        bool infiniband_addressing;
        /* A value that fails this is a failed read (-EBADMSG), not a value:
         * the last good one stays, and the device's health says so. */
        bool (*parses)(const char *value);
} PolledFile;

/* Stores a freshly read raw value in an attribute map; 1 if it differed. */
int attr_list_refresh(AttrList *l, const char *name, int read_result, const char *buf, size_t len);

/* The reading half of a re-read (object_apply_files(), properties.h), for a
 * reader thread: dir/<file> for each of files into values[i], touching no model. */
int object_read_files(const char *dir, const PolledFile *files, size_t n_files, bool skip_ib_addressing,
                      FileValue *values);
