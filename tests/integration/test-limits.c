/* SPDX-License-Identifier: MIT */
/* What a caller can make rdmad hold is bounded, per user, in time, and for
 * as long as the caller is on the bus: an unprivileged flood of WaitForState
 * or SetNumVfs calls never makes root's calls fail; root needs no polkit; a
 * polkit answer for a call that can no longer proceed leaves nothing behind;
 * SIGTERM answers every held call. Also the smaller bounds: rtnetlink
 * messages only from the kernel, netdevs re-read when rtnetlink overflows,
 * Attributes only with what every user may read.
 *
 * The daemon logs at debug level how many calls it holds whenever that
 * changes ("WaitForState calls held: N", "Authorization checks held: N"):
 * the tests read those lines, as an operator would. */
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#define PF_SYS       "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0"
#define MLX5_IB_SYS  PF_SYS "/infiniband/mlx5_0"
#define MLX5_NET_SYS PF_SYS "/net/ens1f0np0"
#define SRIOV        "/org/rdmad1/device/mlx5_5f0/sriov"
#define MLX5_NETDEV  "/org/rdmad1/device/mlx5_5f0/netdev/ens1f0np0"
#define MLX4_SYS     "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0"
#define MLX4_PORT1   "/org/rdmad1/device/mlx4_5f0/port/1"
#define MLX4_PORT2   "/org/rdmad1/device/mlx4_5f0/port/2"

static bool have_polkit = true, private_network;

static const char *const debug_args[] = { "--log-level=debug", NULL };
static const char *const debug_no_poll_args[] = { "--log-level=debug", "--poll-interval=0", NULL };

/* Under valgrind everything is ~30 times slower: the floods are scaled down. */
static unsigned scaled(unsigned n) {
        return harness_daemon_wrapped() ? n / 10 : n;
}

static Harness *start_logged(const char *const *fixtures, const char *const *args) {
        Harness *h;

        harness_capture_daemon_log = true;
        h = harness_start(fixtures, args);
        harness_capture_daemon_log = false;
        return h;
}

static int limits_setup(void **state) {
        Harness *h = start_logged(HARNESS_FIXTURES("mlx5-roce-sriov", "mlx4-vpi"), debug_args);

        *state = h;
        if (have_polkit)
                have_polkit = harness_start_polkit(h);
        return 0;
}

/* For the tests with a FIFO for sriov_numvfs: no poll (see test-polkit's polkit_setup()). */
static int limits_no_poll_setup(void **state) {
        Harness *h = start_logged(HARNESS_FIXTURES("mlx5-roce-sriov", "mlx4-vpi"), debug_no_poll_args);

        *state = h;
        if (have_polkit)
                have_polkit = harness_start_polkit(h);
        return 0;
}

/* Waits until the daemon's log contains `needle`. */
static bool log_has(Harness *h, const void *needle) {
        char *log = harness_daemon_log(h);
        bool found = log && strstr(log, needle);

        free(log);
        return found;
}

static void wait_log(Harness *h, const char *needle) {
        if (!harness_wait(h, log_has, needle, 30000))
                fail_msg("the daemon never logged \"%s\"", needle);
}

typedef struct LogTimes {
        const char *needle;
        unsigned n;
} LogTimes;

static bool log_has_times(Harness *h, const void *data) {
        const LogTimes *t = data;
        char *log = harness_daemon_log(h), *p = log;
        unsigned n = 0;

        while (p && (p = strstr(p, t->needle))) {
                n++;
                p++;
        }
        free(log);
        return n >= t->n;
}

/* Waits until the daemon has logged `needle` n times. */
static void wait_log_times(Harness *h, const char *needle, unsigned n) {
        LogTimes t = { needle, n };

        if (!harness_wait(h, log_has_times, &t, 30000))
                fail_msg("the daemon did not log \"%s\" %u times", needle, n);
}

/* The number after the last "<prefix>" in the log, or -1. */
static long last_count(Harness *h, const char *prefix) {
        char *log = harness_daemon_log(h), *p, *last = NULL;
        long n = -1;

        for (p = log; p && (p = strstr(p, prefix)); p++)
                last = p;
        if (last)
                n = strtol(last + strlen(prefix), NULL, 10);
        free(log);
        return n;
}

