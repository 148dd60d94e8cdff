/* SPDX-License-Identifier: MIT */
/* Callers and departures: what a caller made rdmad hold goes when the
 * caller goes, whether the bus tells rdmad or not.
 *
 * - nobody's flood of WaitForState calls, bounded per user (root still
 *   answered), all dropped when it disconnects, the allowance whole again;
 * - GetManagedObjects calls of a connection that leaves, dropped;
 * - a departure the bus never told (its NameOwnerChanged lost: rdmad --ignore-name-owner-changed plays
 *   the full queue that drops it), found by the re-validation;
 * - the same with a real full queue: rdmad stopped, the bus's queue to it
 *   filled with 30 MB calls until it refuses more.
 *
 * The daemon logs at debug level how many calls it holds whenever that
 * changes ("WaitForState calls held: N", "... dropped, N held."): the tests
 * read those lines, as an operator would. A departed caller's SetNumVfs
 * checks (polkit stopped) are test-floods' ("SetNumVfs floods"). */
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "attack.h"
#include "harness.h"
#include "host.h"

#define NOBODY     65534
#define MLX4_SYS   "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0"
#define MLX4_PORT1 "/org/rdmad1/device/mlx4_5f0/port/1"
#define MLX4_PORT2 "/org/rdmad1/device/mlx4_5f0/port/2"
#define CALLS_MAX  4 /* MANAGED_OBJECTS_CALLS_MAX */

static const char *const debug_args[] = { "--log-level=debug", NULL };

/* The rows whose caller is nobody: the test drops to it. */
#define REQUIRE_ROOT()                                                                                                 \
        do {                                                                                                           \
                if (geteuid() != 0) {                                                                                  \
                        fprintf(stderr, "skipping: needs root to call as nobody\n");                                   \
                        skip();                                                                                        \
                }                                                                                                      \
        } while (0)

/* ---------- WaitForState calls of a user that leaves ---------- */

static int waiters_setup(void **state) {
        *state = harness_start_logged(HARNESS_FIXTURES("mlx4-vpi"), debug_args);
        return 0;
}

static void send_wait(sd_bus *bus, const char *path, uint32_t timeout_ms, bool expect_reply, Replies *r) {
        sd_bus_message *m = NULL;

        if (sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, path, RDMAD_PORT_INTERFACE,
                                           RDMAD_METHOD_WAIT_FOR_STATE) < 0 ||
            sd_bus_message_append(m, "su", "ACTIVE", timeout_ms) < 0 ||
            sd_bus_message_set_expect_reply(m, expect_reply) < 0)
                _exit(3);
        if (expect_reply ? sd_bus_call_async(bus, NULL, m, replies_on_reply, r, 0) < 0 : sd_bus_send(bus, m, NULL) < 0)
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
        user_caller_wait_for_parent(control);
        for (size_t i = 1; i < WAIT_FLOOD_CONNECTIONS; i++)
                sd_bus_flush_close_unref(buses[i]);
}

static char *root_wait(Harness *h, const char *path, const char *state, uint32_t timeout_ms, char **ret_value) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        char *name = NULL;
        const char *s;

        if (sd_bus_call_method(h->bus, RDMAD_BUS_NAME, path, RDMAD_PORT_INTERFACE, RDMAD_METHOD_WAIT_FOR_STATE, &error,
                               &reply, "su", state, timeout_ms) < 0)
                name = strdup(error.name);
        else if (ret_value && sd_bus_message_read(reply, "s", &s) >= 0)
                *ret_value = strdup(s);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        return name;
}

