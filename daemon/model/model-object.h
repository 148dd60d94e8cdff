/* SPDX-License-Identifier: MIT */
#pragma once

/* For device.c, port.c and netdev.c only: what their objects share. Not
 * part of the model's interface. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* After a failed open: the error if it is a lack of resources (to be
 * retried), else 0 (the file or directory is not there, or not one). */
int resource_errno_or_zero(void);

/* *ret = copy of the attribute, "" if the kernel did not let us read it. */
int attr_dup(const AttrList *l, const char *name, char **ret);
uint32_t attr_u32(const AttrList *l, const char *name);
/* *p = copy of s, "" for NULL. */
int str_set(char **p, const char *s);

/* The char * fields an object owns, by offset: freed by its clear, and by an
 * update for those that a re-derivation replaced, whether or not they are
 * published. A new char * field of Port, NetDev or Device goes in its list. */
#define STRING_AT(object, offset) (*(char **) ((uint8_t *) (object) + (offset)))
void strings_free(const size_t *strings, size_t n, void *object);
/* Frees the strings of `stale` that `kept`, another copy of the same object,
 * no longer points to. */
void strings_free_replaced(const size_t *strings, size_t n, void *stale, const void *kept);

/* Puts a copy of value in *field unless it is equal already; the old string
 * is freed by the update that called the derivation (object_update()). */
int derive_str(char **field, const char *value);

/* What the update and the refresh of a port or a netdev need to know of it. */
typedef struct ObjectKind {
        size_t size;
        const size_t *strings;
        size_t n_strings;
        size_t attributes_offset;
        PropertyMask attributes_bit;
        int (*derive)(void *object);
        PropertyMask (*changed_mask)(const void *a, const void *b);
} ObjectKind;

/* A shallow copy of any object of a kind, taken before re-deriving it. */
typedef union ObjectSnapshot {
        Port port;
        NetDev netdev;
} ObjectSnapshot;

/* Re-derives the object from its attribute map; *ret_changed is what that
 * changed (properties.c compares). On failure the object is as it was. */
int object_update(const ObjectKind *k, void *object, PropertyMask *ret_changed);

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

/* The two halves of object_refresh(): the reads (a reader thread) and
 * their application to the object (the loop). */
int object_read_files(const char *dir, const PolledFile *files, size_t n_files, bool skip_ib_addressing,
                      FileValue *values);
int object_apply_files(const ObjectKind *k, void *object, const PolledFile *files, size_t n_files,
                       const FileValue *values, PropertyMask *ret_changed);

/* Re-reads dir/<file> for each of files (but the InfiniBand addressing if
 * skip_ib_addressing) and, if any differed, re-derives the object. */
int object_refresh(const ObjectKind *k, void *object, const char *dir, const PolledFile *files, size_t n_files,
                   bool skip_ib_addressing, PropertyMask *ret_changed);