typedef struct CountIs {
        const char *prefix;
        long n;
} CountIs;

static bool count_is(Harness *h, const void *data) {
        const CountIs *c = data;
        return last_count(h, c->prefix) == c->n;
}

static void wait_count(Harness *h, const char *prefix, long n) {
        CountIs c = { prefix, n };

        if (!harness_wait(h, count_is, &c, 30000))
                fail_msg("\"%s\" is %ld, not %ld", prefix, last_count(h, prefix), n);
}

/* ---- a process of user nobody, on its own connection ---- */

typedef struct Nobody {
        pid_t pid;
        int report;  /* what the child tells */
        int control; /* closed by the parent: the child disconnects and exits */
} Nobody;

typedef void (*NobodyBody)(sd_bus *bus, FILE *report, int control, const void *data);

static void nobody_start(Nobody *n, NobodyBody body, const void *data) {
        struct passwd *nobody = getpwnam("nobody");
        int report[2], control[2];

        assert_non_null(nobody);
        assert_int_equal(pipe2(report, O_CLOEXEC), 0);
        assert_int_equal(pipe2(control, O_CLOEXEC), 0);
        n->pid = fork();
        assert_true(n->pid >= 0);
        if (n->pid == 0) {
                sd_bus *bus = NULL;
                FILE *f;

                close(report[0]);
                close(control[1]);
                f = fdopen(report[1], "w");
                if (!f || setgroups(0, NULL) < 0 || setresgid(nobody->pw_gid, nobody->pw_gid, nobody->pw_gid) < 0 ||
                    setresuid(nobody->pw_uid, nobody->pw_uid, nobody->pw_uid) < 0 || sd_bus_open_system(&bus) < 0)
                        _exit(2);
                setvbuf(f, NULL, _IOLBF, 0);
                body(bus, f, control[0], data);
                fclose(f);
                sd_bus_flush_close_unref(bus);
                _exit(0);
        }
        close(report[1]);
        close(control[0]);
        n->report = report[0];
        n->control = control[1];
}

/* The child's next report line (without the newline); caller frees. */
static char *nobody_read_line(Nobody *n) {
        char buf[1024];
        size_t len = 0;

        while (len < sizeof(buf) - 1) {
                ssize_t k = read(n->report, buf + len, 1);

                assert_true(k >= 0);
                if (k == 0 || buf[len] == '\n')
                        break;
                len++;
        }
        buf[len] = '\0';
        return strdup(buf);
}

/* Lets the child go: it closes its connection and exits. */
static void nobody_finish(Nobody *n) {
        int status;

        close(n->control);
        assert_int_equal(waitpid(n->pid, &status, 0), n->pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        close(n->report);
}

static void nobody_kill(Nobody *n) {
        int status;

        kill(n->pid, SIGKILL);
        assert_int_equal(waitpid(n->pid, &status, 0), n->pid);
        close(n->control);
        close(n->report);
}

/* In the child: blocks until the parent lets it go. */
static void wait_for_parent(int control) {
        char c;

        while (read(control, &c, 1) > 0)
                ;
}

/* Counts the replies of the child's asynchronous calls by error name. */
typedef struct Replies {
        unsigned n, ok;
        unsigned n_names;
        char *names[8];
        unsigned counts[8];
        char *busy_message; /* the first Busy's message */
} Replies;

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
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

/* The child is checked for leaks too (valgrind follows the fork). */
static void replies_clear(Replies *r) {
        for (unsigned i = 0; i < r->n_names; i++)
                free(r->names[i]);
        free(r->busy_message);
        *r = (Replies){};
}

static void replies_print(FILE *f, const Replies *r) {
        fprintf(f, "ok=%u", r->ok);
        for (unsigned i = 0; i < r->n_names; i++)
                fprintf(f, " %s=%u", r->names[i], r->counts[i]);
        fprintf(f, "\n");
}

static void send_wait(sd_bus *bus, const char *path, uint32_t timeout_ms, bool expect_reply, Replies *r) {
        sd_bus_message *m = NULL;

        if (sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, path, RDMAD_PORT_INTERFACE, "WaitForState") < 0 ||
            sd_bus_message_append(m, "su", "ACTIVE", timeout_ms) < 0 ||
            sd_bus_message_set_expect_reply(m, expect_reply) < 0)
                _exit(3);
        if (expect_reply ? sd_bus_call_async(bus, NULL, m, on_reply, r, 0) < 0 : sd_bus_send(bus, m, NULL) < 0)
                _exit(4);
        sd_bus_message_unref(m);
}

