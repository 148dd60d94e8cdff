/* SPDX-License-Identifier: MIT */
#include "field-tree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "basic/utf8.h"
#include "basic/util.h"
#include "format.h"

static Field *field_new(FieldType type) {
        Field *f = calloc(1, sizeof(Field));

        if (f)
                f->type = type;
        return f;
}

Field *field_tree_new(void) {
        return field_new(FIELD_ARRAY);
}

Field *field_tree_new_object(void) {
        return field_new(FIELD_OBJECT);
}

Field *field_tree_free(Field *root) {
        if (!root)
                return NULL;
        LIST_FOREACH_SAFE(siblings, c, n, root->children)
                field_tree_free(c);
        free(root->owned_label);
        free(root->owned_string);
        free(root);
        return NULL;
}

static Field *root_of(Field *f) {
        while (f->parent)
                f = f->parent;
        return f;
}

int field_tree_check(const Field *root) {
        return root && !root->failed ? 0 : -ENOMEM;
}

static Field *add(Field *parent, FieldType type, const char *key) {
        Field *f;

        if (!parent)
                return NULL;
        f = field_new(type);
        if (!f) {
                root_of(parent)->failed = true;
                return NULL;
        }
        f->key = key;
        f->parent = parent;
        LIST_APPEND(siblings, parent->children, parent->children_tail, f);
        return f;
}

Field *field_object(Field *parent, const char *key) {
        return add(parent, FIELD_OBJECT, key);
}

Field *field_array(Field *parent, const char *key) {
        return add(parent, FIELD_ARRAY, key);
}

Field *field_string(Field *parent, const char *key, const char *value) {
        Field *f = add(parent, FIELD_STRING, key);

        if (f)
                f->string = value;
        return f;
}

Field *field_string_copy(Field *parent, const char *key, const char *value) {
        Field *f = add(parent, FIELD_STRING, key);

        if (!f || !value)
                return f;
        f->owned_string = strdup(value);
        if (!f->owned_string)
                root_of(f)->failed = true;
        f->string = f->owned_string;
        return f;
}

/* A leaf of a scalar type: its tag and the member of Field that holds it. */
#define DEFINE_FIELD_SCALAR(name, type, tag, member)                                                                   \
        Field *field_##name(Field *parent, const char *key, type value) {                                              \
                Field *f = add(parent, tag, key);                                                                      \
                                                                                                                       \
                if (f)                                                                                                 \
                        f->member = value;                                                                             \
                return f;                                                                                              \
        }

DEFINE_FIELD_SCALAR(uint, uint64_t, FIELD_UINT, u)
DEFINE_FIELD_SCALAR(int, int64_t, FIELD_INT, i)
DEFINE_FIELD_SCALAR(double, double, FIELD_DOUBLE, d)
DEFINE_FIELD_SCALAR(bool, bool, FIELD_BOOL, b)

Field *field_null(Field *parent, const char *key) {
        return add(parent, FIELD_NULL, key);
}

Field *field_label(Field *f, const char *label) {
        if (f)
                f->label = label;
        return f;
}

Field *field_labelf(Field *f, const char *fmt, ...) {
        va_list ap;
        int r;

        if (!f)
                return NULL;
        free(f->owned_label);
        va_start(ap, fmt);
        r = vasprintf(&f->owned_label, fmt, ap);
        va_end(ap);
        if (r < 0) {
                f->owned_label = NULL;
                root_of(f)->failed = true;
        }
        f->label = f->owned_label;
        return f;
}

Field *field_affix(Field *f, const char *before, const char *after) {
        if (f) {
                f->before = before;
                f->after = after;
        }
        return f;
}

Field *field_empty(Field *f, const char *empty) {
        if (f)
                f->empty = empty;
        return f;
}

Field *field_color(Field *f, const char *color) {
        if (f)
                f->color = color;
        return f;
}

Field *field_flags(Field *f, FieldFlags flags) {
        if (f)
                f->flags |= flags;
        return f;
}

/* ---- JSON ---- */

static void json_value(const Field *n, JsonWriter *w) {
        switch (n->type) {
        case FIELD_STRING:
                json_writer_string(w, n->string);
                break;
        case FIELD_UINT:
                json_writer_uint(w, n->u);
                break;
        case FIELD_INT:
                json_writer_int(w, n->i);
                break;
        case FIELD_DOUBLE:
                json_writer_double(w, n->d);
                break;
        case FIELD_BOOL:
                json_writer_bool(w, n->b);
                break;
        case FIELD_NULL:
                json_writer_null(w);
                break;
        case FIELD_OBJECT:
        case FIELD_ARRAY:
                if (n->type == FIELD_OBJECT)
                        json_writer_begin_object(w);
                else
                        json_writer_begin_array(w);
                for (const Field *c = n->children; c; c = c->siblings_next) {
                        if (c->flags & FIELD_TEXT_ONLY)
                                continue;
                        if (n->type == FIELD_OBJECT)
                                json_writer_key(w, c->key);
                        json_value(c, w);
                }
                if (n->type == FIELD_OBJECT)
                        json_writer_end_object(w);
                else
                        json_writer_end_array(w);
                break;
        }
}

