/* SPDX-License-Identifier: MIT */
#include "message.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <pwd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <cmocka.h>

#include "harness.h"
#include "harness-private.h"

static int format_one(sd_bus_message *m, FILE *f, bool quote);

static int format_container(sd_bus_message *m, FILE *f, char type, const char *contents) {
        const char *open = type == 'a' ? "[" : type == 'r' ? "(" : type == 'e' ? "" : "";
        const char *close = type == 'a' ? "]" : type == 'r' ? ")" : "";
        bool first = true;
        int r;

        r = sd_bus_message_enter_container(m, type, contents);
        if (r <= 0)
                return r;
        fputs(open, f);
        while ((r = sd_bus_message_at_end(m, false)) == 0) {
                if (!first)
                        fputs(type == 'e' ? ": " : ", ", f);
                first = false;
                r = format_one(m, f, true);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        fputs(close, f);
        return sd_bus_message_exit_container(m);
}

static int format_one(sd_bus_message *m, FILE *f, bool quote) {
        const char *contents;
        char type;
        int r;

        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r <= 0)
                return r;

        switch (type) {
        case 'a':
        case 'r':
        case 'e':
        case 'v':
                if (type == 'a' && contents[0] == '{') {
                        /* A dictionary: {k: v, ...} */
                        bool first = true;
                        r = sd_bus_message_enter_container(m, 'a', contents);
                        if (r < 0)
                                return r;
                        fputc('{', f);
                        while ((r = sd_bus_message_at_end(m, false)) == 0) {
                                if (!first)
                                        fputs(", ", f);
                                first = false;
                                char entry[256];
                                size_t len = strlen(contents);

                                /* "{ss}" → "ss": the dict entry's own signature. */
                                assert_true(len >= 2 && len - 2 < sizeof(entry));
                                memcpy(entry, contents + 1, len - 2);
                                entry[len - 2] = '\0';
                                r = format_container(m, f, 'e', entry);
                                if (r < 0)
                                        return r;
                        }
                        fputc('}', f);
                        return sd_bus_message_exit_container(m);
                }
                if (type == 'v') {
                        r = sd_bus_message_enter_container(m, 'v', contents);
                        if (r < 0)
                                return r;
                        r = format_one(m, f, quote);
                        if (r < 0)
                                return r;
                        return sd_bus_message_exit_container(m);
                }
                return format_container(m, f, type, contents);
        default: {
                union {
                        uint8_t y;
                        int b;
                        int16_t n;
                        uint16_t q;
                        int32_t i;
                        uint32_t u;
                        int64_t x;
                        uint64_t t;
                        double d;
                        const char *s;
                        int h;
                } v;

                r = sd_bus_message_read_basic(m, type, &v);
                if (r < 0)
                        return r;
                switch (type) {
                case 'y':
                        fprintf(f, "%u", v.y);
                        break;
                case 'b':
                        fputs(v.b ? "true" : "false", f);
                        break;
                case 'n':
                        fprintf(f, "%d", v.n);
                        break;
                case 'q':
                        fprintf(f, "%u", v.q);
                        break;
                case 'i':
                        fprintf(f, "%d", v.i);
                        break;
                case 'u':
                        fprintf(f, "%u", v.u);
                        break;
                case 'x':
                        fprintf(f, "%lld", (long long) v.x);
                        break;
                case 't':
                        fprintf(f, "%llu", (unsigned long long) v.t);
                        break;
                case 'd':
                        fprintf(f, "%g", v.d);
                        break;
                case 'h':
                        fprintf(f, "fd");
                        break;
                default:
                        fprintf(f, quote ? "\"%s\"" : "%s", v.s);
                        break;
                }
                return 1;
        }
        }
}

char *format_message_body(sd_bus_message *m) {
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);
        bool first = true;
        int r;

        assert_non_null(f);
        assert_true(sd_bus_message_rewind(m, true) >= 0);
        while ((r = sd_bus_message_at_end(m, true)) == 0) {
                if (!first)
                        fputc(' ', f);
                first = false;
                r = format_one(m, f, true);
                if (r < 0)
                        break;
        }
        fclose(f);
        return out;
}

char *format_next_value(sd_bus_message *m) {
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);

        assert_non_null(f);
        assert_true(format_one(m, f, false) >= 0);
        fclose(f);
        return out;
}

static void objects_add(Objects *o, const char *path, const char *interface, const char *name, char *value) {
        ObjectEntry *e = reallocarray(o->entries, o->n + 1, sizeof(ObjectEntry));
        assert_non_null(e);
        o->entries = e;
        o->entries[o->n++] = (ObjectEntry){
                .path = strdup(path),
                .interface = strdup(interface),
                .name = name ? strdup(name) : NULL,
                .value = value,
        };
}

Objects *objects_from_reply(sd_bus_message *reply) {
        Objects *o = calloc(1, sizeof(Objects));
        const char *path, *interface, *name;

        assert_non_null(o);
        assert_true(sd_bus_message_rewind(reply, true) >= 0);
        assert_true(sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}") > 0);
        while (sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}") > 0) {
                assert_true(sd_bus_message_read(reply, "o", &path) > 0);
                assert_true(sd_bus_message_enter_container(reply, 'a', "{sa{sv}}") > 0);
                while (sd_bus_message_enter_container(reply, 'e', "sa{sv}") > 0) {
                        assert_true(sd_bus_message_read(reply, "s", &interface) > 0);
                        objects_add(o, path, interface, NULL, NULL);
                        assert_true(sd_bus_message_enter_container(reply, 'a', "{sv}") > 0);
                        while (sd_bus_message_enter_container(reply, 'e', "sv") > 0) {
                                assert_true(sd_bus_message_read(reply, "s", &name) > 0);
                                objects_add(o, path, interface, name, format_next_value(reply));
                                assert_true(sd_bus_message_exit_container(reply) > 0);
                        }
                        assert_true(sd_bus_message_exit_container(reply) > 0);
                        assert_true(sd_bus_message_exit_container(reply) > 0);
                }
                assert_true(sd_bus_message_exit_container(reply) > 0);
                assert_true(sd_bus_message_exit_container(reply) > 0);
        }
        assert_true(sd_bus_message_exit_container(reply) > 0);
        return o;
}

