/* SPDX-License-Identifier: MIT */
/* Start-up alone: rdmad from its start to READY=1 against a fresh scan of
 * the same host, for a profiler on rdmad. */
#include "bench-start.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "bench-scan.h"

void bench_start_only(unsigned n, const BenchOptions *o) {
        size_t runs = o->quick ? 3 : 7;
        uint64_t *a = calloc(runs, sizeof(uint64_t)), *b = calloc(runs, sizeof(uint64_t)),
                 *c = calloc(runs, sizeof(uint64_t));
        Harness *h = harness_start(NULL, NULL);
        Stats start, scan;
        Baseline base;
        char verdict[128];

        baseline_init(&base);
        host_write(h, n);
        fprintf(stderr, "bench: start-up and scan ×%zu\n", runs);
        for (size_t i = 0; i < runs; i++) {
                harness_restart_daemon(h, NULL);
                a[i] = h->ready_usec - h->spawn_usec;
                if (base.link) {
                        baseline_restart(h, &base, true, NULL);
                        c[i] = h->ready_usec - h->spawn_usec;
                }
                b[i] = timed_scan_usec(n);
        }
        start = stats(a, runs);
        scan = stats(b, runs);
        printf("\n### Start-up only, N = %u\n\n", n);
        table_head();
        snprintf(verdict, sizeof(verdict), "%.2f× scan", start.median / scan.median);
        row("start → READY", start, "fresh sysfs scan", scan, verdict);
        if (base.link) {
                Stats theirs = stats(c, runs);

                snprintf(verdict, sizeof(verdict), "%.2f× scan", theirs.median / scan.median);
                row("start → READY, baseline", theirs, "fresh sysfs scan", scan, verdict);
        }
        fflush(stdout);
        baseline_done(&base);
        free(a);
        free(b);
        free(c);
        stop_daemon(h);
}
