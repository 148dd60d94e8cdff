/* SPDX-License-Identifier: MIT */
#include "client.h"

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

int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Harness *h = userdata;
        Signal *s;

        s = reallocarray(h->signals, h->n_signals + 1, sizeof(Signal));
        assert_non_null(s);
        h->signals = s;
        s = &h->signals[h->n_signals++];
        s->path = strdup(sd_bus_message_get_path(m) ?: "");
        s->interface = strdup(sd_bus_message_get_interface(m) ?: "");
        s->member = strdup(sd_bus_message_get_member(m) ?: "");
        s->body = format_message_body(m);
        s->usec = now_usec();
        return 0;
}

char *harness_call_errorv(Harness *h, const char *path, const char *interface, const char *member, const char *types,
                          va_list ap) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *m = NULL;
        char *name = NULL;
        int r;

        assert_true(sd_bus_message_new_method_call(h->bus, &m, RDMAD_BUS_NAME, path, interface, member) >= 0);
        assert_true(sd_bus_message_appendv(m, types, ap) >= 0);
        r = sd_bus_call(h->bus, m, 0, &error, NULL);
        sd_bus_message_unref(m);
        if (r < 0) {
                assert_non_null(error.name);
                name = strdup(error.name);
        }
        sd_bus_error_free(&error);
        return name;
}

char *harness_call_error(Harness *h, const char *path, const char *interface, const char *member, const char *types,
                         ...) {
        va_list ap;
        char *name;

        va_start(ap, types);
        name = harness_call_errorv(h, path, interface, member, types, ap);
        va_end(ap);
        return name;
}

typedef struct SignalQuery {
        const char *path;
        const char *member;
        size_t count;
} SignalQuery;

static bool signals_reached(Harness *h, const void *data) {
        const SignalQuery *q = data;
        return harness_count_signals(h, q->path, q->member) >= q->count;
}

void harness_wait_signals(Harness *h, const char *path, const char *member, size_t count) {
        SignalQuery q = { path, member, count };

        if (!harness_wait(h, signals_reached, &q, 20000))
                fail_msg("expected %zu %s on %s, got %zu", count, member, path ?: "any path",
                         harness_count_signals(h, path, member));
}

char *harness_python_check(Harness *h, const char *text, const char *script) {
        char path[128], *command = NULL, *out;
        int status;

        snprintf(path, sizeof(path), "%s/python-check.json", h->tmpdir);
        assert_true(g_file_set_contents(path, text, -1, NULL));
        assert_true(asprintf(&command, "python3 -c '%s' %s", script, path) >= 0);
        out = harness_run_command(h, command, &status);
        free(command);
        if (status != 0)
                fail_msg("the JSON check failed:\n%s\non:\n%s", out, text);
        out[strcspn(out, "\n")] = '\0';
        return out;
}

int harness_on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        AsyncReply *a = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);

        assert_false(a->done); /* a method call gets exactly one reply */
        a->done = true;
        if (e) {
                a->error_name = strdup(e->name);
                a->error_message = strdup(e->message ?: "");
        } else
                a->value = format_next_value(m);
        return 0;
}

bool harness_reply_done(Harness *h, const void *data) {
        return ((const AsyncReply *) data)->done;
}

void async_reply_clear(AsyncReply *a) {
        free(a->error_name);
        free(a->error_message);
        free(a->value);
        *a = (AsyncReply){};
}

void harness_clear_signals(Harness *h) {
        for (size_t i = 0; i < h->n_signals; i++) {
                free(h->signals[i].path);
                free(h->signals[i].interface);
                free(h->signals[i].member);
                free(h->signals[i].body);
        }
        free(h->signals);
        h->signals = NULL;
        h->n_signals = 0;
}

bool harness_wait(Harness *h, bool (*pred)(Harness *h, const void *data), const void *data, int timeout_ms) {
        uint64_t deadline = now_ms() + (uint64_t) timeout_ms;

        for (;;) {
                int r;

                while ((r = sd_bus_process(h->bus, NULL)) > 0)
                        ;
                assert_true(r >= 0);
                if (pred(h, data))
                        return true;
                if (now_ms() >= deadline)
                        return false;
                (void) sd_bus_wait(h->bus, 10000);
        }
}

static bool never(Harness *h, const void *data) {
        return false;
}

void harness_settle(Harness *h, int ms) {
        (void) harness_wait(h, never, NULL, ms);
}

size_t harness_count_signals(Harness *h, const char *path, const char *member) {
        size_t n = 0;

        for (size_t i = 0; i < h->n_signals; i++)
                if ((!path || strcmp(h->signals[i].path, path) == 0) &&
                    (!member || strcmp(h->signals[i].member, member) == 0))
                        n++;
        return n;
}

const Signal *harness_find_signal(Harness *h, const char *path, const char *member) {
        for (size_t i = 0; i < h->n_signals; i++)
                if ((!path || strcmp(h->signals[i].path, path) == 0) &&
                    (!member || strcmp(h->signals[i].member, member) == 0))
                        return &h->signals[i];
        return NULL;
}

