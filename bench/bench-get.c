/* SPDX-License-Identifier: MIT */
/* A property Get against its floor: the same Get of a do-nothing sd-bus
 * service (bench-floor.c), and the bus's own GetId. */
#include "bench-get.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "bench-names.h"

/* Interleaved so that the load of the moment weighs on all three. */
GetFigures measure_gets(Harness *h, unsigned n, size_t runs) {
        uint64_t *a = calloc(runs, sizeof(uint64_t)), *b = calloc(runs, sizeof(uint64_t)),
                 *c = calloc(runs, sizeof(uint64_t));
        char path[256];
        GetFigures f;
        pid_t floor;

        floor = floor_start(h);
        middle_port_path(n, path, sizeof(path));
        for (size_t i = 0; i < runs; i++) {
                a[i] = call_usec(h, RDMAD_BUS_NAME, path, DBUS_PROPERTIES_INTERFACE, "Get", "ss", RDMAD_PORT_INTERFACE,
                                 RDMAD_PORT_PROPERTY_STATE);
                b[i] = call_usec(h, FLOOR_NAME, FLOOR_PATH, DBUS_PROPERTIES_INTERFACE, "Get", "ss", FLOOR_NAME,
                                 "State");
                c[i] = call_usec(h, DBUS_SERVICE_NAME, DBUS_PATH, DBUS_INTERFACE, "GetId", NULL);
        }
        floor_stop(floor);
        f = (GetFigures){ .get = stats(a, runs), .floor = stats(b, runs), .getid = stats(c, runs) };
        free(a);
        free(b);
        free(c);
        return f;
}

void get_rows(const GetFigures *f) {
        char verdict[128];

        snprintf(verdict, sizeof(verdict), "%.2f× the floor; ≤ 1.25×: %s", f->get.median / f->floor.median,
                 f->get.median <= 1.25 * f->floor.median ? "met" : "missed");
        row("Get Port.State", f->get, "sd-bus service Get (floor)", f->floor, verdict);
        snprintf(verdict, sizeof(verdict), "two hops: %.2f× GetId", f->floor.median / f->getid.median);
        row("sd-bus service Get (floor)", f->floor, "bus GetId (one hop)", f->getid, verdict);
}

/* For callgrind (RDMAD_TEST_WRAPPER) on rdmad and the floor alike, to
 * count instructions per Get. */
void bench_get_only(unsigned n, const BenchOptions *o) {
        static const char *const args[] = { "--poll-interval=0", NULL };
        Harness *h = host_start(n, args);
        GetFigures f;
        Baseline base;

        f = measure_gets(h, n, o->quick ? 200 : 2000);
        printf("\n### Get only, N = %u\n\n", n);
        table_head();
        get_rows(&f);
        fflush(stdout);

        /* Beside BENCH_BASELINE_BINARY: each turn both daemons, each against
         * the floor measured in its own window. */
        baseline_init(&base);
        if (base.link) {
                printf("\n| turn | this rdmad: median | p99 | × its floor | baseline: median | p99 | × its floor | "
                       "this / baseline |\n");
                printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
                for (unsigned turn = 1; turn <= 3; turn++) {
                        GetFigures g[2];

                        for (unsigned k = 0; k < 2; k++) {
                                baseline_restart(h, &base, k == 1, args);
                                g[k] = measure_gets(h, n, o->quick ? 100 : 1000);
                        }
                        printf("| %u | %.1f µs | %.1f µs | %.2f× | %.1f µs | %.1f µs | %.2f× | %.2f× |\n", turn,
                               g[0].get.median, g[0].get.p99, g[0].get.median / g[0].floor.median, g[1].get.median,
                               g[1].get.p99, g[1].get.median / g[1].floor.median, g[0].get.median / g[1].get.median);
                        fflush(stdout);
                }
        }
        baseline_done(&base);
        stop_daemon(h);
}
