/* SPDX-License-Identifier: MIT */
/* rdmad as a system service: the bus policy on a strict bus, watchdog pings,
 * a clean SIGTERM under valgrind, SIGTERM answering held calls without
 * waiting for a driver stuck in a write (the fault injector's), exit on bus
 * loss, SIGHUP, --help. */
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <glib.h>

#include "harness.h"

#define MLX5_0   "/org/rdmad1/device/mlx5_5f0"
#define MLX5_SYS "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/infiniband/mlx5_0"

static int strict_bus_setup(void **state) {
        harness_bus_policy = BUS_POLICY_FILE;
        *state = harness_start(HARNESS_FIXTURES("mlx5-roce-sriov"), NULL);
        return 0;
}

static void test_bus_policy(void **state) {
        Harness *h = *state;
        struct passwd *nobody = getpwnam("nobody");
        char *err;

        assert_non_null(nobody);
        if (geteuid() != 0) {
                fprintf(stderr, "skipping: needs root to call as another user\n");
                skip();
        }

        /* rdmad owns the name (test_name_belongs_to_the_rdmad_user). Everyone reads. */
        err = harness_call_as(h, nobody->pw_uid, nobody->pw_gid, RDMAD_BUS_NAME, MLX5_0 "/port/1",
                              "org.freedesktop.DBus.Properties", "Get", "ss", RDMAD_PORT_INTERFACE,
                              RDMAD_PORT_PROPERTY_STATE);
        assert_null(err);
        err = harness_call_as(h, nobody->pw_uid, nobody->pw_gid, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                              "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", "");
        assert_null(err);
        err = harness_call_as(h, nobody->pw_uid, nobody->pw_gid, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                              RDMAD_MANAGER_INTERFACE, "GetDeviceByName", "s", "mlx5_0");
        assert_null(err);

        /* Nobody else may own it. */
        err = harness_request_name_as(h, nobody->pw_uid, nobody->pw_gid, RDMAD_BUS_NAME);
        assert_non_null(err);
        assert_string_equal(err, "org.freedesktop.DBus.Error.AccessDenied");
        free(err);

        /* Rescan is root's (rdmad asks the bus who calls), even though the policy lets the call through. */
        err = harness_call_as(h, nobody->pw_uid, nobody->pw_gid, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                              RDMAD_MANAGER_INTERFACE, RDMAD_METHOD_RESCAN, "");
        assert_non_null(err);
        assert_string_equal(err, "org.freedesktop.DBus.Error.AccessDenied");
        free(err);
}

/* The daemon runs as the system user rdmad (the harness makes it so as
 * root), which owns the name (READY=1 comes after it); root may not. */
static void test_name_belongs_to_the_rdmad_user(void **state) {
        Harness *h = *state;
        struct passwd *rdmad_user = getpwnam("rdmad");
        char *err;

        if (geteuid() != 0) {
                fprintf(stderr, "skipping: needs root to run the daemon as rdmad\n");
                skip();
        }
        assert_non_null(rdmad_user);
        assert_int_equal(harness_name_owner_uid(h, RDMAD_BUS_NAME), rdmad_user->pw_uid);

        err = harness_request_name_as(h, 0, 0, RDMAD_BUS_NAME);
        assert_non_null(err);
        assert_string_equal(err, "org.freedesktop.DBus.Error.AccessDenied");
        free(err);
}

static int watchdog_setup(void **state) {
        setenv("WATCHDOG_USEC", "200000", 1); /* what systemd sets for WatchdogSec=200ms */
        *state = harness_start(HARNESS_FIXTURES("hfi1"), NULL);
        unsetenv("WATCHDOG_USEC");
        return 0;
}

static void test_watchdog_pings(void **state) {
        Harness *h = *state;
        unsigned pings = harness_count_notify(h, "WATCHDOG=1", 1000);

        /* sd-event pings at half the interval: about 10 a second here. */
        fprintf(stderr, "%u WATCHDOG=1 in 1 s\n", pings);
        assert_true(pings >= 3);
}

