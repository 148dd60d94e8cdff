/* SPDX-License-Identifier: MIT */
/* Hostile sysfs and uevents: sysfs that no sane driver prints, devices
 * that vanish while being read, add and remove in one loop iteration,
 * renames under a pending WaitForState, a lost uevent, running out of file
 * descriptors. In every case the daemon stays up, publishes only what
 * exists, and says what happened. (Bad calls are test-bad-calls'; the bus
 * going away is test-service's.) */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <glib.h>

#include "harness.h"

#define MLX5_SYS "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/infiniband/mlx5_0"
#define MLX5_0   "/org/rdmad1/device/mlx5_5f0"
#define HFI1_SYS "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"
#define HFI1_0   "/org/rdmad1/device/hfi1_5f0"

#define HOSTILE_PCI "/devices/pci0000:00/0000:00:02.0"
#define HOSTILE_SYS "/sys" HOSTILE_PCI "/infiniband/hostile0"
#define HOSTILE_0   "/org/rdmad1/device/hostile0"
#define N_GIDS      10000

static const char *const fast_poll[] = { "--poll-interval=50", NULL };

static int live_setup(void **state) {
        *state = harness_start(HARNESS_FIXTURES("mlx5-roce-sriov", "hfi1"), fast_poll);
        return 0;
}

/* ---- helpers ---------------------------------------------------------- */

/* Signals whose body mentions `needle`. */
static size_t count_signals_mentioning(Harness *h, const char *needle) {
        size_t n = 0;

        for (size_t i = 0; i < h->n_signals; i++)
                if (strstr(h->signals[i].body, needle) || strstr(h->signals[i].path, needle))
                        n++;
        return n;
}

/* Every string and object path in the rest of m: valid UTF-8, no NUL. */
static size_t check_strings(sd_bus_message *m) {
        size_t n = 0;
        char type;
        const char *contents;

        while (sd_bus_message_peek_type(m, &type, &contents) > 0) {
                if (type == 's' || type == 'o' || type == 'g') {
                        const char *s;
                        assert_true(sd_bus_message_read_basic(m, type, &s) > 0);
                        if (!g_utf8_validate(s, -1, NULL))
                                fail_msg("not UTF-8 on the bus: \"%s\"", s);
                        n++;
                } else if (type == 'a' || type == 'r' || type == 'e' || type == 'v') {
                        assert_true(sd_bus_message_enter_container(m, type, contents) >= 0);
                        n += check_strings(m);
                        assert_true(sd_bus_message_exit_container(m) >= 0);
                } else
                        assert_true(sd_bus_message_skip(m, NULL) >= 0);
        }
        return n;
}

static size_t check_managed_objects_utf8(Harness *h) {
        sd_bus_message *reply = NULL;
        size_t n;

        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                                       "GetManagedObjects", NULL, &reply, "") >= 0);
        n = check_strings(reply);
        sd_bus_message_unref(reply);
        return n;
}

/* ---- hostile sysfs ---------------------------------------------------- */

static char hostile_fixture[128];

/* A device no driver would print: numbers that overflow 32 bits, negative
 * and empty hex, binary and non-UTF-8 bytes, a megabyte attribute,
 * directories and dangling links where files belong, port directories "0"
 * and "abc", a netdev whose name is not UTF-8, and a 10 000-entry GID table. */
