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

static bool signals_reached(Harness *h, const void *data, FILE *seen) {
        const SignalQuery *q = data;
        size_t n = harness_count_signals(h, q->path, q->member);
        const Signal *last = NULL;

        for (size_t i = 0; i < h->n_signals; i++)
                if ((!q->path || strcmp(h->signals[i].path, q->path) == 0) &&
                    (!q->member || strcmp(h->signals[i].member, q->member) == 0))
                        last = &h->signals[i];
        fprintf(seen, "%zu of them", n);
        if (last)
                fprintf(seen, ", the last on %s: %s", last->path, last->body);
        fprintf(seen, "; %zu signals in all", h->n_signals);
        return n >= q->count;
}

void harness_wait_signals(Harness *h, const char *path, const char *member, size_t count) {
        SignalQuery q = { path, member, count };

        harness_wait_for(h, signals_reached, &q, 0, "%zu %s on %s", count, member ?: "signals", path ?: "any path");
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

bool harness_reply_done(Harness *h, const void *data, FILE *seen) {
        const AsyncReply *a = data;

        if (!a->done)
                fprintf(seen, "no reply");
        else if (a->error_name)
                fprintf(seen, "%s: %s", a->error_name, a->error_message);
        else
                fprintf(seen, "a reply: %s", a->value ?: "(nothing)");
        return a->done;
}

void harness_wait_reply(Harness *h, AsyncReply *a, int timeout_ms, const char *what) {
        harness_wait_for(h, harness_reply_done, a, timeout_ms, "the reply to %s", what);
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

/* The deadline passes or check holds; *ret_seen: what the last check printed. */
static bool run_until(Harness *h, HarnessCheck check, const void *data, uint64_t deadline_ms, char **ret_seen) {
        for (;;) {
                char *seen = NULL;
                size_t size = 0;
                FILE *f;
                bool ok;
                int r;

                while ((r = sd_bus_process(h->bus, NULL)) > 0)
                        ;
                assert_true(r >= 0);
                f = open_memstream(&seen, &size);
                assert_non_null(f);
                ok = check(h, data, f);
                assert_int_equal(fclose(f), 0);
                if (ok || now_ms() >= deadline_ms) {
                        *ret_seen = seen;
                        return ok;
                }
                free(seen);
                (void) sd_bus_wait(h->bus, 10000);
        }
}

static void wait_forv(Harness *h, HarnessCheck check, const void *data, uint64_t bound_ms, const char *what_fmt,
                      va_list ap) __attribute__((format(printf, 5, 0)));
static void wait_forv(Harness *h, HarnessCheck check, const void *data, uint64_t bound_ms, const char *what_fmt,
                      va_list ap) {
        uint64_t start = now_ms();
        char *seen = NULL, *what = NULL;

        if (run_until(h, check, data, start + bound_ms, &seen)) {
                free(seen);
                return;
        }
        assert_true(vasprintf(&what, what_fmt, ap) >= 0);
        fail_msg("waited %.1f s for %s; last seen: %s", (double) (now_ms() - start) / 1000, what, seen);
}

static uint64_t scaled_ms(int timeout_ms) {
        return harness_time_bound((uint64_t) (timeout_ms > 0 ? timeout_ms : HARNESS_WAIT_MS) * 1000) / 1000;
}

void harness_wait_for(Harness *h, HarnessCheck check, const void *data, int timeout_ms, const char *what_fmt, ...) {
        va_list ap;

        va_start(ap, what_fmt);
        wait_forv(h, check, data, scaled_ms(timeout_ms), what_fmt, ap);
        va_end(ap);
}

void harness_wait_for_bound(Harness *h, HarnessCheck check, const void *data, uint64_t bound_ms, const char *what_fmt,
                            ...) {
        va_list ap;

        va_start(ap, what_fmt);
        wait_forv(h, check, data, bound_ms, what_fmt, ap);
        va_end(ap);
}

void harness_assert_never(Harness *h, HarnessCheck check, const void *data, int ms, const char *what_fmt, ...) {
        uint64_t start = now_ms();
        char *seen = NULL, *what = NULL;
        va_list ap;

        if (!run_until(h, check, data, start + (uint64_t) (ms > 0 ? ms : 0), &seen)) {
                free(seen);
                return;
        }
        va_start(ap, what_fmt);
        assert_true(vasprintf(&what, what_fmt, ap) >= 0);
        va_end(ap);
        fail_msg("within %.1f s: %s; seen: %s", (double) (now_ms() - start) / 1000, what, seen);
}

void harness_ping(Harness *h) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        if (sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, "org.freedesktop.DBus.Peer", "Ping", &error,
                               NULL, "") < 0)
                fail_msg("Peer.Ping to rdmad: %s", error.message ?: error.name);
        while ((r = sd_bus_process(h->bus, NULL)) > 0)
                ;
        assert_true(r >= 0);
}

void harness_bus_barrier(sd_bus *bus) {
        sd_bus_error error = SD_BUS_ERROR_NULL;

        if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                               &error, NULL, "") < 0)
                fail_msg("a round trip to the bus: %s", error.message ?: error.name);
}

static bool never(Harness *h, const void *data, FILE *seen) {
        return false;
}

void harness_observe(Harness *h, int ms, const char *why) {
        char *seen = NULL;

        (void) why; /* the caller's reason, spelled where it waits */
        (void) run_until(h, never, NULL, now_ms() + (uint64_t) (ms > 0 ? ms : 0), &seen);
        free(seen);
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

static bool property_is(Harness *h, const void *data, FILE *seen) {
        const PropertyWant *w = data;
        char *error = NULL;
        char *v = harness_get_property(h, w->path, w->interface, w->name, &error);
        bool ok = v && strcmp(v, w->value) == 0;

        fprintf(seen, "%s", v ?: error ?: "(no value)");
        free(v);
        free(error);
        return ok;
}

void harness_wait_property(Harness *h, const char *path, const char *interface, const char *name, const char *value,
                           int timeout_ms) {
        PropertyWant w = { path, interface, name, value };

        harness_wait_for(h, property_is, &w, timeout_ms, "%s %s.%s to read %s", path, interface, name, value);
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
