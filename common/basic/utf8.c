/* SPDX-License-Identifier: MIT */
#include "basic/utf8.h"

#include <langinfo.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basic/util.h"

#define REPLACEMENT "\xef\xbf\xbd"

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is invalid:
 * truncated, overlong, a surrogate, above U+10FFFF, or a NUL byte. */
static size_t utf8_sequence_length(const unsigned char *s, size_t left) {
        uint32_t cp;
        size_t n;

        if (s[0] == 0)
                return 0;
        if (s[0] < 0x80)
                return 1;
        if (s[0] < 0xc2) /* continuation byte, or overlong 2-byte lead */
                return 0;
        if (s[0] < 0xe0) {
                n = 2;
                cp = s[0] & 0x1f;
        } else if (s[0] < 0xf0) {
                n = 3;
                cp = s[0] & 0x0f;
        } else if (s[0] < 0xf5) {
                n = 4;
                cp = s[0] & 0x07;
        } else
                return 0;

        if (left < n)
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }

        if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000))
                return 0; /* overlong */
        if (cp >= 0xd800 && cp <= 0xdfff)
                return 0; /* surrogate */
        if (cp > 0x10ffff)
                return 0;
        return n;
}

bool utf8_is_valid_n(const char *s, size_t len) {
        const unsigned char *p = (const unsigned char *) s;

        for (size_t i = 0; i < len;) {
                size_t n = utf8_sequence_length(p + i, len - i);
                if (n == 0)
                        return false;
                i += n;
        }
        return true;
}

char *utf8_sanitize(const char *s, size_t len) {
        const unsigned char *p = (const unsigned char *) s;
        size_t size = 0;
        char *ret, *out;

        /* First pass sizes the result exactly: the model keeps these strings. */
        for (size_t i = 0; i < len;) {
                size_t n = utf8_sequence_length(p + i, len - i);
                size += n == 0 ? 3 : n;
                i += n == 0 ? 1 : n;
        }

        ret = malloc(size + 1);
        if (!ret)
                return NULL;

        out = ret;
        for (size_t i = 0; i < len;) {
                size_t n = utf8_sequence_length(p + i, len - i);
                if (n == 0) {
                        memcpy(out, REPLACEMENT, 3);
                        out += 3;
                        i++;
                } else {
                        memcpy(out, p + i, n);
                        out += n;
                        i += n;
                }
        }
        *out = '\0';
        return ret;
}

size_t utf8_width(const char *s) {
        size_t n = 0;

        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if ((*p & 0xc0) != 0x80) /* not a continuation byte */
                        n++;
        return n;
}

bool utf8_locale(void) {
        const char *codeset = nl_langinfo(CODESET);
        return codeset && (streq(codeset, "UTF-8") || streq(codeset, "utf8"));
}