static void test_waiters_of_a_departed_user_are_dropped(void **state) {
        Harness *h = *state;
        const WaitFlood flood = { .no_reply = 4200, .held = 300, .expect_busy = 300 - 256 };
        const WaitFlood again = { .no_reply = 0, .held = 257, .expect_busy = 1 };
        AsyncReply root_held = {};
        uint64_t rss_before, rss_after;
        char *line, *err, *value = NULL;
        UserCaller n;

        REQUIRE_ROOT();

        rss_before = harness_settled_rss_kib(h);

        /* 4200 calls nobody cannot hear answered (none is held), 300 it can:
         * 256 held, the rest refused with the per-user limit named. */
        user_caller_start(&n, NOBODY, wait_flood, &flood);
        line = user_caller_read_line(&n);
        fprintf(stderr, "nobody: %s\n", line);
        assert_non_null(strstr(line, "Too many pending WaitForState calls of uid"));
        assert_non_null(strstr(line, "(at most 256 per user)."));
        free(line);
        line = user_caller_read_line(&n);
        fprintf(stderr, "nobody's replies so far: %s\n", line);
        assert_string_equal(line, "ok=0 org.rdmad1.Error.Busy=44");
        free(line);
        harness_wait_log_count(h, "WaitForState calls held: ", 256);

        /* Root is still answered: at once, on timeout, and later. */
        assert_null(root_wait(h, MLX4_PORT1, "ACTIVE", UINT32_MAX, &value));
        assert_string_equal(value, "ACTIVE");
        free(value);
        err = root_wait(h, MLX4_PORT2, "ACTIVE", 100, NULL);
        assert_string_equal(err, RDMAD_ERROR_TIMEOUT);
        free(err);
        assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, MLX4_PORT1, RDMAD_PORT_INTERFACE,
                                             RDMAD_METHOD_WAIT_FOR_STATE, harness_on_reply, &root_held, "su", "DOWN",
                                             UINT32_MAX) >= 0);
        harness_wait_log_count(h, "WaitForState calls held: ", 257);
        harness_write(h, MLX4_SYS, "ports/1/state", "1: DOWN\n"); /* the poll sees it */
        harness_wait_reply(h, &root_held, 20000, "root's WaitForState(DOWN) on mlx4_0/1");
        assert_null(root_held.error_name);
        assert_string_equal(root_held.value, "DOWN");
        async_reply_clear(&root_held);

        /* nobody leaves: everything it made the daemon hold goes. */
        user_caller_finish(&n);
        harness_wait_log_times(h, " dropped, ", WAIT_FLOOD_CONNECTIONS);
        assert_int_equal(harness_log_count(h, " dropped, "), 0);

        /* A new connection of the same user has the whole allowance again. */
        user_caller_start(&n, NOBODY, wait_flood, &again);
        line = user_caller_read_line(&n);
        assert_non_null(strstr(line, "(at most 256 per user)."));
        free(line);
        line = user_caller_read_line(&n);
        assert_string_equal(line, "ok=0 org.rdmad1.Error.Busy=1");
        free(line);
        user_caller_finish(&n);
        harness_wait_log_times(h, " dropped, ", 2 * WAIT_FLOOD_CONNECTIONS);
        assert_int_equal(harness_log_count(h, " dropped, "), 0);

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

/* ---------- GetManagedObjects calls of a connection that leaves ---------- */

static int gmo_setup(void **state) {
        /* One object per loop iteration: the calls are still being answered when their caller goes. */
        *state = harness_start_logged(
                HARNESS_FIXTURES("mlx4-vpi", "mlx5-roce-sriov", "hfi1", "rxe", "siw", "broken"),
                (const char *const[]){ "--poll-interval=50", "--log-level=debug", "--gmo-slice-objects=1", NULL });
        return 0;
}

static int ignore_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        return 0;
}

/* A connection that leaves with calls held: they are dropped (the daemon
 * says so), everyone else is served. */
static void test_managed_objects_calls_of_a_departed_connection_are_dropped(void **state) {
        Harness *h = *state;
        char *reference = managed_objects_dump(h->bus, NULL), *after, *log, needle[128];
        const char *unique;
        sd_bus *c = NULL;

        assert_true(sd_bus_open_system(&c) >= 0);
        assert_true(sd_bus_get_unique_name(c, &unique) >= 0);
        /* Where the calls waited when the news came: for their turn, or to be identified. */
        snprintf(needle, sizeof(needle), "%s left the bus;", unique);

        /* Sent while the daemon is stopped, the connection closed at once:
         * the calls arrive, then the news that their sender left. */
        harness_pause(h);
        for (unsigned i = 0; i < CALLS_MAX; i++)
                assert_true(sd_bus_call_method_async(c, NULL, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                                     "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
                                                     ignore_reply, NULL, "") >= 0);
        harness_bus_barrier(c); /* passed on by the bus, before the news that c left */
        sd_bus_flush_close_unref(c);
        harness_resume(h);

        after = managed_objects_dump(h->bus, NULL);
        assert_non_null(after);
        assert_string_equal(after, reference);
        harness_wait_log(h, needle);
        log = harness_daemon_log(h);
        printf("%s\n", strstr(log, needle));
        free(log);
        free(reference);
        free(after);
}

