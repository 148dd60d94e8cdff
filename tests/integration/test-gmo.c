/* SPDX-License-Identifier: MIT */
/* GetManagedObjects, which rdmad builds a slice at a time: the reply is the
 * one sd-bus builds itself, byte for byte in its decoded form; a flood of
 * unprivileged callers is answered completely while root's calls go on; a
 * reply never mixes before and after a change; one connection holds at
 * most MANAGED_OBJECTS_CALLS_MAX calls (leaving the bus drops them:
 * test-departures);
 * root is served first, users take turns, and once unprivileged replies have
 * had their share of the connection the others wait, then get Busy; the
 * size it counts is at least the real one; a reply too big for the bus is a
 * clear error, and the objects can still be read one by one.
 *
 * --gmo-slice-objects=1 makes the daemon build one object per event-loop
 * iteration, so that the small fixtures span many iterations. */
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#define HOST_FIXTURES HARNESS_FIXTURES("mlx4-vpi", "mlx5-roce-sriov", "hfi1", "rxe", "siw", "broken")
#define HFI1_SYS      "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"
#define MLX4_SYS      "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0"
#define HFI1_PORT     "/org/rdmad1/device/hfi1_5f0/port/1"
#define MLX4_PORT     "/org/rdmad1/device/mlx4_5f0/port/1"
#define CALLS_MAX     4 /* MANAGED_OBJECTS_CALLS_MAX */

static const char *const args_sliced[] = { "--poll-interval=50", "--gmo-slice-objects=1", NULL };
static const char *const args_builtin[] = { "--poll-interval=50", "--gmo-builtin", NULL };
static const char *const args_sliced_debug[] = { "--poll-interval=50", "--gmo-slice-objects=1", "--log-level=debug",
                                                 NULL };
/* Unprivileged replies may take all of the connection: no pauses between them. */
static const char *const args_turns[] = { "--poll-interval=50", "--gmo-slice-objects=1", "--gmo-unprivileged-share=100",
                                          NULL };
/* After one unprivileged reply the share is spent for 10 minutes; a call waits 2.5 s at most. */
static const char *const args_share_spent[] = { "--poll-interval=50", "--gmo-unprivileged-pause=10min",
                                                "--gmo-wait-max=2500ms", NULL };
static const char *const args_small_limit[] = { "--poll-interval=50", "--gmo-reply-max=4096", NULL };

static bool streq(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}

static int setup_sliced(void **state) {
        *state = harness_start(HOST_FIXTURES, args_sliced);
        return 0;
}

static int teardown(void **state) {
        harness_capture_daemon_log = false;
        return harness_teardown_clean(state);
}

static sd_bus_message *call_gmo(sd_bus *bus, sd_bus_error *error) {
        sd_bus_message *reply = NULL;

        if (sd_bus_call_method(bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                               "GetManagedObjects", error, &reply, "") < 0)
                return NULL;
        return reply;
}

/* ---------- the same reply as sd-bus's own ---------- */

static void test_reply_equals_sd_bus(void **state) {
        Harness *h = *state;
        char *sliced, *again, *builtin;
        size_t objects = 0;

        /* Ours, one object per loop iteration; twice, the same. */
        sliced = managed_objects_dump(h->bus, NULL);
        again = managed_objects_dump(h->bus, NULL);
        assert_non_null(sliced);
        assert_string_equal(sliced, again);
        for (const char *p = sliced; (p = strstr(p, "\"org.freedesktop.DBus.Introspectable\"")); p++)
                objects++;
        assert_true(objects >= 20);
        assert_non_null(strstr(sliced, "\"org.freedesktop.DBus.Peer\""));
        assert_non_null(strstr(sliced, "\"org.rdmad1.Sriov\""));
        assert_non_null(strstr(sliced, "\"org.rdmad1.NetDev\""));

        /* sd-bus's, on the same host. */
        harness_restart_daemon(h, args_builtin);
        builtin = managed_objects_dump(h->bus, NULL);
        assert_non_null(builtin);
        if (!streq(sliced, builtin))
                fail_msg("rdmad's GetManagedObjects differs from sd-bus's:\n--- rdmad\n%s\n--- sd-bus\n%s", sliced,
                         builtin);
        printf("GetManagedObjects: %zu objects, the same as sd-bus's reply\n", objects);
        free(sliced);
        free(again);
        free(builtin);
}

