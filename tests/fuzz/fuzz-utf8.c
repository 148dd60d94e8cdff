/* SPDX-License-Identifier: MIT */
/* The UTF-8 check and sanitiser against an independent decoder written from
 * the Unicode standard's table of well-formed byte sequences (Table 3-7). */
#include <string.h>

#include "basic/utf8.h"
#include "fuzz.h"

/* Length of the well-formed sequence at s[0..n), 0 if there is none. */
static size_t reference_sequence(const uint8_t *s, size_t n) {
        static const struct {
                uint8_t first_lo, first_hi, second_lo, second_hi;
                size_t len;
        } forms[] = {
                { 0x01, 0x7F, 0, 0, 1 }, /* NUL is not allowed on the bus */
                { 0xC2, 0xDF, 0x80, 0xBF, 2 }, { 0xE0, 0xE0, 0xA0, 0xBF, 3 }, { 0xE1, 0xEC, 0x80, 0xBF, 3 },
                { 0xED, 0xED, 0x80, 0x9F, 3 }, { 0xEE, 0xEF, 0x80, 0xBF, 3 }, { 0xF0, 0xF0, 0x90, 0xBF, 4 },
                { 0xF1, 0xF3, 0x80, 0xBF, 4 }, { 0xF4, 0xF4, 0x80, 0x8F, 4 },
        };

        for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
                if (s[0] < forms[f].first_lo || s[0] > forms[f].first_hi)
                        continue;
                if (forms[f].len > n)
                        return 0;
                if (forms[f].len == 1)
                        return 1;
                if (s[1] < forms[f].second_lo || s[1] > forms[f].second_hi)
                        return 0;
                for (size_t k = 2; k < forms[f].len; k++)
                        if (s[k] < 0x80 || s[k] > 0xBF)
                                return 0;
                return forms[f].len;
        }
        return 0;
}

static int reference_valid(const uint8_t *s, size_t n) {
        for (size_t i = 0; i < n;) {
                size_t k = reference_sequence(s + i, n - i);
                if (k == 0)
                        return 0;
                i += k;
        }
        return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        int valid = reference_valid(data, size);
        char *out, *again;
        size_t len;

        fuzz_assert(utf8_is_valid_n((const char *) data, size) == valid);

        out = utf8_sanitize((const char *) data, size);
        if (!out)
                return 0;
        len = strlen(out);
        fuzz_assert(reference_valid((const uint8_t *) out, len));
        /* Valid input comes back unchanged; anything else is only ever longer
         * (one byte becomes at most the three of U+FFFD) and settled. */
        if (valid)
                fuzz_assert(len == size && memcmp(out, data, size) == 0);
        fuzz_assert(len <= 3 * size);
        again = utf8_sanitize(out, len);
        fuzz_assert(again && strcmp(again, out) == 0);
        free(again);
        free(out);
        return 0;
}
