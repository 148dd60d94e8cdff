/* SPDX-License-Identifier: MIT */
#pragma once

/* A streaming JSON writer: values go straight to a FILE, and the writer
 * places the commas, the colons and (pretty) the line breaks and the
 * indentation itself, so that no caller ever writes punctuation.
 *
 * Compact: no blank outside strings. Pretty: two spaces a level, "key":
 * value, an empty {} or [] on its line. Either way a newline follows each
 * complete top-level value, so one writer can write JSON lines. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_WRITER_DEPTH_MAX 32

typedef struct JsonWriter {
        FILE *f;
        bool pretty;
        unsigned depth;
        bool after_key;                            /* a value is due after "key": */
        bool has_items[JSON_WRITER_DEPTH_MAX + 1]; /* per open level: a comma is due before the next item */
        bool is_object[JSON_WRITER_DEPTH_MAX + 1];
        int error; /* the first misuse (-EINVAL) or nesting too deep (-E2BIG); sticky */
} JsonWriter;

void json_writer_init(JsonWriter *w, FILE *f, bool pretty);

void json_writer_begin_object(JsonWriter *w);
void json_writer_end_object(JsonWriter *w);
void json_writer_begin_array(JsonWriter *w);
void json_writer_end_array(JsonWriter *w);

/* An object member's name; its value follows with one of the calls below. */
void json_writer_key(JsonWriter *w, const char *key);

/* Quoted, '"', '\' and control characters escaped, other bytes (UTF-8) as
 * they are; NULL writes null. */
void json_writer_string(JsonWriter *w, const char *s);
void json_writer_uint(JsonWriter *w, uint64_t v);
void json_writer_int(JsonWriter *w, int64_t v);
/* The shortest decimal that reads back as v ("2.5", "100"); null for a NaN or an infinity, which JSON lacks. */
void json_writer_double(JsonWriter *w, double v);
void json_writer_bool(JsonWriter *w, bool v);
void json_writer_null(JsonWriter *w);

/* A key and its value in one call. */
void json_writer_field_string(JsonWriter *w, const char *key, const char *s);
void json_writer_field_uint(JsonWriter *w, const char *key, uint64_t v);
void json_writer_field_int(JsonWriter *w, const char *key, int64_t v);
void json_writer_field_bool(JsonWriter *w, const char *key, bool v);
void json_writer_field_null(JsonWriter *w, const char *key);

/* 0 when every document written is complete and well formed, else the
 * first error; does not look at the FILE's own errors. */
int json_writer_finish(const JsonWriter *w);