static void write_hostile_fixture(const char *path) {
        FILE *f = fopen(path, "we");

        assert_non_null(f);
        fprintf(f, "P: " HOSTILE_PCI "\nE: SUBSYSTEM=pci\n"
                   "A: sriov_totalvfs=4294967296\\n\nA: sriov_numvfs=-1\\n\n"
                   "L: driver=../../../bus/pci/drivers/mlx5_core\n\n");
        fprintf(f, "P: " HOSTILE_PCI "/infiniband/hostile0\nE: SUBSYSTEM=infiniband\nE: NAME=hostile0\n"
                   "A: node_type=4294967296: CA\\n\n"
                   "H: node_guid=fffe00c328\n"
                   "H: fw_ver=31002e00ff00320a\n"
                   "A: hca_type/nested=1\\n\n"
                   "L: board_id=../../../nonexistent/board\n"
                   "H: node_desc=c3286e6f6465\n"
                   "L: device=../../../0000:00:02.0\n"
                   "A: ports/0/state=4: ACTIVE\\n\n"
                   "A: ports/0/link_layer=InfiniBand\\n\n"
                   "A: ports/abc/state=4: ACTIVE\\n\n"
                   "A: ports/1/state=4294967296: ACTIVE\\n\n"
                   "A: ports/1/phys_state=-1: LinkUp\\n\n"
                   "A: ports/1/rate=4294967296 Gb/sec (4X EDR)\\n\n"
                   "A: ports/1/lid=4294967296\\n\n"
                   "A: ports/1/sm_lid=-1\\n\n"
                   "A: ports/1/lid_mask_count=0x\\n\n"
                   "A: ports/1/sm_sl=0x100000000\\n\n"
                   "A: ports/1/cap_mask=99999999999999999999\\n\n"
                   "A: ports/1/link_layer=Ethernet\\n\n");
        fprintf(f, "A: hw_rev=");
        for (int i = 0; i < 1024 * 1024; i++)
                fputc('x', f);
        fprintf(f, "\\n\n");
        fprintf(f, "\n");
        assert_int_equal(fclose(f), 0);
}

static void write_file(const char *dir, const char *name, const char *value) {
        char path[1024];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "we");
        if (!f)
                fail_msg("Cannot write %s: %m", path);
        fputs(value, f);
        assert_int_equal(fclose(f), 0);
}

/* What umockdev cannot describe (a path that is not UTF-8), or only slowly
 * (20 000 attributes), written straight into the testbed. */
static void prepare_hostile(Harness *h) {
        char *root = umockdev_testbed_get_root_dir(h->testbed), dir[1024], name[64], value[128];

        snprintf(dir, sizeof(dir), "%s/sys" HOSTILE_PCI "/net", root);
        assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
        snprintf(dir, sizeof(dir),
                 "%s/sys" HOSTILE_PCI "/net/eth\xff\xfe"
                 "0",
                 root);
        assert_int_equal(mkdir(dir, 0755), 0);
        write_file(dir, "dev_port", "0\n");
        write_file(dir, "operstate", "up\n");
        write_file(dir, "mtu", "99999999999\n");
        write_file(dir, "address", "\xff\x00\xfe\n");

        snprintf(dir, sizeof(dir), "%s" HOSTILE_SYS "/ports/1/gids", root);
        assert_int_equal(mkdir(dir, 0755), 0);
        for (int i = 0; i < N_GIDS; i++) {
                snprintf(name, sizeof(name), "%d", i);
                snprintf(value, sizeof(value), "fe80:0000:0000:0000:0000:0000:%04x:%04x\n", i >> 8, i & 0xff);
                write_file(dir, name, value);
        }
        snprintf(dir, sizeof(dir), "%s" HOSTILE_SYS "/ports/1/gid_attrs", root);
        assert_int_equal(mkdir(dir, 0755), 0);
        strcat(dir, "/types");
        assert_int_equal(mkdir(dir, 0755), 0);
        for (int i = 0; i < N_GIDS; i++) {
                snprintf(name, sizeof(name), "%d", i);
                write_file(dir, name, i % 2 ? "RoCE v2\n" : "IB/RoCE v1\n");
        }
        g_free(root);
}

static int hostile_setup(void **state) {
        snprintf(hostile_fixture, sizeof(hostile_fixture), "/tmp/rdmad-hostile-%d.umockdev", (int) getpid());
        write_hostile_fixture(hostile_fixture);
        harness_prepare = prepare_hostile;
        *state = harness_start(HARNESS_FIXTURES(hostile_fixture, "mlx5-roce-sriov"), fast_poll);
        harness_prepare = NULL;
        return 0;
}

static int hostile_teardown(void **state) {
        unlink(hostile_fixture);
        return harness_teardown_clean(state);
}

static size_t count_occurrences(const char *s, const char *needle) {
        size_t n = 0;
        for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
                n++;
        return n;
}

