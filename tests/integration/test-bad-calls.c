/* SPDX-License-Identifier: MIT */
/* Bad calls: each gets the precise D-Bus error, and the daemon goes on.
 * Wrong signatures, values out of range, unknown objects (including paths
 * rdmad never makes), interfaces, members and properties, Set on read-only
 * properties, calls on a device just removed, names longer than any
 * valid one in Get, Set and GetAll, each error quoting at most 32 bytes of
 * a name or path, to the letter; and a 30 MB name argument,
 * refused with a short error that never echoes it. SetNumVfs's own
 * refusals (a count above TotalVfs, no authorization) are test-polkit's. */
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

#define MLX5_0     "/org/rdmad1/device/mlx5_5f0"
#define HFI1_SYS   "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"
#define HFI1_0     "/org/rdmad1/device/hfi1_5f0"
#define MLX4_PORT1 "/org/rdmad1/device/mlx4_5f0/port/1"
#define ERROR_MAX  (64u * 1024)
/* Longer than any valid D-Bus name (255 bytes). */
#define ARG_LONG_NAME 300

static int setup(void **state) {
        *state = harness_start(HARNESS_FIXTURES("mlx5-roce-sriov", "hfi1"),
                               (const char *const[]){ "--poll-interval=50", NULL });
        return 0;
}

static int huge_setup(void **state) {
        *state = harness_start(HARNESS_FIXTURES("mlx4-vpi"), NULL);
        return 0;
}

