/* SPDX-License-Identifier: MIT */
/* The live model: hotplug, rename, link flaps, netdevs, SR-IOV changes and
 * WaitForState, driven by umockdev uevents and rewritten sysfs files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#define MLX5_SYS     "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/infiniband/mlx5_0"
#define MLX5_PF_SYS  "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0"
#define MLX5_NET_SYS MLX5_PF_SYS "/net/ens1f0np0"
#define MLX5_0       "/org/rdmad1/device/mlx5_5f0"
#define MLX5_VF_SYS  "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.2/infiniband/mlx5_1"
#define MLX5_1       "/org/rdmad1/device/mlx5_5f1"
#define HFI1_SYS     "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"
#define HFI1_0       "/org/rdmad1/device/hfi1_5f0"

static bool private_network;

static const char *const fast_poll[] = { "--poll-interval=50", NULL };

static int live_setup(void **state) {
        *state = harness_start(HARNESS_FIXTURES("mlx5-roce-sriov", "hfi1"), fast_poll);
        return 0;
}

static void test_hot_add_and_remove(void **state) {
        Harness *h = *state;
        Objects *o;

        harness_clear_signals(h);
        harness_add_rxe5(h);
        /* umockdev_testbed_add_from_string() sends the "add" uevent itself. */

        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesAdded", 2);
        harness_wait_signals(h, RDMAD_ROOT_PATH, "PropertiesChanged", 1);
        harness_ping(h); /* every signal of the batch is in */
        assert_int_equal(harness_count_signals(h, RDMAD_ROOT_PATH, "InterfacesAdded"), 2);
        assert_non_null(strstr(h->signals[0].body, "\"/org/rdmad1/device/rxe5\" {"));
        assert_non_null(strstr(h->signals[0].body, "\"org.rdmad1.Device\": {\"Name\": \"rxe5\""));
        assert_non_null(strstr(h->signals[1].body, "\"/org/rdmad1/device/rxe5/port/1\""));
        assert_non_null(strstr(harness_find_signal(h, RDMAD_ROOT_PATH, "PropertiesChanged")->body,
                               "\"Devices\": [\"/org/rdmad1/device/hfi1_5f0\", \"/org/rdmad1/device/mlx5_5f0\", "
                               "\"/org/rdmad1/device/mlx5_5f1\", \"/org/rdmad1/device/rxe5\"]"));

        o = get_managed_objects(h);
        assert_non_null(
                objects_get(o, "/org/rdmad1/device/rxe5/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE));
        objects_free(o);

        /* Hot-remove: removals announced children first, the list shrinks. */
        harness_clear_signals(h);
        umockdev_testbed_uevent(h->testbed, "/sys/devices/virtual/infiniband/rxe5", "remove");
        umockdev_testbed_remove_device(h->testbed, "/sys/devices/virtual/infiniband/rxe5");
        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved", 2);
        harness_wait_signals(h, RDMAD_ROOT_PATH, "PropertiesChanged", 1);
        harness_ping(h);
        assert_int_equal(harness_count_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved"), 2);
        assert_non_null(strstr(h->signals[0].body, "\"/org/rdmad1/device/rxe5/port/1\""));
        assert_non_null(strstr(h->signals[1].body, "\"/org/rdmad1/device/rxe5\" [\"org.freedesktop.DBus.Peer\""));
        harness_assert_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_DEVICES,
                                "[\"/org/rdmad1/device/hfi1_5f0\", \"/org/rdmad1/device/mlx5_5f0\", "
                                "\"/org/rdmad1/device/mlx5_5f1\"]");
        assert_null(harness_get_property(h, "/org/rdmad1/device/rxe5", RDMAD_DEVICE_INTERFACE,
                                         RDMAD_DEVICE_PROPERTY_NAME, NULL));
}

static void test_rename_via_move(void **state) {
        Harness *h = *state;
        /* "rdma dev set hfi1_0 name opa0": the kernel renames the directory and sends only "move". */
        harness_clear_signals(h);
        harness_rename_device(h, HFI1_SYS, "opa0");

        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesAdded", 2);
        harness_ping(h);
        assert_int_equal(harness_count_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved"), 2);
        assert_int_equal(harness_count_signals(h, RDMAD_ROOT_PATH, "InterfacesAdded"), 2);
        /* Removed before added. */
        assert_string_equal(h->signals[0].member, "InterfacesRemoved");
        assert_non_null(strstr(h->signals[1].body, "\"" HFI1_0 "\" ["));
        assert_non_null(strstr(h->signals[2].body, "\"/org/rdmad1/device/opa0\" {"));
        harness_assert_property(
                h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_DEVICES,
                "[\"/org/rdmad1/device/mlx5_5f0\", \"/org/rdmad1/device/mlx5_5f1\", \"/org/rdmad1/device/opa0\"]");
        harness_assert_property(h, "/org/rdmad1/device/opa0", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_DRIVER,
                                "hfi1");
        assert_null(harness_get_property(h, HFI1_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NAME, NULL));
}

static void test_port_flap_is_one_signal_with_exactly_the_changes(void **state) {
        Harness *h = *state;
        const Signal *s;
        char *names, *usec;

        harness_ping(h); /* what the start-up had to say is in, and cleared */
        harness_clear_signals(h);

        /* Down: state and phys_state change together between two ticks. */
        harness_pause(h);
        harness_write(h, HFI1_SYS, "ports/1/state", "1: DOWN\n");
        harness_write(h, HFI1_SYS, "ports/1/phys_state", "3: Disabled\n");
        harness_resume(h);
        harness_wait_signals(h, HFI1_0 "/port/1", "PropertiesChanged", 1);
        /* No tick can be awaited: six at 50 ms, in which a second signal would come. */
        harness_observe(h, 300, "several more ticks: nothing more to say");
        assert_int_equal(h->n_signals, 1);
        s = harness_find_signal(h, HFI1_0 "/port/1", "PropertiesChanged");
        names = signal_changed_names(s);
        assert_string_equal(names, "State StateNum StateName PhysState PhysStateNum PhysStateName Attributes "
                                   "StateChangedUsec StateChanges");
        free(names);
        assert_non_null(strstr(s->body, "\"State\": \"1: DOWN\", \"StateNum\": 1, \"StateName\": \"DOWN\""));
        usec = harness_get_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGED_USEC,
                                    NULL);
        assert_true(strtoull(usec, NULL, 10) > 1700000000000000ULL); /* a real CLOCK_REALTIME stamp */
        free(usec);

        /* Up again, with a new rate: one more signal, now with the rate trio. */
        harness_clear_signals(h);
        harness_pause(h);
        harness_write(h, HFI1_SYS, "ports/1/state", "4: ACTIVE\n");
        harness_write(h, HFI1_SYS, "ports/1/phys_state", "5: LinkUp\n");
        harness_write(h, HFI1_SYS, "ports/1/rate", "56 Gb/sec (4X FDR)\n");
        harness_resume(h);
        harness_wait_signals(h, HFI1_0 "/port/1", "PropertiesChanged", 1);
        harness_observe(h, 300, "several more ticks: nothing more to say");
        assert_int_equal(h->n_signals, 1);
        names = signal_changed_names(&h->signals[0]);
        assert_string_equal(names, "State StateNum StateName PhysState PhysStateNum PhysStateName Rate RateSpeed "
                                   "RateInfo LinkSpeed Attributes StateChangedUsec StateChanges");
        free(names);
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_RATE_SPEED, "56");
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_SPEED, "FDR");

        /* A LID change alone: no state timestamp. */
        harness_clear_signals(h);
        harness_write(h, HFI1_SYS, "ports/1/lid", "0x17\n");
        harness_wait_signals(h, HFI1_0 "/port/1", "PropertiesChanged", 1);
        names = signal_changed_names(&h->signals[0]);
        assert_string_equal(names, "Lid Attributes");
        free(names);
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LID, "23");
}