static void test_hostile_sysfs_publishes_what_it_can(void **state) {
        Harness *h = *state;
        char *gids, *attrs, *netdevs;
        Objects *o;
        size_t strings;

        /* The well-behaved device next to it is untouched. */
        harness_assert_property(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE");

        /* Ports "0" and "1"; "abc" is not a port. */
        harness_assert_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_PORT_NUMBERS, "[0, 1]");
        harness_assert_property(h, HOSTILE_0 "/port/0", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE");

        /* Out of range, negative, empty hex: 0, and the raw text kept as it was. */
        harness_assert_property(h, HOSTILE_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NUM, "0");
        /* A state that does not parse is a failed read, not a state (issue 42):
         * none known before, so none, and Health names the file. */
        harness_assert_property(h, HOSTILE_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE, "");
        harness_assert_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_HEALTH, "errors");
        harness_assert_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_HEALTH_REASON,
                                "ports/1/state: Bad message");
        harness_assert_property(h, HOSTILE_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_PHYS_STATE_NUM, "0");
        harness_assert_property(h, HOSTILE_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LID, "0");
        harness_assert_property(h, HOSTILE_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_SM_LID, "0");
        harness_assert_property(h, HOSTILE_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LID_MASK_COUNT, "0");
        harness_assert_property(h, HOSTILE_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_SM_SL, "0");
        harness_assert_property(h, HOSTILE_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_CAP_MASK, "0");
        harness_assert_property(h, HOSTILE_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_RATE,
                                "4294967296 Gb/sec (4X EDR)");
        harness_assert_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_DEVICES,
                                "[\"/org/rdmad1/device/hostile0\", \"/org/rdmad1/device/mlx5_5f0\", "
                                "\"/org/rdmad1/device/mlx5_5f1\"]");
        harness_assert_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_SRIOV, HOSTILE_0 "/sriov");

        /* Binary and non-UTF-8 bytes: U+FFFD; a directory or a dangling link: "". */
        harness_assert_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_FIRMWARE_VERSION,
                                "1\xef\xbf\xbd.\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                                "2");
        harness_assert_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NODE_DESCRIPTION,
                                "\xef\xbf\xbd(node");
        harness_assert_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_HCA_TYPE, "");
        harness_assert_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_BOARD_ID, "");
        harness_assert_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NODE_TYPE,
                                ""); /* "4294967296: CA" is no node type */
        harness_assert_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_DRIVER, "mlx5_core");
        /* A megabyte file: cut at one page. */
        {
                char *hw_rev =
                        harness_get_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_HW_REV, NULL);
                assert_non_null(hw_rev);
                assert_int_equal(strlen(hw_rev), 4096);
                free(hw_rev);
        }
        attrs = harness_get_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_ATTRIBUTES, NULL);
        assert_non_null(attrs);
        assert_null(strstr(attrs, "\"hca_type\""));
        assert_null(strstr(attrs, "\"board_id\""));
        free(attrs);

        /* SR-IOV numbers that do not fit: capable, 0 and 0. */
        harness_assert_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_SRIOV_CAPABLE, "true");
        harness_assert_property(h, HOSTILE_0 "/sriov", RDMAD_SRIOV_INTERFACE, RDMAD_SRIOV_PROPERTY_TOTAL_VFS, "0");
        harness_assert_property(h, HOSTILE_0 "/sriov", RDMAD_SRIOV_INTERFACE, RDMAD_SRIOV_PROPERTY_NUM_VFS, "0");

        /* The netdev whose name is not UTF-8: published under a valid one. */
        netdevs = harness_get_property(h, HOSTILE_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NETDEVS, NULL);
        assert_non_null(netdevs);
        assert_int_equal(count_occurrences(netdevs, "/netdev/"), 1);
        free(netdevs);
        o = get_managed_objects(h);
        {
                bool found = false;
                for (size_t i = 0; i < o->n; i++)
                        if (o->entries[i].name && !strcmp(o->entries[i].interface, RDMAD_NETDEV_INTERFACE) &&
                            !strcmp(o->entries[i].name, RDMAD_DEVICE_PROPERTY_NAME) &&
                            strstr(o->entries[i].path, HOSTILE_0)) {
                                assert_string_equal(o->entries[i].value, "eth\xef\xbf\xbd\xef\xbf\xbd"
                                                                         "0");
                                found = true;
                        }
                assert_true(found);
        }
        objects_free(o);

        /* All 10 000 GIDs, in order, with their types. */
        gids = harness_get_property(h, HOSTILE_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_GIDS, NULL);
        assert_non_null(gids);
        assert_int_equal(count_occurrences(gids, "("), N_GIDS);
        assert_int_equal(count_occurrences(gids, "RoCE v2"), N_GIDS / 2);
        assert_non_null(strstr(gids, "[(0, \"fe80:0000:0000:0000:0000:0000:0000:0000\""));
        assert_non_null(strstr(gids, "(9999, \"fe80:0000:0000:0000:0000:0000:0027:000f\", \"RoCE v2\", \"\")]"));
        free(gids);

        /* Every string of the whole tree is valid UTF-8. */
        strings = check_managed_objects_utf8(h);
        assert_true(strings > 2 * N_GIDS);
        printf("hostile sysfs: %zu strings in GetManagedObjects, all valid UTF-8\n", strings);

        /* A rescan of the same hostile tree changes nothing. */
        harness_clear_signals(h);
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       RDMAD_METHOD_RESCAN, NULL, NULL, "") >= 0);
        /* Its changes, were there any, come after its answer: a window, no barrier. */
        harness_observe(h, 300, "the Rescan's signals, of which there must be none");
        assert_int_equal(h->n_signals, 0);
        harness_assert_daemon_answers(h);
}

