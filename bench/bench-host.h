/* SPDX-License-Identifier: MIT */
#pragma once

#include "bench-common.h"

/* The full table of a host of n devices: start-up, GetManagedObjects, Get,
 * GetAllCounters, uevents and a port file to their signals, then the flood. */
void bench_host(unsigned n, const BenchOptions *o);
