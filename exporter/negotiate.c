/* SPDX-License-Identifier: MIT */
#include "negotiate.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "basic/util.h"

int qvalue_parse(const char *s, size_t len) {
        int q, scale = 100;

        /* qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ) */
        if (len == 0 || (s[0] != '0' && s[0] != '1'))
                return -1;
        q = (s[0] - '0') * 1000;
        if (len == 1)
                return q;
        if (s[1] != '.' || len > 5)
                return -1;
        for (size_t i = 2; i < len; i++, scale /= 10) {
                if (s[i] < '0' || s[i] > '9')
                        return -1;
                q += (s[i] - '0') * scale;
        }
        return q <= 1000 ? q : -1;
}

static bool is_ows(char c) {
        return c == ' ' || c == '\t';
}

/* [*s, *s + *len) with optional whitespace and one pair of quotes removed. */
static void trim(const char **s, size_t *len) {
        while (*len > 0 && is_ows(**s)) {
                (*s)++;
                (*len)--;
        }
        while (*len > 0 && is_ows((*s)[*len - 1]))
                (*len)--;
        if (*len >= 2 && (*s)[0] == '"' && (*s)[*len - 1] == '"') {
                (*s)++;
                *len -= 2;
        }
}

static bool token_eq(const char *s, size_t len, const char *literal) {
        return len == strlen(literal) && strncasecmp(s, literal, len) == 0;
}

/* One media range of the header, split. */
typedef struct MediaRange {
        const char *type, *version;
        size_t type_len, version_len;
        int q;
} MediaRange;

/* Parses [s, s + len): "type/subtype *(; name=value)". False if malformed. */
static bool media_range_parse(const char *s, size_t len, MediaRange *ret) {
        const char *end = s + len, *semi = memchr(s, ';', len);
        MediaRange mr = { .q = 1000 };

        mr.type = s;
        mr.type_len = (semi ? semi : end) - s;
        trim(&mr.type, &mr.type_len);
        if (mr.type_len == 0 || !memchr(mr.type, '/', mr.type_len))
                return false;

        while (semi) {
                const char *p = semi + 1, *eq, *name, *value;
                size_t name_len, value_len;

                semi = memchr(p, ';', end - p);
                eq = memchr(p, '=', (semi ? semi : end) - p);
                if (!eq)
                        return false;
                name = p;
                name_len = eq - p;
                value = eq + 1;
                value_len = (semi ? semi : end) - value;
                trim(&name, &name_len);
                trim(&value, &value_len);
                if (token_eq(name, name_len, "q")) {
                        mr.q = qvalue_parse(value, value_len);
                        if (mr.q < 0)
                                return false;
                        break; /* what follows q are accept-extensions */
                }
                if (token_eq(name, name_len, "version")) {
                        mr.version = value;
                        mr.version_len = value_len;
                }
        }
        *ret = mr;
        return true;
}

typedef struct Offer {
        const char *type, *subtype_wildcard, *version;
} Offer;

static const Offer offers[_EXPOSITION_FORMAT_MAX] = {
        [EXPOSITION_TEXT] = { "text/plain", "text/*", "0.0.4" },
        [EXPOSITION_OPENMETRICS] = { "application/openmetrics-text", "application/*", "1.0.0" },
};

/* How specifically a range names an offer: 0 not at all, 1 the any-type
 * wildcard, 2 the subtype wildcard, 3 the type, 4 the type and its version. */
static int match(const MediaRange *mr, const Offer *o) {
        if (token_eq(mr->type, mr->type_len, o->type)) {
                if (!mr->version)
                        return 3;
                return mr->version_len == strlen(o->version) && memcmp(mr->version, o->version, mr->version_len) == 0
                               ? 4
                               : 0;
        }
        if (token_eq(mr->type, mr->type_len, o->subtype_wildcard))
                return 2;
        if (token_eq(mr->type, mr->type_len, "*/*"))
                return 1;
        return 0;
}

ExpositionFormat exposition_negotiate(const char *accept) {
        int best_q[_EXPOSITION_FORMAT_MAX] = {}, best_specificity[_EXPOSITION_FORMAT_MAX] = {};
        const char *p = accept;

        if (!accept)
                return EXPOSITION_TEXT;
        while (*p) {
                const char *comma = strchr(p, ',');
                size_t len = comma ? (size_t) (comma - p) : strlen(p);
                MediaRange mr;

                if (media_range_parse(p, len, &mr))
                        for (ExpositionFormat f = 0; f < _EXPOSITION_FORMAT_MAX; f++) {
                                int s = match(&mr, &offers[f]);

                                /* The most specific matching range decides the q of an offer. */
                                if (s > best_specificity[f]) {
                                        best_specificity[f] = s;
                                        best_q[f] = mr.q;
                                }
                        }
                p += len;
                if (*p == ',')
                        p++;
        }

        if (best_q[EXPOSITION_OPENMETRICS] > best_q[EXPOSITION_TEXT])
                return EXPOSITION_OPENMETRICS;
        if (best_q[EXPOSITION_OPENMETRICS] > 0 && best_q[EXPOSITION_OPENMETRICS] == best_q[EXPOSITION_TEXT] &&
            best_specificity[EXPOSITION_OPENMETRICS] >= 3)
                return EXPOSITION_OPENMETRICS;
        return EXPOSITION_TEXT;
}

uint64_t scrape_budget_usec(const char *timeout_header, uint64_t bus_timeout_usec) {
        uint64_t seconds = 0, usec, scale = 1000000, margin, budget;
        const char *p = timeout_header;

        if (!p || !(*p >= '0' && *p <= '9'))
                return bus_timeout_usec;
        for (; *p >= '0' && *p <= '9'; p++) {
                seconds = seconds * 10 + (uint64_t) (*p - '0');
                if (seconds > 86400)
                        return bus_timeout_usec;
        }
        usec = seconds * 1000000;
        if (*p == '.')
                for (p++; *p >= '0' && *p <= '9'; p++) {
                        scale /= 10;
                        usec += (uint64_t) (*p - '0') * scale;
                }
        if (*p != '\0' || usec == 0)
                return bus_timeout_usec;
        margin = usec / 10 > 250000 ? usec / 10 : 250000;
        budget = usec > margin ? usec - margin : 0;
        if (budget < 100000)
                budget = 100000;
        return budget < bus_timeout_usec ? budget : bus_timeout_usec;
}
