/* SPDX-License-Identifier: MIT */
#pragma once

#include "bench-common.h"

/* The flood on h's host of n devices for `seconds`, and its table. */
void flood_table(Harness *h, unsigned n, unsigned seconds);

/* --flood N: a host of N devices started for the flood alone
 * (BENCH_DAEMON_LOG=file: the daemon's debug log of it). */
void bench_flood(unsigned n, unsigned seconds);
