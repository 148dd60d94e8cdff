/* SPDX-License-Identifier: MIT */
/* One host, every measure in one table: the default run of bench. */
#include "bench-host.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "bench-counters.h"
#include "bench-flood.h"
#include "bench-get.h"
#include "bench-gmo.h"
#include "bench-scan.h"

/* A device of its own, beside the host's, added and removed by uevents. */
#define VIRTUAL_DEVICE "/sys/devices/virtual/infiniband/benchrxe"

/* A soft-RoCE device, written like the kernel's: files first, then "add". */
static void write_virtual_device(const char *root) {
        char dir[512], cls[512];

        snprintf(dir, sizeof(dir), "%s" VIRTUAL_DEVICE, root);
        mkdir_p(dir);
        put(dir, "uevent", "NAME=benchrxe\n");
        put(dir, "node_type", "1: CA\n");
        put(dir, "node_desc", "a\n");
        put(dir, "ports/1/state", "4: ACTIVE\n");
        put(dir, "ports/1/link_layer", "Ethernet\n");
        link_at(dir, "subsystem", "../../../../class/infiniband");
        snprintf(cls, sizeof(cls), "%s/sys/class/infiniband", root);
        mkdir_p(cls);
        link_at(cls, "benchrxe", "../../devices/virtual/infiniband/benchrxe");
}

static void remove_virtual_device(const char *root) {
        char cmd[1024];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s" VIRTUAL_DEVICE "' '%s/sys/class/infiniband/benchrxe'", root, root);
        assert_int_equal(system(cmd), 0);
}

/* The virtual device's uevent `action`, timed to the first `signal` after it. */
static uint64_t uevent_usec(Harness *h, const char *action, const char *signal) {
        uint64_t t0 = now_usec();

        umockdev_testbed_uevent(h->testbed, VIRTUAL_DEVICE, action);
        harness_wait_signals(h, NULL, signal, 1);
        return harness_find_signal(h, NULL, signal)->usec - t0;
}

/* A virtual device added, changed and removed `runs` times, each timed
 * from its uevent to the signal it makes. */
static void measure_uevents(Harness *h, size_t runs, Stats *ret_add, Stats *ret_change, Stats *ret_remove) {
        char *root = umockdev_testbed_get_root_dir(h->testbed);
        uint64_t *a = calloc(runs, sizeof(uint64_t)), *c = calloc(runs, sizeof(uint64_t)),
                 *d = calloc(runs, sizeof(uint64_t));

        for (size_t i = 0; i < runs; i++) {
                harness_clear_signals(h);
                write_virtual_device(root);
                a[i] = uevent_usec(h, "add", "InterfacesAdded");

                harness_clear_signals(h);
                harness_write(h, VIRTUAL_DEVICE, "node_desc", "changed\n");
                c[i] = uevent_usec(h, "change", "PropertiesChanged");

                harness_clear_signals(h);
                d[i] = uevent_usec(h, "remove", "InterfacesRemoved");
                remove_virtual_device(root);
                harness_observe(h, 5, "a gap between two runs");
        }
        g_free(root);
        *ret_add = stats(a, runs);
        *ret_change = stats(c, runs);
        *ret_remove = stats(d, runs);
        free(a);
        free(c);
        free(d);
}