#ifndef SANITIZED_BUILD
static int valgrind_setup(void **state) {
        setenv("RDMAD_TEST_WRAPPER",
               "valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "
               "--show-leak-kinds=definite --track-fds=no -q",
               1);
        *state = harness_start(HARNESS_FIXTURES("mlx4-vpi", "mlx5-roce-sriov", "broken"),
                               (const char *const[]){ "--poll-interval=100", NULL });
        unsetenv("RDMAD_TEST_WRAPPER");
        return 0;
}

static bool got_port_change(Harness *h, const void *data, FILE *seen) {
        size_t n = harness_count_signals(h, data, "PropertiesChanged");

        fprintf(seen, "%zu PropertiesChanged on it, %zu signals in all", n, h->n_signals);
        return n > 0;
}

/* Everything the daemon did is freed at SIGTERM: valgrind exits 99 otherwise,
 * which the teardown reports. */
static void test_sigterm_under_valgrind_is_clean(void **state) {
        Harness *h = *state;
        Objects *o = get_managed_objects(h);

        assert_non_null(objects_get(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NAME));
        objects_free(o);
        harness_write(h, MLX5_SYS, "ports/1/state", "1: DOWN\n");
        /* A RoCE port: rtnetlink covers it, and its files alone are read only in
         * the poll's slow round. The change uevent stands in for its netdev's event. */
        umockdev_testbed_uevent(h->testbed, MLX5_SYS, "change");
        /* Under valgrind, which harness_time_bound() no longer knows of here: 30 s. */
        harness_wait_for_bound(h, got_port_change, MLX5_0 "/port/1", 30000, "a PropertiesChanged on %s",
                               MLX5_0 "/port/1");
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       RDMAD_METHOD_RESCAN, NULL, NULL, "") >= 0);
}

#endif

static int plain_setup(void **state) {
        *state = harness_start(HARNESS_FIXTURES("mlx5-roce-sriov"), (const char *const[]){ "--poll-interval=0", NULL });
        return 0;
}

static void test_bus_loss_ends_the_daemon_with_a_failure(void **state) {
        Harness *h = *state;
        struct timespec start, end;
        int status = 0;

        /* Kill the bus; systemd would restart the daemon (Restart=on-failure). */
        kill(h->bus_pid, SIGKILL);
        waitpid(h->bus_pid, NULL, 0);
        h->bus_pid = 0;
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (;;) {
                if (waitpid(h->daemon_pid, &status, WNOHANG) == h->daemon_pid)
                        break;
                clock_gettime(CLOCK_MONOTONIC, &end);
                if (end.tv_sec - start.tv_sec > 10)
                        fail_msg("rdmad still running 10 s after losing the bus");
                usleep(10000);
        }
        h->daemon_pid = 0;
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), EXIT_FAILURE);
}

static bool node_desc_changed(Harness *h, const void *data, FILE *seen) {
        const Signal *s = harness_find_signal(h, MLX5_0, "PropertiesChanged");

        fprintf(seen, "%s", s ? s->body : "no PropertiesChanged on it");
        return s && strstr(s->body, "\"NodeDescription\": \"renamed by admin\"");
}

static void test_sighup_rescans(void **state) {
        Harness *h = *state;

        harness_write(h, MLX5_SYS, "node_desc", "renamed by admin\n");
        harness_observe(h, 200, "a change in sysfs alone, which must not show");
        assert_int_equal(harness_count_signals(h, MLX5_0, "PropertiesChanged"), 0); /* no poll, no event */
        kill(h->daemon_pid, SIGHUP);
        harness_wait_for(h, node_desc_changed, NULL, 10000, "a PropertiesChanged of %s's NodeDescription", MLX5_0);
}

