/* SPDX-License-Identifier: MIT */
/* counters.c: the number rule, the octet rule, lifespan, and one port's
 * directories read into a sorted list. */
#include <fcntl.h>
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

#include "basic/util.h"
#include "counters.h"

static void test_parse_number_accepts_digits_and_trailing_blanks(void **state) {
        uint64_t v = 1;

        assert_int_equal(counter_parse_number("0", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(counter_parse_number("12345\n", &v), 0);
        assert_int_equal(v, 12345);
        assert_int_equal(counter_parse_number("4711  \n\n", &v), 0);
        assert_int_equal(v, 4711);
        assert_int_equal(counter_parse_number("18446744073709551615", &v), 0);
        assert_true(v == UINT64_MAX);
}

static void test_parse_number_refuses_what_is_no_counter(void **state) {
        static const char *const bad[] = { "N/A (no PMA)", "N/A (no PMA)\n", "-1",  "0x10", "", "\n",
                                           " 7",           "12 packets",     "1.5", "+3" };
        uint64_t v = 99;

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_int_equal(counter_parse_number(bad[i], &v), -EINVAL);
        assert_int_equal(counter_parse_number("18446744073709551616", &v), -ERANGE);
        assert_int_equal(counter_parse_number("99999999999999999999999", &v), -ERANGE);
        assert_int_equal(v, 99); /* untouched on failure */
}

static void test_value_data_counters_in_octets(void **state) {
        uint64_t v;

        assert_int_equal(counter_value(COUNTER_SOURCE_COUNTERS, "port_rcv_data", "10\n", &v), 0);
        assert_int_equal(v, 40);
        assert_int_equal(counter_value(COUNTER_SOURCE_COUNTERS, "port_xmit_data", "30412345678", &v), 0);
        assert_true(v == 121649382712ULL);
        assert_int_equal(counter_value(COUNTER_SOURCE_COUNTERS_EXT, "port_rcv_data_64", "17179869184", &v), 0);
        assert_true(v == 68719476736ULL);
        assert_int_equal(counter_value(COUNTER_SOURCE_COUNTERS_EXT, "port_xmit_data_64", "1", &v), 0);
        assert_int_equal(v, 4);
        /* Packets are packets. */
        assert_int_equal(counter_value(COUNTER_SOURCE_COUNTERS, "port_rcv_packets", "10", &v), 0);
        assert_int_equal(v, 10);
        assert_int_equal(counter_value(COUNTER_SOURCE_COUNTERS_EXT, "port_rcv_packets_64", "10", &v), 0);
        assert_int_equal(v, 10);
        /* A driver's own counter of that name is the driver's business. */
        assert_int_equal(counter_value(COUNTER_SOURCE_HW_COUNTERS, "port_rcv_data", "10", &v), 0);
        assert_int_equal(v, 10);
        /* The largest word count that fits in octets, and the first that does not. */
        assert_int_equal(counter_value(COUNTER_SOURCE_COUNTERS, "port_xmit_data", "4611686018427387903", &v), 0);
        assert_true(v == 18446744073709551612ULL);
        assert_int_equal(counter_value(COUNTER_SOURCE_COUNTERS, "port_rcv_data", "4611686018427387904", &v), -ERANGE);
}

static void test_value_lifespan_is_no_counter(void **state) {
        uint64_t v;

        assert_int_equal(counter_value(COUNTER_SOURCE_HW_COUNTERS, "lifespan", "10\n", &v), -ENOENT);
        assert_int_equal(counter_value(COUNTER_SOURCE_HW_COUNTERS, "out_of_buffer", "1903\n", &v), 0);
        assert_int_equal(v, 1903);
        assert_int_equal(counter_value(COUNTER_SOURCE_COUNTERS, "symbol_error", "N/A (no PMA)", &v), -EINVAL);
}

static void test_list_sorted_first_source_wins(void **state) {
        CounterList l = {};

        assert_int_equal(counter_list_add(&l, "symbol_error", 1), 0);
        assert_int_equal(counter_list_add(&l, "link_downed", 2), 0);
        assert_int_equal(counter_list_add(&l, "VL15_dropped", 3), 0);
        assert_int_equal(counter_list_add(&l, "link_downed", 99), 0); /* from hw_counters/, later */
        counter_list_finish(&l);
        assert_int_equal(l.n, 3);
        assert_string_equal(l.items[0].name, "VL15_dropped"); /* byte order: upper case first */
        assert_string_equal(l.items[1].name, "link_downed");
        assert_int_equal(l.items[1].value, 2);
        assert_string_equal(l.items[2].name, "symbol_error");
        counter_list_clear(&l);
        assert_int_equal(l.n, 0);
}

typedef struct Tree {
        char path[64];
        int fd;
} Tree;

static void write_file(int dirfd, const char *name, const char *data, mode_t mode) {
        int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, data, strlen(data)), (ssize_t) strlen(data));
        close(fd);
}

/* dev/                 hw_counters/{lifespan,Intr}
 * dev/ports/1/         counters/ (with N/A, a write-only file, a directory, a
 *                      value with trailing blanks), counters_ext/, hw_counters/
 * dev/ports/2/         nothing */