void bench_host(unsigned n, const BenchOptions *o) {
        bool quick = o->quick;
        size_t runs_start = quick ? 3 : (n >= 2048 ? 7 : 11);
        size_t runs_scan = quick ? 5 : 21, runs_call = quick ? 50 : 1000, runs_gmo = quick ? 5 : (n >= 2048 ? 21 : 51);
        size_t runs_event = quick ? 5 : 51, runs_flap = quick ? 3 : 21, runs_counters = quick ? 3 : 11;
        uint64_t *a = calloc(runs_call, sizeof(uint64_t)), *b = calloc(runs_call, sizeof(uint64_t));
        Stats start, scan, add, change, remove, flap;
        GmoFigures gmo;
        GetFigures gets;
        Harness *h = NULL;
        char verdict[128];

        /* 1. start → READY, on the same tree; then the scan of it. */
        h = harness_start(NULL, NULL);
        host_write(h, n);
        for (size_t i = 0; i < runs_start; i++) {
                harness_restart_daemon(h, NULL);
                a[i] = h->ready_usec - h->spawn_usec;
        }
        start = stats(a, runs_start);
        for (size_t i = 0; i < runs_scan; i++)
                b[i] = timed_scan_usec(n);
        scan = stats(b, runs_scan);

        /* 2. GetManagedObjects, its CPU, and a copy of its reply. */
        gmo = measure_gmo(h, runs_gmo);

        /* 3. One property against the floor service and the bus, interleaved. */
        gets = measure_gets(h, n, runs_call);

        /* 3b. Get while GetAllCounters reads every port in the worker thread. */
        char port_path[256];
        Stats all, during;
        size_t n_during;

        middle_port_path(n, port_path, sizeof(port_path));
        n_during = measure_get_during_counters(h, port_path, runs_counters, runs_call, &all, &during);

        /* 4. uevent → signal: add, change, remove, each timed from the uevent. */
        measure_uevents(h, runs_event, &add, &change, &remove);

        /* Port file → PropertiesChanged: bounded by the poll interval; an
         * InfiniBand port, the kind the poll exists for. */
        flap = flap_port(h, n / 2 | 1, runs_flap, NULL);

        printf("\n### N = %u devices (%u ports: %u InfiniBand, %u RoCE; %u netdevs)\n\n", n, 2 * n, 2 * (n / 2),
               2 * (n - n / 2), 2 * n);
        table_head();
        snprintf(verdict, sizeof(verdict), "%.2f× scan; ≤ 3×: %s%s", start.median / scan.median,
                 start.median <= 3 * scan.median ? "met" : "missed",
                 n < 2048                             ? ""
                 : start.median <= 1.40 * scan.median ? "; ≤ 1.40× (target): met"
                                                      : "; ≤ 1.40× (target): missed");
        row("start → name + READY=1", start, "fresh sysfs scan", scan, verdict);
        gmo_rows(&gmo, scan, n);
        get_rows(&gets);
        row("GetAllCounters (every port, read now)", all, "fresh sysfs scan", scan, "");
        row_get_during_counters(during, n_during, "Get Port.State", gets.get);
        snprintf(verdict, sizeof(verdict), "p99 < 10 ms: %s", add.p99 < 10000 ? "met" : "missed");
        row("uevent add → InterfacesAdded", add, "", (Stats){}, verdict);
        snprintf(verdict, sizeof(verdict), "p99 < 10 ms: %s", change.p99 < 10000 ? "met" : "missed");
        row("uevent change → PropertiesChanged", change, "", (Stats){}, verdict);
        snprintf(verdict, sizeof(verdict), "p99 < 10 ms: %s", remove.p99 < 10000 ? "met" : "missed");
        row("uevent remove → InterfacesRemoved", remove, "", (Stats){}, verdict);
        snprintf(verdict, sizeof(verdict), "≤ poll 1000 ms + 10 ms: %s", flap.p99 <= 1010000 ? "met" : "missed");
        row("port file → PropertiesChanged", flap, "", (Stats){}, verdict);
        printf("| GetManagedObjects reply (body on the wire) | %.2f MiB | | | | | %s |\n", gmo.size / 1048576.0,
               gmo.size < 32 * 1048576 ? "< 32 MiB (system bus limit)" : "over the system bus limit");
        printf("| resident memory after GetManagedObjects | %.1f MiB | | | | | %s |\n", gmo.rss_kib / 1024.0,
               n >= 2048 ? (gmo.rss_kib < 16 * 1024 ? "< 16 MiB: met" : "< 16 MiB: missed") : "");
        fflush(stdout);

        flood_table(h, n, quick ? 3 : 10);
        stop_daemon(h);
        free(a);
        free(b);
}
