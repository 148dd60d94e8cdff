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

/* Columns as many characters wide as a terminal shows them (UTF-8 code
 * points): valid UTF-8 is assumed, every byte but a continuation byte counts. */
size_t utf8_width(const char *s);

/* Whether the locale's character set (LC_CTYPE, as setlocale() left it) is
 * UTF-8, so that text may use characters beyond ASCII. */
bool utf8_locale(void);
