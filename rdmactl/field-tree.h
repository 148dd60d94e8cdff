/* SPDX-License-Identifier: MIT */
#pragma once

/* What a command shows, built once as a tree of typed fields and then
 * rendered either as text or as JSON by walking it, so that the two can
 * not drift apart.
 *
 * JSON: an object's children are its members (by key), an array's its
 * elements; a string NULL is null. Text (as `status` prints it): the root's
 * elements are blocks, a bullet and the element's label as the heading; a
 * labelled field is a line "      Label: value" (empty and null values
 * leave the line out); the children of an unlabelled container are
 * looked at in its place. A field's value on its line is its text, its
 * children's in turn for a container, each with its affixes. A root object
 * is one line (`monitor`'s events). A Table (below) is a root array of rows,
 * its text aligned columns (`list`, `gids`, `status`' summary). */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "basic/list.h"
#include "json-writer.h"

typedef enum FieldType {
        FIELD_STRING,
        FIELD_UINT,
        FIELD_INT,
        FIELD_DOUBLE,
        FIELD_BOOL,
        FIELD_NULL,
        FIELD_OBJECT,
        FIELD_ARRAY,
} FieldType;

typedef enum FieldFlags {
        FIELD_JSON_ONLY = 1 << 0,  /* not in the text */
        FIELD_TEXT_ONLY = 1 << 1,  /* not in the JSON */
        FIELD_TEXT_LINE = 1 << 2,  /* text: starts a continuation line under the value */
        FIELD_TEXT_JOIN = 1 << 3,  /* text: an array's elements on one line, ", " between them */
        FIELD_TEXT_HEX32 = 1 << 4, /* text: a number as 8 hex digits */
        FIELD_TEXT_TIME = 1 << 5,  /* text: a number as a CLOCK_REALTIME timestamp in µs */
} FieldFlags;

typedef struct Field Field;

struct Field {
        FieldType type;
        FieldFlags flags;
        const char *key;            /* JSON member name; NULL for array elements */
        const char *label;          /* text: the line's label; "" for a line under the one before */
        const char *before, *after; /* text: around the value when it is shown */
        const char *empty;          /* text: for an empty or null value; NULL leaves it out */
        const char *color;          /* text: ANSI sequence of the value, or of the heading's bullet */
        union {
                const char *string; /* borrowed: lives as long as the tree */
                uint64_t u;
                int64_t i;
                double d;
                bool b;
        };
        char *owned_label, *owned_string; /* what label and string point to when they were made here */
        Field *parent;
        bool failed; /* root only: an allocation failed somewhere in the tree */
        LIST_FIELDS(Field, siblings);
        Field *children, *children_tail;
};

/* A root array, the list of what is shown. */
Field *field_tree_new(void);
/* A root object: one record, as a line (field_tree_line). */
Field *field_tree_new_object(void);
Field *field_tree_free(Field *root);
static inline void field_tree_freep(Field **root) {
        field_tree_free(*root);
}
/* -ENOMEM when some field could not be added. */
int field_tree_check(const Field *root);

/* Each adds a child to parent and returns it; NULL (and the root marked
 * failed) when out of memory, and nothing done for a NULL parent, so that
 * a tree is built without a check at every call. */
Field *field_object(Field *parent, const char *key);
Field *field_array(Field *parent, const char *key);
Field *field_string(Field *parent, const char *key, const char *value);
Field *field_string_copy(Field *parent, const char *key, const char *value); /* for a value that does not last */
Field *field_uint(Field *parent, const char *key, uint64_t value);
Field *field_int(Field *parent, const char *key, int64_t value);
Field *field_double(Field *parent, const char *key, double value);
Field *field_bool(Field *parent, const char *key, bool value);
Field *field_null(Field *parent, const char *key);

/* How a field shows in text; each returns f and accepts NULL. */
Field *field_label(Field *f, const char *label);
Field *field_labelf(Field *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
Field *field_affix(Field *f, const char *before, const char *after);
Field *field_empty(Field *f, const char *empty);
Field *field_color(Field *f, const char *color);
Field *field_flags(Field *f, FieldFlags flags);

/* The root's elements as JSON: one array, one document. */
void field_tree_json(const Field *root, JsonWriter *w);

/* The root as one line of text: its fields' values in turn, each with its
 * affixes (as a value on a labelled line), and no newline. */
void field_tree_line(const Field *root, FILE *f, bool color);

/* The root's elements as text blocks, a blank line between them; the
 * labels right-aligned to label_width. bullet heads each block. */
void field_tree_text(const Field *root, FILE *f, unsigned label_width, const char *bullet, bool color);

/* ---- tables ---- */

/* A table is a field tree: a root array of rows, each an object with a
 * cell per column in the columns' order, built a cell at a time. Its JSON
 * is the tree's (an array of one object per row, a member per column that
 * has a key); its text the cells in columns padded to their widest, under
 * the headers. */
#define TABLE_COLUMNS_MAX 16

typedef struct TableColumn {
        const char *header; /* text */
        const char *key;    /* JSON member; NULL: not in the JSON */
        FieldFlags flags;   /* FIELD_JSON_ONLY: not in the text */
} TableColumn;

typedef struct Table {
        size_t n_columns;
        TableColumn columns[TABLE_COLUMNS_MAX];
        Field *rows;     /* the root */
        Field *row;      /* the row being filled */
        size_t n_filled; /* its cells so far */
        size_t n_rows;
} Table;

/* A text-only table (no JSON keys). */
Table *table_new(size_t n_columns, const char *const *headers);
Table *table_new_columns(size_t n_columns, const TableColumn *columns);
Table *table_free(Table *t);
static inline void table_freep(Table **t) {
        table_free(*t);
}
/* Adds the next cell (rows fill left to right); NULL or "" shows as "-" in
 * the text. -ENOMEM, and the table is failed, when out of memory. */
int table_add(Table *t, const char *text, const char *color);
int table_add_uint(Table *t, uint64_t value, const char *color);
int table_add_double(Table *t, double value, const char *color);
/* Leaves a column out of the text from now on. */
void table_hide_column(Table *t, size_t column);
size_t table_rows(const Table *t); /* without the header */
/* No trailing blanks on any line; colours only if use_color. */
void table_print(const Table *t, FILE *f, bool header, bool use_color);
/* The rows as one JSON array of objects. */
void table_json(const Table *t, JsonWriter *w);