static int slow_poll_setup(void **state) {
        static const char *const slow_poll[] = { "--poll-interval=1000", NULL };

        *state = harness_start(HARNESS_FIXTURES("hfi1"), slow_poll);
        return 0;
}

/* The kernel's port files are no snapshot: phys_state may settle after the
 * state was read. The tick after a state change re-reads the port in full,
 * so the late phys_state shows within a tick, not at the 2-minute sweep. */
static void test_phys_state_settling_after_the_state_is_seen(void **state) {
        Harness *h = *state;
        char *names;

        harness_ping(h);
        harness_clear_signals(h);
        harness_write(h, HFI1_SYS, "ports/1/state", "1: DOWN\n");
        harness_wait_signals(h, HFI1_0 "/port/1", "PropertiesChanged", 1);
        names = signal_changed_names(&h->signals[0]);
        assert_string_equal(names, "State StateNum StateName Attributes StateChangedUsec StateChanges");
        free(names);

        /* Within the tick (1 s) that follows the one that saw the state. */
        harness_clear_signals(h);
        harness_write(h, HFI1_SYS, "ports/1/phys_state", "3: Disabled\n");
        harness_wait_signals(h, HFI1_0 "/port/1", "PropertiesChanged", 1);
        names = signal_changed_names(&h->signals[0]);
        assert_string_equal(names, "PhysState PhysStateNum PhysStateName Attributes StateChangedUsec");
        free(names);
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_PHYS_STATE_NAME,
                                "Disabled");

        /* Settled: a phys_state change without a state change waits for the sweep. */
        harness_clear_signals(h);
        harness_write(h, HFI1_SYS, "ports/1/phys_state", "2: Polling\n");
        /* No tick can be awaited: three at 1 s, any of which would send the change if it were not waiting. */
        harness_observe(h, 3000, "three ticks without a signal");
        assert_int_equal(harness_count_signals(h, HFI1_0 "/port/1", "PropertiesChanged"), 0);
}

