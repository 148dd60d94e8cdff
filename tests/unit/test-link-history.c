/* SPDX-License-Identifier: MIT */
/* link-history.c: the ring of the last 32 changes, the file's text and its
 * checks (every cut and every changed byte of a good file is refused), the
 * file names. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "link-history.h"

#define KEY "link-history.guid.0002c90300a1b2c1"

static LinkHistory sample(void) {
        LinkHistory h = {};

        link_history_add(&h, UINT64_C(1700000000000001), "ACTIVE", "DOWN");
        link_history_add(&h, UINT64_C(1700000000500000), "DOWN", "INIT");
        link_history_add(&h, UINT64_C(1700000001000000), "", "ACTIVE_DEFER");
        /* What a kernel could print: blanks, a '%', UTF-8. */
        link_history_add(&h, UINT64_MAX, "Phy Test%", "caf\xc3\xa9");
        return h;
}

static void test_the_last_32_are_kept_oldest_first(void **state) {
        LinkHistory h = {};

        for (unsigned i = 0; i < 40; i++)
                link_history_add(&h, 1000 + i, i % 2 ? "DOWN" : "ACTIVE", i % 2 ? "ACTIVE" : "DOWN");
        assert_int_equal(h.n, LINK_HISTORY_MAX);
        assert_int_equal(h.changes[0].usec, 1008);
        assert_int_equal(h.changes[31].usec, 1039);
        assert_string_equal(h.changes[31].new_state, "ACTIVE");
}

static void test_long_names_are_cut_at_a_character(void **state) {
        LinkHistory h = {};
        char name[64];

        /* 30 ASCII bytes, then a 2-byte character across the limit of 31. */
        memset(name, 'A', 30);
        strcpy(name + 30, "\xc3\xa9xyz");
        link_history_add(&h, 1, name, "DOWN");
        assert_int_equal(strlen(h.changes[0].old_state), 30);
}

/* NULL is the empty history. */
static bool history_equal(const LinkHistory *a, const LinkHistory *b) {
        size_t na = a ? a->n : 0, nb = b ? b->n : 0;

        if (na != nb)
                return false;
        for (size_t i = 0; i < na; i++)
                if (a->changes[i].usec != b->changes[i].usec ||
                    strcmp(a->changes[i].old_state, b->changes[i].old_state) != 0 ||
                    strcmp(a->changes[i].new_state, b->changes[i].new_state) != 0)
                        return false;
        return true;
}

static void test_the_text_reads_back_equal(void **state) {
        LinkHistory h = sample(), back;
        size_t len;
        char *text = link_history_format(&h, KEY, &len);

        assert_non_null(text);
        assert_int_equal(strlen(text), len);
        assert_true(strncmp(text, "rdmad link history 1 " KEY "\n1700000000000001 ACTIVE DOWN\n", 62) == 0);
        assert_non_null(strstr(text, "\n1700000001000000 - ACTIVE_DEFER\n"));
        assert_non_null(strstr(text, " Phy%20Test%25 caf%c3%a9\n"));
        assert_int_equal(link_history_parse(text, len, KEY, &back), 0);
        assert_true(history_equal(&h, &back));
        free(text);

        /* Empty, and NULL as empty. */
        text = link_history_format(NULL, KEY, &len);
        assert_int_equal(link_history_parse(text, len, KEY, &back), 0);
        assert_int_equal(back.n, 0);
        assert_true(history_equal(NULL, &back));
        free(text);
}

/* Every prefix of a good file is a truncation, every changed byte damage:
 * none reads back. */
static void test_every_cut_and_every_changed_byte_is_refused(void **state) {
        LinkHistory h = sample(), back;
        size_t len;
        char *text = link_history_format(&h, KEY, &len);

        for (size_t cut = 0; cut < len; cut++)
                assert_int_equal(link_history_parse(text, cut, KEY, &back), -EBADMSG);
        for (size_t i = 0; i < len; i++) {
                char saved = text[i];

                for (unsigned bit = 0; bit < 8; bit++) {
                        text[i] = (char) (saved ^ (1 << bit));
                        if (link_history_parse(text, len, KEY, &back) != -EBADMSG)
                                fail_msg("byte %zu bit %u changed, still read", i, bit);
                }
                text[i] = saved;
        }
        /* Another port's file, and anything after the end line. */
        assert_int_equal(link_history_parse(text, len, "link-history.port.mlx4_0.1", &back), -EBADMSG);
        text = realloc(text, len + 2);
        memcpy(text + len, "x\n", 2);
        assert_int_equal(link_history_parse(text, len + 2, KEY, &back), -EBADMSG);
        free(text);
        assert_int_equal(link_history_parse("", 0, KEY, &back), -EBADMSG);
        assert_int_equal(link_history_parse("\0\0\0\0", 4, KEY, &back), -EBADMSG);
}

static void test_file_names(void **state) {
        char key[LINK_HISTORY_KEY_MAX];

        assert_int_equal(link_history_key("9803:9b03:009f:cfd6", "mlx5_0", 1, key), 0);
        assert_string_equal(key, "link-history.guid.98039b03009fcfd6");
        assert_int_equal(link_history_key("", "mlx5_0", 1, key), 0);
        assert_string_equal(key, "link-history.port.mlx5_0.1");
        assert_int_equal(link_history_key(NULL, "a/b.c-d e\xff", 12, key), 0);
        assert_string_equal(key, "link-history.port.a%2fb%2ec-d%20e%ff.12");
        assert_int_equal(link_history_key("9803:9B03:009f", "mlx5_0", 1, key), -EINVAL);
        assert_int_equal(link_history_key(NULL, "", 1, key), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_the_last_32_are_kept_oldest_first),
                cmocka_unit_test(test_long_names_are_cut_at_a_character),
                cmocka_unit_test(test_the_text_reads_back_equal),
                cmocka_unit_test(test_every_cut_and_every_changed_byte_is_refused),
                cmocka_unit_test(test_file_names),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