static void test_bad_calls_get_precise_errors(void **state) {
        Harness *h = *state;

        /* Wrong signatures. */
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.InvalidArgs", RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                  "GetDeviceByName", "u", 7);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.InvalidArgs", RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                  "GetDeviceByName", "ss", "mlx5_0", "extra");
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.InvalidArgs", RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                  RDMAD_METHOD_RESCAN, "s", "now");
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.InvalidArgs", MLX5_0 "/port/1", RDMAD_PORT_INTERFACE,
                                  RDMAD_METHOD_WAIT_FOR_STATE, "s", "ACTIVE");
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.InvalidArgs", MLX5_0 "/port/1", RDMAD_PORT_INTERFACE,
                                  RDMAD_METHOD_WAIT_FOR_STATE, "us", 1000, "ACTIVE");
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.InvalidArgs", MLX5_0 "/sriov", RDMAD_SRIOV_INTERFACE,
                                  RDMAD_METHOD_SET_NUM_VFS, "s", "4");
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.InvalidArgs", MLX5_0 "/sriov", RDMAD_SRIOV_INTERFACE,
                                  RDMAD_METHOD_SET_NUM_VFS, "i", -1);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.InvalidArgs", MLX5_0,
                                  "org.freedesktop.DBus.Properties", "Get", "s", RDMAD_DEVICE_INTERFACE);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.InvalidArgs", MLX5_0,
                                  "org.freedesktop.DBus.Properties", "GetAll", "u", 1);

        /* Names longer than any valid one, in either place: refused before
         * any work with InvalidArgs (an unknown short name gets sd-bus's
         * UnknownProperty or UnknownInterface instead). */
        char long_name[ARG_LONG_NAME + 1];
        memset(long_name, 'x', ARG_LONG_NAME);
        long_name[ARG_LONG_NAME] = '\0';
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.InvalidArgs", MLX5_0 "/port/1",
                                  "org.freedesktop.DBus.Properties", "Get", "ss", long_name, RDMAD_PORT_PROPERTY_STATE);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.InvalidArgs", MLX5_0 "/port/1",
                                  "org.freedesktop.DBus.Properties", "Get", "ss", RDMAD_PORT_INTERFACE, long_name);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.InvalidArgs", MLX5_0 "/port/1",
                                  "org.freedesktop.DBus.Properties", "GetAll", "s", long_name);

        /* Values out of range. */
        harness_assert_call_error(h, RDMAD_ERROR_INVALID_ARGUMENT, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE,
                                  RDMAD_METHOD_WAIT_FOR_STATE, "su", "", 1000);
        harness_assert_call_error(h, RDMAD_ERROR_INVALID_ARGUMENT, MLX5_0 "/sriov", RDMAD_SRIOV_INTERFACE,
                                  RDMAD_METHOD_SET_NUM_VFS, "u", UINT32_MAX);
        harness_assert_call_error(h, RDMAD_ERROR_NO_SUCH_DEVICE, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                  "GetDeviceByName", "s", "");

        /* Unknown objects, interfaces, members, properties. */
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownObject", "/org/rdmad1/device/nope/port/1",
                                  RDMAD_PORT_INTERFACE, RDMAD_METHOD_WAIT_FOR_STATE, "su", "ACTIVE", 1000);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownObject", "/org/rdmad1/nothing",
                                  "org.freedesktop.DBus.Properties", "GetAll", "s", RDMAD_DEVICE_INTERFACE);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownObject", MLX5_0 "/port/4294967296",
                                  "org.freedesktop.DBus.Properties", "GetAll", "s", RDMAD_PORT_INTERFACE);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownObject", MLX5_0 "/port/01",
                                  "org.freedesktop.DBus.Properties", "GetAll", "s", RDMAD_PORT_INTERFACE);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownMethod", MLX5_0 "/port/1", RDMAD_PORT_INTERFACE,
                                  RDMAD_METHOD_SET_NUM_VFS, "u", 1);
        /* sd-bus says "Unknown method Frobnicate or interface org.rdmad1.Nothing." */
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownMethod", MLX5_0, "org.rdmad1.Nothing",
                                  "Frobnicate", "");
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownProperty", MLX5_0,
                                  "org.freedesktop.DBus.Properties", "Get", "ss", RDMAD_DEVICE_INTERFACE, "Nope");
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownProperty", MLX5_0,
                                  "org.freedesktop.DBus.Properties", "Set", "ssv", RDMAD_DEVICE_INTERFACE, "Nope", "s",
                                  "x");

        /* Set on every kind of read-only property, with right and wrong value types. */
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.PropertyReadOnly", MLX5_0,
                                  "org.freedesktop.DBus.Properties", "Set", "ssv", RDMAD_DEVICE_INTERFACE,
                                  RDMAD_DEVICE_PROPERTY_NODE_DESCRIPTION, "s", "mine now");
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.PropertyReadOnly", MLX5_0,
                                  "org.freedesktop.DBus.Properties", "Set", "ssv", RDMAD_DEVICE_INTERFACE,
                                  RDMAD_DEVICE_PROPERTY_NAME, "u", 5);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.PropertyReadOnly", MLX5_0 "/sriov",
                                  "org.freedesktop.DBus.Properties", "Set", "ssv", RDMAD_SRIOV_INTERFACE,
                                  RDMAD_SRIOV_PROPERTY_NUM_VFS, "u", 2);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.PropertyReadOnly", MLX5_0 "/port/1",
                                  "org.freedesktop.DBus.Properties", "Set", "ssv", RDMAD_PORT_INTERFACE,
                                  RDMAD_PORT_PROPERTY_LID, "u", 2);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.PropertyReadOnly", MLX5_0 "/port/1",
                                  "org.freedesktop.DBus.Properties", "Set", "ssv", RDMAD_PORT_INTERFACE,
                                  RDMAD_PORT_PROPERTY_STATE, "s", "1: DOWN");

        /* Set on a read-only property of the manager too. */
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.PropertyReadOnly", RDMAD_ROOT_PATH,
                                  "org.freedesktop.DBus.Properties", "Set", "ssv", RDMAD_MANAGER_INTERFACE,
                                  RDMAD_MANAGER_PROPERTY_POLL_INTERVAL_MS, "u", 5);
        /* Objects that do not exist: no such device, no port 2, no sriov on a VF, a path rdmad never makes. */
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownObject", "/org/rdmad1/device/mlx9_5f9",
                                  "org.freedesktop.DBus.Properties", "GetAll", "s", RDMAD_DEVICE_INTERFACE);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownObject", MLX5_0 "/port/2",
                                  "org.freedesktop.DBus.Properties", "GetAll", "s", RDMAD_PORT_INTERFACE);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownObject", "/org/rdmad1/device/mlx5_5f1/sriov",
                                  "org.freedesktop.DBus.Properties", "GetAll", "s", RDMAD_SRIOV_INTERFACE);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownObject", MLX5_0 "/port/_31",
                                  "org.freedesktop.DBus.Properties", "GetAll", "s", RDMAD_PORT_INTERFACE);
        /* A real object, an interface it does not have: sd-bus answers UnknownProperty. */
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownProperty", MLX5_0,
                                  "org.freedesktop.DBus.Properties", "Get", "ss", RDMAD_PORT_INTERFACE,
                                  RDMAD_PORT_PROPERTY_STATE);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownMethod", RDMAD_ROOT_PATH,
                                  RDMAD_MANAGER_INTERFACE, "NoSuchMethod", "");

        /* Methods on a device that was just removed. */
        harness_clear_signals(h);
        umockdev_testbed_uevent(h->testbed, HFI1_SYS, "remove");
        harness_remove(h, HFI1_SYS);
        harness_remove(h, "/sys/class/infiniband/hfi1_0");
        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved", 2);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownObject", HFI1_0 "/port/1", RDMAD_PORT_INTERFACE,
                                  RDMAD_METHOD_WAIT_FOR_STATE, "su", "ACTIVE", 1000);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownObject", HFI1_0,
                                  "org.freedesktop.DBus.Properties", "GetAll", "s", RDMAD_DEVICE_INTERFACE);
        harness_assert_call_error(h, "org.freedesktop.DBus.Error.UnknownObject", HFI1_0 "/port/1",
                                  "org.freedesktop.DBus.Properties", "Get", "ss", RDMAD_PORT_INTERFACE,
                                  RDMAD_PORT_PROPERTY_STATE);
        harness_assert_call_error(h, RDMAD_ERROR_NO_SUCH_DEVICE, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                  "GetDeviceByName", "s", "hfi1_0");

        /* And it goes on. */
        harness_assert_daemon_answers(h);
        harness_assert_property(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE");
}