/* nobody: `no_reply` WaitForState calls flagged no-reply-expected, then
 * `held` calls that expect one, all for as long as possible, spread over
 * three connections (the bus lets one connection have 128 calls pending);
 * reports the first Busy message and the replies, then holds the rest
 * until the parent lets it go. */
#define WAIT_FLOOD_CONNECTIONS 3

typedef struct WaitFlood {
        unsigned no_reply, held, expect_busy;
} WaitFlood;

static void wait_flood(sd_bus *bus, FILE *report, int control, const void *data) {
        const WaitFlood *w = data;
        sd_bus *buses[WAIT_FLOOD_CONNECTIONS] = { bus };
        Replies r = {};

        for (size_t i = 1; i < WAIT_FLOOD_CONNECTIONS; i++)
                if (sd_bus_open_system(&buses[i]) < 0)
                        _exit(6);
        for (unsigned i = 0; i < w->no_reply; i++)
                send_wait(bus, MLX4_PORT2, UINT32_MAX, false, &r);
        for (unsigned i = 0; i < w->held; i++)
                send_wait(buses[i % WAIT_FLOOD_CONNECTIONS], MLX4_PORT2, UINT32_MAX, true, &r);
        while (r.n < w->expect_busy)
                for (size_t i = 0; i < WAIT_FLOOD_CONNECTIONS; i++) {
                        int k;

                        while ((k = sd_bus_process(buses[i], NULL)) > 0)
                                ;
                        if (k < 0)
                                _exit(5);
                        (void) sd_bus_wait(buses[i], 10000);
                }
        fprintf(report, "%s\n", r.busy_message ?: "");
        replies_print(report, &r);
        replies_clear(&r);
        wait_for_parent(control);
        for (size_t i = 1; i < WAIT_FLOOD_CONNECTIONS; i++)
                sd_bus_flush_close_unref(buses[i]);
}

static char *root_wait(Harness *h, const char *path, const char *state, uint32_t timeout_ms, char **ret_value) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        char *name = NULL;
        const char *s;

        if (sd_bus_call_method(h->bus, RDMAD_BUS_NAME, path, RDMAD_PORT_INTERFACE, "WaitForState", &error, &reply, "su",
                               state, timeout_ms) < 0)
                name = strdup(error.name);
        else if (ret_value && sd_bus_message_read(reply, "s", &s) >= 0)
                *ret_value = strdup(s);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        return name;
}