/* ---------- floods ---------- */

typedef enum ClientCheck {
        CHECK_EQUALS_REFERENCE, /* every reply equals `reference` */
        CHECK_PORTS_AGREE,      /* in every reply, each flapped port's State agrees with its PhysState */
} ClientCheck;

/* A forked client, unprivileged when the test is root, on its own
 * connection: `calls` GetManagedObjects calls, each checked. Exits 0 when
 * every reply was complete and right, 1 on a wrong reply, 2 on an error. */
static pid_t spawn_client(unsigned calls, ClientCheck check, const char *reference) {
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid > 0)
                return pid;

        sd_bus *bus = NULL;
        int status = 0;

        if (geteuid() == 0 &&
            (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0))
                _exit(3);
        if (sd_bus_open_system(&bus) < 0)
                _exit(3);
        for (unsigned i = 0; i < calls && status == 0; i++) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                sd_bus_message *reply = call_gmo(bus, &error);

                if (!reply) {
                        fprintf(stderr, "client %d: %s: %s\n", (int) getpid(), error.name, error.message);
                        status = 2;
                } else if (check == CHECK_EQUALS_REFERENCE) {
                        char *text = format_message_body(reply);
                        status = streq(text, reference) ? 0 : 1;
                        free(text);
                } else if (!streq(sd_bus_message_get_signature(reply, true), "a{oa{sa{sv}}}"))
                        status = 1;
                else {
                        Objects *o = objects_from_reply(reply);

                        for (unsigned k = 0; k < 2 && status == 0; k++) {
                                const char *path = k == 0 ? HFI1_PORT : MLX4_PORT,
                                           *a = objects_get(o, path, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE),
                                           *b = objects_get(o, path, RDMAD_PORT_INTERFACE,
                                                            RDMAD_PORT_PROPERTY_PHYS_STATE);

                                if (!a || !b || streq(a, "4: ACTIVE") != streq(b, "5: LinkUp")) {
                                        fprintf(stderr, "client %d: a reply with %s State = %s but PhysState = %s\n",
                                                (int) getpid(), path, a ?: "(none)", b ?: "(none)");
                                        status = 1;
                                }
                        }
                        objects_free(o);
                }
                sd_bus_error_free(&error);
                sd_bus_message_unref(reply);
        }
        sd_bus_flush_close_unref(bus);
        _exit(status);
}

/* Waits for the clients, calling `between` meanwhile; every one must exit 0. */
static void wait_clients(Harness *h, pid_t *pids, unsigned n, void (*between)(Harness *h, unsigned round),
                         unsigned *ret_rounds) {
        unsigned left = n, rounds = 0;

        while (left > 0) {
                between(h, rounds++);
                for (unsigned i = 0; i < n; i++) {
                        int status;

                        if (pids[i] <= 0 || waitpid(pids[i], &status, WNOHANG) != pids[i])
                                continue;
                        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                                fail_msg("client %u: wait status 0x%x (1: a wrong reply, 2: an error, 3: no bus)", i,
                                         status);
                        pids[i] = 0;
                        left--;
                }
        }
        *ret_rounds = rounds;
}

/* Root's calls during the flood: each must be answered. */
static void root_get(Harness *h, unsigned round) {
        char *state = harness_get_property(h, HFI1_PORT, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE, NULL);

        assert_non_null(state);
        assert_string_equal(state, "4: ACTIVE");
        free(state);
}

