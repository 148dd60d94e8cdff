/* SPDX-License-Identifier: MIT */
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

Harness *harness_start(const char *const *fixtures, const char *const *args) {
        Harness *h = calloc(1, sizeof(Harness));
        int r;

        assert_non_null(h);
        setup_daemon_user();
        /* What the tests create, the daemon's user must read, whatever the caller's umask. */
        if (daemon_unprivileged)
                umask(022);

        strcpy(h->tmpdir, "/tmp/rdmad-test-XXXXXX");
        assert_non_null(mkdtemp(h->tmpdir));
        /* Other users (the unprivileged callers of the polkit tests) must reach the bus socket. */
        assert_int_equal(chmod(h->tmpdir, 0755), 0);

        h->testbed = umockdev_testbed_new();
        if (daemon_unprivileged) {
                /* The daemon reads it, and umockdev's preload creates its
                 * uevent sockets there; sticky: nothing of the test's can go. */
                char *root = umockdev_testbed_get_root_dir(h->testbed);

                assert_int_equal(chown(root, 0, daemon_gid), 0);
                assert_int_equal(chmod(root, 01770), 0);
                g_free(root);
        }
        for (size_t i = 0; fixtures && fixtures[i]; i++) {
                GError *error = NULL;
                char path[512];

                if (fixtures[i][0] == '/') /* a generated host (the benchmark) */
                        snprintf(path, sizeof(path), "%s", fixtures[i]);
                else
                        snprintf(path, sizeof(path), "%s/%s.umockdev", FIXTURE_DIR, fixtures[i]);
                if (!umockdev_testbed_add_from_file(h->testbed, path, &error))
                        fail_msg("Cannot load %s: %s", path, error->message);
        }

        if (harness_prepare)
                harness_prepare(h);
        harness_grant_sriov(h);
        share_lsan_suppressions(h);

        start_bus(h);
        open_notify_socket(h);
        setenv("SYSTEMD_DEVICE_VERIFY_SYSFS", "0", 1);

        start_daemon(h, args);

        r = sd_bus_open_system(&h->bus);
        assert_int_equal(r, 0);
        r = sd_bus_match_signal(h->bus, NULL, RDMAD_BUS_NAME, NULL, NULL, NULL, on_signal, h);
        assert_true(r >= 0);
        /* The match is in place once the bus has answered a call. */
        r = sd_bus_call_method(h->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                               NULL, NULL, "");
        assert_true(r >= 0);
        return h;
}

int harness_stop(Harness *h) {
        int status;
        char cmd[128];

        if (!h)
                return 0;
        h->bus = sd_bus_flush_close_unref(h->bus);
        daemon_continue(h);
        status = stop_process(h->daemon_pid, 30000);
        harness_stop_polkit(h);
        stop_process(h->bus_pid, 5000);
        if (h->journal_pid > 0) {
                kill(h->journal_pid, SIGKILL);
                waitpid(h->journal_pid, NULL, 0);
        }
        close_notify_socket(h);
        harness_clear_signals(h);
        if (h->testbed)
                g_object_unref(h->testbed);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", h->tmpdir);
        if (system(cmd) != 0)
                fprintf(stderr, "harness: cannot remove %s\n", h->tmpdir);
        unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
        restore_lsan_options();
        free(h->address);
        free(h);
        return status;
}

int harness_teardown_clean(void **state) {
        int status = harness_stop(*state);

        harness_bus_policy = NULL;
        if (status != 0)
                fail_msg("rdmad did not exit cleanly on SIGTERM: wait status 0x%x", status);
        return 0;
}