static void test_waiters_of_a_departed_caller_are_dropped(void **state) {
        Harness *h = *state;
        const WaitFlood flood = { .no_reply = 4200, .held = 300, .expect_busy = 300 - 256 };
        const WaitFlood again = { .no_reply = 0, .held = 257, .expect_busy = 1 };
        AsyncReply root_held = {};
        uint64_t rss_before, rss_after;
        char *line, *err, *value = NULL;
        Nobody n;

        rss_before = harness_settled_rss_kib(h);

        /* 4200 calls nobody cannot hear answered (none is held), 300 it can:
         * 256 held, the rest refused with the per-user limit named. */
        nobody_start(&n, wait_flood, &flood);
        line = nobody_read_line(&n);
        fprintf(stderr, "nobody: %s\n", line);
        assert_non_null(strstr(line, "Too many pending WaitForState calls of uid"));
        assert_non_null(strstr(line, "(at most 256 per user)."));
        free(line);
        line = nobody_read_line(&n);
        fprintf(stderr, "nobody's replies so far: %s\n", line);
        assert_string_equal(line, "ok=0 org.rdmad1.Error.Busy=44");
        free(line);
        wait_count(h, "WaitForState calls held: ", 256);

        /* Root is still answered: at once, on timeout, and later. */
        assert_null(root_wait(h, MLX4_PORT1, "ACTIVE", UINT32_MAX, &value));
        assert_string_equal(value, "ACTIVE");
        free(value);
        err = root_wait(h, MLX4_PORT2, "ACTIVE", 100, NULL);
        assert_string_equal(err, RDMAD_ERROR_TIMEOUT);
        free(err);
        assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, MLX4_PORT1, RDMAD_PORT_INTERFACE,
                                             "WaitForState", harness_on_reply, &root_held, "su", "DOWN",
                                             UINT32_MAX) >= 0);
        wait_count(h, "WaitForState calls held: ", 257);
        harness_write(h, MLX4_SYS, "ports/1/state", "1: DOWN\n"); /* the poll sees it */
        assert_true(harness_wait(h, harness_reply_done, &root_held, 20000));
        assert_null(root_held.error_name);
        assert_string_equal(root_held.value, "DOWN");
        async_reply_clear(&root_held);

        /* nobody leaves: everything it made the daemon hold goes. */
        nobody_finish(&n);
        wait_log_times(h, " dropped, ", WAIT_FLOOD_CONNECTIONS);
        assert_int_equal(last_count(h, " dropped, "), 0);

        /* A new connection of the same user has the whole allowance again. */
        nobody_start(&n, wait_flood, &again);
        line = nobody_read_line(&n);
        assert_non_null(strstr(line, "(at most 256 per user)."));
        free(line);
        line = nobody_read_line(&n);
        assert_string_equal(line, "ok=0 org.rdmad1.Error.Busy=1");
        free(line);
        nobody_finish(&n);
        wait_log_times(h, " dropped, ", 2 * WAIT_FLOOD_CONNECTIONS);
        assert_int_equal(last_count(h, " dropped, "), 0);

        rss_after = harness_settled_rss_kib(h);
        printf("waiters: daemon RSS %.1f MiB before, %.1f MiB after 4500 + 257 calls of a departed caller\n",
               rss_before / 1024.0, rss_after / 1024.0);
#ifndef SANITIZED_BUILD
        /* Under ASan or valgrind memory is theirs to manage; LSan and memcheck
         * check for leaks there instead. */
        if (!harness_daemon_wrapped() && rss_after > rss_before + rss_before / 10 + 1024)
                fail_msg("RSS %" PRIu64 " KiB after, %" PRIu64 " KiB before", rss_after, rss_before);
#endif
}

/* ---- SetNumVfs floods ---- */

typedef struct SetFlood {
        unsigned calls;
} SetFlood;

/* nobody: `calls` SetNumVfs calls, at most 64 outstanding (the bus limits
 * a connection's pending calls), counts 1..3 so that some are identical
 * and some collide; reports after 1000 replies, and when all are in. */
static void set_flood(sd_bus *bus, FILE *report, int control, const void *data) {
        const SetFlood *s = data;
        unsigned sent = 0;
        bool told = false;
        Replies r = {};

        while (r.n < s->calls) {
                while (sent < s->calls && sent - r.n < 64) {
                        if (sd_bus_call_method_async(bus, NULL, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE,
                                                     "SetNumVfs", on_reply, &r, "u", 1 + sent % 3) < 0)
                                _exit(3);
                        sent++;
                }
                if (sd_bus_process(bus, NULL) < 0)
                        _exit(5);
                (void) sd_bus_wait(bus, UINT64_MAX);
                while (sd_bus_process(bus, NULL) > 0)
                        ;
                if (!told && r.n >= 1000) {
                        fprintf(report, "started\n");
                        told = true;
                }
        }
        replies_print(report, &r);
        replies_clear(&r);
        wait_for_parent(control);
}

static char *root_set_num_vfs(Harness *h, uint32_t count) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char *name = NULL;

        if (sd_bus_call_method(h->bus, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE, "SetNumVfs", &error, NULL, "u",
                               count) < 0) {
                name = strdup(error.name);
                fprintf(stderr, "root's SetNumVfs(%u): %s: %s\n", count, error.name, error.message);
        }
        sd_bus_error_free(&error);
        return name;
}