void field_tree_json(const Field *root, JsonWriter *w) {
        json_value(root, w);
}

/* ---- text ---- */

typedef struct TextContext {
        FILE *f;
        unsigned label_width;
        bool color;
} TextContext;

static bool text_shown(const Field *n) {
        if (n->flags & FIELD_JSON_ONLY)
                return false;
        if (n->empty)
                return true;
        switch (n->type) {
        case FIELD_STRING:
                return n->string && *n->string;
        case FIELD_NULL:
                return false;
        case FIELD_OBJECT:
        case FIELD_ARRAY:
                for (const Field *c = n->children; c; c = c->siblings_next)
                        if (text_shown(c))
                                return true;
                return false;
        default:
                return true;
        }
}

static void text_colored(const TextContext *t, const char *s, const char *color) {
        if (t->color && color)
                fprintf(t->f, "%s%s%s", color, s, ANSI_NORMAL);
        else
                fputs(s, t->f);
}

/* The longest text of a scalar in a buffer: a timestamp. */
#define SCALAR_TEXT_MAX TIMESTAMP_MAX

/* A scalar's text: its string, its empty text, or its number written in
 * buf; NULL for a container. */
static const char *scalar_text(const Field *n, char buf[static SCALAR_TEXT_MAX]) {
        switch (n->type) {
        case FIELD_STRING:
                return n->string && *n->string ? n->string : n->empty;
        case FIELD_NULL:
                return n->empty;
        case FIELD_UINT:
                if (n->flags & FIELD_TEXT_HEX32)
                        snprintf(buf, SCALAR_TEXT_MAX, "%08" PRIx32, (uint32_t) n->u);
                else if (n->flags & FIELD_TEXT_TIME)
                        format_timestamp(n->u, buf);
                else
                        snprintf(buf, SCALAR_TEXT_MAX, "%" PRIu64, n->u);
                return buf;
        case FIELD_INT:
                snprintf(buf, SCALAR_TEXT_MAX, "%" PRIi64, n->i);
                return buf;
        case FIELD_DOUBLE:
                snprintf(buf, SCALAR_TEXT_MAX, "%g", n->d);
                return buf;
        case FIELD_BOOL:
                return n->b ? "yes" : "no";
        default:
                return NULL;
        }
}

static void text_inline(const TextContext *t, const Field *n) {
        char buf[SCALAR_TEXT_MAX];
        bool first = true;

        if (!text_shown(n))
                return;
        fputs(strempty(n->before), t->f);
        switch (n->type) {
        case FIELD_STRING:
        case FIELD_NULL: /* the words in colour; numbers as they are */
                text_colored(t, scalar_text(n, buf), n->color);
                break;
        case FIELD_OBJECT:
        case FIELD_ARRAY:
                for (const Field *c = n->children; c; c = c->siblings_next) {
                        if (!text_shown(c))
                                continue;
                        if (c->flags & FIELD_TEXT_LINE)
                                fprintf(t->f, "\n%*s", (int) t->label_width + 2, "");
                        else if (!first && (n->flags & FIELD_TEXT_JOIN))
                                fputs(", ", t->f);
                        first = false;
                        text_inline(t, c);
                }
                break;
        default:
                fputs(scalar_text(n, buf), t->f);
                break;
        }
        fputs(strempty(n->after), t->f);
}

static void text_block(const TextContext *t, const Field *n) {
        for (const Field *c = n->children; c; c = c->siblings_next) {
                if (c->flags & FIELD_JSON_ONLY)
                        continue;
                if (!c->label) {
                        if (c->type == FIELD_OBJECT || c->type == FIELD_ARRAY)
                                text_block(t, c);
                        continue;
                }
                if (!text_shown(c))
                        continue;
                if (*c->label)
                        fprintf(t->f, "%*s: ", (int) t->label_width, c->label);
                else
                        fprintf(t->f, "%*s", (int) t->label_width + 2, "");
                text_inline(t, c);
                fputc('\n', t->f);
        }
}

void field_tree_text(const Field *root, FILE *f, unsigned label_width, const char *bullet, bool color) {
        TextContext t = { .f = f, .label_width = label_width, .color = color };

        for (const Field *e = root->children; e; e = e->siblings_next) {
                if (e != root->children)
                        fputc('\n', f);
                text_colored(&t, bullet, e->color);
                fprintf(f, " %s\n", strempty(e->label));
                text_block(&t, e);
        }
}

void field_tree_line(const Field *root, FILE *f, bool color) {
        TextContext t = { .f = f, .color = color };

        text_inline(&t, root);
}

/* ---- tables ---- */

