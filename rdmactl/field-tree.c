/* SPDX-License-Identifier: MIT */
#include "field-tree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

Field *field_uint(Field *parent, const char *key, uint64_t value) {
        Field *f = add(parent, FIELD_UINT, key);

        if (f)
                f->u = value;
        return f;
}

Field *field_int(Field *parent, const char *key, int64_t value) {
        Field *f = add(parent, FIELD_INT, key);

        if (f)
                f->i = value;
        return f;
}

Field *field_double(Field *parent, const char *key, double value) {
        Field *f = add(parent, FIELD_DOUBLE, key);

        if (f)
                f->d = value;
        return f;
}

Field *field_bool(Field *parent, const char *key, bool value) {
        Field *f = add(parent, FIELD_BOOL, key);

        if (f)
                f->b = value;
        return f;
}

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

static void text_inline(const TextContext *t, const Field *n) {
        bool first = true;

        if (!text_shown(n))
                return;
        fputs(strempty(n->before), t->f);
        switch (n->type) {
        case FIELD_STRING:
                text_colored(t, n->string && *n->string ? n->string : n->empty, n->color);
                break;
        case FIELD_NULL:
                text_colored(t, n->empty, n->color);
                break;
        case FIELD_UINT:
                if (n->flags & FIELD_TEXT_HEX32)
                        fprintf(t->f, "%08" PRIx32, (uint32_t) n->u);
                else if (n->flags & FIELD_TEXT_TIME) {
                        char ts[TIMESTAMP_MAX];
                        fputs(format_timestamp(n->u, ts), t->f);
                } else
                        fprintf(t->f, "%" PRIu64, n->u);
                break;
        case FIELD_INT:
                fprintf(t->f, "%" PRIi64, n->i);
                break;
        case FIELD_DOUBLE:
                fprintf(t->f, "%g", n->d);
                break;
        case FIELD_BOOL:
                fputs(n->b ? "yes" : "no", t->f);
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