static void test_flood_answered(void **state) {
        Harness *h = *state;
        unsigned n = harness_daemon_wrapped() ? 4 : 16, calls = harness_daemon_wrapped() ? 2 : 6, rounds;
        pid_t pids[16];
        char *reference = managed_objects_dump(h->bus, NULL);

        assert_non_null(reference);
        for (unsigned i = 0; i < n; i++)
                pids[i] = spawn_client(calls, CHECK_EQUALS_REFERENCE, reference);
        wait_clients(h, pids, n, root_get, &rounds);
        printf("flood: %u clients × %u GetManagedObjects, all complete and equal; root's Get answered %u times "
               "meanwhile\n",
               n, calls, rounds);
        assert_true(rounds >= 1);
        free(reference);
}

/* Each port's state and phys_state flap together (written while the daemon
 * is stopped at rest), so one tick reads both and the model takes them in
 * one step: a reply with one changed and not the other was built across
 * the change. Both devices flap, on their own lanes; a reply may well catch
 * one device changed and the other not yet (the model passes through that
 * state), but never half a port. */
static void flap_both(Harness *h, unsigned round) {
        const char *state = round % 2 ? "4: ACTIVE\n" : "1: DOWN\n",
                   *phys = round % 2 ? "5: LinkUp\n" : "3: Disabled\n";

        harness_pause(h); /* at rest: no read under way */
        harness_write(h, HFI1_SYS, "ports/1/state", state);
        harness_write(h, HFI1_SYS, "ports/1/phys_state", phys);
        harness_write(h, MLX4_SYS, "ports/1/state", state);
        harness_write(h, MLX4_SYS, "ports/1/phys_state", phys);
        harness_resume(h);
        harness_observe(h, 30 + round % 5 * 20, "a varying part of the poll period between flaps");
}

static void test_changes_never_mixed(void **state) {
        Harness *h = *state;
        unsigned n = harness_daemon_wrapped() ? 3 : 12, calls = harness_daemon_wrapped() ? 3 : 10, rounds;
        pid_t pids[12];

        for (unsigned i = 0; i < n; i++)
                pids[i] = spawn_client(calls, CHECK_PORTS_AGREE, NULL);
        wait_clients(h, pids, n, flap_both, &rounds);
        printf("changes: %u clients × %u GetManagedObjects over %u double flaps, none mixed\n", n, calls, rounds);
}

/* ---------- one connection's calls ---------- */

static int on_counted_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        unsigned *counts = userdata; /* [0] replies, [1] Busy, [2] other errors */
        const sd_bus_error *e = sd_bus_message_get_error(m);

        counts[!e ? 0 : sd_bus_error_has_name(e, RDMAD_ERROR_BUSY) ? 1 : 2]++;
        return 0;
}

static bool counted(Harness *h, const void *data) {
        const unsigned *c = data;
        return c[0] + c[1] + c[2] >= c[3];
}

static void test_calls_per_connection(void **state) {
        Harness *h = *state;
        unsigned counts[4] = { 0, 0, 0, CALLS_MAX + 2 };
        sd_bus *c = NULL;

        /* All sent while the daemon is stopped: they arrive together. */
        assert_true(sd_bus_open_system(&c) >= 0);
        assert_true(sd_bus_call_method(c, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "GetId", NULL, NULL, "") >= 0);
        harness_pause(h);
        for (unsigned i = 0; i < counts[3]; i++)
                assert_true(sd_bus_call_method_async(c, NULL, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                                     "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
                                                     on_counted_reply, counts, "") >= 0);
        harness_bus_barrier(c); /* passed on by the bus, so that they arrive in one go */
        harness_resume(h);
        for (uint64_t deadline = now_usec() + 60 * 1000000ULL; !counted(h, counts) && now_usec() < deadline;)
                assert_true(sd_bus_wait(c, 100000) >= 0 && sd_bus_process(c, NULL) >= 0);
        while (sd_bus_process(c, NULL) > 0)
                ;
        printf("one connection, %u calls at once: %u replies, %u Busy\n", counts[3], counts[0], counts[1]);
        assert_int_equal(counts[0], CALLS_MAX);
        assert_int_equal(counts[1], 2);
        assert_int_equal(counts[2], 0);
        sd_bus_flush_close_unref(c);
}

