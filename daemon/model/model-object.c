/* SPDX-License-Identifier: MIT */
/* What the model's objects share: attribute helpers, owned strings, and the
 * one update and refresh of a port or a netdev from its attribute map. */
#include <fcntl.h>
#include <stdio.h>

#include "basic/log.h"
#include "basic/parse.h"
#include "basic/utf8.h"
#include "basic/util.h"
#include "model-object.h"
#include "properties.h"
#include "reader-pool.h"
#include "reader-watch.h"

/* After a failed open: the error if it is a lack of resources (to be
 * retried), else 0 (the file or directory is not there, or not one). */
int resource_errno_or_zero(void) {
        int r = negative_errno();
        return errno_is_resource(r) ? r : 0;
}

/* *ret = copy of the attribute, "" if the kernel did not let us read it. */
int attr_dup(const AttrList *l, const char *name, char **ret) {
        const char *v = attr_list_get(l, name);
        char *s = strdup(v ?: "");

        if (!s)
                return -ENOMEM;
        free(*ret);
        *ret = s;
        return 0;
}

uint32_t attr_u32(const AttrList *l, const char *name) {
        const char *v = attr_list_get(l, name);
        uint32_t u = 0;

        if (v && parse_u32(v, &u) < 0)
                log_debug("Ignoring unparsable %s=\"%s\".", name, v);
        return u;
}

int str_set(char **p, const char *s) {
        return free_and_strdup(p, s ?: "");
}

void strings_free(const size_t *strings, size_t n, void *object) {
        for (size_t i = 0; i < n; i++)
                free(STRING_AT(object, strings[i]));
}

/* Frees the strings of `stale` that `kept`, another copy of the same object,
 * no longer points to. */
void strings_free_replaced(const size_t *strings, size_t n, void *stale, const void *kept) {
        for (size_t i = 0; i < n; i++) {
                char **s = &STRING_AT(stale, strings[i]);

                if (*s != STRING_AT(kept, strings[i]))
                        *s = mfree(*s);
        }
}

/* Puts a copy of value in *field unless it is equal already. The old string
 * is not freed: the update's snapshot has it (object_update()), which frees
 * it once the change is known. */
int derive_str(char **field, const char *value) {
        char *s;

        if (streq_ptr(*field, value))
                return 0;
        s = strdup(value);
        if (!s)
                return -ENOMEM;
        *field = s;
        return 0;
}

/* Re-derives the object from its attribute map, and what that changed, by
 * comparison with the object before (properties.c). Used when loading and
 * when the poll has found a file with new contents. On failure the object is
 * as it was. */
int object_update(const ObjectKind *k, void *object, PropertyMask *ret_changed) {
        ObjectSnapshot before;
        int r;

        assert(k->size <= sizeof(before));
        memcpy(&before, object, k->size);
        r = k->derive(object);
        if (r < 0) {
                strings_free_replaced(k->strings, k->n_strings, object, &before);
                memcpy(object, &before, k->size);
                return r;
        }
        *ret_changed = k->changed_mask(&before, object);
        strings_free_replaced(k->strings, k->n_strings, &before, object);
        return 0;
}

/* Stores a freshly read raw value in an attribute map; 1 if it differed.
 * Allocates only when the contents changed. */
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

/* The reading half of object_refresh(), for a reader thread: dir/<file> for
 * each of files into values[i], touching no model. */
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

/* The applying half, on the loop: the values into the object's attribute
 * map and, if any differed, the object re-derived: *ret_changed is what
 * changed, with Attributes. */
int object_apply_files(const ObjectKind *k, void *object, const PolledFile *files, size_t n_files,
                       const FileValue *values, PropertyMask *ret_changed) {
        AttrList *attributes = (AttrList *) ((uint8_t *) object + k->attributes_offset);
        bool any = false;
        PropertyMask changed;
        int r;

        *ret_changed = 0;
        for (size_t i = 0; i < n_files; i++) {
                if (values[i].skipped || values[i].result == -EBADMSG)
                        continue; /* the last good value stays */
                r = attr_list_refresh(attributes, files[i].name, values[i].result, values[i].value ?: "",
                                      values[i].len);
                if (r < 0)
                        return r;
                any = any || r > 0;
        }
        if (!any)
                return 0;

        r = object_update(k, object, &changed);
        if (r < 0)
                return r;
        *ret_changed = changed | k->attributes_bit;
        return 0;
}

/* Re-reads dir/<file> into the object's attribute map for each of files (but
 * the InfiniBand addressing if skip_ib_addressing) and, if any differed,
 * re-derives the object: *ret_changed is what changed, with Attributes. */
int object_refresh(const ObjectKind *k, void *object, const char *dir, const PolledFile *files, size_t n_files,
                   bool skip_ib_addressing, PropertyMask *ret_changed) {
        FileValue values[16];
        int r;

        assert(n_files <= ELEMENTSOF(values));
        *ret_changed = 0;
        r = object_read_files(dir, files, n_files, skip_ib_addressing, values);
        if (r >= 0)
                r = object_apply_files(k, object, files, n_files, values, ret_changed);
        file_values_clear(values, n_files);
        return r;
}