Table *table_new_columns(size_t n_columns, const TableColumn *columns) {
        Table *t;

        if (n_columns == 0 || n_columns > TABLE_COLUMNS_MAX) {
                errno = EINVAL;
                return NULL;
        }
        t = calloc(1, sizeof(Table));
        if (!t)
                return NULL;
        t->n_columns = n_columns;
        memcpy(t->columns, columns, n_columns * sizeof(TableColumn));
        t->rows = field_tree_new();
        if (!t->rows)
                return mfree(t);
        return t;
}

Table *table_new(size_t n_columns, const char *const *headers) {
        TableColumn columns[TABLE_COLUMNS_MAX] = {};

        for (size_t i = 0; i < n_columns && i < TABLE_COLUMNS_MAX; i++)
                columns[i].header = headers[i];
        return table_new_columns(n_columns, columns);
}

Table *table_free(Table *t) {
        if (!t)
                return NULL;
        field_tree_free(t->rows);
        free(t);
        return NULL;
}

/* The column of the next cell, its row begun when it is the first. */
static const TableColumn *next_column(Table *t) {
        if (!t->row || t->n_filled == t->n_columns) {
                t->row = field_object(t->rows, NULL);
                t->n_filled = 0;
                t->n_rows++;
        }
        return &t->columns[t->n_filled++];
}

/* A cell as its column has it: its key, not in the JSON without one, "-" for nothing in the text. */
static int cell_done(const Table *t, const TableColumn *c, Field *cell, const char *color) {
        field_color(field_empty(field_flags(cell, c->flags | (c->key ? 0 : FIELD_TEXT_ONLY)), "-"), color);
        return field_tree_check(t->rows);
}

int table_add(Table *t, const char *text, const char *color) {
        const TableColumn *c = next_column(t);

        return cell_done(t, c, field_string_copy(t->row, c->key, text), color);
}

int table_add_uint(Table *t, uint64_t value, const char *color) {
        const TableColumn *c = next_column(t);

        return cell_done(t, c, field_uint(t->row, c->key, value), color);
}

int table_add_double(Table *t, double value, const char *color) {
        const TableColumn *c = next_column(t);

        return cell_done(t, c, field_double(t->row, c->key, value), color);
}

void table_hide_column(Table *t, size_t column) {
        if (column < t->n_columns)
                t->columns[column].flags |= FIELD_JSON_ONLY;
}

size_t table_rows(const Table *t) {
        return t->n_rows;
}

static bool column_in_text(const Table *t, size_t c) {
        return !(t->columns[c].flags & FIELD_JSON_ONLY);
}

/* What a cell (or a header) shows: "-" for nothing. */
static const char *cell_text(const Field *cell, char buf[static SCALAR_TEXT_MAX]) {
        const char *s = scalar_text(cell, buf);

        return s && *s ? s : "-";
}

static const char *header_text(const TableColumn *c) {
        return c->header && *c->header ? c->header : "-";
}

/* One cell and the blanks up to the next column; the header underlined across them, as networkctl's. */
static void print_cell(FILE *f, const char *text, const char *color, size_t width, bool is_last, bool is_header,
                       bool use_color) {
        int pad = (int) (width - utf8_width(text) + 1);

        if (use_color && color)
                fputs(color, f);
        fputs(text, f);
        if (!is_last && is_header && use_color)
                fprintf(f, "%*s", pad, "");
        if (use_color && color)
                fputs(ANSI_NORMAL, f);
        if (is_last)
                fputc('\n', f);
        else if (!(is_header && use_color))
                fprintf(f, "%*s", pad, "");
}

void table_print(const Table *t, FILE *f, bool header, bool use_color) {
        size_t widths[TABLE_COLUMNS_MAX] = {}, last = 0, c;
        char buf[SCALAR_TEXT_MAX];

        for (c = 0; c < t->n_columns; c++) {
                if (column_in_text(t, c))
                        last = c;
                if (header)
                        widths[c] = utf8_width(header_text(&t->columns[c]));
        }
        for (const Field *row = t->rows->children; row; row = row->siblings_next) {
                c = 0;
                for (const Field *cell = row->children; cell && c < t->n_columns; cell = cell->siblings_next, c++)
                        if (utf8_width(cell_text(cell, buf)) > widths[c])
                                widths[c] = utf8_width(cell_text(cell, buf));
        }

        for (c = 0; header && c < t->n_columns; c++)
                if (column_in_text(t, c))
                        print_cell(f, header_text(&t->columns[c]), ANSI_UNDERLINE, widths[c], c == last, true,
                                   use_color);
        for (const Field *row = t->rows->children; row; row = row->siblings_next) {
                c = 0;
                for (const Field *cell = row->children; cell && c < t->n_columns; cell = cell->siblings_next, c++)
                        if (column_in_text(t, c))
                                print_cell(f, cell_text(cell, buf), cell->color, widths[c], c == last, false,
                                           use_color);
        }
}

void table_json(const Table *t, JsonWriter *w) {
        field_tree_json(t->rows, w);
}