static int tree_setup(void **state) {
        Tree *t = calloc(1, sizeof(Tree));
        int dev;

        strcpy(t->path, "/tmp/rdmad-test-counters-XXXXXX");
        assert_non_null(mkdtemp(t->path));
        t->fd = open(t->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(t->fd >= 0);
        dev = t->fd;
        assert_int_equal(mkdirat(dev, "hw_counters", 0755), 0);
        write_file(dev, "hw_counters/lifespan", "10\n", 0644);
        write_file(dev, "hw_counters/Intr", "8212445\n", 0444);
        assert_int_equal(mkdirat(dev, "ports", 0755), 0);
        assert_int_equal(mkdirat(dev, "ports/1", 0755), 0);
        assert_int_equal(mkdirat(dev, "ports/2", 0755), 0);
        assert_int_equal(mkdirat(dev, "ports/1/counters", 0755), 0);
        write_file(dev, "ports/1/counters/port_rcv_data", "30412345678\n", 0444);
        write_file(dev, "ports/1/counters/port_xmit_wait", "4711  \n\n", 0444);
        write_file(dev, "ports/1/counters/symbol_error", "N/A (no PMA)\n", 0444);
        write_file(dev, "ports/1/counters/link_downed", "1\n", 0444);
        write_file(dev, "ports/1/counters/port_xmit_discards", "17\n", 0200); /* the kernel refuses its read */
        assert_int_equal(mkdirat(dev, "ports/1/counters/VL15_dropped", 0755), 0);
        assert_int_equal(mkdirat(dev, "ports/1/counters_ext", 0755), 0);
        write_file(dev, "ports/1/counters_ext/port_xmit_data_64", "12884901888\n", 0444);
        write_file(dev, "ports/1/counters_ext/port_unicast_rcv_packets", "8589933392\n", 0444);
        assert_int_equal(mkdirat(dev, "ports/1/hw_counters", 0755), 0);
        write_file(dev, "ports/1/hw_counters/lifespan", "10\n", 0644);
        write_file(dev, "ports/1/hw_counters/out_of_buffer", "1903\n", 0444);
        write_file(dev, "ports/1/hw_counters/link_downed", "5\n", 0444);
        *state = t;
        return 0;
}

static int tree_teardown(void **state) {
        Tree *t = *state;
        char cmd[128];

        close(t->fd);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->path);
        assert_int_equal(system(cmd), 0);
        free(t);
        return 0;
}

static void test_read_port_directories(void **state) {
        Tree *t = *state;
        char path[128];
        CounterList l;
        bool present = false;

        snprintf(path, sizeof(path), "%s/ports/1", t->path);
        assert_int_equal(counters_read_path(path, true, &l, &present), 0);
        assert_true(present);
        assert_int_equal(l.n, 6);
        assert_string_equal(l.items[0].name, "link_downed");
        assert_int_equal(l.items[0].value, 1); /* counters/ before hw_counters/ */
        assert_string_equal(l.items[1].name, "out_of_buffer");
        assert_int_equal(l.items[1].value, 1903);
        assert_string_equal(l.items[2].name, "port_rcv_data");
        assert_true(l.items[2].value == 121649382712ULL);
        assert_string_equal(l.items[3].name, "port_unicast_rcv_packets");
        assert_true(l.items[3].value == 8589933392ULL);
        assert_string_equal(l.items[4].name, "port_xmit_data_64");
        assert_true(l.items[4].value == 51539607552ULL);
        assert_string_equal(l.items[5].name, "port_xmit_wait");
        assert_int_equal(l.items[5].value, 4711);
        counter_list_clear(&l);

        snprintf(path, sizeof(path), "%s/ports/2", t->path);
        assert_int_equal(counters_read_path(path, true, &l, &present), 0);
        assert_false(present);
        assert_int_equal(l.n, 0);

        snprintf(path, sizeof(path), "%s/ports/3", t->path); /* gone meanwhile */
        assert_int_equal(counters_read_path(path, true, &l, &present), 0);
        assert_false(present);
        assert_int_equal(l.n, 0);
}

static void test_read_device_wide(void **state) {
        Tree *t = *state;
        CounterList l;
        bool present = false;

        assert_int_equal(counters_read_path(t->path, false, &l, &present), 0);
        assert_true(present);
        assert_int_equal(l.n, 1);
        assert_string_equal(l.items[0].name, "Intr");
        assert_int_equal(l.items[0].value, 8212445);
        counter_list_clear(&l);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_number_accepts_digits_and_trailing_blanks),
                cmocka_unit_test(test_parse_number_refuses_what_is_no_counter),
                cmocka_unit_test(test_value_data_counters_in_octets),
                cmocka_unit_test(test_value_lifespan_is_no_counter),
                cmocka_unit_test(test_list_sorted_first_source_wins),
                cmocka_unit_test_setup_teardown(test_read_port_directories, tree_setup, tree_teardown),
                cmocka_unit_test_setup_teardown(test_read_device_wide, tree_setup, tree_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
