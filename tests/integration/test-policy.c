/* SPDX-License-Identifier: MIT */
/* The bus policy that ships (systemd/org.rdmad1.conf), installed into a
 * system bus configured like Debian's (deny by default, system.d), on the
 * bus RDMAD_TEST_BUS names: what it lets an unprivileged caller do, what it
 * and rdmad refuse without polkit, and who may own org.rdmad1. No test
 * policy of its own: this is what a host gets. And what every user may
 * read is all rdmad publishes: a device's Attributes leave out the files
 * only root or a group may read. */
#include <pwd.h>
#include <setjmp.h>
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

#define MLX5_0        "/org/rdmad1/device/mlx5_5f0"
#define SRIOV         MLX5_0 "/sriov"
#define ACCESS_DENIED "org.freedesktop.DBus.Error.AccessDenied"

static struct passwd nobody;

static int policy_setup(void **state) {
        struct passwd *pw = getpwnam("nobody");

        assert_non_null(pw);
        nobody = *pw;
        harness_bus_policy = NULL; /* the installed policy only */
        *state = harness_start(HARNESS_FIXTURES("mlx5-roce-sriov"), (const char *const[]){ "--poll-interval=0", NULL });
        return 0;
}

static void require_root(void) {
        if (geteuid() != 0) {
                fprintf(stderr, "skipping: needs root to run rdmad as rdmad and to call as nobody\n");
                skip();
        }
}

/* Everyone reads the model: properties, the object tree, lookups, introspection. */
static void test_unprivileged_reads_are_allowed(void **state) {
        Harness *h = *state;
        char *err;

        require_root();
        err = harness_call_as(h, nobody.pw_uid, nobody.pw_gid, RDMAD_BUS_NAME, MLX5_0 "/port/1",
                              "org.freedesktop.DBus.Properties", "Get", "ss", RDMAD_PORT_INTERFACE,
                              RDMAD_PORT_PROPERTY_STATE);
        assert_null(err);
        err = harness_call_as(h, nobody.pw_uid, nobody.pw_gid, RDMAD_BUS_NAME, MLX5_0,
                              "org.freedesktop.DBus.Properties", "GetAll", "s", RDMAD_DEVICE_INTERFACE);
        assert_null(err);
        err = harness_call_as(h, nobody.pw_uid, nobody.pw_gid, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                              "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", "");
        assert_null(err);
        err = harness_call_as(h, nobody.pw_uid, nobody.pw_gid, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                              "GetDeviceByName", "s", "mlx5_0");
        assert_null(err);
        err = harness_call_as(h, nobody.pw_uid, nobody.pw_gid, RDMAD_BUS_NAME, MLX5_0,
                              "org.freedesktop.DBus.Introspectable", "Introspect", "");
        assert_null(err);
        /* ResolveAddress reaches rdmad (its own answer, not the bus's AccessDenied). */
        err = harness_call_as(h, nobody.pw_uid, nobody.pw_gid, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                              RDMAD_METHOD_RESOLVE_ADDRESS, "s", "not-an-address");
        assert_non_null(err);
        assert_string_equal(err, SD_BUS_ERROR_INVALID_ARGS);
        free(err);
}

/* What changes the machine needs root or polkit's yes; no polkitd runs here. */
static void test_rescan_and_set_num_vfs_without_polkit_are_refused(void **state) {
        Harness *h = *state;
        char *err, *numvfs;

        require_root();
        err = harness_call_as(h, nobody.pw_uid, nobody.pw_gid, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                              RDMAD_METHOD_RESCAN, "");
        assert_non_null(err);
        assert_string_equal(err, ACCESS_DENIED);
        free(err);
        err = harness_call_as(h, nobody.pw_uid, nobody.pw_gid, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE,
                              RDMAD_METHOD_SET_NUM_VFS, "u", 4);
        assert_non_null(err);
        assert_string_equal(err, ACCESS_DENIED);
        free(err);
        numvfs = harness_read(h, "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0", "sriov_numvfs");
        assert_string_equal(numvfs, "1\n");
        free(numvfs);
        /* Not in the policy at all: the bus itself refuses, rdmad never sees it. */
        err = harness_call_as(h, nobody.pw_uid, nobody.pw_gid, RDMAD_BUS_NAME, SRIOV, "org.freedesktop.DBus.Properties",
                              "Set", "ssv", RDMAD_SRIOV_INTERFACE, RDMAD_SRIOV_PROPERTY_NUM_VFS, "u", 4);
        assert_non_null(err);
        assert_string_equal(err, ACCESS_DENIED);
        free(err);
}

/* The daemon (run as the system user rdmad, as systemd runs it) owns the
 * name; nobody and root are refused it by the bus. */
