/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench-util.h"
#include "harness.h"

/* What the command line sets besides the scenario and the host sizes. */
typedef struct BenchOptions {
        bool quick;    /* fewer runs, shorter windows */
        size_t flaps;  /* --verbs: flaps per row (--flaps N; 0: the default) */
        unsigned hold; /* --verbs: the idle host waits S s with its PID on stderr (--hold S) */
} BenchOptions;

/* ---------- the tables ---------- */

/* The head of a table of measures, each against a reference. */
void table_head(void);
void row(const char *what, Stats a, const char *ref, Stats b, const char *verdict);

/* ---------- the daemon on a host ---------- */

/* n devices (write_host()) into the testbed. */
void host_write(Harness *h, unsigned n);
/* A testbed of n devices, rdmad restarted on it with args. */
Harness *host_start(unsigned n, const char *const *args);
/* Stops the daemon; exits the benchmark if it did not exit cleanly. */
void stop_daemon(Harness *h);
/* The object path of port 1 of device n / 2, the middle of a host of n. */
void middle_port_path(unsigned n, char *buf, size_t size);
/* One method call, timed: its round trip in µs. */
uint64_t call_usec(Harness *h, const char *dest, const char *path, const char *iface, const char *member,
                   const char *types, ...);
/* Port 1 of the InfiniBand device `device`, between DOWN and ACTIVE `runs`
 * times, each at a random point of the poll period, timed from the sysfs
 * write to the PropertiesChanged; after_write (or NULL) runs right after
 * each write, inside the timing. */
Stats flap_port(Harness *h, unsigned device, size_t runs, void (*after_write)(unsigned device, bool up));

/* ---------- another rdmad beside this one ---------- */

/* BENCH_BASELINE_BINARY: another rdmad, timed in turns with this one
 * (RDMAD_BINARY) on the same host, so that the load of the moment weighs
 * on both. It runs under a name of its own: the harness copies a daemon
 * for its user once per name. */
typedef struct Baseline {
        char dir[24];
        char *link; /* NULL: no baseline */
        char *self;
} Baseline;

void baseline_init(Baseline *b);
/* Restarts the daemon as the baseline (or as this rdmad again). */
void baseline_restart(Harness *h, const Baseline *b, bool baseline, const char *const *args);
void baseline_done(Baseline *b);

/* ---------- the floor of a Get: a do-nothing sd-bus service ---------- */

/* bench-floor, next to this binary, started like the daemon: under
 * umockdev-wrapper (the same preload) and RDMAD_TEST_WRAPPER (callgrind);
 * returns once its name is on the bus. */
pid_t floor_start(Harness *h);
void floor_stop(pid_t pid);
