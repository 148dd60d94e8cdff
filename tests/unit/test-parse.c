/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "basic/parse.h"
#include "basic/util.h"

static void test_port_state_formats(void **state) {
        static const struct {
                const char *in;
                int ret;
                uint32_t num;
                const char *name;
        } cases[] = {
                { "0: NOP", 0, 0, "NOP" },
                { "1: DOWN", 0, 1, "DOWN" },
                { "2: INIT", 0, 2, "INIT" },
                { "3: ARMED", 0, 3, "ARMED" },
                { "4: ACTIVE", 0, 4, "ACTIVE" },
                { "5: ACTIVE_DEFER", 0, 5, "ACTIVE_DEFER" },
                { "9: FUTURE", 0, 9, "FUTURE" }, /* unknown number: the kernel's name is kept */
                { "4", 0, 4, "ACTIVE" },         /* bare number: name from the table */
                { "17", 0, 17, "" },             /* bare unknown number */
                { "4:", 0, 4, "ACTIVE" },
                { "", -EINVAL, 0, "" }, /* empty file */
                { "ACTIVE", -EINVAL, 0, "" },
                { "-1: DOWN", -EINVAL, 0, "" },
                { "4294967296: BIG", -EINVAL, 0, "" },
                { "4 ACTIVE", -EINVAL, 0, "" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint32_t num = 12345;
                const char *name = NULL;

                assert_int_equal(parse_port_state(cases[i].in, &num, &name), cases[i].ret);
                assert_int_equal(num, cases[i].num);
                assert_string_equal(name, cases[i].name);
        }
}

static void test_phys_state_formats(void **state) {
        static const struct {
                const char *in;
                uint32_t num;
                const char *name;
        } cases[] = {
                { "1: Sleep", 1, "Sleep" },
                { "2: Polling", 2, "Polling" },
                { "3: Disabled", 3, "Disabled" },
                { "4: PortConfigurationTraining", 4, "PortConfigurationTraining" },
                { "5: LinkUp", 5, "LinkUp" },
                { "6: LinkErrorRecovery", 6, "LinkErrorRecovery" },
                { "7: Phy Test", 7, "Phy Test" }, /* a space inside the name */
                { "7", 7, "Phy Test" },
                { "0: <unknown>", 0, "<unknown>" },
                { "8", 8, "" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint32_t num;
                const char *name;

                assert_int_equal(parse_port_phys_state(cases[i].in, &num, &name), 0);
                assert_int_equal(num, cases[i].num);
                assert_string_equal(name, cases[i].name);
        }
}

static void test_node_type_formats(void **state) {
        static const struct {
                const char *in;
                uint32_t num;
                const char *name;
        } cases[] = {
                { "1: CA", 1, "CA" },
                { "2: switch", 2, "switch" },
                { "3: router", 3, "router" },
                { "4: RNIC", 4, "RNIC" },
                { "5: usNIC", 5, "usNIC" },
                { "6: usNIC UDP", 6, "usNIC UDP" },
                { "7: unspecified", 7, "unspecified" },
                { "4", 4, "RNIC" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint32_t num;
                const char *name;

                assert_int_equal(parse_node_type(cases[i].in, &num, &name), 0);
                assert_int_equal(num, cases[i].num);
                assert_string_equal(name, cases[i].name);
        }
}

static void test_rate_formats(void **state) {
        static const struct {
                const char *in;
                int ret;
                double speed;
                const char *unit;
                const char *info;
                const char *width, *speed_name;
        } cases[] = {
                { "2.5 Gb/sec (1X SDR)", 0, 2.5, "Gb/sec", "1X SDR", "1X", "SDR" },
                { "5 Gb/sec (1X DDR)", 0, 5, "Gb/sec", "1X DDR", "1X", "DDR" },
                { "10 Gb/sec (4X SDR)", 0, 10, "Gb/sec", "4X SDR", "4X", "SDR" },
                { "14 Gb/sec (1X FDR)", 0, 14, "Gb/sec", "1X FDR", "1X", "FDR" },
                { "56 Gb/sec (4X FDR)", 0, 56, "Gb/sec", "4X FDR", "4X", "FDR" },
                { "40 Gb/sec (4X FDR10)", 0, 40, "Gb/sec", "4X FDR10", "4X", "FDR10" },
                { "40 Gb/sec (4X QDR)", 0, 40, "Gb/sec", "4X QDR", "4X", "QDR" },
                { "25 Gb/sec (1X EDR)", 0, 25, "Gb/sec", "1X EDR", "1X", "EDR" },
                { "100 Gb/sec (4X EDR)", 0, 100, "Gb/sec", "4X EDR", "4X", "EDR" },
                { "200 Gb/sec (4X HDR)", 0, 200, "Gb/sec", "4X HDR", "4X", "HDR" },
                { "600 Gb/sec (12X HDR)", 0, 600, "Gb/sec", "12X HDR", "12X", "HDR" },
                { "400 Gb/sec (4X NDR)", 0, 400, "Gb/sec", "4X NDR", "4X", "NDR" },
                { "800 Gb/sec (4X XDR)", 0, 800, "Gb/sec", "4X XDR", "4X", "XDR" },
                { "53.125 Gb/sec (1X HDR)", 0, 53.125, "Gb/sec", "1X HDR", "1X", "HDR" },
                { "10 Gb/sec (4X)", 0, 10, "Gb/sec", "4X", "4X", "" },     /* old kernels: no speed name */
                { "10 Gb/sec (X EDR)", 0, 10, "Gb/sec", "X EDR", "", "" }, /* not "<n>X": no width */
                { "10 Gb/sec (4XEDR)", 0, 10, "Gb/sec", "4XEDR", "", "" },
                { "10 Gb/sec (12X )", 0, 10, "Gb/sec", "12X ", "",
                  "" }, /* a space and no name: found by fuzz-parsers */
                { "10 Gb/sec", 0, 10, "Gb/sec", "", "", "" },
                { "", -EINVAL, 0, "", "", "", "" }, /* unreadable: the model stores "" */
                { "Gb/sec (4X)", -EINVAL, 0, "", "", "", "" },
                { "2. Gb/sec (1X SDR)", -EINVAL, 0, "", "", "", "" },
                { "10 Gb/sec (4X EDR", -EINVAL, 0, "", "", "", "" },
                { "10 Gb/sec (4X EDR) trailing", -EINVAL, 0, "", "", "", "" },
                { "10 Gb/sec ()", -EINVAL, 0, "", "", "", "" },
                { "10Gb/sec (4X)", -EINVAL, 0, "", "", "", "" },
                { "99999999999 Gb/sec (4X)", -EINVAL, 0, "", "", "", "" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                RateInfo r;

                assert_int_equal(parse_rate(cases[i].in, &r), cases[i].ret);
                assert_true(r.speed == cases[i].speed);
                assert_string_equal(r.unit, cases[i].unit);
                assert_string_equal(r.info, cases[i].info);
                assert_string_equal(r.width, cases[i].width);
                assert_string_equal(r.speed_name, cases[i].speed_name);
        }
}

static void test_u32_formats(void **state) {
        static const struct {
                const char *in;
                int ret;
                uint32_t value;
        } cases[] = {
                { "0x5", 0, 5 },
                { "0x0", 0, 0 },
                { "0xffff", 0, 0xffff },
                { "0x02514868", 0, 0x02514868 },
                { "0XAB", 0, 0xab },
                { "2044", 0, 2044 },
                { "0", 0, 0 },
                { "4294967295", 0, UINT32_MAX },
                { "4294967296", -EINVAL, 0 },
                { "0x100000000", -EINVAL, 0 },
                { "-1", -EINVAL, 0 },
                { "0x", -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "garbage", -EINVAL, 0 },
                { "12 ", -EINVAL, 0 },
                { "0x1g", -EINVAL, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint32_t v = 77;

                assert_int_equal(parse_u32(cases[i].in, &v), cases[i].ret);
                assert_int_equal(v, cases[i].value);
        }
}

static void test_decimal_u32(void **state) {
        static const struct {
                const char *in;
                int ret;
                uint32_t value;
        } cases[] = {
                { "0", 0, 0 },
                { "1", 0, 1 },
                { "254", 0, 254 },
                { "4294967295", 0, UINT32_MAX },
                { "4294967296", -EINVAL, 0 },
                { "01", -EINVAL, 0 },
                { "0x1", -EINVAL, 0 },
                { "abc", -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "-1", -EINVAL, 0 },
                { "1 ", -EINVAL, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint32_t v = 0;

                assert_int_equal(parse_decimal_u32(cases[i].in, &v), cases[i].ret);
                assert_int_equal(v, cases[i].value);
        }
}

static void test_gid_is_zero(void **state) {
        assert_true(gid_is_zero("0000:0000:0000:0000:0000:0000:0000:0000"));
        assert_true(gid_is_zero(""));
        assert_false(gid_is_zero("fe80:0000:0000:0000:0002:c903:00a1:b2c1"));
        assert_false(gid_is_zero("0000:0000:0000:0000:0000:ffff:c0a8:010a"));
}

static void test_link_layer_and_transport(void **state) {
        assert_string_equal(link_layer_normalize("InfiniBand"), "InfiniBand");
        assert_string_equal(link_layer_normalize("Ethernet"), "Ethernet");
        assert_string_equal(link_layer_normalize(""), "Unknown");
        assert_string_equal(link_layer_normalize(NULL), "Unknown");
        assert_string_equal(link_layer_normalize("Omni"), "Unknown");

        assert_string_equal(transport_from(NODE_TYPE_CA, "InfiniBand"), "InfiniBand");
        assert_string_equal(transport_from(NODE_TYPE_CA, "Ethernet"), "RoCE");
        assert_string_equal(transport_from(NODE_TYPE_RNIC, "Ethernet"), "iWARP");
        assert_string_equal(transport_from(NODE_TYPE_RNIC, NULL), "iWARP");
        assert_string_equal(transport_from(NODE_TYPE_CA, "Unknown"), "unknown");
        assert_string_equal(transport_from(0, NULL), "unknown");
        /* Device.NodeType's name back to its number, for the clients' transport_from(). */
        assert_int_equal(node_type_from_name("RNIC"), NODE_TYPE_RNIC);
        assert_int_equal(node_type_from_name("CA"), NODE_TYPE_CA);
        assert_int_equal(node_type_from_name("usNIC UDP"), NODE_TYPE_USNIC_UDP);
        assert_int_equal(node_type_from_name("rnic"), 0); /* the kernel's spelling only */
        assert_int_equal(node_type_from_name(""), 0);
        assert_int_equal(node_type_from_name(NULL), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_port_state_formats), cmocka_unit_test(test_phys_state_formats),
                cmocka_unit_test(test_node_type_formats),  cmocka_unit_test(test_rate_formats),
                cmocka_unit_test(test_u32_formats),        cmocka_unit_test(test_decimal_u32),
                cmocka_unit_test(test_gid_is_zero),        cmocka_unit_test(test_link_layer_and_transport),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