char *harness_run_command(Harness *h, const char *command, int *ret_status) {
        char *cmd = NULL, *out = NULL;
        FILE *p;
        int status;

        assert_true(asprintf(&cmd, "env -u LD_PRELOAD DBUS_SYSTEM_BUS_ADDRESS='%s' %s 2>&1", h->address, command) > 0);
        p = popen(cmd, "re");
        assert_non_null(p);
        out = read_all(p);
        status = pclose(p);
        free(cmd);
        *ret_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
        return out;
}

Objects *get_managed_objects(Harness *h) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        Objects *o;
        int r;

        r = sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                               "GetManagedObjects", &error, &reply, "");
        if (r < 0)
                fail_msg("GetManagedObjects: %s", error.message);
        o = objects_from_reply(reply);
        sd_bus_message_unref(reply);
        return o;
}

typedef struct PropertyWant {
        const char *path, *interface, *name, *value;
} PropertyWant;

static bool property_is(Harness *h, const void *data) {
        const PropertyWant *w = data;
        char *v = harness_get_property(h, w->path, w->interface, w->name, NULL);
        bool ok = v && strcmp(v, w->value) == 0;

        free(v);
        return ok;
}

void harness_wait_property(Harness *h, const char *path, const char *interface, const char *name, const char *value,
                           int timeout_ms) {
        PropertyWant w = { path, interface, name, value };

        if (!harness_wait(h, property_is, &w, timeout_ms)) {
                char *v = harness_get_property(h, path, interface, name, NULL);

                fail_msg("%s %s.%s: %s after %d ms, not %s", path, interface, name, v ?: "(error)", timeout_ms, value);
        }
}

char *harness_get_property(Harness *h, const char *path, const char *interface, const char *name,
                           char **ret_error_name) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        char *s;

        if (sd_bus_call_method(h->bus, RDMAD_BUS_NAME, path, "org.freedesktop.DBus.Properties", "Get", &error, &reply,
                               "ss", interface, name) < 0) {
                if (ret_error_name)
                        *ret_error_name = strdup(error.name);
                sd_bus_error_free(&error);
                return NULL;
        }
        s = format_next_value(reply);
        sd_bus_message_unref(reply);
        return s;
}

void harness_assert_property(Harness *h, const char *path, const char *interface, const char *name,
                             const char *expected) {
        char *v = harness_get_property(h, path, interface, name, NULL);

        if (!v)
                fail_msg("Get %s %s.%s failed", path, interface, name);
        assert_string_equal(v, expected);
        free(v);
}

int replies_on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Replies *r = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        unsigned i;

        r->n++;
        if (!e) {
                r->ok++;
                return 0;
        }
        for (i = 0; i < r->n_names; i++)
                if (strcmp(r->names[i], e->name) == 0)
                        break;
        if (i == r->n_names && i < 8)
                r->names[r->n_names++] = strdup(e->name);
        if (i < 8)
                r->counts[i]++;
        if (!r->busy_message && strcmp(e->name, RDMAD_ERROR_BUSY) == 0)
                r->busy_message = strdup(e->message ?: "");
        return 0;
}

void replies_print(FILE *f, const Replies *r) {
        fprintf(f, "ok=%u", r->ok);
        for (unsigned i = 0; i < r->n_names; i++)
                fprintf(f, " %s=%u", r->names[i], r->counts[i]);
        fprintf(f, "\n");
}

/* The child is checked for leaks too (valgrind follows the fork). */
void replies_clear(Replies *r) {
        for (unsigned i = 0; i < r->n_names; i++)
                free(r->names[i]);
        free(r->busy_message);
        *r = (Replies){};
}

void harness_assert_call_error(Harness *h, const char *expected, const char *path, const char *interface,
                               const char *member, const char *types, ...) {
        va_list ap;
        char *name;

        va_start(ap, types);
        name = harness_call_errorv(h, path, interface, member, types, ap);
        va_end(ap);
        if (!name || strcmp(name, expected) != 0)
                fail_msg("%s.%s on %s: %s; expected %s", interface, member, path, name ?: "success", expected);
        free(name);
}

void harness_assert_daemon_answers(Harness *h) {
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, "org.freedesktop.DBus.Peer", "Ping",
                                       NULL, NULL, "") >= 0);
        assert_int_equal(waitpid(h->daemon_pid, NULL, WNOHANG), 0);
}

char *managed_objects_dump(sd_bus *bus, char **ret_error) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        char *text = NULL;

        if (sd_bus_call_method(bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                               "GetManagedObjects", &error, &reply, "") >= 0) {
                assert_string_equal(sd_bus_message_get_signature(reply, true), "a{oa{sa{sv}}}");
                text = format_message_body(reply);
        } else if (ret_error)
                *ret_error = strdup(error.name ?: "(local)");
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        return text;
}
