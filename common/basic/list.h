/* SPDX-License-Identifier: MIT */
#pragma once

#include <assert.h>
#include <stddef.h>

/* An intrusive doubly linked list: an item carries its own links, named
 * `name_next` and `name_prev` by LIST_FIELDS(Type, name), so an item can be
 * on several lists and leaves any of them in O(1) without a walk. The head
 * is a plain `Type *`. */

#define LIST_FIELDS(t, name) t *name##_next, *name##_prev

#define LIST_PREPEND(name, head, item)                                                                                 \
        do {                                                                                                           \
                __typeof__(*(head)) **_head = &(head), *_item = item;                                                  \
                assert(_item);                                                                                         \
                _item->name##_prev = NULL;                                                                             \
                _item->name##_next = *_head;                                                                           \
                if (*_head)                                                                                            \
                        (*_head)->name##_prev = _item;                                                                 \
                *_head = _item;                                                                                        \
        } while (0)

/* With a tail pointer kept beside the head: arrival order. */
#define LIST_APPEND(name, head, tail, item)                                                                            \
        do {                                                                                                           \
                __typeof__(*(head)) **_head = &(head), **_tail = &(tail), *_item = item;                               \
                assert(_item);                                                                                         \
                _item->name##_next = NULL;                                                                             \
                _item->name##_prev = *_tail;                                                                           \
                if (*_tail)                                                                                            \
                        (*_tail)->name##_next = _item;                                                                 \
                else                                                                                                   \
                        *_head = _item;                                                                                \
                *_tail = _item;                                                                                        \
        } while (0)

#define LIST_REMOVE(name, head, item)                                                                                  \
        do {                                                                                                           \
                __typeof__(*(head)) **_head = &(head), *_item = item;                                                  \
                assert(_item);                                                                                         \
                if (_item->name##_next)                                                                                \
                        _item->name##_next->name##_prev = _item->name##_prev;                                          \
                if (_item->name##_prev)                                                                                \
                        _item->name##_prev->name##_next = _item->name##_next;                                          \
                else {                                                                                                 \
                        assert(*_head == _item);                                                                       \
                        *_head = _item->name##_next;                                                                   \
                }                                                                                                      \
                _item->name##_next = _item->name##_prev = NULL;                                                        \
        } while (0)

/* LIST_REMOVE for a list with a tail pointer. */
#define LIST_REMOVE_TAIL(name, head, tail, item)                                                                       \
        do {                                                                                                           \
                __typeof__(*(head)) **_tail = &(tail), *_it = item;                                                    \
                assert(_it);                                                                                           \
                if (*_tail == _it)                                                                                     \
                        *_tail = _it->name##_prev;                                                                     \
                LIST_REMOVE(name, head, _it);                                                                          \
        } while (0)

#define LIST_FOREACH(name, i, head) for (__typeof__(head) i = (head); i; i = i->name##_next)

/* The current item may be removed (freed) in the body. */
#define LIST_FOREACH_SAFE(name, i, n, head)                                                                            \
        for (__typeof__(head) i = (head), n = i ? i->name##_next : NULL; i; i = n, n = i ? i->name##_next : NULL)
