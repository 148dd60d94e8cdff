/* SPDX-License-Identifier: MIT */
/* Sriov.SetNumVfs with the real polkitd on the private bus: root succeeds,
 * an unprivileged caller is refused, bad counts never reach the hardware,
 * without polkit root still succeeds and anyone else is promptly refused,
 * a polkit answer for a call that can no longer proceed (another change
 * started meanwhile, the device removed) leaves nothing behind, and a slow
 * driver never stalls the bus. */
#include <fcntl.h>
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
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#define PF_SYS "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0"
#define SRIOV  "/org/rdmad1/device/mlx5_5f0/sriov"

static bool have_polkit = true;

static int polkit_setup(void **state) {
        /* No poll: its sweep opens sysfs files, and while the worker's open()
         * of the slow driver's FIFO blocks, umockdev's preload holds a lock
         * that every other open() waits for (a kernel's sysfs would not). */
        static const char *const no_poll[] = { "--poll-interval=0", NULL };
        Harness *h = harness_start(HARNESS_FIXTURES("mlx5-roce-sriov"), no_poll);

        *state = h;
        if (have_polkit)
                have_polkit = harness_start_polkit(h);
        return 0;
}

/* Skipped, with the reason on stderr, only where polkitd cannot run (not root). */
static char *numvfs_file(Harness *h) {
        return harness_read(h, PF_SYS, "sriov_numvfs");
}

static char *set_num_vfs(Harness *h, uint32_t count, bool interactive) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *m = NULL;
        char *name = NULL;

        assert_true(sd_bus_message_new_method_call(h->bus, &m, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE,
                                                   RDMAD_METHOD_SET_NUM_VFS) >= 0);
        assert_true(sd_bus_message_append(m, "u", count) >= 0);
        assert_true(sd_bus_message_set_allow_interactive_authorization(m, interactive) >= 0);
        if (sd_bus_call(h->bus, m, 20 * 1000000, &error, NULL) < 0) {
                name = strdup(error.name);
                fprintf(stderr, "SetNumVfs(%u): %s: %s\n", count, error.name, error.message);
        }
        sd_bus_error_free(&error);
        sd_bus_message_unref(m);
        return name;
}

static bool got_numvfs_signal(Harness *h, const void *data, FILE *seen) {
        const Signal *s = harness_find_signal(h, SRIOV, "PropertiesChanged");

        fprintf(seen, "%s", s ? s->body : "no PropertiesChanged on it");
        return s && strstr(s->body, data);
}

static void test_root_changes_the_count(void **state) {
        Harness *h = *state;
        char *content, *err;

        HARNESS_REQUIRE_POLKIT(have_polkit);
        content = numvfs_file(h);
        assert_string_equal(content, "1\n");
        free(content);

        harness_clear_signals(h);
        err = set_num_vfs(h, 4, true);
        assert_null(err);
        content = numvfs_file(h);
        assert_string_equal(content, "4\n");
        free(content);
        harness_wait_for(h, got_numvfs_signal, "\"NumVfs\": 4", 5000, "a PropertiesChanged of NumVfs 4 on %s", SRIOV);

        /* Back to 0, and the same count again: nothing to do, still a success. */
        assert_null(set_num_vfs(h, 0, false));
        content = numvfs_file(h);
        assert_string_equal(content, "0\n");
        free(content);
        assert_null(set_num_vfs(h, 0, false));
}

static void test_unprivileged_caller_is_refused(void **state) {
        Harness *h = *state;
        struct passwd *nobody = getpwnam("nobody");
        char *err, *content, *out;
        int status;

        HARNESS_REQUIRE_POLKIT(have_polkit);
        assert_non_null(nobody);

        /* Reading is for everyone. */
        err = harness_call_as(h, nobody->pw_uid, nobody->pw_gid, RDMAD_BUS_NAME, SRIOV,
                              "org.freedesktop.DBus.Properties", "Get", "ss", RDMAD_SRIOV_INTERFACE,
                              RDMAD_SRIOV_PROPERTY_NUM_VFS);
        assert_null(err);

        err = harness_call_as(h, nobody->pw_uid, nobody->pw_gid, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE,
                              RDMAD_METHOD_SET_NUM_VFS, "u", 2);
        assert_non_null(err);
        if (strcmp(err, "org.freedesktop.DBus.Error.AccessDenied") != 0 &&
            strcmp(err, "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired") != 0)
                fail_msg("unexpected error %s", err);
        fprintf(stderr, "nobody's SetNumVfs: %s\n", err);
        free(err);

        /* The same through busctl as a real client, with setpriv. */
        out = harness_run_command(h,
                                  "setpriv --reuid=nobody --regid=nogroup --clear-groups busctl --system call "
                                  "org.rdmad1 " SRIOV " org.rdmad1.Sriov SetNumVfs u 2",
                                  &status);
        assert_int_not_equal(status, 0);
        fprintf(stderr, "busctl as nobody: %s", out);
        free(out);

        content = numvfs_file(h);
        assert_string_equal(content, "1\n"); /* untouched */
        free(content);
}

