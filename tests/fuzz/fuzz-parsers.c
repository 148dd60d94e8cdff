/* SPDX-License-Identifier: MIT */
/* Every parser of parse.c on the same arbitrary string, with the properties
 * each one promises checked against an independent reading. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "basic/parse.h"
#include "fuzz.h"

static const char *const node_types[] = { "CA", "switch", "router", "RNIC", "usNIC", "usNIC UDP", "unspecified" };

static void check_named(int r, const char *s, uint32_t num, const char *name) {
        if (r < 0)
                return;
        fuzz_assert(name);
        /* A name is either taken from s itself or from a table of known names. */
        if (name >= s && name <= s + strlen(s))
                fuzz_assert(strlen(name) <= strlen(s));
        (void) num;
}

/* Strict reference for parse_decimal_u32: canonical decimal, fits 32 bits. */
static int reference_decimal(const char *s, uint32_t *ret) {
        uint64_t v = 0;

        if (!*s || (s[0] == '0' && s[1]) || strlen(s) > 10)
                return -1;
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9')
                        return -1;
                v = v * 10 + (uint64_t) (*p - '0');
        }
        if (v > UINT32_MAX)
                return -1;
        *ret = (uint32_t) v;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = malloc(size + 1);
        uint32_t num = 0, ref = 0;
        const char *name;
        RateInfo rate;
        int r;

        if (!s)
                return 0;
        memcpy(s, data, size);
        s[size] = '\0';

        r = parse_port_state(s, &num, &name);
        check_named(r, s, num, name);
        r = parse_port_phys_state(s, &num, &name);
        check_named(r, s, num, name);
        r = parse_node_type(s, &num, &name);
        check_named(r, s, num, name);
        if (r >= 0 && num >= 1 && num <= 7 && !strchr(s, ':'))
                fuzz_assert(strcmp(name, node_types[num - 1]) == 0);

        r = parse_rate(s, &rate);
        if (r >= 0) {
                fuzz_assert(isfinite(rate.speed) && rate.speed >= 0);
                fuzz_assert(strnlen(rate.unit, RATE_FIELD_MAX) < RATE_FIELD_MAX);
                fuzz_assert(strnlen(rate.info, RATE_FIELD_MAX) < RATE_FIELD_MAX);
                /* Width and speed name are the info split at its first space. */
                if (*rate.width) {
                        size_t n = strlen(rate.width);
                        fuzz_assert(strncmp(rate.info, rate.width, n) == 0 && rate.width[n - 1] == 'X');
                        fuzz_assert(*rate.speed_name
                                            ? rate.info[n] == ' ' && strcmp(rate.info + n + 1, rate.speed_name) == 0
                                            : rate.info[n] == '\0');
                } else
                        fuzz_assert(!*rate.speed_name);
        }

        /* Decimal: exactly the canonical spellings, and they round-trip. */
        r = parse_decimal_u32(s, &num);
        fuzz_assert((r >= 0) == (reference_decimal(s, &ref) >= 0));
        if (r >= 0) {
                char back[16];
                fuzz_assert(num == ref);
                snprintf(back, sizeof(back), "%" PRIu32, num);
                fuzz_assert(strcmp(back, s) == 0);
        }

        /* Decimal or hexadecimal: whatever it accepts, strtoull reads the same. */
        r = parse_u32(s, &num);
        if (r >= 0) {
                char *end;
                unsigned long long v;

                fuzz_assert(*s && !isspace((unsigned char) s[0]) && s[0] != '-' && s[0] != '+');
                errno = 0;
                v = strtoull(s, &end, strncasecmp(s, "0x", 2) == 0 ? 16 : 10);
                fuzz_assert(errno == 0 && *end == '\0' && v == num);
        }

        if (gid_is_zero(s))
                fuzz_assert(strspn(s, "0:") == strlen(s));

        name = link_layer_normalize(s);
        fuzz_assert(!strcmp(name, "InfiniBand") || !strcmp(name, "Ethernet") || !strcmp(name, "Unknown"));
        name = transport_from(size > 0 ? data[0] % 9 : 0, s);
        fuzz_assert(!strcmp(name, "InfiniBand") || !strcmp(name, "RoCE") || !strcmp(name, "iWARP") ||
                    !strcmp(name, "unknown"));
        name = port_state_from_name(s);
        if (name)
                fuzz_assert(strcasecmp(name, s) == 0);

        free(s);
        return 0;
}