#define MLX4_SYS "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0"
#define MLX4_0   "/org/rdmad1/device/mlx4_5f0"

static int one_port_per_dispatch_setup(void **state) {
        /* A pass over the polled ports yields to the loop after each one,
         * as a big host's does after each batch. */
        static const char *const args[] = { "--poll-interval=50", "--poll-batch=1", NULL };

        *state = harness_start(HARNESS_FIXTURES("hfi1", "mlx4-vpi"), args);
        return 0;
}

/* A pass that yields goes on where it stopped: the port read after the
 * yield is polled as the first one is, each flap is one signal, and the
 * next passes have nothing more to say. */
static void test_a_yielding_poll_pass_reaches_every_port(void **state) {
        Harness *h = *state;
        char *names;

        harness_ping(h);
        harness_clear_signals(h);
        harness_pause(h);
        harness_write(h, HFI1_SYS, "ports/1/state", "1: DOWN\n");
        harness_write(h, HFI1_SYS, "ports/1/phys_state", "3: Disabled\n");
        harness_write(h, MLX4_SYS, "ports/1/state", "1: DOWN\n");
        harness_write(h, MLX4_SYS, "ports/1/phys_state", "3: Disabled\n");
        harness_resume(h);
        harness_wait_signals(h, HFI1_0 "/port/1", "PropertiesChanged", 1);
        harness_wait_signals(h, MLX4_0 "/port/1", "PropertiesChanged", 1);
        harness_observe(h, 500, "ten passes at 50 ms: nothing more to say");
        assert_int_equal(h->n_signals, 2);
        for (size_t i = 0; i < h->n_signals; i++) {
                names = signal_changed_names(&h->signals[i]);
                assert_string_equal(names, "State StateNum StateName PhysState PhysStateNum PhysStateName Attributes "
                                           "StateChangedUsec StateChanges");
                free(names);
        }
        harness_assert_property(h, MLX4_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "DOWN");
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "DOWN");
}

/* A VF's RDMA device comes and goes on its own (driver probe after SetNumVfs,
 * unbinding): its PF's VirtualFunctions follows, and the VF's
 * PhysicalFunction follows its PF's device. */
/* Sends a uevent for syspath; the next PropertiesChanged on path must carry `expected`. */
static void uevent_changes(Harness *h, const char *syspath, const char *action, const char *path,
                           const char *expected) {
        const Signal *s;

        harness_clear_signals(h);
        umockdev_testbed_uevent(h->testbed, syspath, action);
        harness_wait_signals(h, path, "PropertiesChanged", 1);
        s = harness_find_signal(h, path, "PropertiesChanged");
        if (!strstr(s->body, expected))
                fail_msg("%s %s: %s lacks %s", syspath, action, s->body, expected);
}

