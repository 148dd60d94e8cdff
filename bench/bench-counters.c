/* SPDX-License-Identifier: MIT */
/* GetAllCounters, which reads every port in the worker thread, and
 * whether a Get is still answered at once while it runs. */
#include "bench-counters.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

size_t measure_get_during_counters(Harness *h, const char *port_path, size_t runs, size_t max_gets, Stats *ret_all,
                                   Stats *ret_during) {
        size_t n_during = 0;
        uint64_t *all = calloc(runs, sizeof(uint64_t)), *during = calloc(max_gets, sizeof(uint64_t)), t0;

        for (size_t i = 0; i < runs; i++) {
                AsyncReply r = {};

                t0 = now_usec();
                assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                                     RDMAD_MANAGER_INTERFACE, RDMAD_METHOD_GET_ALL_COUNTERS,
                                                     harness_on_reply, &r, "") >= 0);
                while (!r.done) {
                        if (n_during < max_gets)
                                during[n_during++] =
                                        call_usec(h, RDMAD_BUS_NAME, port_path, DBUS_PROPERTIES_INTERFACE, "Get", "ss",
                                                  RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE);
                        while (sd_bus_process(h->bus, NULL) > 0)
                                ;
                        if (!r.done && n_during >= max_gets)
                                assert_true(sd_bus_wait(h->bus, UINT64_MAX) >= 0);
                }
                all[i] = now_usec() - t0;
                if (r.error_name) {
                        fprintf(stderr, "bench: GetAllCounters failed: %s\n", r.error_name);
                        exit(EXIT_FAILURE);
                }
                async_reply_clear(&r);
        }
        *ret_all = stats(all, runs);
        *ret_during = n_during > 0 ? stats(during, n_during) : (Stats){};
        free(all);
        free(during);
        return n_during;
}

void row_get_during_counters(Stats during, size_t n_during, const char *ref, Stats ref_stats) {
        char verdict[128];

        snprintf(verdict, sizeof(verdict), "%zu calls; p99 < 50 ms: %s", n_during,
                 n_during > 0 && during.p99 < 50000 ? "met" : "missed");
        row("Get Port.State during GetAllCounters", during, ref, ref_stats, verdict);
}

void bench_counters(unsigned n, const BenchOptions *o) {
        size_t runs = o->quick ? 3 : 11, n_during;
        Harness *h = host_start(n, NULL);
        char port_path[256];
        Stats all, during;
        Baseline base;

        middle_port_path(n, port_path, sizeof(port_path));
        n_during = measure_get_during_counters(h, port_path, runs, o->quick ? 200 : 2000, &all, &during);
        printf("\n### Counters, N = %u devices (%u ports)\n\n", n, 2 * n);
        table_head();
        row("GetAllCounters (every port, read now)", all, "", (Stats){}, "");
        row_get_during_counters(during, n_during, "", (Stats){});
        fflush(stdout);

        baseline_init(&base);
        for (unsigned turn = 1; base.link && turn <= 3; turn++) {
                Stats mine, theirs;

                baseline_restart(h, &base, false, NULL);
                (void) measure_get_during_counters(h, port_path, runs, 50, &mine, &during);
                baseline_restart(h, &base, true, NULL);
                (void) measure_get_during_counters(h, port_path, runs, 50, &theirs, &during);
                printf("| turn %u: GetAllCounters, this rdmad | %.1f ms | | baseline | %.1f ms | | %.2f× |\n", turn,
                       mine.median / 1000, theirs.median / 1000, mine.median / theirs.median);
                fflush(stdout);
        }
        baseline_done(&base);
        stop_daemon(h);
}
