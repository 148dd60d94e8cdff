/* SPDX-License-Identifier: MIT */
/* rdmad against the tools it replaces, side by side in one run: a fresh
 * sysfs scan (the floor of any scraper) and a do-nothing sd-bus service
 * (bench-floor.c, the floor of any D-Bus service). Prints Markdown tables of
 * medians and p99s. Not a test: it never fails on a time.
 *
 *   bench [--quick] [--idle-only | --get-only | --gmo-only | --start-only | --counters-only] [N...]
 *                                                            (default N: 64 512 2048)
 *   bench [--quick] --verbs [--flaps N] [--hold S] [N...]
 *                                  IB port change → PropertiesChanged, verbs
 *                                  events against the poll, and idle
 *   bench [--quick] --flood N [--flood N...]   a GetManagedObjects flood on N devices
 *   bench --big N [--big N...]     GetManagedObjects near the bus's message limit
 *                                  (--flood and --big first; sizes given too: then the rest)
 *   bench [--quick] --attacks N    the attack table of one unprivileged user,
 *                                  20 s per attack (5 with --quick) on N devices
 *
 * --gmo-only, --get-only, --start-only, --counters-only and --verbs run one
 * measure alone, for a profiler; with BENCH_BASELINE_BINARY=<another rdmad>
 * they also time that one, in turns with this one on the same host. One file
 * per scenario: bench-host.c (the default: every measure of a host, then
 * bench-idle.c), bench-start.c, bench-gmo.c, bench-get.c, bench-counters.c,
 * bench-verbs.c, bench-flood.c, bench-attacks.c; what they share is in
 * bench-common.c, bench-scan.c (the fresh scan) and bench-util.c.
 *
 * Runs under umockdev's preload like the daemon (make bench does this), on
 * the bus RDMAD_TEST_BUS names (dbus-daemon, the default, or dbus-broker),
 * with the installed policy and the floor service's own (bench-floor.conf). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-attacks.h"
#include "bench-common.h"
#include "bench-counters.h"
#include "bench-flood.h"
#include "bench-get.h"
#include "bench-gmo.h"
#include "bench-host.h"
#include "bench-idle.h"
#include "bench-start.h"
#include "bench-verbs.h"

/* A measure alone, on a host of each size in turn. */
static int each_size(void (*measure)(unsigned n, const BenchOptions *o), const unsigned *sizes, unsigned n_sizes,
                     const BenchOptions *o) {
        for (unsigned i = 0; i < n_sizes; i++)
                measure(sizes[i], o);
        return 0;
}

int main(int argc, char *argv[]) {
        unsigned sizes[8], n_sizes = 0, big_sizes[8], n_big = 0, flood_sizes[8], n_flood = 0, attacks = 0;
        bool idle_only = false, counters_only = false, get_only = false, gmo_only = false, start_only = false,
             verbs_only = false;
        BenchOptions o = {};

        /* The floor service owns a name of its own on the strict bus. */
        harness_bus_policy = "bench-floor.conf";
        printf("Bus: %s (RDMAD_TEST_BUS)\n\n", harness_bus_name());
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--quick") == 0)
                        o.quick = true;
                else if (strcmp(argv[i], "--idle-only") == 0)
                        idle_only = true;
                else if (strcmp(argv[i], "--counters-only") == 0)
                        counters_only = true;
                else if (strcmp(argv[i], "--flood") == 0 && i + 1 < argc && n_flood < 8)
                        flood_sizes[n_flood++] = (unsigned) strtoul(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--big") == 0 && i + 1 < argc && n_big < 8)
                        big_sizes[n_big++] = (unsigned) strtoul(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--attacks") == 0 && i + 1 < argc)
                        attacks = (unsigned) strtoul(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--get-only") == 0)
                        get_only = true;
                else if (strcmp(argv[i], "--gmo-only") == 0)
                        gmo_only = true;
                else if (strcmp(argv[i], "--start-only") == 0)
                        start_only = true;
                else if (strcmp(argv[i], "--verbs") == 0)
                        verbs_only = true;
                else if (strcmp(argv[i], "--flaps") == 0 && i + 1 < argc)
                        o.flaps = strtoul(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--hold") == 0 && i + 1 < argc)
                        o.hold = (unsigned) strtoul(argv[++i], NULL, 10);
                else if (n_sizes < 8)
                        sizes[n_sizes++] = (unsigned) strtoul(argv[i], NULL, 10);
        }
        if (attacks > 0) {
                bench_attacks(attacks, o.quick ? 5 : 20);
                return 0;
        }
        for (unsigned i = 0; i < n_flood; i++)
                bench_flood(flood_sizes[i], o.quick ? 3 : 10);
        if (n_flood > 0 && n_sizes == 0 && n_big == 0)
                return 0;
        if (n_big > 0) {
                bench_gmo_big(big_sizes, n_big);
                if (n_sizes == 0)
                        return 0;
        }
        if (n_sizes == 0) {
                sizes[n_sizes++] = 64;
                sizes[n_sizes++] = 512;
                sizes[n_sizes++] = 2048;
        }
        if (!harness_private_network())
                fprintf(stderr, "bench: running without a private network namespace\n");

        printf("## rdmad benchmark\n\nEach figure: median and p99 over repeated runs; the reference measured in the "
               "same run. Poll interval: default (1000 ms).\n");
        if (get_only)
                return each_size(bench_get_only, sizes, n_sizes, &o);
        if (start_only)
                return each_size(bench_start_only, sizes, n_sizes, &o);
        if (gmo_only)
                return each_size(bench_gmo_only, sizes, n_sizes, &o);
        if (verbs_only) {
#ifdef VERBS_STUB
                bench_verbs(sizes, n_sizes, &o);
                return 0;
#else
                fprintf(stderr, "bench: built without libibverbs: no --verbs\n");
                return 77;
#endif
        }
        if (counters_only)
                return each_size(bench_counters, sizes, n_sizes, &o);
        for (unsigned i = 0; i < n_sizes && !idle_only; i++)
                bench_host(sizes[i], &o);
        bench_idle(sizes, n_sizes, o.quick ? 2 : 10);
        return 0;
}