static void root_sets_five_times(Harness *h) {
        static const uint32_t counts[] = { 2, 3, 0, 4, 1 };
        char *content, expected[16];

        for (size_t i = 0; i < 5; i++) {
                assert_null(root_set_num_vfs(h, counts[i]));
                content = harness_read(h, PF_SYS, "sriov_numvfs");
                snprintf(expected, sizeof(expected), "%u\n", counts[i]);
                assert_string_equal(content, expected);
                free(content);
        }
}

static void test_set_num_vfs_flood_leaves_root_served(void **state) {
        Harness *h = *state;
        const SetFlood flood = { .calls = scaled(20000) };
        uint64_t start = now_usec();
        char *line;
        Nobody n;

        HARNESS_REQUIRE_POLKIT(have_polkit);
        nobody_start(&n, set_flood, &flood);
        line = nobody_read_line(&n);
        assert_string_equal(line, "started");
        free(line);
        root_sets_five_times(h);

        /* Every one of nobody's calls is answered, none allowed. */
        line = nobody_read_line(&n);
        printf("flood: %u SetNumVfs calls of nobody answered in %.1f s: %s\n", flood.calls, (now_usec() - start) / 1e6,
               line);
        assert_non_null(strstr(line, "ok=0 "));
        free(line);
        nobody_finish(&n);
        wait_count(h, "Authorization checks held: ", 0);
}

static void test_set_num_vfs_flood_with_polkit_stopped_leaves_root_served(void **state) {
        Harness *h = *state;
        const SetFlood flood = { .calls = scaled(20000) };
        char *line;
        Nobody n;

        HARNESS_REQUIRE_POLKIT(have_polkit);
        assert_int_equal(kill(h->polkit_pid, SIGSTOP), 0);
        nobody_start(&n, set_flood, &flood);
        line = nobody_read_line(&n);
        assert_string_equal(line, "started");
        free(line);
        /* nobody's checks pend (polkit answers nothing), within their bounds. */
        assert_true(last_count(h, "Authorization checks held: ") <= 8);

        root_sets_five_times(h);

        /* nobody leaves with its checks still pending: they go with it. */
        nobody_kill(&n);
        wait_count(h, "Authorization checks held: ", 0);
        assert_int_equal(kill(h->polkit_pid, SIGCONT), 0);
}

/* ---- an authorization whose call can no longer proceed ---- */

/* nobody: one SetNumVfs(2), its answer reported. */
static void set_once(sd_bus *bus, FILE *report, int control, const void *data) {
        sd_bus_error error = SD_BUS_ERROR_NULL;

        if (sd_bus_call_method(bus, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE, "SetNumVfs", &error, NULL, "u", 2) <
            0)
                fprintf(report, "%s\n", error.name);
        else
                fprintf(report, "ok\n");
        sd_bus_error_free(&error);
        wait_for_parent(control);
}

static void test_racing_pair_leaves_no_query(void **state) {
        Harness *h = *state;
        AsyncReply root = {};
        char *fifo, *line;
        Nobody n;

        HARNESS_REQUIRE_POLKIT(have_polkit);

        /* nobody asks first; polkit is slow to answer. */
        assert_int_equal(kill(h->polkit_pid, SIGSTOP), 0);
        nobody_start(&n, set_once, NULL);
        wait_count(h, "Authorization checks held: ", 1);

        /* Meanwhile root (no polkit needed) starts a change on the same PF. */
        fifo = harness_fifo_numvfs(h, PF_SYS);
        assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE, "SetNumVfs",
                                             harness_on_reply, &root, "u", 4) >= 0);
        assert_true(sd_bus_flush(h->bus) >= 0);
        wait_log(h, "→ 4 VFs: started.");

        /* polkit answers; nobody's call, replayed, stops at the Busy check. */
        assert_int_equal(kill(h->polkit_pid, SIGCONT), 0);
        line = nobody_read_line(&n);
        assert_string_equal(line, RDMAD_ERROR_BUSY);
        free(line);
        wait_count(h, "Authorization checks held: ", 0);

        harness_fifo_serve_read(fifo, "1\n");
        harness_fifo_expect_writes(fifo, "0\n4\n");
        harness_fifo_serve_read(fifo, "4\n");
        assert_true(harness_wait(h, harness_reply_done, &root, 20000));
        assert_null(root.error_name);
        async_reply_clear(&root);
        nobody_finish(&n);
        free(fifo);
}