static int setup_debug_log(void **state) {
        harness_capture_daemon_log = true;
        *state = harness_start(HOST_FIXTURES, args_sliced_debug);
        return 0;
}

/* The daemon counts the reply against the bus's limit without reading it
 * back: never less than its real size, and not much more. */
static void test_size_counted(void **state) {
        Harness *h = *state;
        sd_bus_message *reply = call_gmo(h->bus, NULL);
        size_t exact, counted = 0;
        const char *p;
        char *log;

        assert_non_null(reply);
        exact = message_body_size(reply);
        harness_wait_log(h, " bytes counted");
        log = harness_daemon_log(h);
        p = strstr(log, " bytes counted");
        while (p > log && p[-1] >= '0' && p[-1] <= '9')
                p--;
        counted = strtoull(p, NULL, 10);
        printf("GetManagedObjects: %zu bytes, %zu counted\n", exact, counted);
        assert_true(counted >= exact);
        assert_true(counted <= exact + exact / 2);
        free(log);
        sd_bus_message_unref(reply);
}

/* ---------- whose turn: root first, users in turn, the unprivileged share ---------- */

#define NOBODY     65534
#define DAEMON_UID 1 /* "daemon" on Debian; any uid other than nobody's and root's */

/* The daemon numbers what it sends (the message serial, which dbus-daemon
 * passes on as it is): the order in which it answered, whatever order the
 * client's connections are read in. */
typedef struct Answer {
        unsigned *n_answered;
        uint64_t serial;
        unsigned rank;   /* 1 for the first answered, once all are */
        char error[128]; /* the error's name, or "" for a reply */
} Answer;

static int on_ranked_answer(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Answer *a = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);

        assert_true(sd_bus_message_get_cookie(m, &a->serial) >= 0);
        ++*a->n_answered;
        snprintf(a->error, sizeof(a->error), "%s", e ? e->name : "");
        return 0;
}

static void rank_answers(Answer *answers, unsigned n) {
        for (unsigned i = 0; i < n; i++) {
                answers[i].rank = 1;
                for (unsigned j = 0; j < n; j++)
                        answers[i].rank += answers[j].serial < answers[i].serial;
        }
}

/* GetManagedObjects on each of `buses`, in that order; *n_answered counts the answers. */
static void send_all(sd_bus **buses, Answer *answers, unsigned n, unsigned *n_answered) {
        for (unsigned i = 0; i < n; i++) {
                answers[i] = (Answer){ .n_answered = n_answered };
                assert_true(sd_bus_call_method_async(buses[i], NULL, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                                     "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
                                                     on_ranked_answer, &answers[i], "") >= 0);
                assert_true(sd_bus_flush(buses[i]) >= 0);
        }
}

/* Reads what has arrived on each bus (the callbacks move *n_answered);
 * with `wait`, until all n are answered or 120 s have passed. */
static void read_answers(sd_bus **buses, unsigned n, const unsigned *n_answered, bool wait) {
        uint64_t deadline = now_usec() + 120 * 1000000ULL;

        for (;;) {
                for (unsigned i = 0; i < n; i++)
                        while (sd_bus_process(buses[i], NULL) > 0)
                                ;
                if (!wait || *n_answered >= n)
                        return;
                if (now_usec() > deadline)
                        fail_msg("%u of %u GetManagedObjects calls answered in 120 s", *n_answered, n);
                (void) sd_bus_wait(buses[*n_answered % n], 10000);
        }
}

/* All sent while the daemon is stopped, so that they arrive together;
 * returns when all are answered, ranked. Each connection has made a call
 * before, so rdmad knows its uid: the calls reach the scheduler together,
 * not in the order in which the bus answers rdmad's uid lookups. */