/* ---- what an error says of the caller's names ---- */

/* Properties.member(interface, property[, value]) at path fails with
 * error_name, saying message to the letter. */
static void assert_properties_error(Harness *h, const char *path, const char *member, const char *interface,
                                    const char *property, const char *error_name, const char *message) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        if (strcmp(member, "Set") == 0)
                r = sd_bus_call_method(h->bus, RDMAD_BUS_NAME, path, "org.freedesktop.DBus.Properties", member, &error,
                                       NULL, "ssv", interface, property, "u", 1);
        else
                r = sd_bus_call_method(h->bus, RDMAD_BUS_NAME, path, "org.freedesktop.DBus.Properties", member, &error,
                                       NULL, "ss", interface, property);
        assert_true(r < 0);
        assert_string_equal(error.name, error_name);
        assert_string_equal(error.message, message);
        sd_bus_error_free(&error);
}

/* sd-bus would echo an unknown name or path whole; rdmad quotes 32 bytes
 * of it, wherever the call goes: a port, a device, the manager, a path that
 * is no object, and Set as Get. */
static void test_errors_quote_what_they_name(void **state) {
        static const char quoted_long[] = "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'";
        char long_name[ARG_LONG_NAME + 1], long_path[ARG_LONG_NAME + 64], message[256];
        Harness *h = *state;

        memset(long_name, 'x', ARG_LONG_NAME);
        long_name[ARG_LONG_NAME] = '\0';
        snprintf(message, sizeof(message), "Property name %s is 300 bytes long; no valid one is longer than 255.",
                 quoted_long);
        assert_properties_error(h, MLX5_0 "/port/1", "Get", RDMAD_PORT_INTERFACE, long_name,
                                "org.freedesktop.DBus.Error.InvalidArgs", message);
        assert_properties_error(h, MLX5_0 "/port/1", "Set", RDMAD_PORT_INTERFACE, long_name,
                                "org.freedesktop.DBus.Error.InvalidArgs", message);
        assert_properties_error(h, RDMAD_ROOT_PATH, "Get", RDMAD_MANAGER_INTERFACE, long_name,
                                "org.freedesktop.DBus.Error.InvalidArgs", message);
        snprintf(message, sizeof(message), "Interface name %s is 300 bytes long; no valid one is longer than 255.",
                 quoted_long);
        assert_properties_error(h, MLX5_0, "Get", long_name, RDMAD_DEVICE_PROPERTY_NAME,
                                "org.freedesktop.DBus.Error.InvalidArgs", message);

        /* Short unknown names, quoted as well. */
        assert_properties_error(h, MLX5_0, "Get", RDMAD_DEVICE_INTERFACE, "No\"pe",
                                "org.freedesktop.DBus.Error.UnknownProperty",
                                "Unknown interface 'org.rdmad1.Device' or property 'No\\x22pe'.");
        assert_properties_error(h, MLX5_0 "/port/1", "Set", RDMAD_PORT_INTERFACE, "Nope",
                                "org.freedesktop.DBus.Error.UnknownProperty",
                                "Unknown interface 'org.rdmad1.Port' or property 'Nope'.");

        /* A path that is no object, long or short; the device folder is a node. */
        snprintf(long_path, sizeof(long_path), "/org/rdmad1/device/%s", long_name);
        assert_properties_error(h, long_path, "Get", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NAME,
                                "org.freedesktop.DBus.Error.UnknownObject",
                                "Unknown object '/org/rdmad1/device/xxxxxxxxxxxxx...'.");
        assert_properties_error(h, MLX5_0 "/port", "Get", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE,
                                "org.freedesktop.DBus.Error.UnknownObject",
                                "Unknown object '/org/rdmad1/device/mlx5_5f0/port'.");
        assert_properties_error(h, "/org/rdmad1/device", "Get", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NAME,
                                "org.freedesktop.DBus.Error.UnknownProperty",
                                "Unknown interface 'org.rdmad1.Device' or property 'Name'.");
        harness_assert_property(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE");
}

/* ---- a 30 MB name argument ---- */

/* 30 MB; 4 MB under valgrind or the sanitizers, where the point is the
 * memory of the same path (30 MB through sd-bus's checks takes them a
 * minute), and the error is still bounded by ERROR_MAX, not by the size. */
static size_t huge_size(void) {
        return (harness_daemon_slowed() ? 4u : 30u) * 1024 * 1024;
}

static char *huge_string(void) {
        size_t size = huge_size();
        char *s = malloc(size + 1);

        assert_non_null(s);
        memset(s, 'A', size);
        s[size] = '\0';
        return s;
}

/* Calls member(huge, rest...) and checks the error is short and names no more than a prefix. */
static void call_huge(Harness *h, const char *path, const char *interface, const char *member, bool state_arg) {
        sd_bus_message *m = NULL, *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char *huge = huge_string();
        uint64_t t0;

        assert_true(sd_bus_message_new_method_call(h->bus, &m, RDMAD_BUS_NAME, path, interface, member) >= 0);
        if (state_arg)
                assert_true(sd_bus_message_append(m, "su", huge, 1000) >= 0);
        else
                assert_true(sd_bus_message_append(m, "ss", huge, RDMAD_PORT_PROPERTY_STATE) >= 0);
        t0 = now_usec();
        /* 30 MB through sd-bus's checks takes rdmad ~0.6 s; valgrind is
         * tens of times slower, which is valgrind's, not a hold. */
        assert_true(sd_bus_call(h->bus, m, (harness_daemon_wrapped() ? 120 : 25) * 1000000ULL, &error, &reply) < 0);
        fprintf(stderr, "%s: %s, message %zu bytes, in %.1f ms\n", member, error.name,
                error.message ? strlen(error.message) : 0, (double) (now_usec() - t0) / 1000);
        assert_non_null(error.message);
        assert_true(strlen(error.message) < ERROR_MAX);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        sd_bus_message_unref(m);
        free(huge);
}

static void test_huge_name_arguments_refused_briefly(void **state) {
        Harness *h = *state;

        call_huge(h, MLX4_PORT1, "org.freedesktop.DBus.Properties", "Get", false);
        call_huge(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_METHOD_WAIT_FOR_STATE, true);
        /* root is served after them */
        harness_assert_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_NUMBER, "1");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_bad_calls_get_precise_errors, setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_errors_quote_what_they_name, setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_huge_name_arguments_refused_briefly, huge_setup,
                                                harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