static void test_help_version_and_bad_options(void **state) {
        Harness *h = *state;
        char cmd[512], *out;
        int status;

        snprintf(cmd, sizeof(cmd), "%s --help", getenv("RDMAD_BINARY"));
        out = harness_run_command(h, cmd, &status);
        assert_int_equal(status, 0);
        assert_string_equal(out, "rdmad [OPTIONS...]\n\n"
                                 "Publishes the host's RDMA devices, ports, netdevs and SR-IOV controls\n"
                                 "on the system bus as org.rdmad1.\n\n"
                                 "  -h --help               Show this help\n" /* one column with the others */
                                 "     --version            Show package version\n"
                                 "     --log-level=LEVEL    Log level: emerg, alert, crit, err, warning,\n"
                                 "                          notice, info (default), debug, or 0-7\n"
                                 "     --poll-interval=MS   Re-read port link state every MS milliseconds\n"
                                 "                          (default 1000, 0 = off)\n"
                                 "     --read-timeout=SPAN  A device whose sysfs read has not returned after\n"
                                 "                          SPAN is unresponsive (default 5s, 0 = never)\n"
                                 "     --state-dir=DIR      Keep the ports' link histories in DIR (default:\n"
                                 "                          $STATE_DIRECTORY, as StateDirectory= sets it;\n"
                                 "                          empty: none kept)\n"
                                 "     --dump               Print the model read from sysfs and exit\n"
                                 "\n"
                                 "Limits (rdmad(8), \"Limits\"):\n"
                                 "     --poll-batch=N       Read at most N ports' states before letting the\n"
                                 "                          event loop run (default 256)\n"
                                 "     --gmo-unprivileged-share=PERCENT\n"
                                 "                          Time the GetManagedObjects replies to users other\n"
                                 "                          than root may keep the bus connection busy\n"
                                 "                          (default 10%)\n"
                                 "     --gmo-wait-max=SPAN  A GetManagedObjects call not served after SPAN\n"
                                 "                          is answered Busy (default 20s)\n"
                                 "     --gmo-reply-max=BYTES\n"
                                 "                          Largest GetManagedObjects reply in bytes\n"
                                 "                          (default 32505856)\n"
                                 "\n"
                                 "For tests, not for production (rdmad(8), \"Options for testing\"):\n"
                                 "     --gmo-builtin        Leave GetManagedObjects to sd-bus\n"
                                 "     --gmo-slice-objects=N\n"
                                 "                          Build GetManagedObjects N objects at a time\n"
                                 "     --gmo-unprivileged-pause=SPAN\n"
                                 "                          Pause SPAN after every unprivileged reply\n"
                                 "     --ignore-name-owner-changed\n"
                                 "                          Act as if the bus lost every NameOwnerChanged\n");
        free(out);

        snprintf(cmd, sizeof(cmd), "%s --version", getenv("RDMAD_BINARY"));
        out = harness_run_command(h, cmd, &status);
        assert_int_equal(status, 0);
        assert_string_equal(out, "rdmad " RDMAD_VERSION "\n");
        free(out);

        snprintf(cmd, sizeof(cmd), "%s --log-level=chatty", getenv("RDMAD_BINARY"));
        out = harness_run_command(h, cmd, &status);
        assert_int_equal(status, 1);
        assert_non_null(strstr(out, "<3>Invalid log level: chatty"));
        free(out);

        snprintf(cmd, sizeof(cmd), "%s --poll-interval=soon", getenv("RDMAD_BINARY"));
        out = harness_run_command(h, cmd, &status);
        assert_int_equal(status, 1);
        free(out);

        /* An unknown option: getopt's words, then where the right ones are; nothing else done. */
        snprintf(cmd, sizeof(cmd), "%s --frobnicate", getenv("RDMAD_BINARY"));
        out = harness_run_command(h, cmd, &status);
        assert_int_equal(status, 1);
        assert_non_null(strstr(out, "rdmad: unrecognized option '--frobnicate'\nTry 'rdmad --help'.\n"));
        assert_null(strstr(out, "Found")); /* nothing scanned */
        free(out);

        snprintf(cmd, sizeof(cmd), "%s extra", getenv("RDMAD_BINARY"));
        out = harness_run_command(h, cmd, &status);
        assert_int_equal(status, 1);
        assert_non_null(strstr(out, "rdmad takes no arguments; try 'rdmad --help'.\n"));
        free(out);
}

/* ---- SIGTERM with calls held and a driver stuck ---- */

#define SRIOV      "/org/rdmad1/device/mlx5_5f0/sriov"
#define MLX4_PORT2 "/org/rdmad1/device/mlx4_5f0/port/2"

static bool both_done(Harness *h, const void *data, FILE *seen) {
        const AsyncReply *r = data;

        fprintf(seen, "SetNumVfs: %s; WaitForState: %s", r[0].done ? "answered" : "no reply",
                r[1].done ? "answered" : "no reply");
        return r[0].done && r[1].done;
}

