/* SPDX-License-Identifier: MIT */
/* The object path parser against what the paths are built with
 * (sd_bus_path_encode): every path we publish parses back to its parts, and
 * a spelling we would not publish names nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include <cmocka.h>

#include "api/bus-path.h"
#include "basic/util.h"

static const char *const names[] = {
        "mlx5_0",
        "rxe0",
        "siw_eth0",
        "hfi1_0",
        "a",
        "_",
        "__",
        "x-y.z",
        "bnxt_re:0",
        "name with spaces",
        "\xc3\xa9t\xc3\xa9",
        "0",
        "Z9",
};

static void test_published_paths_parse_back(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                char *path;
                BusPath p;

                assert_int_equal(bus_path_device(names[i], &path), 0);
                assert_int_equal(bus_path_parse(path, &p), 1);
                assert_int_equal(p.kind, BUS_PATH_DEVICE);
                assert_string_equal(p.device, names[i]);
                free(path);

                assert_int_equal(bus_path_sriov(names[i], &path), 0);
                assert_int_equal(bus_path_parse(path, &p), 1);
                assert_int_equal(p.kind, BUS_PATH_SRIOV);
                assert_string_equal(p.device, names[i]);
                free(path);

                for (uint32_t port = 0; port < 3; port++) {
                        assert_int_equal(bus_path_port(names[i], port == 2 ? UINT32_MAX : port, &path), 0);
                        assert_int_equal(bus_path_parse(path, &p), 1);
                        assert_int_equal(p.kind, BUS_PATH_PORT);
                        assert_string_equal(p.device, names[i]);
                        assert_int_equal(p.port, port == 2 ? UINT32_MAX : port);
                        free(path);
                }

                for (size_t j = 0; j < ELEMENTSOF(names); j++) {
                        assert_int_equal(bus_path_netdev(names[i], names[j], &path), 0);
                        assert_int_equal(bus_path_parse(path, &p), 1);
                        assert_int_equal(p.kind, BUS_PATH_NETDEV);
                        assert_string_equal(p.device, names[i]);
                        assert_string_equal(p.ifname, names[j]);
                        free(path);
                }
        }
}

static void test_other_spellings_name_nothing(void **state) {
        static const char *const paths[] = {
                RDMAD_ROOT_PATH,
                RDMAD_DEVICE_PREFIX,
                "/org/rdmad1/devices/mlx5_5f0",
                "/org/rdmad1/device/_",          /* the empty name */
                "/org/rdmad1/device/mlx5_5F0",   /* uppercase escape */
                "/org/rdmad1/device/mlx5_0",     /* a bare underscore */
                "/org/rdmad1/device/mlx_35_5f0", /* an escaped digit, not the first */
                "/org/rdmad1/device/_6dlx5_5f0", /* an escaped letter */
                "/org/rdmad1/device/0",          /* a first digit unescaped */
                "/org/rdmad1/device/mlx5_00",    /* an escaped NUL */
                "/org/rdmad1/device/mlx5_5",     /* a short escape */
                "/org/rdmad1/device/mlx5_5f0/port",
                "/org/rdmad1/device/mlx5_5f0/port/01",
                "/org/rdmad1/device/mlx5_5f0/port/_31",
                "/org/rdmad1/device/mlx5_5f0/port/4294967296",
                "/org/rdmad1/device/mlx5_5f0/port/1/x",
                "/org/rdmad1/device/mlx5_5f0/sriov/x",
                "/org/rdmad1/device/mlx5_5f0/netdev/_",
                "/org/rdmad1/device/mlx5_5f0/netdev/eth0/x",
                "/org/rdmad1/device/mlx5_5f0/other",
        };

        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                BusPath p;
                assert_int_equal(bus_path_parse(paths[i], &p), 0);
        }
}

/* What the parser replaced: decode with sd-bus, accept only if encoding the
 * name again gives the same path. */
static bool decodes_canonically(const char *path, const char *label) {
        char *name = NULL, *again = NULL;
        bool ok;

        assert_int_equal(sd_bus_path_decode(path, RDMAD_DEVICE_PREFIX, &name), 1);
        ok = *name && sd_bus_path_encode(RDMAD_DEVICE_PREFIX, name, &again) >= 0 && streq(again, path);
        free(name);
        free(again);
        return ok;
}

/* Every label of up to 4 characters from an alphabet of the interesting
 * ones, decided as sd-bus decides. */
static void test_labels_as_sd_bus_decides(void **state) {
        static const char alphabet[] = "_035afAFz";
        size_t k = sizeof(alphabet) - 1, total = 1;

        for (unsigned len = 1; len <= 4; len++) {
                total *= k;
                for (size_t code = 0; code < total; code++) {
                        char label[8], path[64];
                        size_t c = code;
                        BusPath p;

                        for (unsigned i = 0; i < len; i++, c /= k)
                                label[i] = alphabet[c % k];
                        label[len] = '\0';
                        snprintf(path, sizeof(path), "%s/%s", RDMAD_DEVICE_PREFIX, label);
                        assert_int_equal(bus_path_parse(path, &p), decodes_canonically(path, label));
                }
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_published_paths_parse_back),
                cmocka_unit_test(test_other_spellings_name_nothing),
                cmocka_unit_test(test_labels_as_sd_bus_decides),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