static void test_device_removed_during_authorization_leaves_no_query(void **state) {
        Harness *h = *state;
        char *line;
        Nobody n;

        HARNESS_REQUIRE_POLKIT(have_polkit);
        assert_int_equal(kill(h->polkit_pid, SIGSTOP), 0);
        nobody_start(&n, set_once, NULL);
        wait_count(h, "Authorization checks held: ", 1);

        umockdev_testbed_uevent(h->testbed, MLX5_IB_SYS, "remove");
        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved", 1);

        /* The replay finds no object: sd-bus answers it, the handler never runs. */
        assert_int_equal(kill(h->polkit_pid, SIGCONT), 0);
        line = nobody_read_line(&n);
        assert_string_equal(line, "org.freedesktop.DBus.Error.UnknownObject");
        free(line);
        wait_count(h, "Authorization checks held: ", 0);
        nobody_finish(&n);
}

/* ---- SIGTERM ---- */

typedef struct ErrorReply {
        bool done;
        char *name, *message;
} ErrorReply;

static int on_error_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        ErrorReply *r = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);

        r->done = true;
        r->name = e ? strdup(e->name) : NULL;
        r->message = e ? strdup(e->message ?: "") : NULL;
        return 0;
}

static bool both_done(Harness *h, const void *data) {
        const ErrorReply *r = data;
        return r[0].done && r[1].done;
}

/* A driver write that never returns: the fault injector's, in front of
 * umockdev's preload (a FIFO would block inside umockdev's open(), which
 * holds a lock the daemon's other threads need too). */
static int sigterm_setup(void **state) {
        setenv("RDMAD_FAULT_HANG_WRITE", "/sriov_numvfs", 1);
        harness_daemon_preload = FAULT_INJECT;
        *state = start_logged(HARNESS_FIXTURES("mlx5-roce-sriov", "mlx4-vpi"), debug_args);
        harness_daemon_preload = NULL;
        unsetenv("RDMAD_FAULT_HANG_WRITE");
        return 0;
}

static void test_sigterm_answers_held_calls_and_does_not_wait_for_a_stuck_driver(void **state) {
        Harness *h = *state;
        ErrorReply replies[2] = {};
        sd_bus_message *call = NULL;
        uint64_t start;
        /* The calls' own timeouts stay out of the way: 120 s. */
        assert_true(sd_bus_message_new_method_call(h->bus, &call, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE,
                                                   "SetNumVfs") >= 0);
        assert_true(sd_bus_message_append(call, "u", 4) >= 0);
        assert_true(sd_bus_call_async(h->bus, NULL, call, on_error_reply, &replies[0], 120 * 1000000ULL) >= 0);
        call = sd_bus_message_unref(call);
        assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, MLX4_PORT2, RDMAD_PORT_INTERFACE,
                                             "WaitForState", on_error_reply, &replies[1], "su", "ACTIVE",
                                             UINT32_MAX) >= 0);
        assert_true(sd_bus_flush(h->bus) >= 0);
        wait_log(h, "→ 4 VFs: started.");
        wait_count(h, "WaitForState calls held: ", 1);
        /* Its write of 0 (1 VF before) hangs; the daemon still answers. */
        harness_assert_property(h, SRIOV, RDMAD_SRIOV_INTERFACE, "NumVfs", "1");

        start = now_usec();
        assert_int_equal(kill(h->daemon_pid, SIGTERM), 0);
        /* The bound is 10 s (SRIOV_STOP_TIMEOUT_USEC). */
        assert_true(harness_wait(h, both_done, replies, 60000));
        printf("SIGTERM: both calls answered after %.1f s\n", (now_usec() - start) / 1e6);
        assert_string_equal(replies[0].name, RDMAD_ERROR_FAILED);
        assert_string_equal(replies[0].message, "rdmad is stopping; the VF change may still complete in the kernel.");
        assert_string_equal(replies[1].name, RDMAD_ERROR_FAILED);
        assert_string_equal(replies[1].message, "rdmad is stopping.");
        for (size_t i = 0; i < 2; i++) {
                free(replies[i].name);
                free(replies[i].message);
        }
        /* harness_teardown_clean: the daemon must have exited with 0. */
}

