/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "bench-common.h"

/* GetManagedObjects, reply received by sd-bus as a client would, with
 * the CPU each call costs rdmad and dbus-daemon (the bus's part, which no
 * service can shorten), and what sd-bus's only way to reuse a built
 * reply, sd_bus_message_copy() into a new message, costs here. */
typedef struct GmoFigures {
        Stats wall, copy;
        Stats ceiling; /* the floor service's reply of the same size: the bus's own ceiling */
        double cpu_daemon_ms, cpu_bus_ms;
        size_t size;
        unsigned long rss_kib; /* rdmad's, right after the calls */
} GmoFigures;

GmoFigures measure_gmo(Harness *h, size_t runs);
/* The rows every GetManagedObjects figure is printed with, against a scan of the host of n. */
void gmo_rows(const GmoFigures *f, Stats scan, unsigned n);

/* --gmo-only N: only GetManagedObjects, without polling, beside BENCH_BASELINE_BINARY's when set. */
void bench_gmo_only(unsigned n, const BenchOptions *o);
/* --big N...: hosts beyond the system bus's message limit, a table. */
void bench_gmo_big(const unsigned *sizes, unsigned n_sizes);
