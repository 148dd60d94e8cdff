/* SPDX-License-Identifier: MIT */
/* The drivers whose PCI functions carry hardware RDMA: the model's list and
 * the udev rule's DRIVERS== match are the same, and a plain NIC's driver is
 * in neither. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rdma-drivers.h"

/* The alternatives of the rule's DRIVERS=="a|b|c" (caller frees). */
static char *rule_drivers(void) {
        char line[4096], *found = NULL;
        FILE *f = fopen(RULES_FILE, "re");

        assert_non_null(f);
        while (fgets(line, sizeof(line), f)) {
                char *p = strstr(line, "DRIVERS==\""), *end;

                if (!p || line[0] == '#')
                        continue;
                p += strlen("DRIVERS==\"");
                end = strchr(p, '"');
                assert_non_null(end);
                *end = '\0';
                assert_null(found); /* one such match */
                found = strdup(p);
        }
        fclose(f);
        assert_non_null(found);
        return found;
}

static void test_rule_and_model_agree(void **state) {
        char *drivers = rule_drivers(), *save = NULL;
        unsigned n = 0;

        for (char *d = strtok_r(drivers, "|", &save); d; d = strtok_r(NULL, "|", &save), n++)
                if (!rdma_pci_driver(d))
                        fail_msg("the udev rule grants %s, which the model does not know", d);
        assert_true(n > 0);
        free(drivers);
}

static void test_plain_nics_and_soft_devices_are_not_rdma(void **state) {
        static const char *const plain[] = { "ixgbe", "e1000e", "igb", "r8169", "virtio_net", "", "mlx5" };
        char *drivers = rule_drivers();

        assert_true(rdma_pci_driver("mlx5_core"));
        assert_true(rdma_pci_driver("hfi1"));
        assert_false(rdma_pci_driver(NULL));
        for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
                assert_false(rdma_pci_driver(plain[i]));
                if (*plain[i]) {
                        char needle[64];

                        snprintf(needle, sizeof(needle), "|%s|", plain[i]);
                        /* Alternatives are whole names: look for them delimited. */
                        char *wrapped = NULL;
                        assert_true(asprintf(&wrapped, "|%s|", drivers) > 0);
                        assert_null(strstr(wrapped, needle));
                        free(wrapped);
                }
        }
        free(drivers);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rule_and_model_agree),
                cmocka_unit_test(test_plain_nics_and_soft_devices_are_not_rdma),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