/* ---- races ------------------------------------------------------------ */

#define GHOST_SYS "/sys/devices/virtual/infiniband/ghost0"
#define GHOST_RECORD                                                                                                   \
        "P: /devices/virtual/infiniband/ghost0\nE: SUBSYSTEM=infiniband\nE: NAME=ghost0\n"                             \
        "A: node_type=1: CA\\n\nA: ports/1/state=4: ACTIVE\\n\nA: ports/1/link_layer=InfiniBand\\n\n"

/* A "change" uevent for a device whose directory is gone by the time the
 * daemon reads it: the device is removed, announced once. */
static void test_device_gone_between_uevent_and_read(void **state) {
        Harness *h = *state;

        harness_clear_signals(h);
        harness_pause(h);
        umockdev_testbed_uevent(h->testbed, HFI1_SYS, "change");
        harness_remove(h, HFI1_SYS);
        harness_remove(h, "/sys/class/infiniband/hfi1_0");
        harness_resume(h);

        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved", 2);
        harness_ping(h); /* every signal of the batch is in */
        assert_int_equal(harness_count_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved"), 2);
        assert_int_equal(harness_count_signals(h, RDMAD_ROOT_PATH, "InterfacesAdded"), 0);
        assert_null(harness_get_property(h, HFI1_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NAME, NULL));
        harness_assert_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_DEVICES,
                                "[\"/org/rdmad1/device/mlx5_5f0\", \"/org/rdmad1/device/mlx5_5f1\"]");
        harness_assert_daemon_answers(h);
}

/* Added and removed before the daemon looks: it never existed, so nothing
 * is said about it at all. Then the reverse: removed and added back. */