/* A driver write that never returns: the fault injector's, in front of
 * umockdev's preload (a FIFO would block inside umockdev's open(), which
 * holds a lock the daemon's other threads need too). */
static int sigterm_setup(void **state) {
        setenv("RDMAD_FAULT_HANG_WRITE", "/sriov_numvfs", 1);
        harness_daemon_preload = FAULT_INJECT;
        *state = harness_start_logged(HARNESS_FIXTURES("mlx5-roce-sriov", "mlx4-vpi"),
                                      (const char *const[]){ "--log-level=debug", NULL });
        harness_daemon_preload = NULL;
        unsetenv("RDMAD_FAULT_HANG_WRITE");
        return 0;
}

static void test_sigterm_answers_held_calls_and_does_not_wait_for_a_stuck_driver(void **state) {
        Harness *h = *state;
        AsyncReply replies[2] = {};
        sd_bus_message *call = NULL;
        uint64_t start;
        /* The calls' own timeouts stay out of the way: 120 s. */
        assert_true(sd_bus_message_new_method_call(h->bus, &call, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE,
                                                   RDMAD_METHOD_SET_NUM_VFS) >= 0);
        assert_true(sd_bus_message_append(call, "u", 4) >= 0);
        assert_true(sd_bus_call_async(h->bus, NULL, call, harness_on_reply, &replies[0], 120 * 1000000ULL) >= 0);
        call = sd_bus_message_unref(call);
        assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, MLX4_PORT2, RDMAD_PORT_INTERFACE,
                                             RDMAD_METHOD_WAIT_FOR_STATE, harness_on_reply, &replies[1], "su", "ACTIVE",
                                             UINT32_MAX) >= 0);
        assert_true(sd_bus_flush(h->bus) >= 0);
        harness_wait_log(h, "→ 4 VFs: started.");
        harness_wait_log_count(h, "WaitForState calls held: ", 1);
        /* Its write of 0 (1 VF before) hangs; the daemon still answers. */
        harness_assert_property(h, SRIOV, RDMAD_SRIOV_INTERFACE, RDMAD_SRIOV_PROPERTY_NUM_VFS, "1");

        start = now_usec();
        assert_int_equal(kill(h->daemon_pid, SIGTERM), 0);
        /* The bound is 10 s (SRIOV_STOP_TIMEOUT_USEC). */
        harness_wait_for_bound(h, both_done, replies, 60000, "the replies to SetNumVfs and WaitForState");
        printf("SIGTERM: both calls answered after %.1f s\n", (now_usec() - start) / 1e6);
        assert_string_equal(replies[0].error_name, RDMAD_ERROR_FAILED);
        assert_string_equal(replies[0].error_message,
                            "rdmad is stopping; the VF change may still complete in the kernel.");
        assert_string_equal(replies[1].error_name, RDMAD_ERROR_FAILED);
        assert_string_equal(replies[1].error_message, "rdmad is stopping.");
        async_reply_clear(&replies[0]);
        async_reply_clear(&replies[1]);
        /* harness_teardown_clean: the daemon must have exited with 0. */
}

/* ---- a VF change interrupted by a kill ---- */

static char vf_state_dir[64];

/* The write of 0 hangs (a driver that never returns), so rdmad is killed
 * in the middle of the sequence, as SIGKILL or a crash would: with a state
 * directory, which the next rdmad reads. */
static int vf_kill_setup(void **state) {
        char arg[96];

        strcpy(vf_state_dir, "/tmp/rdmad-state-XXXXXX");
        assert_non_null(mkdtemp(vf_state_dir));
        assert_int_equal(chmod(vf_state_dir, 0755), 0);
        harness_give_to_daemon(vf_state_dir);
        snprintf(arg, sizeof(arg), "--state-dir=%s", vf_state_dir);
        setenv("RDMAD_FAULT_HANG_WRITE", "/sriov_numvfs", 1);
        harness_daemon_preload = FAULT_INJECT;
        *state = harness_start_logged(HARNESS_FIXTURES("mlx5-roce-sriov"), (const char *const[]){ arg, NULL });
        harness_daemon_preload = NULL;
        unsetenv("RDMAD_FAULT_HANG_WRITE");
        return 0;
}

