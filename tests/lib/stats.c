/* SPDX-License-Identifier: MIT */
/* Medians and p99s of timings, and how they read. */
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>

static int u64_compare(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

Stats stats(uint64_t *v, size_t n) {
        size_t i99;

        qsort(v, n, sizeof(uint64_t), u64_compare);
        i99 = (size_t) ((double) n * 0.99);
        if (i99 >= n)
                i99 = n - 1;
        return (Stats){ .median = n % 2 ? (double) v[n / 2] : ((double) v[n / 2 - 1] + (double) v[n / 2]) / 2,
                        .p99 = (double) v[i99] };
}

const char *fmt_usec(double usec, char *buf, size_t size) {
        if (usec >= 10000)
                snprintf(buf, size, "%.1f ms", usec / 1000);
        else if (usec >= 1000)
                snprintf(buf, size, "%.2f ms", usec / 1000);
        else
                snprintf(buf, size, "%.0f µs", usec);
        return buf;
}