static void test_add_and_remove_within_one_iteration(void **state) {
        Harness *h = *state;

        harness_clear_signals(h);
        harness_pause(h);
        harness_add_device(h, GHOST_RECORD); /* sends "add" */
        umockdev_testbed_uevent(h->testbed, GHOST_SYS, "remove");
        umockdev_testbed_remove_device(h->testbed, GHOST_SYS);
        harness_resume(h);
        /* Nothing to wait for, and the daemon's next look at udev proves nothing: a window. */
        harness_observe(h, 500, "signals about a device that came and went while rdmad was stopped: none");
        assert_int_equal(count_signals_mentioning(h, "ghost0"), 0);
        assert_int_equal(h->n_signals, 0);
        assert_null(harness_get_property(h, "/org/rdmad1/device/ghost0", RDMAD_DEVICE_INTERFACE,
                                         RDMAD_DEVICE_PROPERTY_NAME, NULL));

        /* Present, then removed and re-added in one go: it is still there afterwards. */
        harness_add_device(h, GHOST_RECORD);
        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesAdded", 2);
        harness_ping(h);
        harness_clear_signals(h);
        harness_pause(h);
        umockdev_testbed_uevent(h->testbed, GHOST_SYS, "remove");
        umockdev_testbed_remove_device(h->testbed, GHOST_SYS);
        harness_add_device(h, GHOST_RECORD);
        harness_resume(h);
        harness_wait_property(h, "/org/rdmad1/device/ghost0/port/1", RDMAD_PORT_INTERFACE,
                              RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE", 0);
        harness_observe(h, 500, "the rest of what the remove and the add announce");
        harness_assert_property(h, "/org/rdmad1/device/ghost0/port/1", RDMAD_PORT_INTERFACE,
                                RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE");
        /* Whatever was announced, removals and additions balance. */
        assert_int_equal(harness_count_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved"),
                         harness_count_signals(h, RDMAD_ROOT_PATH, "InterfacesAdded"));
        harness_assert_daemon_answers(h);
}

/* A scan that meets a device whose directory is gone (its class link left
 * dangling), then a scan of a sysfs without the class directory at all. */
static void test_device_gone_in_the_middle_of_a_scan(void **state) {
        Harness *h = *state;

        harness_remove(h, HFI1_SYS);
        harness_clear_signals(h);
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       RDMAD_METHOD_RESCAN, NULL, NULL, "") >= 0);
        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved", 2);
        harness_ping(h);
        assert_int_equal(harness_count_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved"), 2);
        for (size_t i = 0; i < h->n_signals; i++)
                if (strstr(h->signals[i].path, "mlx5") ||
                    (strcmp(h->signals[i].member, "PropertiesChanged") != 0 && strstr(h->signals[i].body, "mlx5")))
                        fail_msg("a signal about mlx5: %s %s %s", h->signals[i].path, h->signals[i].member,
                                 h->signals[i].body);
        harness_assert_property(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE");

        harness_remove(h, "/sys/class/infiniband");
        harness_clear_signals(h);
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       RDMAD_METHOD_RESCAN, NULL, NULL, "") >= 0);
        harness_wait_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_DEVICES, "[]", 20000);
        harness_assert_daemon_answers(h);
}

/* "rdma dev set hfi1_0 name opa0" while a client waits on hfi1_0's port:
 * the wait ends with NoSuchDevice (its object is gone), once; the new name
 * can be waited on at once. */
static void test_rename_while_waiting(void **state) {
        Harness *h = *state;
        AsyncReply a = {};

        assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE,
                                             RDMAD_METHOD_WAIT_FOR_STATE, harness_on_reply, &a, "su", "ARMED",
                                             60000) >= 0);
        harness_ping(h); /* held: not answered before the Ping */
        assert_false(a.done);

        harness_rename_device(h, HFI1_SYS, "opa0");

        harness_wait_reply(h, &a, 10000, "WaitForState(ARMED) on a renamed device");
        assert_string_equal(a.error_name, RDMAD_ERROR_NO_SUCH_DEVICE);
        async_reply_clear(&a);
        harness_ping(h); /* a second reply would come before the Ping's, and fail harness_on_reply's assertion */

        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, "/org/rdmad1/device/opa0/port/1", RDMAD_PORT_INTERFACE,
                                       RDMAD_METHOD_WAIT_FOR_STATE, NULL, NULL, "su", "ACTIVE", 1000) >= 0);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownObject", HFI1_0 "/port/1", RDMAD_PORT_INTERFACE,
                                  RDMAD_METHOD_WAIT_FOR_STATE, "su", "ACTIVE", 1000);
}

/* ---- bad calls -------------------------------------------------------- */

/* ---- faults ----------------------------------------------------------- */

static char enobufs_trigger[128];