static void test_pf_and_vf_publish_each_other_coming_and_going(void **state) {
        Harness *h = *state;

        harness_wait_property(h, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_VIRTUAL_FUNCTIONS,
                              "[\"" MLX5_1 "\"]", 0);
        harness_assert_property(h, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_VIRTUAL_FUNCTIONS,
                                "[\"" MLX5_1 "\"]");
        harness_assert_property(h, MLX5_1, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_PHYSICAL_FUNCTION, MLX5_0);

        uevent_changes(h, MLX5_VF_SYS, "remove", MLX5_0, "\"VirtualFunctions\": []");
        harness_assert_property(h, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_VIRTUAL_FUNCTIONS, "[]");

        /* The VF's device appears after its PF's: the PF says so. */
        uevent_changes(h, MLX5_VF_SYS, "add", MLX5_0, "\"VirtualFunctions\": [\"" MLX5_1 "\"]");
        harness_assert_property(h, MLX5_1, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_PHYSICAL_FUNCTION, MLX5_0);

        /* The PF's device goes (and comes back): the VF's PhysicalFunction follows. */
        uevent_changes(h, MLX5_SYS, "remove", MLX5_1, "\"PhysicalFunction\": \"/\"");
        uevent_changes(h, MLX5_SYS, "add", MLX5_1, "\"PhysicalFunction\": \"" MLX5_0 "\"");
        harness_assert_property(h, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_VIRTUAL_FUNCTIONS,
                                "[\"" MLX5_1 "\"]");
}

static void test_quiet_ticks_say_nothing(void **state) {
        Harness *h = *state;

        harness_ping(h);
        harness_clear_signals(h);
        harness_observe(h, 600, "a dozen ticks at 50 ms: nothing to say");
        assert_int_equal(h->n_signals, 0);
}

static void test_netdev_remove_and_add_follow_the_port(void **state) {
        Harness *h = *state;

        harness_clear_signals(h);
        harness_pause(h);
        umockdev_testbed_uevent(h->testbed, MLX5_NET_SYS, "remove");
        umockdev_testbed_remove_device(h->testbed, MLX5_NET_SYS);
        harness_resume(h);

        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved", 1);
        harness_wait_signals(h, MLX5_0 "/port/1", "PropertiesChanged", 1);
        harness_ping(h);
        assert_non_null(
                strstr(harness_find_signal(h, RDMAD_ROOT_PATH, "InterfacesRemoved")->body, MLX5_0 "/netdev/ens1f0np0"));
        harness_assert_property(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_NETDEV, "/");
        harness_assert_property(h, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NETDEVS, "[]");
        assert_non_null(strstr(harness_find_signal(h, MLX5_0, "PropertiesChanged")->body, "\"NetDevs\": []"));

        /* It comes back under a new name. */
        harness_clear_signals(h);
        harness_add_device(h, "P: /devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/net/rdma-roce0\n"
                              "E: SUBSYSTEM=net\n"
                              "E: INTERFACE=rdma-roce0\n"
                              "A: dev_port=0\\n\n"
                              "A: operstate=up\\n\n"
                              "A: mtu=4200\\n\n");
        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesAdded", 1);
        harness_wait_signals(h, MLX5_0 "/port/1", "PropertiesChanged", 1);
        harness_assert_property(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_NETDEV,
                                MLX5_0 "/netdev/rdma_2droce0");
        harness_assert_property(h, MLX5_0 "/netdev/rdma_2droce0", RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_MTU,
                                "4200");
        harness_assert_property(h, MLX5_0 "/netdev/rdma_2droce0", RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_PORT,
                                MLX5_0 "/port/1");
}

