/* SPDX-License-Identifier: MIT */
#pragma once

/* The idle table: the floor service, then rdmad on an empty host and on a
 * host of each size, each quiet for `seconds`. */
void bench_idle(const unsigned *sizes, unsigned n_sizes, unsigned seconds);
