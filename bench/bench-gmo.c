/* SPDX-License-Identifier: MIT */
/* GetManagedObjects: its time against a fresh scan and against a reply of
 * the same size from a do-nothing service, its CPU in rdmad and in the bus,
 * and what a caller gets near the bus's message limit. */
#include "bench-gmo.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench-names.h"
#include "bench-scan.h"

GmoFigures measure_gmo(Harness *h, size_t runs) {
        uint64_t *a = calloc(runs, sizeof(uint64_t)), cpu_daemon, cpu_bus;
        size_t runs_copy = runs < 5 ? runs : 5;
        sd_bus_message *reply = NULL;
        GmoFigures f = {};

        assert_non_null(a);
        cpu_daemon = proc_cpu_ns(h->daemon_pid);
        cpu_bus = proc_cpu_ns(h->bus_router_pid);
        for (size_t i = 0; i < runs; i++)
                a[i] = call_usec(h, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE, "GetManagedObjects",
                                 NULL);
        f.cpu_daemon_ms = (double) (proc_cpu_ns(h->daemon_pid) - cpu_daemon) / 1e6 / (double) runs;
        f.cpu_bus_ms = (double) (proc_cpu_ns(h->bus_router_pid) - cpu_bus) / 1e6 / (double) runs;
        f.rss_kib = proc_status_value(h->daemon_pid, "VmRSS:");
        f.wall = stats(a, runs);

        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE,
                                       "GetManagedObjects", NULL, &reply, "") >= 0);
        f.size = message_body_size(reply);
        for (size_t i = 0; i < runs_copy; i++) {
                sd_bus_message *m = NULL;
                uint64_t t0 = now_usec();

                assert_true(sd_bus_message_new_method_call(h->bus, &m, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                                           BENCH_COPY_INTERFACE, "Copy") >= 0);
                assert_true(sd_bus_message_rewind(reply, true) >= 0);
                assert_true(sd_bus_message_copy(m, reply, true) >= 0);
                a[i] = now_usec() - t0;
                sd_bus_message_unref(m);
        }
        f.copy = stats(a, runs_copy);
        sd_bus_message_unref(reply);

        /* The same number of bytes from a service that does nothing else, in turns. */
        pid_t floor = floor_start(h);
        for (size_t i = 0; i < runs; i++) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                sd_bus_message *blob = NULL;
                uint64_t t0 = now_usec();

                if (sd_bus_call_method(h->bus, FLOOR_NAME, FLOOR_PATH, FLOOR_NAME, "Blob", &error, &blob, "u",
                                       (uint32_t) f.size) < 0)
                        fail_msg("bench-floor Blob: %s", error.message);
                a[i] = now_usec() - t0;
                sd_bus_message_unref(blob);
        }
        floor_stop(floor);
        f.ceiling = stats(a, runs);
        free(a);
        return f;
}

void gmo_rows(const GmoFigures *f, Stats scan, unsigned n) {
        char verdict[256];
        Stats cpu_daemon = { f->cpu_daemon_ms * 1000, 0 }, cpu_bus = { f->cpu_bus_ms * 1000, 0 };

        snprintf(verdict, sizeof(verdict), "%.1f× faster than a scan%s; 50×: %s", scan.median / f->wall.median,
                 n >= 512 ? (scan.median >= 10 * f->wall.median ? "; ≥ 10×: met" : "; ≥ 10×: missed") : "",
                 scan.median >= 50 * f->wall.median ? "met" : "missed");
        row("GetManagedObjects", f->wall, "fresh sysfs scan", scan, verdict);
        snprintf(verdict, sizeof(verdict),
                 "the bus's CPU alone is a scan / %.1f: no reply this size can be "
                 "faster than that",
                 scan.median / cpu_bus.median);
        char bus_label[96];

        snprintf(bus_label, sizeof(bus_label), "%s's CPU per call (read, check, forward)", harness_bus_name());
        row("GetManagedObjects: rdmad's CPU per call (build, send)", cpu_daemon, bus_label, cpu_bus, verdict);
        snprintf(verdict, sizeof(verdict), "%.2f× the bus's ceiling; ≤ 1.25×: %s", f->wall.median / f->ceiling.median,
                 f->wall.median <= 1.25 * f->ceiling.median ? "met" : "missed");
        snprintf(bus_label, sizeof(bus_label), "a do-nothing service's %.1f MiB reply on %s", f->size / 1048576.0,
                 harness_bus_name());
        row("GetManagedObjects", f->wall, bus_label, f->ceiling, verdict);
        snprintf(verdict, sizeof(verdict), "reusing a built reply: %.2f× building and sending one",
                 f->copy.median / cpu_daemon.median);
        row("sd_bus_message_copy() of the reply", f->copy, "rdmad's CPU per call", cpu_daemon, verdict);
}

