/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct Stats {
        double median, p99;
} Stats;

/* Whether root is still served under a load: the p99 of its calls judged
 * against the same calls' p99 measured in the same run, on the same
 * machine, without the load; never against an absolute bound, which a busy
 * machine breaks. A loop that waits for the load (blocked behind it, or on
 * a synchronous call) is hundreds to thousands of times its baseline; the
 * floor is what a quiet machine's noise reaches. Figures belong to bench/. */
#define LATENCY_RATIO      25
#define LATENCY_FLOOR_USEC 50000.0
static inline double latency_bound(double baseline_p99) {
        double b = LATENCY_RATIO * baseline_p99;
        return b > LATENCY_FLOOR_USEC ? b : LATENCY_FLOOR_USEC;
}

/* Sorts v. */
Stats stats(uint64_t *v, size_t n);
const char *fmt_usec(double usec, char *buf, size_t size);
