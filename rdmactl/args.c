/* SPDX-License-Identifier: MIT */
/* Strict parsers for command-line numbers: a script's typo is an error,
 * never a silently different value. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "rdmactl.h"
#include "util.h"

int parse_uint32(const char *s, uint32_t *ret) {
        uint64_t v = 0;

        if (!s || !*s)
                return -EINVAL;
        if (s[0] == '0' && s[1])
                return -EINVAL;
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                v = v * 10 + (uint64_t) (*p - '0');
                if (v > UINT32_MAX)
                        return -ERANGE;
        }
        *ret = (uint32_t) v;
        return 0;
}

int parse_seconds(const char *s, uint64_t *ret_usec) {
        uint64_t sec = 0, frac = 0, scale = 100000;
        const char *p = s;

        if (!s || !*s)
                return -EINVAL;
        if (streq(s, "infinity")) {
                *ret_usec = UINT64_MAX;
                return 0;
        }
        if (*p == '.' && !p[1])
                return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
                sec = sec * 10 + (uint64_t) (*p - '0');
                if (sec > UINT32_MAX) /* 136 years: beyond any sensible timeout */
                        return -ERANGE;
        }
        if (*p == '.') {
                p++;
                if (!*p)
                        return -EINVAL;
                for (; *p >= '0' && *p <= '9'; p++) {
                        frac += (uint64_t) (*p - '0') * scale; /* digits past microseconds are dropped */
                        scale /= 10;
                }
        }
        if (*p)
                return -EINVAL;
        *ret_usec = sec * 1000000 + frac;
        return 0;
}
