/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "bench-common.h"

/* One property of rdmad, the same of the floor service, and the bus's own GetId. */
typedef struct GetFigures {
        Stats get, floor, getid;
} GetFigures;

/* Get Port.State of a host of n, the floor's Get and GetId, `runs` each, interleaved. */
GetFigures measure_gets(Harness *h, unsigned n, size_t runs);
/* Their rows: rdmad's Get against the floor's, the floor's against GetId. */
void get_rows(const GetFigures *f);

/* --get-only N: only the Gets, without polling, beside BENCH_BASELINE_BINARY's when set. */
void bench_get_only(unsigned n, const BenchOptions *o);