static void test_numvfs_changed_behind_our_back(void **state) {
        Harness *h = *state;
        const Signal *s;

        harness_clear_signals(h);
        harness_write(h, MLX5_PF_SYS, "sriov_numvfs", "4\n");
        umockdev_testbed_uevent(h->testbed, MLX5_PF_SYS, "change");
        harness_wait_signals(h, MLX5_0 "/sriov", "PropertiesChanged", 1);
        s = harness_find_signal(h, MLX5_0 "/sriov", "PropertiesChanged");
        assert_string_equal(s->body, "\"org.rdmad1.Sriov\" {\"NumVfs\": 4} []");
        harness_assert_property(h, MLX5_0 "/sriov", RDMAD_SRIOV_INTERFACE, RDMAD_SRIOV_PROPERTY_NUM_VFS, "4");
}

static void wait_for_state_async(Harness *h, const char *path, const char *state, uint32_t timeout_ms, AsyncReply *a) {
        assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, path, RDMAD_PORT_INTERFACE,
                                             RDMAD_METHOD_WAIT_FOR_STATE, harness_on_reply, a, "su", state,
                                             timeout_ms) >= 0);
}

static void test_wait_for_state(void **state) {
        Harness *h = *state;
        AsyncReply a = {}, b = {}, c = {};
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *s;

        /* Already there: answered at once, any case. */
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE,
                                       RDMAD_METHOD_WAIT_FOR_STATE, NULL, &reply, "su", "active", 5000) >= 0);
        assert_true(sd_bus_message_read(reply, "s", &s) > 0);
        assert_string_equal(s, "ACTIVE");
        reply = sd_bus_message_unref(reply);

        /* Not a state. */
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE,
                                       RDMAD_METHOD_WAIT_FOR_STATE, &error, NULL, "su", "UPPISH", 5000) < 0);
        assert_string_equal(error.name, RDMAD_ERROR_INVALID_ARGUMENT);
        sd_bus_error_free(&error);

        /* Zero timeout: a check only. */
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE,
                                       RDMAD_METHOD_WAIT_FOR_STATE, &error, NULL, "su", "DOWN", 0) < 0);
        assert_string_equal(error.name, RDMAD_ERROR_TIMEOUT);
        sd_bus_error_free(&error);

        /* Times out. */
        wait_for_state_async(h, HFI1_0 "/port/1", "ARMED", 300, &a);
        harness_wait_reply(h, &a, 10000, "WaitForState(ARMED, 300 ms)");
        assert_string_equal(a.error_name, RDMAD_ERROR_TIMEOUT);

        /* Reached later, after a change; two waiters on the same port both answered. */
        wait_for_state_async(h, HFI1_0 "/port/1", "DOWN", 20000, &b);
        wait_for_state_async(h, HFI1_0 "/port/1", "down", 20000, &c);
        harness_ping(h); /* both held, or answered before the Ping's answer */
        assert_false(b.done);
        harness_write(h, HFI1_SYS, "ports/1/state", "1: DOWN\n");
        harness_wait_reply(h, &b, 10000, "WaitForState(DOWN) after the port went down");
        harness_wait_reply(h, &c, 10000, "WaitForState(down) after the port went down");
        assert_null(b.error_name);
        assert_string_equal(b.value, "DOWN");
        assert_string_equal(c.value, "DOWN");
        async_reply_clear(&a);
        async_reply_clear(&b);
        async_reply_clear(&c);

        /* The device goes away while waiting. */
        wait_for_state_async(h, HFI1_0 "/port/1", "ACTIVE", 20000, &a);
        harness_ping(h);
        assert_false(a.done);
        umockdev_testbed_uevent(h->testbed, HFI1_SYS, "remove");
        umockdev_testbed_remove_device(h->testbed, HFI1_SYS);
        harness_wait_reply(h, &a, 10000, "WaitForState(ACTIVE) when the device is removed");
        assert_string_equal(a.error_name, RDMAD_ERROR_NO_SUCH_DEVICE);
        async_reply_clear(&a);
}

static bool devices_are(Harness *h, const void *data, FILE *seen) {
        char *devices =
                harness_get_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_DEVICES, NULL);
        size_t n = 0;

        for (const char *p = devices; p && (p = strstr(p, "\"/org")); p++)
                n++;
        free(devices);
        fprintf(seen, "%zu devices", n);
        return n == *(const size_t *) data;
}

/* 500 devices, 1000 add/remove uevents; then the published tree must be
 * exactly sysfs: a Rescan finds nothing to say. Under valgrind a fifth of
 * it: the same paths, at the speed valgrind has. */
