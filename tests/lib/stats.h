/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct Stats {
        double median, p99;
} Stats;

/* Sorts v. */
Stats stats(uint64_t *v, size_t n);
const char *fmt_usec(double usec, char *buf, size_t size);
