/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "basic/utf8.h"
#include "basic/util.h"

#define R "\xef\xbf\xbd"

static void test_sanitize_cases(void **state) {
        static const struct {
                const char *in;
                size_t len;
                const char *out;
        } cases[] = {
                { "", 0, "" },
                { "MT4099", 6, "MT4099" },
                { "caf\xc3\xa9", 5, "caf\xc3\xa9" },           /* valid 2-byte */
                { "\xe2\x82\xac", 3, "\xe2\x82\xac" },         /* valid 3-byte */
                { "\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80" }, /* valid 4-byte */
                { "\xc3\x28\xff\x41", 4, R "(" R "A" },        /* bad continuation, 0xff */
                { "a\0b", 3, "a" R "b" },                      /* NUL is not allowed on D-Bus */
                { "\xc0\xaf", 2, R R },                        /* overlong '/' */
                { "\xe0\x80\xaf", 3, R R R },                  /* overlong 3-byte */
                { "\xed\xa0\x80", 3, R R R },                  /* UTF-16 surrogate */
                { "\xf4\x90\x80\x80", 4, R R R R },            /* above U+10FFFF */
                { "\xe2\x82", 2, R R },                        /* truncated at the end */
                { "\x80x", 2, R "x" },                         /* lone continuation */
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *s = utf8_sanitize(cases[i].in, cases[i].len);

                assert_non_null(s);
                assert_string_equal(s, cases[i].out);
                assert_true(utf8_is_valid_n(s, strlen(s)));
                assert_int_equal(utf8_is_valid_n(cases[i].in, cases[i].len),
                                 streq(s, cases[i].in) && strlen(s) == cases[i].len);
                free(s);
        }
}

static void test_sanitize_every_byte_pair(void **state) {
        /* Whatever the bytes, the result is valid UTF-8. */
        for (unsigned a = 0; a < 256; a++)
                for (unsigned b = 0; b < 256; b++) {
                        char in[3] = { (char) a, (char) b, (char) 0x80 };
                        char *s = utf8_sanitize(in, sizeof(in));

                        assert_non_null(s);
                        assert_true(utf8_is_valid_n(s, strlen(s)));
                        free(s);
                }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sanitize_cases),
                cmocka_unit_test(test_sanitize_every_byte_pair),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