static void test_uevent_storm_leaves_the_tree_equal_to_sysfs(void **state) {
        Harness *h = *state;
        enum { N = 500 };
        const int count = harness_daemon_wrapped() ? N / 5 : N;

        if (!private_network)
                skip(); /* umockdev would drop most of the storm on a shared host (see harness_private_network) */
        char devpath[128], record[512];
        size_t events = 0, expected = 3; /* the fixtures' devices */
        bool present[N] = {};
        Objects *o;

        for (int i = 0; i < count; i++) {

                snprintf(record, sizeof(record),
                         "P: /devices/virtual/infiniband/storm%d\nE: SUBSYSTEM=infiniband\nE: NAME=storm%d\n"
                         "A: node_type=1: CA\\n\nA: ports/1/state=4: ACTIVE\\n\nA: ports/1/link_layer=InfiniBand\\n\n",
                         i, i);
                harness_add_device(h, record); /* umockdev sends "add" */
                present[i] = true;
                events++;
        }
        /* Remove every other one; re-add a quarter; remove another quarter. */
        for (int i = 0; i < count; i += 2) {
                snprintf(devpath, sizeof(devpath), "/sys/devices/virtual/infiniband/storm%d", i);
                umockdev_testbed_uevent(h->testbed, devpath, "remove");
                umockdev_testbed_remove_device(h->testbed, devpath);
                present[i] = false;
                events++;
        }
        for (int i = 0; i < count && events < (size_t) count * 7 / 4; i += 4) {

                snprintf(record, sizeof(record),
                         "P: /devices/virtual/infiniband/storm%d\nE: SUBSYSTEM=infiniband\nE: NAME=storm%d\n"
                         "A: node_type=1: CA\\n\nA: ports/1/state=2: INIT\\n\nA: ports/1/link_layer=InfiniBand\\n\n",
                         i, i);
                harness_add_device(h, record); /* umockdev sends "add" */
                present[i] = true;
                events++;
        }
        for (int i = 1; i < count && events < (size_t) count * 2; i += 4) {
                snprintf(devpath, sizeof(devpath), "/sys/devices/virtual/infiniband/storm%d", i);
                umockdev_testbed_uevent(h->testbed, devpath, "remove");
                umockdev_testbed_remove_device(h->testbed, devpath);
                present[i] = false;
                events++;
        }
        assert_int_equal(events, (size_t) count * 2);
        for (int i = 0; i < count; i++)
                expected += present[i];

        /* Wait until the daemon has caught up: the device count settles (as long as before: 60 s). */
        harness_wait_for_bound(h, devices_are, &expected, 60000, "%zu devices published after the storm", expected);

        o = get_managed_objects(h);
        for (int i = 0; i < N; i++) {
                char path[128];

                snprintf(path, sizeof(path), "/org/rdmad1/device/storm%d/port/1", i);
                if (present[i])
                        assert_string_equal(objects_get(o, path, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME),
                                            i % 4 == 0 ? "INIT" : "ACTIVE");
                else
                        assert_null(objects_get(o, path, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME));
        }
        objects_free(o);

        /* The strongest check: a full comparison with sysfs finds no difference. */
        harness_ping(h);
        harness_clear_signals(h);
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       RDMAD_METHOD_RESCAN, NULL, NULL, "") >= 0);
        /* Its changes, were there any, come after its answer: a window, no barrier. */
        harness_observe(h, 300, "the Rescan's signals, of which there must be none");
        assert_int_equal(h->n_signals, 0);
}

int main(void) {
        private_network = harness_private_network();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_hot_add_and_remove, live_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rename_via_move, live_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_port_flap_is_one_signal_with_exactly_the_changes, live_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_phys_state_settling_after_the_state_is_seen, slow_poll_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_a_yielding_poll_pass_reaches_every_port,
                                                one_port_per_dispatch_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_pf_and_vf_publish_each_other_coming_and_going, live_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_quiet_ticks_say_nothing, live_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_netdev_remove_and_add_follow_the_port, live_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_numvfs_changed_behind_our_back, live_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_wait_for_state, live_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_uevent_storm_leaves_the_tree_equal_to_sysfs, live_setup,
                                                harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