static int overflow_setup(void **state) {
        snprintf(enobufs_trigger, sizeof(enobufs_trigger), "/tmp/rdmad-enobufs-%d", (int) getpid());
        setenv("RDMAD_FAULT_ENOBUFS", enobufs_trigger, 1);
        harness_daemon_preload = FAULT_INJECT;
        harness_capture_daemon_log = true;
        *state = harness_start(HARNESS_FIXTURES("mlx5-roce-sriov", "hfi1"), fast_poll);
        harness_daemon_preload = NULL;
        harness_capture_daemon_log = false;
        unsetenv("RDMAD_FAULT_ENOBUFS");
        return 0;
}

static int overflow_teardown(void **state) {
        unlink(enobufs_trigger);
        return harness_teardown_clean(state);
}

/* The monitor socket overflows and the uevent of a hot-add is lost: the
 * daemon learns of the loss (ENOBUFS), rescans, and finds the device. */
static void test_lost_uevent_resyncs(void **state) {
        Harness *h = *state;
        char *log;
        int fd;

        fd = open(enobufs_trigger, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
        harness_give_to_daemon(enobufs_trigger); /* /tmp is sticky: only its owner removes it */
        harness_clear_signals(h);
        harness_add_device(h, GHOST_RECORD); /* its "add" is the datagram that gets lost */

        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesAdded", 2);
        assert_int_equal(access(enobufs_trigger, F_OK), -1); /* the fault did happen */
        harness_assert_property(h, "/org/rdmad1/device/ghost0/port/1", RDMAD_PORT_INTERFACE,
                                RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE");
        log = harness_daemon_log(h);
        if (!strstr(log, "udev monitor overflowed; resynchronising with sysfs."))
                fail_msg("no overflow message in the log:\n%s", log);
        free(log);

        /* And the monitor keeps working afterwards. */
        harness_clear_signals(h);
        umockdev_testbed_uevent(h->testbed, GHOST_SYS, "remove");
        umockdev_testbed_remove_device(h->testbed, GHOST_SYS);
        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved", 2);
        harness_assert_daemon_answers(h);
}

static int logged_setup(void **state) {
        harness_capture_daemon_log = true;
        *state = harness_start(HARNESS_FIXTURES("mlx5-roce-sriov", "hfi1"), fast_poll);
        harness_capture_daemon_log = false;
        return 0;
}

/* The lowest descriptor number the daemon has free: where its next open lands. */
static int lowest_free_fd(Harness *h) {
        for (int fd = 0;; fd++) {
                char path[64];

                snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int) h->daemon_pid, fd);
                if (access(path, F_OK) < 0)
                        return fd;
        }
}

/* A state read that does not parse ("", a torn or garbled value) is a
 * failed read, not a state (issue 42: it was published as "ACTIVE -> " and
 * back, two false flaps): no transition, no flap counted, the last state
 * kept, in the poll's reads and in a full re-read alike, and the device's
 * Health says which file failed. A clean full read clears it. */
static void test_unparseable_state_is_a_failed_read(void **state) {
        Harness *h = *state;
        static const char *const garbage[] = { "", "\n", "ACTIVE\n", "4 ACTIVE\n", "\xff\xfe\n" };

        harness_clear_signals(h);
        for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
                harness_write(h, HFI1_SYS, "ports/1/state", garbage[i]);
                harness_wait_property(h, HFI1_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_HEALTH_REASON,
                                      "ports/1/state: Bad message", 10000);
                /* A full re-read finds the same garbage: still no state of it. */
                umockdev_testbed_uevent(h->testbed, HFI1_SYS, "change");
                harness_assert_daemon_answers(h);
                harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE,
                                        "4: ACTIVE");
                harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGES,
                                        "0");
                harness_assert_property(h, HFI1_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_HEALTH, "errors");
                harness_write(h, HFI1_SYS, "ports/1/state", "4: ACTIVE\n");
                umockdev_testbed_uevent(h->testbed, HFI1_SYS, "change");
                harness_wait_property(h, HFI1_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_HEALTH, "ok", 10000);
        }
        assert_int_equal(count_signals_mentioning(h, "\"State\""), 0);
        assert_int_equal(count_signals_mentioning(h, RDMAD_PORT_PROPERTY_STATE_CHANGES), 0);

        /* A real change still is one. */
        harness_write(h, HFI1_SYS, "ports/1/state", "1: DOWN\n");
        harness_wait_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE, "1: DOWN", 10000);
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGES, "1");
}

