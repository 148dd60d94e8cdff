/* SPDX-License-Identifier: MIT */
#include "arg-quote.h"

#include <stdio.h>

const char *arg_quote(const char *s, char buf[static ARG_QUOTE_SIZE]) {
        size_t k = 0, i;

        for (i = 0; s && s[i] && i < ARG_QUOTE_PREFIX; i++) {
                unsigned char c = (unsigned char) s[i];

                if (c >= 0x20 && c < 0x7f && c != '\'' && c != '"' && c != '\\')
                        buf[k++] = (char) c;
                else
                        k += (size_t) snprintf(buf + k, ARG_QUOTE_SIZE - k, "\\x%02x", c);
        }
        if (s && s[i])
                k += (size_t) snprintf(buf + k, ARG_QUOTE_SIZE - k, "...");
        buf[k] = '\0';
        return buf;
}
