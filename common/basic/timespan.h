/* SPDX-License-Identifier: MIT */
#pragma once

/* Time spans as systemd writes them ("30s", "500ms", "2min"), shared by
 * rdmactl's --timeout and --watch and rdmad-exporter's --bus-timeout. Pure:
 * -EINVAL for what is not of the form, -ERANGE for what is above the maximum. */

#include <stdint.h>

#include "basic/time-util.h"

#define USEC_PER_MINUTE (60ULL * USEC_PER_SEC)
#define USEC_PER_HOUR   (60ULL * USEC_PER_MINUTE)
#define USEC_PER_DAY    (24ULL * USEC_PER_HOUR)
#define USEC_PER_WEEK   (7ULL * USEC_PER_DAY)

/* A year is past any sensible wait; "infinity" is for ever. */
#define TIMESPAN_MAX_USEC (365ULL * USEC_PER_DAY)
#define TIMESPAN_INFINITY UINT64_MAX

/* A time span as systemd writes one: "30s", "500ms", "2min", "1h 30min",
 * "1.5s", "infinity"; a bare number is seconds (systemd's parse_sec).
 * Units: us usec, ms msec, s sec second(s), m min minute(s), h hr hour(s),
 * d day(s), w week(s). -ERANGE above TIMESPAN_MAX_USEC. */
int parse_timespan(const char *s, uint64_t *ret_usec);

/* The other way: "1min 30s", "500ms", "0", "infinity". */
#define TIMESPAN_STRING_MAX 64
const char *format_timespan(uint64_t usec, char buf[static TIMESPAN_STRING_MAX]);