static void test_count_above_total_is_invalid_and_writes_nothing(void **state) {
        Harness *h = *state;
        char *err, *content;

        HARNESS_REQUIRE_POLKIT(have_polkit);
        err = set_num_vfs(h, 9, true);
        assert_non_null(err);
        assert_string_equal(err, RDMAD_ERROR_INVALID_ARGUMENT);
        free(err);
        content = numvfs_file(h);
        assert_string_equal(content, "1\n");
        free(content);

        /* A VF has no SR-IOV object to call. */
        err = harness_call_as(h, 0, 0, RDMAD_BUS_NAME, "/org/rdmad1/device/mlx5_5f1/sriov", RDMAD_SRIOV_INTERFACE,
                              RDMAD_METHOD_SET_NUM_VFS, "u", 1);
        assert_non_null(err);
        assert_string_equal(err, "org.freedesktop.DBus.Error.UnknownObject");
        free(err);
}

static void test_without_polkit_root_succeeds_and_others_are_refused_promptly(void **state) {
        Harness *h = *state;
        struct passwd *nobody = getpwnam("nobody");
        char *err, *content;

        HARNESS_REQUIRE_POLKIT(have_polkit);
        assert_non_null(nobody);
        harness_stop_polkit(h);

        /* nobody's call has 10 s; a refusal must come, not a timeout (NoReply). */
        err = harness_call_as(h, nobody->pw_uid, nobody->pw_gid, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE,
                              RDMAD_METHOD_SET_NUM_VFS, "u", 4);
        assert_non_null(err);
        assert_string_equal(err, "org.freedesktop.DBus.Error.AccessDenied");
        free(err);
        content = numvfs_file(h);
        assert_string_equal(content, "1\n");
        free(content);

        /* Root is authorized without asking polkit, as systemd's daemons do. */
        assert_null(set_num_vfs(h, 4, true));
        content = numvfs_file(h);
        assert_string_equal(content, "4\n");
        free(content);
}

/* The test plays a slow driver (harness_fifo_numvfs()). */
static void test_slow_driver_never_blocks_the_bus(void **state) {
        Harness *h = *state;
        char *fifo, *err;
        AsyncReply first = {};
        Objects *o;

        HARNESS_REQUIRE_POLKIT(have_polkit);
        fifo = harness_fifo_numvfs(h, PF_SYS);

        assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE,
                                             RDMAD_METHOD_SET_NUM_VFS, harness_on_reply, &first, "u", 4) >= 0);
        assert_true(sd_bus_flush(h->bus) >= 0);

        /* The worker reads the current count: 1. */
        harness_fifo_serve_read(fifo, "1\n");

        /* Its next step waits for us: meanwhile the daemon answers. */
        o = get_managed_objects(h);
        assert_non_null(objects_get(o, SRIOV, RDMAD_SRIOV_INTERFACE, RDMAD_SRIOV_PROPERTY_NUM_VFS));
        objects_free(o);
        err = set_num_vfs(h, 2, true);
        assert_non_null(err);
        assert_string_equal(err, RDMAD_ERROR_BUSY);
        free(err);
        assert_false(first.done);

        /* The kernel wants 0 before 4, then the re-read says 4. */
        harness_fifo_expect_writes(fifo, "0\n4\n");
        harness_fifo_serve_read(fifo, "4\n");

        harness_wait_reply(h, &first, 10000, "the first SetNumVfs(4)");
        assert_null(first.error_name);
        async_reply_clear(&first);
        harness_wait_for(h, got_numvfs_signal, "\"NumVfs\": 4", 5000, "a PropertiesChanged of NumVfs 4 on %s", SRIOV);
        free(fifo);
}

