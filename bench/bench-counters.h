/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "bench-common.h"

/* GetAllCounters `runs` times (every port read now: the caller is root),
 * and Get Port.State of port_path back to back meanwhile, at most max_gets;
 * returns how many Gets were timed. */
size_t measure_get_during_counters(Harness *h, const char *port_path, size_t runs, size_t max_gets, Stats *ret_all,
                                   Stats *ret_during);
/* The row of the Gets during GetAllCounters, against a reference. */
void row_get_during_counters(Stats during, size_t n_during, const char *ref, Stats ref_stats);

/* --counters-only N: only the counters figures, beside BENCH_BASELINE_BINARY's when set. */
void bench_counters(unsigned n, const BenchOptions *o);