/* ---- rtnetlink ---- */

static int no_poll_setup(void **state) {
        *state = start_logged(HARNESS_FIXTURES("mlx5-roce-sriov"), debug_no_poll_args);
        return 0;
}

static char enobufs_trigger[128];

static int rtnl_fault_setup(void **state) {
        snprintf(enobufs_trigger, sizeof(enobufs_trigger), "/tmp/rdmad-limits-rtnl-enobufs-%d", (int) getpid());
        setenv("RDMAD_FAULT_RTNL_ENOBUFS", enobufs_trigger, 1);
        harness_daemon_preload = FAULT_INJECT;
        no_poll_setup(state);
        harness_daemon_preload = NULL;
        unsetenv("RDMAD_FAULT_RTNL_ENOBUFS");
        return 0;
}

static void test_rtnetlink_overflow_rereads_netdevs(void **state) {
        Harness *h = *state;
        char *out;
        int fd, status;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */

        /* Behind the daemon's back: the netdev went down, its MTU changed. */
        harness_write(h, MLX5_NET_SYS, "operstate", "down\n");
        harness_write(h, MLX5_NET_SYS, "mtu", "1400\n");
        harness_clear_signals(h);

        /* The next rtnetlink message is lost to ENOBUFS: all links are re-read. */
        fd = open(enobufs_trigger, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        close(fd);
        harness_give_to_daemon(enobufs_trigger); /* /tmp is sticky: only its owner removes it */
        out = harness_run_command(h, "ip link add rdmad-lim0 type veth peer name rdmad-lim1", &status);
        assert_int_equal(status, 0);
        free(out);

        wait_log(h, "rtnetlink overflowed; re-reading all netdevs and ports.");
        harness_wait_signals(h, MLX5_NETDEV, "PropertiesChanged", 1);
        harness_assert_property(h, MLX5_NETDEV, RDMAD_NETDEV_INTERFACE, "OperState", "down");
        harness_assert_property(h, MLX5_NETDEV, RDMAD_NETDEV_INTERFACE, "Mtu", "1400");
        unlink(enobufs_trigger);
}

/* Any process may send to the daemon's rtnetlink socket (root to its
 * multicast group): such a message names a netdev, but comes from a port
 * that is not the kernel's (0). */
static void send_forged_link_message(const char *ifname) {
        struct {
                struct nlmsghdr h;
                struct ifinfomsg ifi;
                struct rtattr a;
                char name[IF_NAMESIZE];
        } __attribute__((packed, aligned(NLMSG_ALIGNTO))) msg = {};
        struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
        int fd;

        msg.h.nlmsg_len = sizeof(msg);
        msg.h.nlmsg_type = RTM_NEWLINK; /* no NLM_F_REQUEST: the kernel ignores it, listeners get it */
        msg.ifi.ifi_family = AF_UNSPEC;
        msg.a.rta_type = IFLA_IFNAME;
        msg.a.rta_len = RTA_LENGTH(IF_NAMESIZE);
        strncpy(msg.name, ifname, sizeof(msg.name) - 1);

        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
        assert_true(fd >= 0);
        assert_int_equal(sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *) &to, sizeof(to)), (ssize_t) sizeof(msg));
        close(fd);
}

static void test_rtnetlink_messages_not_from_the_kernel_are_ignored(void **state) {
        Harness *h = *state;

        if (!private_network)
                skip(); /* needs root for the multicast send, and its own network namespace */

        harness_write(h, MLX5_NET_SYS, "operstate", "down\n");
        send_forged_link_message("ens1f0np0");
        wait_log(h, "Ignoring an rtnetlink message from port");
        harness_settle(h, 200);
        /* Not re-read: what it said is still published. */
        harness_assert_property(h, MLX5_NETDEV, RDMAD_NETDEV_INTERFACE, "OperState", "up");
}

