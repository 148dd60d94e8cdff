/* SPDX-License-Identifier: MIT */
#pragma once

#include "bench-common.h"

/* --verbs N...: IB port change → PropertiesChanged with verbs events and
 * with the poll alone, per size; the idle figures of both at the last size
 * (or 2048), and beside BENCH_BASELINE_BINARY's when set. Built only with
 * libibverbs (and the test verbs library, VERBS_STUB). */
void bench_verbs(const unsigned *sizes, unsigned n_sizes, const BenchOptions *o);
