/* SPDX-License-Identifier: MIT */
#pragma once

#include "bench-common.h"

/* --start-only N: start → READY and the scan beside it, in turns, beside
 * BENCH_BASELINE_BINARY's start-up when it is set. */
void bench_start_only(unsigned n, const BenchOptions *o);