static void call_all_at_once(Harness *h, sd_bus **buses, Answer *answers, unsigned n) {
        unsigned n_answered = 0;

        for (unsigned i = 0; i < n; i++) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                uint32_t interval;

                assert_true(sd_bus_get_property_trivial(
                                    buses[i], RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                    RDMAD_MANAGER_PROPERTY_POLL_INTERVAL_MS, &error, 'u', &interval) >= 0);
                sd_bus_error_free(&error);
        }
        harness_pause(h);
        send_all(buses, answers, n, &n_answered);
        for (unsigned i = 0; i < n; i++)
                harness_bus_barrier(buses[i]); /* passed on by the bus */
        harness_resume(h);
        read_answers(buses, n, &n_answered, true);
        rank_answers(answers, n);
}

static int setup_turns(void **state) {
        *state = harness_start(HOST_FIXTURES, args_turns);
        return 0;
}

/* Four unprivileged calls, then root's: root's is answered before at least
 * two of them (the one being built when it arrived may finish first). */
static void test_root_served_first(void **state) {
        Harness *h = *state;
        sd_bus *buses[5];
        Answer answers[5];

        if (geteuid() != 0)
                skip(); /* needs root to call as root and as nobody */
        for (unsigned i = 0; i < 4; i++)
                buses[i] = harness_open_bus_as(NOBODY);
        buses[4] = harness_open_bus_as(0);
        call_all_at_once(h, buses, answers, 5);
        printf("order of answers: nobody %u %u %u %u, root %u\n", answers[0].rank, answers[1].rank, answers[2].rank,
               answers[3].rank, answers[4].rank);
        for (unsigned i = 0; i < 5; i++) {
                assert_string_equal(answers[i].error, "");
                sd_bus_flush_close_unref(buses[i]);
        }
        assert_true(answers[4].rank <= 3);
}

/* Three connections of one user, then one of another: the other user's
 * call is the first or second answered, not the last. */
static void test_users_take_turns(void **state) {
        Harness *h = *state;
        sd_bus *buses[4];
        Answer answers[4];

        if (geteuid() != 0)
                skip(); /* needs root to call as two other users */
        for (unsigned i = 0; i < 3; i++)
                buses[i] = harness_open_bus_as(NOBODY);
        buses[3] = harness_open_bus_as(DAEMON_UID);
        call_all_at_once(h, buses, answers, 4);
        printf("order of answers: nobody %u %u %u, daemon %u\n", answers[0].rank, answers[1].rank, answers[2].rank,
               answers[3].rank);
        for (unsigned i = 0; i < 4; i++) {
                assert_string_equal(answers[i].error, "");
                sd_bus_flush_close_unref(buses[i]);
        }
        assert_true(answers[3].rank <= 2);
}

static int setup_share_spent(void **state) {
        *state = harness_start(HOST_FIXTURES, args_share_spent);
        return 0;
}

/* Once unprivileged replies have had their share, the next unprivileged
 * call (of any user) waits, and is answered Busy with the reason when it
 * has waited too long; root is answered meanwhile. */
