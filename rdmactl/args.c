/* SPDX-License-Identifier: MIT */
/* Strict parsers for command-line arguments: numbers, time spans, port
 * states and port names. Numbers are read by the daemon's own
 * parse_decimal_u32, so that rdmactl and rdmad agree on what one is. */
#include "args.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"
#include "util.h"

static bool all_digits(const char *s) {
        return *s && s[strspn(s, "0123456789")] == '\0';
}

int parse_number_arg(const char *s, uint32_t max, uint32_t *ret) {
        uint32_t v;

        assert(ret);

        if (!s)
                return -EINVAL;
        if (parse_decimal_u32(s, &v) < 0)
                /* Digits that do not fit in 32 bits are too many, not a typo. */
                return all_digits(s) && s[0] != '0' ? -ERANGE : -EINVAL;
        if (v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

typedef struct TimeUnit {
        const char *suffix;
        uint64_t usec;
} TimeUnit;

/* Longer suffixes first where one is a prefix of another ("ms" before "m"). */
static const TimeUnit time_units[] = {
        { "seconds", USEC_PER_SEC },
        { "second", USEC_PER_SEC },
        { "sec", USEC_PER_SEC },
        { "s", USEC_PER_SEC },
        { "msec", USEC_PER_MSEC },
        { "ms", USEC_PER_MSEC },
        { "usec", 1 },
        { "us", 1 },
        { "µs", 1 },
        { "minutes", USEC_PER_MINUTE },
        { "minute", USEC_PER_MINUTE },
        { "min", USEC_PER_MINUTE },
        { "m", USEC_PER_MINUTE },
        { "hours", USEC_PER_HOUR },
        { "hour", USEC_PER_HOUR },
        { "hr", USEC_PER_HOUR },
        { "h", USEC_PER_HOUR },
        { "days", USEC_PER_DAY },
        { "day", USEC_PER_DAY },
        { "d", USEC_PER_DAY },
        { "weeks", USEC_PER_WEEK },
        { "week", USEC_PER_WEEK },
        { "w", USEC_PER_WEEK },
};

/* The unit at *p, if any; advances *p past it. 0 when there is none. */
static uint64_t read_time_unit(const char **p) {
        for (size_t i = 0; i < ELEMENTSOF(time_units); i++) {
                size_t n = strlen(time_units[i].suffix);
                char next;

                if (strncmp(*p, time_units[i].suffix, n) != 0)
                        continue;
                next = (*p)[n];
                if (next != '\0' && next != ' ' && !(next >= '0' && next <= '9'))
                        continue; /* "mins" is not "min" followed by "s" */
                *p += n;
                return time_units[i].usec;
        }
        return 0;
}

int parse_timespan(const char *s, uint64_t *ret_usec) {
        uint64_t total = 0;
        const char *p;

        assert(ret_usec);

        if (!s || !*s)
                return -EINVAL;
        if (streq(s, "infinity")) {
                *ret_usec = TIMESPAN_INFINITY;
                return 0;
        }
        for (p = s; *p;) {
                uint64_t whole = 0, unit, part;
                const char *digits = p, *frac = NULL, *frac_end = NULL;

                for (; *p >= '0' && *p <= '9'; p++) {
                        whole = whole * 10 + (uint64_t) (*p - '0');
                        if (whole > TIMESPAN_MAX_USEC) /* in any unit, too long */
                                return -ERANGE;
                }
                if (*p == '.') {
                        frac = ++p;
                        while (*p >= '0' && *p <= '9')
                                p++;
                        frac_end = p;
                        if (frac == frac_end)
                                return -EINVAL; /* "5." */
                }
                if (p == digits)
                        return -EINVAL;
                while (*p == ' ')
                        p++;
                unit = read_time_unit(&p);
                if (unit == 0) {
                        /* Only a lone number may go without its unit: seconds. */
                        if (*p || digits != s)
                                return -EINVAL;
                        unit = USEC_PER_SEC;
                }
                if (whole > TIMESPAN_MAX_USEC / unit)
                        return -ERANGE;
                part = whole * unit;
                if (frac) /* digits below a microsecond are dropped */
                        for (uint64_t scale = unit / 10; frac < frac_end && scale > 0; frac++, scale /= 10)
                                part += (uint64_t) (*frac - '0') * scale;
                total += part;
                if (total > TIMESPAN_MAX_USEC)
                        return -ERANGE;
                while (*p == ' ')
                        p++;
        }
        *ret_usec = total;
        return 0;
}

const char *format_timespan(uint64_t usec, char buf[static TIMESPAN_STRING_MAX]) {
        static const TimeUnit parts[] = {
                { "d", USEC_PER_DAY }, { "h", USEC_PER_HOUR },  { "min", USEC_PER_MINUTE },
                { "s", USEC_PER_SEC }, { "ms", USEC_PER_MSEC }, { "us", 1 },
        };
        size_t n = 0;

        if (usec == TIMESPAN_INFINITY)
                return strcpy(buf, "infinity");
        if (usec == 0)
                return strcpy(buf, "0");
        buf[0] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(parts) && usec > 0; i++) {
                uint64_t k = usec / parts[i].usec;

                if (k == 0)
                        continue;
                usec -= k * parts[i].usec;
                n += (size_t) snprintf(buf + n, TIMESPAN_STRING_MAX - n, "%s%" PRIu64 "%s", n > 0 ? " " : "", k,
                                       parts[i].suffix);
        }
        return buf;
}

int parse_port_state_arg(const char *s, const char **ret_name) {
        const char *name, *canonical;
        char number[16];
        uint32_t num;

        assert(ret_name);

        if (!s || !*s)
                return -EINVAL;
        if (s[0] < '0' || s[0] > '9') {
                canonical = port_state_from_name(s);
                if (!canonical)
                        return -EINVAL;
                *ret_name = canonical;
                return 0;
        }

        /* "4", or sysfs's "4: ACTIVE", whose name must then be that of the number. */
        if (parse_port_state(s, &num, &name) < 0)
                return all_digits(s) ? -ERANGE : -EINVAL;
        if (num > PORT_STATE_MAX)
                return -ERANGE;
        snprintf(number, sizeof(number), "%" PRIu32, num);
        if (parse_port_state(number, &num, &canonical) < 0 || !*canonical)
                return -EINVAL;
        if (strcasecmp(name, canonical) != 0)
                return -EINVAL; /* "4: DOWN" */
        *ret_name = canonical;
        return 0;
}

int parse_device_slash_port(const char *s, char **ret_device, uint32_t *ret_port) {
        const char *slash;
        uint32_t port;
        char *device;
        int r;

        assert(s);
        assert(ret_device);
        assert(ret_port);

        slash = strrchr(s, '/');
        if (!slash)
                return -ENOENT;
        if (slash == s)
                return -EINVAL;
        r = parse_number_arg(slash + 1, UINT32_MAX, &port);
        if (r < 0)
                return r;
        if (port == 0)
                return -EINVAL; /* ports count from 1 */
        device = strndup(s, (size_t) (slash - s));
        if (!device)
                return -ENOMEM;
        *ret_device = device;
        *ret_port = port;
        return 0;
}

/* The index of s in a table of names (NULL holes allowed); -EINVAL if none. */
static int string_table_lookup(const char *const *table, size_t n, const char *s) {
        for (size_t i = 0; s && i < n; i++)
                if (table[i] && streq(table[i], s))
                        return (int) i;
        return -EINVAL;
}

/* A parser from a string table, as systemd's DEFINE_STRING_TABLE_LOOKUP makes them. */
#define DEFINE_STRING_TABLE_PARSER(name, type, table)                                                                  \
        int name(const char *s, type *ret) {                                                                           \
                int i = string_table_lookup(table, ELEMENTSOF(table), s);                                              \
                                                                                                                       \
                assert(ret);                                                                                           \
                if (i < 0)                                                                                             \
                        return i;                                                                                      \
                *ret = (type) i;                                                                                       \
                return 0;                                                                                              \
        }

static const char *const json_modes[] = {
        [JSON_OFF] = "off",
        [JSON_SHORT] = "short",
        [JSON_PRETTY] = "pretty",
};

DEFINE_STRING_TABLE_PARSER(parse_json_mode, JsonMode, json_modes)

static const char *const name_kinds[] = {
        [NAMES_DEVICES] = "devices",
        [NAMES_SRIOV_DEVICES] = "sriov-devices",
        [NAMES_NETDEVS] = "netdevs",
        [NAMES_PORTS] = "ports",
};

DEFINE_STRING_TABLE_PARSER(parse_name_kind, NameKind, name_kinds)
