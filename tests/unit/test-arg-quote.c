/* SPDX-License-Identifier: MIT */
/* What an error may quote of a caller's argument: a short escaped prefix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arg-quote.h"

static void test_short_printable_unchanged(void **state) {
        char buf[ARG_QUOTE_SIZE];

        assert_string_equal(arg_quote("ACTIVE", buf), "ACTIVE");
        assert_string_equal(arg_quote("", buf), "");
        assert_string_equal(arg_quote(NULL, buf), "");
}

static void test_escaped(void **state) {
        char buf[ARG_QUOTE_SIZE];

        assert_string_equal(arg_quote("a'b\"c\\d\n\xff", buf), "a\\x27b\\x22c\\x5cd\\x0a\\xff");
}

static void test_long_cut_to_prefix(void **state) {
        size_t n = 30 * 1024 * 1024;
        char *big = malloc(n + 1), buf[ARG_QUOTE_SIZE];

        assert_non_null(big);
        memset(big, '\x01', n);
        big[n] = '\0';
        arg_quote(big, buf);
        assert_int_equal(strlen(buf), ARG_QUOTE_PREFIX * 4 + 3);
        assert_string_equal(buf + ARG_QUOTE_PREFIX * 4, "...");
        memset(big, 'x', n);
        arg_quote(big, buf);
        assert_int_equal(strlen(buf), ARG_QUOTE_PREFIX + 3);
        free(big);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_short_printable_unchanged),
                cmocka_unit_test(test_escaped),
                cmocka_unit_test(test_long_cut_to_prefix),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
