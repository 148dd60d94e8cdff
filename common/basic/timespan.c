/* SPDX-License-Identifier: MIT */
/* Time spans as systemd writes them, for every program's command line. */
#include "basic/timespan.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "basic/util.h"

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