static void test_share_spent(void **state) {
        Harness *h = *state;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply;
        sd_bus *nobody, *other;
        Answer answers[2];
        sd_bus *buses[2];
        char *reference;

        if (geteuid() != 0)
                skip(); /* needs root to call as root and as others */
        reference = managed_objects_dump(h->bus, NULL);
        nobody = harness_open_bus_as(NOBODY);
        other = harness_open_bus_as(DAEMON_UID);

        /* The first is answered at once. */
        reply = call_gmo(nobody, &error);
        assert_non_null(reply);
        sd_bus_message_unref(reply);

        /* Now both users wait, and get Busy; root's calls go on. */
        buses[0] = nobody;
        buses[1] = other;
        {
                unsigned n_answered = 0;
                char *mine;

                send_all(buses, answers, 2, &n_answered);
                mine = managed_objects_dump(h->bus, NULL); /* root, while they wait */
                assert_non_null(mine);
                assert_string_equal(mine, reference);
                free(mine);
                /* Root's came first: theirs have not arrived yet. */
                read_answers(buses, 2, &n_answered, false);
                assert_int_equal(n_answered, 0);
                read_answers(buses, 2, &n_answered, true);
        }
        for (unsigned i = 0; i < 2; i++)
                assert_string_equal(answers[i].error, RDMAD_ERROR_BUSY);

        /* The reason, as the caller reads it. */
        assert_null(call_gmo(nobody, &error));
        printf("%s: %s\n", error.name, error.message);
        assert_string_equal(error.name, RDMAD_ERROR_BUSY);
        assert_non_null(strstr(error.message, "waited 2.5 s for its turn (1 connection waiting;"));
        assert_non_null(strstr(error.message, "busy at most 10% of the time"));
        sd_bus_error_free(&error);

        sd_bus_flush_close_unref(nobody);
        sd_bus_flush_close_unref(other);
        free(reference);
}

/* ---------- too big for the bus ---------- */

static int setup_small_limit(void **state) {
        *state = harness_start(HOST_FIXTURES, args_small_limit);
        return 0;
}

static void test_reply_too_large(void **state) {
        Harness *h = *state;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        char **devices = NULL;
        unsigned objects = 0;

        assert_null(call_gmo(h->bus, &error));
        assert_string_equal(error.name, "org.freedesktop.DBus.Error.LimitsExceeded");
        assert_non_null(strstr(error.message, "Read the objects one by one"));
        printf("%s: %s\n", error.name, error.message);
        sd_bus_error_free(&error);

        /* The documented way: Manager.Devices, then GetAll on each object. */
        assert_true(sd_bus_get_property_strv(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                             RDMAD_MANAGER_PROPERTY_DEVICES, NULL, &devices) >= 0);
        for (char **d = devices; d && *d; d++) {
                char **ports = NULL;

                assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, *d, "org.freedesktop.DBus.Properties", "GetAll",
                                               NULL, &reply, "s", RDMAD_DEVICE_INTERFACE) >= 0);
                reply = sd_bus_message_unref(reply);
                objects++;
                assert_true(sd_bus_get_property_strv(h->bus, RDMAD_BUS_NAME, *d, RDMAD_DEVICE_INTERFACE,
                                                     RDMAD_DEVICE_PROPERTY_PORTS, NULL, &ports) >= 0);
                for (char **p = ports; p && *p; p++) {
                        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, *p, "org.freedesktop.DBus.Properties",
                                                       "GetAll", NULL, &reply, "s", RDMAD_PORT_INTERFACE) >= 0);
                        reply = sd_bus_message_unref(reply);
                        objects++;
                }
                for (char **p = ports; p && *p; p++)
                        free(*p);
                free(ports);
        }
        assert_true(objects >= 10);
        for (char **d = devices; d && *d; d++)
                free(*d);
        free(devices);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_reply_equals_sd_bus, setup_sliced, teardown),
                cmocka_unit_test_setup_teardown(test_flood_answered, setup_sliced, teardown),
                cmocka_unit_test_setup_teardown(test_changes_never_mixed, setup_sliced, teardown),
                cmocka_unit_test_setup_teardown(test_calls_per_connection, setup_sliced, teardown),
                cmocka_unit_test_setup_teardown(test_size_counted, setup_debug_log, teardown),
                cmocka_unit_test_setup_teardown(test_root_served_first, setup_turns, teardown),
                cmocka_unit_test_setup_teardown(test_users_take_turns, setup_turns, teardown),
                cmocka_unit_test_setup_teardown(test_share_spent, setup_share_spent, teardown),
                cmocka_unit_test_setup_teardown(test_reply_too_large, setup_small_limit, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