/* The soft limit only, as a hard limit once lowered cannot be raised again. */
static void set_fd_limit(Harness *h, rlim_t limit) {
        struct rlimit rl;

        harness_daemon_prlimit(h, RLIMIT_NOFILE, NULL, &rl);
        rl.rlim_cur = limit;
        harness_daemon_prlimit(h, RLIMIT_NOFILE, &rl, NULL);
}

/* Out of file descriptors: a hot-added device cannot be read, and a change
 * to a published one cannot be re-read. Neither is taken for "gone": the
 * published device stays, the new one waits; the error is logged once; the
 * next event after descriptors are free again catches up. */
static void test_out_of_file_descriptors(void **state) {
        Harness *h = *state;
        struct rlimit old;
        int lowest_free;
        char *log;

        harness_daemon_prlimit(h, RLIMIT_NOFILE, NULL, &old);
        lowest_free = lowest_free_fd(h);
        /* Room for one more: a device directory opens, its contents do not.
         * (Descriptors above the limit stay usable: valgrind keeps its own there.) */
        set_fd_limit(h, lowest_free + 1);
        harness_clear_signals(h);

        harness_add_device(h, GHOST_RECORD);
        harness_write(h, MLX5_SYS, "node_desc", "changed while out of descriptors\n");
        umockdev_testbed_uevent(h->testbed, MLX5_SYS, "change");
        harness_wait_log(h, "failed to read sysfs: Too many open files.");
        /* Poll ticks at 50 ms fail too, and must not log again: a window for a dozen of them. */
        harness_observe(h, 700, "the poll's failed reads");
        assert_int_equal(count_signals_mentioning(h, "ghost0"), 0);
        assert_int_equal(harness_count_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved"), 0);
        harness_assert_property(h, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NAME, "mlx5_0");
        harness_assert_property(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE");
        harness_assert_daemon_answers(h);
        log = harness_daemon_log(h);
        if (!strstr(log,
                    "failed to read sysfs: Too many open files. Keeping the last known state; retrying on the next "
                    "event."))
                fail_msg("no EMFILE message in the log:\n%s", log);
        /* Once per episode, however many events and poll ticks failed. */
        if (count_occurrences(log, "Too many open files") != 1)
                fail_msg("the EMFILE episode logged more than once:\n%s", log);
        free(log);

        /* Descriptors are back; the next event retries everything. */
        set_fd_limit(h, old.rlim_cur);
        umockdev_testbed_uevent(h->testbed, HFI1_SYS, "change");
        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesAdded", 2);
        harness_assert_property(h, "/org/rdmad1/device/ghost0/port/1", RDMAD_PORT_INTERFACE,
                                RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE");
        /* The resync's reads come back device by device. */
        harness_wait_property(h, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NODE_DESCRIPTION,
                              "changed while out of descriptors", 10000);
        assert_int_equal(harness_count_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved"), 0);
        log = harness_daemon_log(h);
        assert_non_null(strstr(log, "Resynchronised with sysfs."));
        free(log);
        harness_assert_daemon_answers(h);
}

/* The bus goes away (dbus-daemon stopped for a restart, here with SIGTERM;
 * SIGKILL is in test-service): rdmad exits with a failure at once, so that
 * systemd's Restart=on-failure brings it back on the new bus. */
int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_hostile_sysfs_publishes_what_it_can, hostile_setup,
                                                hostile_teardown),
                cmocka_unit_test_setup_teardown(test_device_gone_between_uevent_and_read, live_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_add_and_remove_within_one_iteration, live_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_device_gone_in_the_middle_of_a_scan, live_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rename_while_waiting, live_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_unparseable_state_is_a_failed_read, live_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_lost_uevent_resyncs, overflow_setup, overflow_teardown),
                cmocka_unit_test_setup_teardown(test_out_of_file_descriptors, logged_setup, harness_teardown_clean),
        };

        if (!harness_private_network())
                fprintf(stderr, "test-hostile: running on the host network\n");
        return cmocka_run_group_tests(tests, NULL, NULL);
}