/* Only GetManagedObjects, without polling: for a profiler on rdmad and
 * dbus-daemon (perf record -a), and the split of one call's time. */
void bench_gmo_only(unsigned n, const BenchOptions *o) {
        static const char *const args[] = { "--poll-interval=0", NULL };
        Harness *h = host_start(n, args);
        uint64_t b[5];
        GmoFigures f;
        Baseline base;
        Stats scan;

        for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
                b[i] = timed_scan_usec(n);
        scan = stats(b, sizeof(b) / sizeof(b[0]));
        fprintf(stderr, "bench: rdmad %d: GetManagedObjects\n", (int) h->daemon_pid);
        f = measure_gmo(h, o->quick ? 5 : 21);
        printf("\n### GetManagedObjects only, N = %u (reply %.2f MiB; rdmad resident after: %.1f MiB)\n\n", n,
               f.size / 1048576.0, f.rss_kib / 1024.0);
        table_head();
        gmo_rows(&f, scan, n);
        fflush(stdout);

        baseline_init(&base);
        if (base.link) {
                printf("\n| turn | this rdmad: median | CPU per call | resident after | baseline: median | "
                       "CPU per call | resident after | this / baseline |\n");
                printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
                for (unsigned turn = 1; turn <= 3; turn++) {
                        GmoFigures g[2];

                        for (unsigned k = 0; k < 2; k++) {
                                baseline_restart(h, &base, k == 1, args);
                                g[k] = measure_gmo(h, o->quick ? 3 : 11);
                        }
                        printf("| %u | %.1f ms | %.1f ms | %.1f MiB | %.1f ms | %.1f ms | %.1f MiB | %.2f× |\n", turn,
                               g[0].wall.median / 1000, g[0].cpu_daemon_ms, g[0].rss_kib / 1024.0,
                               g[1].wall.median / 1000, g[1].cpu_daemon_ms, g[1].rss_kib / 1024.0,
                               g[0].wall.median / g[1].wall.median);
                        fflush(stdout);
                }
        }
        baseline_done(&base);
        stop_daemon(h);
}

/* One GetManagedObjects: the body size of its reply, or 0 with the error in *ret_error. */
static size_t gmo_reply_size(Harness *h, char **ret_error) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        size_t size = 0;
        int r;

        r = sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE,
                               "GetManagedObjects", &error, &reply, "");
        if (r >= 0)
                size = message_body_size(reply);
        else
                *ret_error = strdup(error.name ? error.message ? error.message : error.name : strerror(-r));
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        return size;
}

/* A host beyond the system bus's message limit (32 MiB by default): what a
 * GetManagedObjects caller gets, and whether rdmad is still there after it. */
static void big_host_row(unsigned n) {
        char *error = NULL, *version;
        size_t size;
        uint64_t t0;
        char *log, *counted;
        Harness *h;
        int status;

        harness_capture_daemon_log = true;
        h = host_start(n, (const char *const[]){ "--log-level=debug", NULL });
        t0 = now_usec();
        size = gmo_reply_size(h, &error);
        t0 = now_usec() - t0;
        harness_observe(h, 500, "the start-up's debug lines");
        version =
                harness_get_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_VERSION, NULL);
        printf("| %u | %u | %s | %.1f ms | %s |\n", n, 6 * n, error ? error : "reply", t0 / 1000.0,
               version ? "answers" : "gone from the bus");
        /* What the daemon counted against its bound, beside the exact size. */
        log = harness_daemon_log(h);
        counted = strstr(log, " bytes counted");
        if (counted)
                while (counted > log && counted[-1] >= '0' && counted[-1] <= '9')
                        counted--;
        if (size > 0)
                printf("| | | reply body %.2f MiB (%zu bytes; the daemon counted %.2f MiB) | | |\n", size / 1048576.0,
                       size, counted ? strtod(counted, NULL) / 1048576.0 : 0.0);
        free(log);
        harness_capture_daemon_log = false;
        fflush(stdout);
        free(version);
        free(error);
        status = harness_stop(h);
        if (status != 0)
                printf("| | | rdmad exited with wait status 0x%x | | |\n", status);
}

void bench_gmo_big(const unsigned *sizes, unsigned n_sizes) {
        printf("## GetManagedObjects near the bus's message limit\n\n");
        printf("| N devices | objects | answer | time | rdmad afterwards |\n| --- | --- | --- | --- | --- |\n");
        for (unsigned i = 0; i < n_sizes; i++)
                big_host_row(sizes[i]);
}