static int vf_kill_teardown(void **state) {
        char cmd[128];
        int r = harness_teardown_clean(state);

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", vf_state_dir);
        assert_int_equal(system(cmd), 0);
        return r;
}

static bool file_exists(Harness *h, const void *data, FILE *seen) {
        bool there = access(data, F_OK) == 0;

        fprintf(seen, "%s", there ? "there" : "not there");
        return there;
}

/* Killed in the middle of SetNumVfs (issue 42): the next rdmad says which
 * change was interrupted, with the count asked for and the count the
 * function has now (a journal message with RDMA_* fields), removes the
 * record, and writes nothing: it never applies the change by itself. */
static void test_interrupted_set_num_vfs_is_reported(void **state) {
        Harness *h = *state;
        const char *record = "sriov-0000:5e:00.0.intent";
        char path[256], *text, *numvfs;
        const char *args[] = { NULL, NULL };
        char arg[96];
        int status;

        assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE,
                                             RDMAD_METHOD_SET_NUM_VFS, NULL, NULL, "u", 4) >= 0);
        assert_true(sd_bus_flush(h->bus) >= 0);
        harness_wait_log(h, "→ 4 VFs: started.");
        snprintf(path, sizeof(path), "%s/%s", vf_state_dir, record);
        /* The record is written before the first write, which hangs. */
        harness_wait_for(h, file_exists, path, 0, "the record %s of the VF change in flight", path);
        assert_true(g_file_get_contents(path, &text, NULL, NULL));
        assert_non_null(strstr(text, "device=mlx5_0\n"));
        assert_non_null(strstr(text, "count=4\n"));
        g_free(text);

        assert_int_equal(kill(h->daemon_pid, SIGKILL), 0);
        assert_int_equal(waitpid(h->daemon_pid, &status, 0), h->daemon_pid);
        h->daemon_pid = 0;

        snprintf(arg, sizeof(arg), "--state-dir=%s", vf_state_dir);
        args[0] = arg;
        /* What the kernel has after the write of 0 that the kill came after. */
        harness_write(h, "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0", "sriov_numvfs", "0\n");
        harness_grant_sriov(h);
        numvfs = strdup("0");
        assert_non_null(numvfs);
        harness_capture_daemon_log = true; /* appended to the same log */
        harness_start_daemon(h, args);
        {
                char expected[256];

                snprintf(expected, sizeof(expected),
                         "mlx5_0: a change to 4 VFs was interrupted (rdmad stopped between its writes); it has %s VFs "
                         "now. Not applied again: call SetNumVfs to have it.",
                         numvfs);
                harness_wait_log(h, expected);
        }
        assert_true(access(path, F_OK) < 0);
        /* Nothing written: the function keeps what it has. */
        harness_assert_property(h, SRIOV, RDMAD_SRIOV_INTERFACE, RDMAD_SRIOV_PROPERTY_NUM_VFS, numvfs);
        free(numvfs);
        numvfs = harness_read(h, "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0", "sriov_numvfs");
        assert_true(strncmp(numvfs, "4", 1) != 0);
        free(numvfs);
        /* Said once: a second start finds nothing to report. */
        harness_restart_daemon(h, args);
        harness_capture_daemon_log = false;
        {
                char *log = harness_daemon_log(h);
                unsigned n = 0;

                for (const char *p = log; (p = strstr(p, "mlx5_0: a change to 4 VFs was interrupted")); p++)
                        n++;
                free(log);
                assert_int_equal(n, 1);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_bus_policy, strict_bus_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_name_belongs_to_the_rdmad_user, strict_bus_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_watchdog_pings, watchdog_setup, harness_teardown_clean),
#ifndef SANITIZED_BUILD
                cmocka_unit_test_setup_teardown(test_sigterm_under_valgrind_is_clean, valgrind_setup,
                                                harness_teardown_clean),
#endif
                cmocka_unit_test_setup_teardown(test_sigterm_answers_held_calls_and_does_not_wait_for_a_stuck_driver,
                                                sigterm_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_interrupted_set_num_vfs_is_reported, vf_kill_setup,
                                                vf_kill_teardown),
                cmocka_unit_test_setup_teardown(test_bus_loss_ends_the_daemon_with_a_failure, plain_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_sighup_rescans, plain_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_help_version_and_bad_options, plain_setup, harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
