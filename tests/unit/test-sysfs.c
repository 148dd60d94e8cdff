/* SPDX-License-Identifier: MIT */
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
#include "sysfs.h"

typedef struct Tree {
        char path[64];
        int fd;
} Tree;

static void write_file(int dirfd, const char *name, const void *data, size_t len, mode_t mode) {
        int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, data, len), (ssize_t) len);
        close(fd);
}

static int tree_setup(void **state) {
        Tree *t = calloc(1, sizeof(Tree));
        char big[6000];

        strcpy(t->path, "/tmp/rdmad-test-sysfs-XXXXXX");
        assert_non_null(mkdtemp(t->path));
        t->fd = open(t->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(t->fd >= 0);

        write_file(t->fd, "newline", "14.28.2006\n", 11, 0444);
        write_file(t->fd, "no_newline", "1.0", 3, 0444);
        write_file(t->fd, "two_newlines", "a\n\n", 3, 0444);
        write_file(t->fd, "trailing_blanks", "4711 \t \n\n", 8, 0444);
        write_file(t->fd, "inner_blank", "IB/RoCE v1 \n", 12, 0444);
        write_file(t->fd, "empty", "", 0, 0444);
        write_file(t->fd, "binary",
                   "\xc3\x28\xff"
                   "A\0B\n",
                   7, 0444);
        memset(big, 'A', sizeof(big));
        write_file(t->fd, "huge", big, sizeof(big), 0444);
        write_file(t->fd, "write_only", "x", 1, 0200);
        write_file(t->fd, "owner_only", "secret", 6, 0400); /* root-only in sysfs: not for the bus */
        write_file(t->fd, "group_only", "secret", 6, 0440);
        assert_int_equal(mkdirat(t->fd, "rate", 0755), 0);
        assert_int_equal(symlinkat("../nowhere", t->fd, "dangling"), 0);
        assert_int_equal(symlinkat("../../../../bus/pci/drivers/mlx5_core", t->fd, "driver"), 0);
        assert_int_equal(mkdirat(t->fd, "power", 0755), 0);

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

/* Some drivers print blank lines or spaces after a value: all trailing
 * whitespace goes, inner spaces stay. */
static void test_read_strips_trailing_whitespace(void **state) {
        Tree *t = *state;
        char *s;

        assert_int_equal(sysfs_read_at(t->fd, "newline", &s), 0);
        assert_string_equal(s, "14.28.2006");
        free(s);
        assert_int_equal(sysfs_read_at(t->fd, "no_newline", &s), 0);
        assert_string_equal(s, "1.0");
        free(s);
        assert_int_equal(sysfs_read_at(t->fd, "two_newlines", &s), 0);
        assert_string_equal(s, "a");
        free(s);
        assert_int_equal(sysfs_read_at(t->fd, "trailing_blanks", &s), 0);
        assert_string_equal(s, "4711");
        free(s);
        assert_int_equal(sysfs_read_at(t->fd, "inner_blank", &s), 0);
        assert_string_equal(s, "IB/RoCE v1");
        free(s);
        assert_int_equal(sysfs_read_at(t->fd, "empty", &s), 0);
        assert_string_equal(s, "");
        free(s);
}

static void test_read_sanitizes_and_bounds(void **state) {
        Tree *t = *state;
        char *s;

        assert_int_equal(sysfs_read_at(t->fd, "binary", &s), 0);
        assert_string_equal(s, "\xef\xbf\xbd(\xef\xbf\xbd"
                               "A\xef\xbf\xbd"
                               "B");
        free(s);

        assert_int_equal(sysfs_read_at(t->fd, "huge", &s), 0);
        assert_int_equal(strlen(s), SYSFS_ATTR_MAX);
        free(s);
}

static void test_read_errors(void **state) {
        Tree *t = *state;
        char *s = NULL;

        assert_int_equal(sysfs_read_at(t->fd, "missing", &s), -ENOENT);
        assert_int_equal(sysfs_read_at(t->fd, "rate", &s), -EISDIR);
        assert_int_equal(sysfs_read_at(t->fd, "dangling", &s), -ENOENT);
        assert_null(s);
}

static void test_readlink_basename(void **state) {
        Tree *t = *state;
        char *s;

        assert_int_equal(sysfs_readlink_basename_at(t->fd, "driver", &s), 0);
        assert_string_equal(s, "mlx5_core");
        free(s);
        assert_int_equal(sysfs_readlink_basename_at(t->fd, "newline", &s), -EINVAL);
        assert_int_equal(sysfs_readlink_basename_at(t->fd, "missing", &s), -ENOENT);
}

static void test_attributes_only_readable_regular_files(void **state) {
        Tree *t = *state;
        AttrList l;

        assert_int_equal(sysfs_read_attributes_at(t->fd, ".", &l), 0);
        /* Sorted; no directories, links, write-only files, or files that not every user may read. */
        assert_int_equal(l.n, 8);
        assert_string_equal(l.items[0].name, "binary");
        assert_string_equal(l.items[1].name, "empty");
        assert_string_equal(l.items[2].name, "huge");
        assert_string_equal(l.items[3].name, "inner_blank");
        assert_string_equal(l.items[4].name, "newline");
        assert_string_equal(l.items[5].name, "no_newline");
        assert_string_equal(l.items[6].name, "trailing_blanks");
        assert_string_equal(l.items[7].name, "two_newlines");
        assert_string_equal(attr_list_get(&l, "trailing_blanks"), "4711");
        assert_string_equal(attr_list_get(&l, "newline"), "14.28.2006");
        assert_string_equal(attr_list_get(&l, "empty"), "");
        assert_null(attr_list_get(&l, "rate"));
        assert_null(attr_list_get(&l, "write_only"));
        assert_null(attr_list_get(&l, "owner_only"));
        assert_null(attr_list_get(&l, "group_only"));
        assert_true(attr_list_equal(&l, &l));
        attr_list_clear(&l);

        assert_int_equal(sysfs_read_attributes_at(t->fd, "power", &l), 0);
        assert_int_equal(l.n, 0);
        assert_int_equal(sysfs_read_attributes_at(t->fd, "nonexistent", &l), -ENOENT);
}

/* Names and values are kept once however many lists hold them, and each
 * goes with its last holder: thousands of distinct ones come and go in an
 * order that empties slots in the middle of probe chains, and every list
 * still reads what it was given. */
static void test_attribute_strings_shared_and_released(void **state) {
        enum { N = 3000 };
        static AttrList lists[N];
        char name[32], value[32];

        assert_int_equal(attr_strings_held(), 0);
        for (unsigned i = 0; i < N; i++) {
                snprintf(value, sizeof(value), "v%u", i);
                assert_int_equal(attr_list_set(&lists[i], "state", "4: ACTIVE"), 0);
                assert_int_equal(attr_list_set(&lists[i], "own", value), 0);
        }
        /* Two names, one shared value, N values of their own. */
        assert_int_equal(attr_strings_held(), 3 + N);
        assert_ptr_equal(attr_list_get(&lists[0], "state"), attr_list_get(&lists[N - 1], "state"));

        /* Every third list goes, then every other value is replaced. */
        for (unsigned i = 0; i < N; i += 3)
                attr_list_clear(&lists[i]);
        for (unsigned i = 1; i < N; i += 2) {
                if (i % 3 == 0)
                        continue;
                snprintf(value, sizeof(value), "w%u", i);
                assert_int_equal(attr_list_set(&lists[i], "own", value), 0);
        }
        for (unsigned i = 0; i < N; i++) {
                if (i % 3 == 0) {
                        assert_int_equal(lists[i].n, 0);
                        continue;
                }
                snprintf(value, sizeof(value), "%c%u", i % 2 ? 'w' : 'v', i);
                assert_string_equal(attr_list_get(&lists[i], "own"), value);
                assert_string_equal(attr_list_get(&lists[i], "state"), "4: ACTIVE");
        }
        snprintf(name, sizeof(name), "v%u", 2u);
        assert_string_equal(attr_list_get(&lists[2], "own"), name);

        for (unsigned i = 0; i < N; i++)
                attr_list_clear(&lists[i]);
        assert_int_equal(attr_strings_held(), 0);
}

static void test_path_join_normalize(void **state) {
        static const struct {
                const char *base, *rel, *out;
        } cases[] = {
                { "/sys/devices/pci0000:00/0000:00:02.0/0000:03:00.0/infiniband/mlx4_0", "../../../0000:03:00.0",
                  "/sys/devices/pci0000:00/0000:00:02.0/0000:03:00.0" },
                { "/sys/devices/a/b", "./c/../d", "/sys/devices/a/b/d" },
                { "/a", "../../..", "/" },
                { "/a/b", "/x//y/", "/x/y" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *s = path_join_normalize(cases[i].base, cases[i].rel);
                assert_non_null(s);
                assert_string_equal(s, cases[i].out);
                free(s);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_read_strips_trailing_whitespace, tree_setup, tree_teardown),
                cmocka_unit_test_setup_teardown(test_read_sanitizes_and_bounds, tree_setup, tree_teardown),
                cmocka_unit_test_setup_teardown(test_read_errors, tree_setup, tree_teardown),
                cmocka_unit_test_setup_teardown(test_readlink_basename, tree_setup, tree_teardown),
                cmocka_unit_test_setup_teardown(test_attributes_only_readable_regular_files, tree_setup, tree_teardown),
                cmocka_unit_test(test_attribute_strings_shared_and_released),
                cmocka_unit_test(test_path_join_normalize),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