/* ---------- departures the bus never told ---------- */

static void prepare_host(Harness *h) {
        char *root = umockdev_testbed_get_root_dir(h->testbed);

        write_host(root, attack_n_devices);
        free(root);
}

static Harness *start_host(unsigned devices, const char *const *args) {
        Harness *h;

        attack_n_devices = devices;
        harness_prepare = prepare_host;
        h = harness_start_logged(NULL, args);
        harness_prepare = NULL;
        return h;
}

/* How many WaitForState calls the daemon said it holds last: "calls held: N"
 * when one comes or goes, "... dropped, N held." when a caller left. */
static long held_now(Harness *h) {
        char *log = harness_daemon_log(h), *line, *save = NULL;
        long n = -1;

        for (line = log ? strtok_r(log, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
                const char *p;

                if ((p = strstr(line, "WaitForState calls held: ")))
                        n = strtol(p + strlen("WaitForState calls held: "), NULL, 10);
                else if (strstr(line, "WaitForState call") && (p = strstr(line, " dropped, ")))
                        n = strtol(p + strlen(" dropped, "), NULL, 10);
        }
        free(log);
        return n;
}

static bool held_is(Harness *h, const void *data, FILE *seen) {
        long n = held_now(h);

        if (n != *(const long *) data) {
                char *log = harness_daemon_log(h);
                size_t len = log ? strlen(log) : 0;

                fprintf(seen, "%ld held; the daemon's log ends:\n%s", n,
                        log ? log + (len > 3000 ? len - 3000 : 0) : "");
                free(log);
        }
        return n == *(const long *) data;
}

/* ms: a bound the caller scaled. */
static void wait_held(Harness *h, long n, int ms) {
        harness_wait_for_bound(h, held_is, &n, (uint64_t) ms, "WaitForState calls held: %ld", n);
}

static int lost_setup(void **state) {
        /* The full queue that drops NameOwnerChanged, played by an option for tests. */
        static const char *const args[] = { "--log-level=debug", "--ignore-name-owner-changed", NULL };

        *state = start_host(harness_daemon_wrapped() ? 8 : 16, args);
        return 0;
}

/* 128 held WaitForState (32 under valgrind); their connections close and
 * nobody tells rdmad: within the re-validation's bound it finds them gone
 * ("left the bus without a word"), drops their calls, and the user may
 * hold its 256 (64) again, none refused. */
static void test_a_departure_never_told_is_found(void **state) {
        Harness *h = *state;
        const Attack held = { ATTACK_WAIT_FOR_STATE, .processes = 1, .connections = 2,
                              .in_flight = harness_load_width(64) };
        const Attack again = { ATTACK_WAIT_FOR_STATE, .processes = 1, .connections = 4,
                               .in_flight = harness_load_width(64) };
        unsigned long errors = 0;
        uint64_t t;
        Attacker at;

        REQUIRE_ROOT();

        attacker_start(&at, &held, NOBODY);
        wait_held(h, 2 * held.in_flight, (int) (harness_time_bound(20 * 1000000ULL) / 1000));
        (void) attacker_stop(&at, NULL);
        t = now_usec();
        /* Re-validation every 5 s, a question answered within 5 s. */
        wait_held(h, 0, (int) (harness_time_bound(12 * 1000000ULL) / 1000));
        printf("leaked waiters: %u dropped %.1f s after their connections closed\n", 2 * held.in_flight,
               (now_usec() - t) / 1e6);
        assert_true(harness_log_has(h, "left the bus without a word"));

        attacker_start(&at, &again, NOBODY);
        wait_held(h, 4 * again.in_flight, (int) (harness_time_bound(20 * 1000000ULL) / 1000));
        harness_observe(h, 200, "the attack to go on against a full registry: its errors would show");
        (void) attacker_stop(&at, &errors);
        assert_int_equal(errors, 0);
}

/* The same without --ignore-name-owner-changed: rdmad is stopped, one caller fills the bus's
 * queue to it with 30 MB calls until the bus refuses more
 * (LimitsExceeded), and then the 128 waiters' connections close: the bus
 * drops their NameOwnerChanged, as the attacker made it. */
#define HUGE_SIZE (30u * 1024 * 1024)

static int on_filler_answer(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        const sd_bus_error *e = sd_bus_message_get_error(m);

        if (e && strcmp(e->name, SD_BUS_ERROR_LIMITS_EXCEEDED) == 0)
                *(bool *) userdata = true;
        return 0;
}

/* Each connection sends one call (the bus reads at most 127 MiB of a
 * connection ahead), enough of them to pass the 127 MiB the bus queues
 * for rdmad; the first refused says the queue is full. */
#define FILLERS 7

static void fill_queue(int report, int control) {
        char *huge = malloc(HUGE_SIZE + 1), path[128];
        sd_bus *buses[FILLERS] = {};
        struct pollfd fds[FILLERS];
        uint64_t deadline = now_usec() + 30 * 1000000ULL;
        bool full = false;

        if (!huge)
                _exit(4);
        memset(huge, 'A', HUGE_SIZE);
        huge[HUGE_SIZE] = '\0';
        attack_port_path(0, 1, path, sizeof(path));
        for (unsigned i = 0; i < FILLERS; i++)
                if (sd_bus_open_system(&buses[i]) < 0 ||
                    sd_bus_call_method_async(buses[i], NULL, RDMAD_BUS_NAME, path, "org.freedesktop.DBus.Properties",
                                             "Get", on_filler_answer, &full, "ss", huge, RDMAD_PORT_PROPERTY_STATE) < 0)
                        _exit(5);
        free(huge);
        while (!full && now_usec() < deadline) {
                for (unsigned i = 0; i < FILLERS; i++) {
                        while (sd_bus_process(buses[i], NULL) > 0)
                                ;
                        fds[i] = (struct pollfd){ .fd = sd_bus_get_fd(buses[i]),
                                                  .events = (short) sd_bus_get_events(buses[i]) };
                }
                (void) poll(fds, FILLERS, 100);
        }
        if (write(report, full ? "f" : "n", 1) != 1)
                _exit(6);
        while (!attack_parent_gone(control))
                usleep(10000);
        for (unsigned i = 0; i < FILLERS; i++)
                sd_bus_close_unref(buses[i]);
        _exit(0);
}

static int overflow_setup(void **state) {
        *state = start_host(harness_daemon_wrapped() ? 8 : 16, debug_args);
        return 0;
}

static void test_a_departure_lost_in_a_full_queue_is_found(void **state) {
        Harness *h = *state;
        const Attack held = { ATTACK_WAIT_FOR_STATE, .processes = 1, .connections = 2, .in_flight = 64 };
        int report[2], control[2], status;
        Attacker at;
        uint64_t t;
        pid_t pid;

        REQUIRE_ROOT();

        /* Under ASan or valgrind rdmad drains the overflowed queue so slowly
         * that the bus keeps refusing the answers to its GetNameOwner checks
         * while the queue stays full: the row runs in the plain builds. */
        if (harness_daemon_slowed()) {
                printf("leaked waiters after a real overflow: not run under sanitizers or valgrind\n");
                skip();
        }
        char c;

        attacker_start(&at, &held, NOBODY);
        wait_held(h, 128, (int) (harness_time_bound(20 * 1000000ULL) / 1000));
        harness_pause(h);

        assert_int_equal(pipe2(report, O_CLOEXEC), 0);
        assert_int_equal(pipe2(control, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                close(report[0]);
                close(control[1]);
                attack_close_parent_fds();
                attack_drop_to(NOBODY);
                fill_queue(report[1], control[0]);
        }
        close(report[1]);
        close(control[0]);
        assert_int_equal(read(report[0], &c, 1), 1);
        if (c != 'f') {
                harness_resume(h);
                fail_msg("the bus took every 30 MB call: its queue to rdmad never filled");
        }
        (void) attacker_stop(&at, NULL); /* their NameOwnerChanged finds the queue full */
        /* The bus says nothing when it drops a message for a full queue: a window. */
        harness_observe(h, 500, "the bus to route the departures into the full queue");
        harness_resume(h);
        t = now_usec();
        wait_held(h, 0, (int) (harness_time_bound(12 * 1000000ULL) / 1000));
        printf("after an overflow: 128 waiters dropped %.1f s after rdmad went on\n", (now_usec() - t) / 1e6);
        close(control[1]);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        close(report[0]);
}
int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_waiters_of_a_departed_user_are_dropped, waiters_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_managed_objects_calls_of_a_departed_connection_are_dropped,
                                                gmo_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_a_departure_never_told_is_found, lost_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_a_departure_lost_in_a_full_queue_is_found, overflow_setup,
                                                harness_teardown_clean),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
