/* SPDX-License-Identifier: MIT */
#include "json-writer.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "basic/util.h"

void json_writer_init(JsonWriter *w, FILE *f, bool pretty) {
        assert(w);
        assert(f);

        *w = (JsonWriter){ .f = f, .pretty = pretty };
}

static void fail(JsonWriter *w, int error) {
        if (w->error == 0)
                w->error = error;
}

static void indent(JsonWriter *w, unsigned depth) {
        fputc('\n', w->f);
        for (unsigned i = 0; i < depth; i++)
                fputs("  ", w->f);
}

/* What goes before an item of the open container: a comma after the first,
 * and in pretty mode a line of its own. */
static void separate(JsonWriter *w) {
        if (w->has_items[w->depth])
                fputc(',', w->f);
        if (w->pretty)
                indent(w, w->depth);
        w->has_items[w->depth] = true;
}

/* Called before every value; false when nothing may be written. */
static bool begin_value(JsonWriter *w) {
        if (w->error < 0)
                return false;
        if (w->depth == 0)
                return true;
        if (w->is_object[w->depth]) {
                /* An object's values come only after their key, which did the separating. */
                if (!w->after_key) {
                        fail(w, -EINVAL);
                        return false;
                }
                w->after_key = false;
                return true;
        }
        separate(w);
        return true;
}

/* A top-level value is a document: it ends its line. */
static void end_value(JsonWriter *w) {
        if (w->depth == 0)
                fputc('\n', w->f);
}

static void write_escaped(FILE *f, const char *s) {
        static const char *const escapes[0x80] = {
                ['"'] = "\\\"", ['\\'] = "\\\\", ['\b'] = "\\b", ['\f'] = "\\f",
                ['\n'] = "\\n", ['\r'] = "\\r",  ['\t'] = "\\t",
        };

        fputc('"', f);
        /* Other control characters as \u00XX; DEL too: it is none to JSON, but a terminal acts on it. */
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if (*p < ELEMENTSOF(escapes) && escapes[*p])
                        fputs(escapes[*p], f);
                else if (*p < 0x20 || *p == 0x7f)
                        fprintf(f, "\\u%04x", *p);
                else
                        fputc(*p, f);
        fputc('"', f);
}

void json_writer_key(JsonWriter *w, const char *key) {
        assert(w);

        if (w->error < 0)
                return;
        if (w->depth == 0 || !w->is_object[w->depth] || w->after_key || !key) {
                fail(w, -EINVAL);
                return;
        }
        separate(w);
        write_escaped(w->f, key);
        fputs(w->pretty ? ": " : ":", w->f);
        w->after_key = true;
}

static void begin_container(JsonWriter *w, bool object) {
        assert(w);

        if (!begin_value(w))
                return;
        if (w->depth >= JSON_WRITER_DEPTH_MAX) {
                fail(w, -E2BIG);
                return;
        }
        w->depth++;
        w->has_items[w->depth] = false;
        w->is_object[w->depth] = object;
        fputc(object ? '{' : '[', w->f);
}

static void end_container(JsonWriter *w, bool object) {
        assert(w);

        if (w->error < 0)
                return;
        if (w->depth == 0 || w->is_object[w->depth] != object || w->after_key) {
                fail(w, -EINVAL);
                return;
        }
        /* An empty {} or [] stays on its line. */
        if (w->pretty && w->has_items[w->depth])
                indent(w, w->depth - 1);
        fputc(object ? '}' : ']', w->f);
        w->depth--;
        end_value(w);
}

void json_writer_begin_object(JsonWriter *w) {
        begin_container(w, true);
}

void json_writer_end_object(JsonWriter *w) {
        end_container(w, true);
}

void json_writer_begin_array(JsonWriter *w) {
        begin_container(w, false);
}

void json_writer_end_array(JsonWriter *w) {
        end_container(w, false);
}

void json_writer_string(JsonWriter *w, const char *s) {
        assert(w);

        if (!s) {
                json_writer_null(w);
                return;
        }
        if (!begin_value(w))
                return;
        write_escaped(w->f, s);
        end_value(w);
}

/* A value that is written as its text: a number, true, false, null. */
static void write_literal(JsonWriter *w, const char *text) {
        assert(w);

        if (!begin_value(w))
                return;
        fputs(text, w->f);
        end_value(w);
}

void json_writer_uint(JsonWriter *w, uint64_t v) {
        char text[32];

        snprintf(text, sizeof(text), "%" PRIu64, v);
        write_literal(w, text);
}

void json_writer_int(JsonWriter *w, int64_t v) {
        char text[32];

        snprintf(text, sizeof(text), "%" PRIi64, v);
        write_literal(w, text);
}

void json_writer_double(JsonWriter *w, double v) {
        char text[32];

        if (!isfinite(v)) {
                json_writer_null(w);
                return;
        }
        /* A whole number without an exponent ("100", not "1e+02"); else the fewest digits. */
        if (fabs(v) < 1e15 && v == (double) (int64_t) v)
                snprintf(text, sizeof(text), "%" PRIi64, (int64_t) v);
        else
                for (int precision = 1; precision <= 17; precision++) {
                        snprintf(text, sizeof(text), "%.*g", precision, v);
                        if (strtod(text, NULL) == v)
                                break;
                }
        write_literal(w, text);
}

void json_writer_bool(JsonWriter *w, bool v) {
        write_literal(w, v ? "true" : "false");
}

void json_writer_null(JsonWriter *w) {
        write_literal(w, "null");
}

void json_writer_field_string(JsonWriter *w, const char *key, const char *s) {
        json_writer_key(w, key);
        json_writer_string(w, s);
}

void json_writer_field_uint(JsonWriter *w, const char *key, uint64_t v) {
        json_writer_key(w, key);
        json_writer_uint(w, v);
}

void json_writer_field_int(JsonWriter *w, const char *key, int64_t v) {
        json_writer_key(w, key);
        json_writer_int(w, v);
}

void json_writer_field_bool(JsonWriter *w, const char *key, bool v) {
        json_writer_key(w, key);
        json_writer_bool(w, v);
}

void json_writer_field_null(JsonWriter *w, const char *key) {
        json_writer_key(w, key);
        json_writer_null(w);
}

int json_writer_finish(const JsonWriter *w) {
        assert(w);

        if (w->error < 0)
                return w->error;
        return w->depth == 0 && !w->after_key ? 0 : -EINVAL;
}