void objects_free(Objects *o) {
        for (size_t i = 0; i < o->n; i++) {
                free(o->entries[i].path);
                free(o->entries[i].interface);
                free(o->entries[i].name);
                free(o->entries[i].value);
        }
        free(o->entries);
        free(o);
}

const char *objects_get(const Objects *o, const char *path, const char *interface, const char *name) {
        for (size_t i = 0; i < o->n; i++)
                if (o->entries[i].name && strcmp(o->entries[i].path, path) == 0 &&
                    strcmp(o->entries[i].interface, interface) == 0 && strcmp(o->entries[i].name, name) == 0)
                        return o->entries[i].value;
        return NULL;
}

static int line_compare(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

char *objects_interfaces(const Objects *o) {
        char **lines = calloc(o->n + 1, sizeof(char *));
        char *out = NULL;
        size_t n = 0, size = 0;
        FILE *f;

        for (size_t i = 0; i < o->n; i++)
                if (!o->entries[i].name)
                        assert_true(asprintf(&lines[n++], "%s %s", o->entries[i].path, o->entries[i].interface) > 0);
        qsort(lines, n, sizeof(char *), line_compare);
        f = open_memstream(&out, &size);
        for (size_t i = 0; i < n; i++) {
                fprintf(f, "%s\n", lines[i]);
                free(lines[i]);
        }
        fclose(f);
        free(lines);
        return out;
}

static size_t align_to(size_t offset, size_t a) {
        return (offset + a - 1) / a * a;
}

static size_t type_alignment(char t) {
        switch (t) {
        case 'y':
        case 'g':
        case 'v':
                return 1;
        case 'n':
        case 'q':
                return 2;
        case 'x':
        case 't':
        case 'd':
        case '(':
        case 'r':
        case '{':
        case 'e':
                return 8;
        default:
                return 4; /* b i u h s o a */
        }
}

/* The marshalled size of the rest of the current container of m, starting
 * at offset: what the D-Bus wire format takes for it (sd-bus gives no size). */
static size_t walk_wire_size(sd_bus_message *m, size_t offset) {
        const char *contents;
        char type;

        while (sd_bus_message_peek_type(m, &type, &contents) > 0) {
                if (type == 'a' || type == 'r' || type == 'e' || type == 'v') {
                        if (type == 'a') {
                                offset = align_to(offset, 4) + 4;
                                offset = align_to(offset, type_alignment(contents[0]));
                        } else if (type == 'v')
                                offset += 1 + strlen(contents) + 1;
                        else
                                offset = align_to(offset, 8);
                        assert_true(sd_bus_message_enter_container(m, type, contents) > 0);
                        offset = walk_wire_size(m, offset);
                        assert_true(sd_bus_message_exit_container(m) > 0);
                        continue;
                }
                if (type == 's' || type == 'o' || type == 'g') {
                        const char *v;
                        assert_true(sd_bus_message_read_basic(m, type, &v) > 0);
                        offset = type == 'g' ? offset + 1 + strlen(v) + 1 : align_to(offset, 4) + 4 + strlen(v) + 1;
                        continue;
                }
                uint64_t scratch;
                assert_true(sd_bus_message_read_basic(m, type, &scratch) > 0);
                offset = align_to(offset, type_alignment(type)) + (type == 'y'                 ? 1
                                                                   : type_alignment(type) == 2 ? 2
                                                                                               : type_alignment(type));
        }
        return offset;
}

size_t message_body_size(sd_bus_message *m) {
        assert_true(sd_bus_message_rewind(m, true) >= 0);
        return walk_wire_size(m, 0);
}

char *signal_changed_names(const Signal *s) {
        char *out = calloc(1, strlen(s->body) + 1);
        const char *p = strchr(s->body, '{');

        assert_non_null(out);
        /* Body: "iface" {"Name": value, "Name2": value} [] — names are the quoted keys. */
        while (p && (p = strstr(p, "\"")) && p < strrchr(s->body, '}')) {
                const char *end = strchr(p + 1, '"');
                if (!end)
                        break;
                if (end[1] == ':') {
                        if (*out)
                                strcat(out, " ");
                        strncat(out, p + 1, (size_t) (end - p - 1));
                        /* Skip the value: up to the next top-level ", \"" or the closing brace. */
                        int depth = 0;
                        const char *q = end + 2;
                        for (; *q; q++) {
                                if (*q == '"') {
                                        q = strchr(q + 1, '"');
                                        if (!q)
                                                break;
                                        continue;
                                }
                                if (*q == '[' || *q == '{' || *q == '(')
                                        depth++;
                                if (*q == ']' || *q == '}' || *q == ')') {
                                        if (depth == 0)
                                                break;
                                        depth--;
                                }
                                if (*q == ',' && depth == 0)
                                        break;
                        }
                        p = q;
                        continue;
                }
                p = end + 1;
        }
        return out;
}