static void test_only_the_rdmad_user_owns_the_name(void **state) {
        Harness *h = *state;
        struct passwd *rdmad_user = getpwnam("rdmad");
        char *err;

        require_root();
        assert_non_null(rdmad_user);
        assert_int_equal(harness_name_owner_uid(h, RDMAD_BUS_NAME), rdmad_user->pw_uid);

        for (int i = 0; i < 2; i++) {
                uid_t uid = i == 0 ? nobody.pw_uid : 0;
                gid_t gid = i == 0 ? nobody.pw_gid : 0;

                err = harness_request_name_as(h, uid, gid, RDMAD_BUS_NAME);
                assert_non_null(err);
                assert_string_equal(err, ACCESS_DENIED);
                free(err);
        }
}

/* An operator who starts rdmad by hand as root is told why it cannot go
 * on the bus: it exits 1 with the name and the refusal. Both buses refuse
 * with AccessDenied, which sd-bus turns into EACCES; their own messages
 * differ ("... is not allowed to own the service ..." from dbus-daemon,
 * "Request to own name refused by policy" from dbus-broker), and rdmad
 * depends on neither. */
static void test_rdmad_as_root_is_refused_the_name_and_says_so(void **state) {
        Harness *h = *state;
        char cmd[512], *out;
        int status;

        require_root();
        harness_stop_daemon(h); /* the name is free: the policy alone refuses */
        snprintf(cmd, sizeof(cmd), "%s --poll-interval=0", getenv("RDMAD_BINARY"));
        out = harness_run_command(h, cmd, &status);
        fprintf(stderr, "%s (%s):\n%s", cmd, harness_bus_name(), out);
        assert_int_equal(status, 1);
        if (!strstr(out, "Failed to acquire the name " RDMAD_BUS_NAME ": Permission denied"))
                fail_msg("expected rdmad to name the refusal, got:\n%s", out);
        free(out);

        /* The bus's own wording, through dbus-send as root (busctl prints only the errno's). */
        out = harness_run_command(h,
                                  "dbus-send --system --print-reply --dest=org.freedesktop.DBus "
                                  "/org/freedesktop/DBus org.freedesktop.DBus.RequestName "
                                  "string:" RDMAD_BUS_NAME " uint32:0",
                                  &status);
        fprintf(stderr, "RequestName as root on %s: %s", harness_bus_name(), out);
        assert_non_null(strstr(out, ACCESS_DENIED));
        assert_int_not_equal(status, 0);
        if (harness_bus_is_broker())
                assert_non_null(strstr(out, "refused by policy"));
        else
                assert_non_null(strstr(out, "not allowed to own the service \"" RDMAD_BUS_NAME "\""));
        free(out);
        harness_start_daemon(h, (const char *const[]){ "--poll-interval=0", NULL });
}

/* ---- Attributes: only what every user may read ---- */

#define MLX5_IB_SYS_ATTR "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/infiniband/mlx5_0"

static void prepare_private_attributes(Harness *h) {
        char *root = umockdev_testbed_get_root_dir(h->testbed), path[1024];

        harness_write(h, MLX5_IB_SYS_ATTR, "root_only", "secret\n");
        harness_write(h, MLX5_IB_SYS_ATTR, "group_only", "secret\n");
        harness_write(h, MLX5_IB_SYS_ATTR, "for_everyone", "public\n");
        snprintf(path, sizeof(path), "%s%s/root_only", root, MLX5_IB_SYS_ATTR);
        assert_int_equal(chmod(path, 0400), 0);
        snprintf(path, sizeof(path), "%s%s/group_only", root, MLX5_IB_SYS_ATTR);
        assert_int_equal(chmod(path, 0440), 0);
        snprintf(path, sizeof(path), "%s%s/for_everyone", root, MLX5_IB_SYS_ATTR);
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
        char *attrs = harness_get_property(h, "/org/rdmad1/device/mlx5_5f0", RDMAD_DEVICE_INTERFACE,
                                           RDMAD_DEVICE_PROPERTY_ATTRIBUTES, NULL);

        assert_non_null(attrs);
        assert_non_null(strstr(attrs, "\"for_everyone\": \"public\""));
        assert_null(strstr(attrs, "root_only"));
        assert_null(strstr(attrs, "group_only"));
        assert_null(strstr(attrs, "secret"));
        free(attrs);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_unprivileged_reads_are_allowed, policy_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rescan_and_set_num_vfs_without_polkit_are_refused, policy_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_only_the_rdmad_user_owns_the_name, policy_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rdmad_as_root_is_refused_the_name_and_says_so, policy_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_attributes_publish_only_what_every_user_may_read, attributes_setup,
                                                harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
