/* SPDX-License-Identifier: MIT */
/* common/basic/list.h: order, unlinking anywhere (the tail pointer kept right),
 * removal during a walk, one item on two lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "basic/list.h"

typedef struct Item Item;
struct Item {
        int value;
        LIST_FIELDS(Item, all);
        LIST_FIELDS(Item, odd);
};

typedef struct Lists {
        Item items[5];
        Item *head, *tail;
} Lists;

/* The values along the list, forwards, then checked backwards from the tail. */
static size_t values(Item *head, Item *tail, int *ret, size_t max) {
        size_t n = 0;
        Item *last = NULL;

        LIST_FOREACH(all, i, head) {
                assert_true(n < max);
                assert_ptr_equal(i->all_prev, last);
                ret[n++] = i->value;
                last = i;
        }
        assert_ptr_equal(last, tail);
        for (Item *i = tail; i; i = i->all_prev) {
                assert_true(n > 0);
                assert_int_equal(i->value, ret[--n]);
        }
        assert_int_equal(n, 0);
        /* Counted again, to return it. */
        LIST_FOREACH(all, i, head)
                n++;
        return n;
}

#define assert_values(l, ...)                                                                                          \
        do {                                                                                                           \
                const int _want[] = { __VA_ARGS__ };                                                                   \
                int _got[16];                                                                                          \
                size_t _n = values((l)->head, (l)->tail, _got, 16);                                                    \
                assert_int_equal(_n, sizeof(_want) / sizeof(_want[0]));                                                \
                for (size_t _i = 0; _i < _n; _i++)                                                                     \
                        assert_int_equal(_got[_i], _want[_i]);                                                         \
        } while (0)

static void lists_init_appended(Lists *l) {
        *l = (Lists){};
        for (int i = 0; i < 5; i++) {
                l->items[i].value = i;
                LIST_APPEND(all, l->head, l->tail, &l->items[i]);
        }
}

static void test_append_keeps_arrival_order(void **state) {
        Lists l;

        lists_init_appended(&l);
        assert_values(&l, 0, 1, 2, 3, 4);
        assert_null(l.head->all_prev);
        assert_null(l.tail->all_next);
}

static void test_prepend_reverses(void **state) {
        Item items[3] = { { .value = 0 }, { .value = 1 }, { .value = 2 } };
        Item *head = NULL;
        int n = 2;

        for (int i = 0; i < 3; i++)
                LIST_PREPEND(all, head, &items[i]);
        assert_null(head->all_prev);
        LIST_FOREACH(all, i, head)
                assert_int_equal(i->value, n--);
        assert_int_equal(n, -1);
        assert_ptr_equal(items[0].all_prev, &items[1]);
        assert_null(items[0].all_next);
}

static void test_remove_head_middle_tail(void **state) {
        Lists l;

        lists_init_appended(&l);
        LIST_REMOVE_TAIL(all, l.head, l.tail, &l.items[0]);
        assert_values(&l, 1, 2, 3, 4);
        assert_null(l.items[0].all_next);
        assert_null(l.items[0].all_prev);

        LIST_REMOVE_TAIL(all, l.head, l.tail, &l.items[2]);
        assert_values(&l, 1, 3, 4);

        LIST_REMOVE_TAIL(all, l.head, l.tail, &l.items[4]);
        assert_values(&l, 1, 3);
        assert_ptr_equal(l.tail, &l.items[3]);

        /* Appended after the tail moved: goes after the new tail. */
        LIST_APPEND(all, l.head, l.tail, &l.items[4]);
        assert_values(&l, 1, 3, 4);

        LIST_REMOVE_TAIL(all, l.head, l.tail, &l.items[3]);
        LIST_REMOVE_TAIL(all, l.head, l.tail, &l.items[4]);
        LIST_REMOVE_TAIL(all, l.head, l.tail, &l.items[1]);
        assert_null(l.head);
        assert_null(l.tail);

        /* Empty again: an append makes it head and tail. */
        LIST_APPEND(all, l.head, l.tail, &l.items[2]);
        assert_values(&l, 2);
}

static void test_remove_without_tail(void **state) {
        Item items[3] = { { .value = 0 }, { .value = 1 }, { .value = 2 } };
        Item *head = NULL;

        for (int i = 2; i >= 0; i--)
                LIST_PREPEND(all, head, &items[i]);
        LIST_REMOVE(all, head, &items[1]);
        assert_ptr_equal(head, &items[0]);
        assert_ptr_equal(items[0].all_next, &items[2]);
        assert_ptr_equal(items[2].all_prev, &items[0]);
        LIST_REMOVE(all, head, &items[0]);
        assert_ptr_equal(head, &items[2]);
        assert_null(items[2].all_prev);
        LIST_REMOVE(all, head, head);
        assert_null(head);
}

static void test_remove_while_iterating(void **state) {
        Lists l;
        int seen = 0;

        lists_init_appended(&l);
        /* Every even item leaves while the walk stands on it. */
        LIST_FOREACH_SAFE(all, i, n, l.head) {
                assert_int_equal(i->value, seen++);
                if (i->value % 2 == 0)
                        LIST_REMOVE_TAIL(all, l.head, l.tail, i);
        }
        assert_int_equal(seen, 5);
        assert_values(&l, 1, 3);

        /* And all of them, heap items freed in the body. */
        Item *head = NULL, *tail = NULL;
        for (int i = 0; i < 4; i++) {
                Item *item = calloc(1, sizeof(Item));
                assert_non_null(item);
                item->value = i;
                LIST_APPEND(all, head, tail, item);
        }
        seen = 0;
        LIST_FOREACH_SAFE(all, i, n, head) {
                seen++;
                LIST_REMOVE_TAIL(all, head, tail, i);
                free(i);
        }
        assert_int_equal(seen, 4);
        assert_null(head);
        assert_null(tail);

        /* Nothing to walk: the body never runs. */
        LIST_FOREACH_SAFE(all, i, n, head)
                fail();
}

static void test_item_on_two_lists(void **state) {
        Lists l;
        Item *odds = NULL;
        int n = 0;

        lists_init_appended(&l);
        LIST_FOREACH(all, i, l.head)
                if (i->value % 2 == 1)
                        LIST_PREPEND(odd, odds, i);

        /* Leaving one list leaves the other as it was. */
        LIST_REMOVE_TAIL(all, l.head, l.tail, &l.items[3]);
        assert_values(&l, 0, 1, 2, 4);
        assert_ptr_equal(odds, &l.items[3]);
        assert_ptr_equal(odds->odd_next, &l.items[1]);

        LIST_REMOVE(odd, odds, &l.items[1]);
        assert_values(&l, 0, 1, 2, 4);
        LIST_FOREACH(odd, i, odds) {
                assert_int_equal(i->value, 3);
                n++;
        }
        assert_int_equal(n, 1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_append_keeps_arrival_order), cmocka_unit_test(test_prepend_reverses),
                cmocka_unit_test(test_remove_head_middle_tail),    cmocka_unit_test(test_remove_without_tail),
                cmocka_unit_test(test_remove_while_iterating),     cmocka_unit_test(test_item_on_two_lists),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
