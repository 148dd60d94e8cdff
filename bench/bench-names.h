/* SPDX-License-Identifier: MIT */
#pragma once

/* The benchmark's own bus names, spelled once: the do-nothing service that
 * is the floor of a Get (bench-floor.c), and the interface of the messages
 * bench builds only to time a copy (never sent). */
#define FLOOR_NAME           "org.rdmad1.BenchFloor"
#define FLOOR_PATH           "/org/rdmad1/bench/floor"
#define BENCH_COPY_INTERFACE "org.rdmad1.Bench"