/* A burst of link messages needs room: 8 MiB, which the kernel doubles. */
static void test_rtnetlink_receive_buffer_is_large(void **state) {
        Harness *h = *state;
        char needle[32], forced[32], capped[32], *out, *line, *rmem_max;
        unsigned long long max = 0;
        int status;

        if (!private_network)
                skip(); /* SO_RCVBUFFORCE needs CAP_NET_ADMIN; ss sees the test's own namespace */

        /* "rtnl:rdmad/PORT * skmem:(r0,rb...)": the first netlink socket's port is the pid. */
        snprintf(needle, sizeof(needle), "/%d ", (int) h->daemon_pid);
        out = harness_run_command(h, "ss -f netlink -a -m", &status);
        assert_int_equal(status, 0);
        line = strstr(out, needle);
        if (!line)
                fail_msg("no rtnetlink socket of pid %d in:\n%s", (int) h->daemon_pid, out);
        *strchrnul(line, '\n') = '\0';
        /* 8 MiB asked, doubled by the kernel: forced with CAP_NET_ADMIN; as the
         * unprivileged rdmad user, capped by net.core.rmem_max (also doubled). */
        rmem_max = harness_run_command(h, "cat /proc/sys/net/core/rmem_max", &status);
        assert_int_equal(status, 0);
        assert_int_equal(sscanf(rmem_max, "%llu", &max), 1);
        free(rmem_max);
        snprintf(forced, sizeof(forced), "rb%d,", 16777216);
        snprintf(capped, sizeof(capped), "rb%llu,", 2 * (max < 8388608ULL ? max : 8388608ULL));
        if (!strstr(line, forced) && !strstr(line, capped))
                fail_msg("rtnetlink buffer neither %s nor %s: %s", forced, capped, line);
        free(out);
}

/* ---- Attributes ---- */

static void prepare_private_attributes(Harness *h) {
        char *root = umockdev_testbed_get_root_dir(h->testbed), path[1024];

        harness_write(h, MLX5_IB_SYS, "root_only", "secret\n");
        harness_write(h, MLX5_IB_SYS, "group_only", "secret\n");
        harness_write(h, MLX5_IB_SYS, "for_everyone", "public\n");
        snprintf(path, sizeof(path), "%s%s/root_only", root, MLX5_IB_SYS);
        assert_int_equal(chmod(path, 0400), 0);
        snprintf(path, sizeof(path), "%s%s/group_only", root, MLX5_IB_SYS);
        assert_int_equal(chmod(path, 0440), 0);
        snprintf(path, sizeof(path), "%s%s/for_everyone", root, MLX5_IB_SYS);
        assert_int_equal(chmod(path, 0444), 0);
        g_free(root);
}

static int attributes_setup(void **state) {
        harness_prepare = prepare_private_attributes;
        *state = harness_start(HARNESS_FIXTURES("mlx5-roce-sriov"), NULL);
        harness_prepare = NULL;
        return 0;
}

static void test_attributes_publish_only_what_every_user_may_read(void **state) {
        Harness *h = *state;
        char *attrs =
                harness_get_property(h, "/org/rdmad1/device/mlx5_5f0", RDMAD_DEVICE_INTERFACE, "Attributes", NULL);

        assert_non_null(attrs);
        assert_non_null(strstr(attrs, "\"for_everyone\": \"public\""));
        assert_null(strstr(attrs, "root_only"));
        assert_null(strstr(attrs, "group_only"));
        assert_null(strstr(attrs, "secret"));
        free(attrs);
}

int main(void) {
        if (getenv("TEST_LIMITS_FILTER"))
                cmocka_set_test_filter(getenv("TEST_LIMITS_FILTER"));
        private_network = harness_private_network();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_waiters_of_a_departed_caller_are_dropped, limits_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_set_num_vfs_flood_leaves_root_served, limits_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_set_num_vfs_flood_with_polkit_stopped_leaves_root_served,
                                                limits_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_racing_pair_leaves_no_query, limits_no_poll_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_device_removed_during_authorization_leaves_no_query, limits_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_sigterm_answers_held_calls_and_does_not_wait_for_a_stuck_driver,
                                                sigterm_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rtnetlink_overflow_rereads_netdevs, rtnl_fault_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rtnetlink_messages_not_from_the_kernel_are_ignored, no_poll_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rtnetlink_receive_buffer_is_large, no_poll_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_attributes_publish_only_what_every_user_may_read, attributes_setup,
                                                harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