/* ---- an authorization whose call can no longer proceed ---- */

#define NOBODY 65534

/* As polkit_setup(), with the daemon's debug log ("Authorization checks held: N"). */
static int logged_setup(void **state) {
        Harness *h = harness_start_logged(HARNESS_FIXTURES("mlx5-roce-sriov"),
                                          (const char *const[]){ "--poll-interval=0", "--log-level=debug", NULL });

        *state = h;
        if (have_polkit)
                have_polkit = harness_start_polkit(h);
        return 0;
}

/* nobody: one SetNumVfs(2), its answer reported. */
static void set_once(sd_bus *bus, FILE *report, int control, const void *data) {
        sd_bus_error error = SD_BUS_ERROR_NULL;

        if (sd_bus_call_method(bus, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE, RDMAD_METHOD_SET_NUM_VFS, &error,
                               NULL, "u", 2) < 0)
                fprintf(report, "%s\n", error.name);
        else
                fprintf(report, "ok\n");
        sd_bus_error_free(&error);
        user_caller_wait_for_parent(control);
}

static void test_racing_pair_leaves_no_query(void **state) {
        Harness *h = *state;
        AsyncReply root = {};
        char *fifo, *line;
        UserCaller n;

        HARNESS_REQUIRE_POLKIT(have_polkit);

        /* nobody asks first; polkit is slow to answer. */
        assert_int_equal(kill(h->polkit_pid, SIGSTOP), 0);
        user_caller_start(&n, NOBODY, set_once, NULL);
        harness_wait_log_count(h, "Authorization checks held: ", 1);

        /* Meanwhile root (no polkit needed) starts a change on the same PF. */
        fifo = harness_fifo_numvfs(h, PF_SYS);
        assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE,
                                             RDMAD_METHOD_SET_NUM_VFS, harness_on_reply, &root, "u", 4) >= 0);
        assert_true(sd_bus_flush(h->bus) >= 0);
        harness_wait_log(h, "→ 4 VFs: started.");

        /* polkit answers; nobody's call, replayed, stops at the Busy check. */
        assert_int_equal(kill(h->polkit_pid, SIGCONT), 0);
        line = user_caller_read_line(&n);
        assert_string_equal(line, RDMAD_ERROR_BUSY);
        free(line);
        harness_wait_log_count(h, "Authorization checks held: ", 0);

        harness_fifo_serve_read(fifo, "1\n");
        harness_fifo_expect_writes(fifo, "0\n4\n");
        harness_fifo_serve_read(fifo, "4\n");
        harness_wait_reply(h, &root, 20000, "root's SetNumVfs(4)");
        assert_null(root.error_name);
        async_reply_clear(&root);
        user_caller_finish(&n);
        free(fifo);
}

static void test_device_removed_during_authorization_leaves_no_query(void **state) {
        Harness *h = *state;
        char *line;
        UserCaller n;

        HARNESS_REQUIRE_POLKIT(have_polkit);
        assert_int_equal(kill(h->polkit_pid, SIGSTOP), 0);
        user_caller_start(&n, NOBODY, set_once, NULL);
        harness_wait_log_count(h, "Authorization checks held: ", 1);

        umockdev_testbed_uevent(h->testbed, PF_SYS "/infiniband/mlx5_0", "remove");
        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved", 1);

        /* The replay finds no object: sd-bus answers it, the handler never runs. */
        assert_int_equal(kill(h->polkit_pid, SIGCONT), 0);
        line = user_caller_read_line(&n);
        assert_string_equal(line, "org.freedesktop.DBus.Error.UnknownObject");
        free(line);
        harness_wait_log_count(h, "Authorization checks held: ", 0);
        user_caller_finish(&n);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_root_changes_the_count, polkit_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_unprivileged_caller_is_refused, polkit_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_count_above_total_is_invalid_and_writes_nothing, polkit_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_without_polkit_root_succeeds_and_others_are_refused_promptly,
                                                polkit_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_racing_pair_leaves_no_query, logged_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_device_removed_during_authorization_leaves_no_query, logged_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_slow_driver_never_blocks_the_bus, polkit_setup,
                                                harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
