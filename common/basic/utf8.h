/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Every string that reaches D-Bus must be valid UTF-8 without NUL bytes, or
 * sd-bus refuses the whole message. Sysfs gives arbitrary bytes. */

bool utf8_is_valid_n(const char *s, size_t len);

/* Returns a newly allocated NUL-terminated copy of s[0..len) in which every
 * invalid sequence and every NUL byte is replaced by U+FFFD. NULL on OOM. */
char *utf8_sanitize(const char *s, size_t len);
