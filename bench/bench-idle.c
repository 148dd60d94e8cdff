/* SPDX-License-Identifier: MIT */
/* Idle: the CPU time, wakeups and resident memory of rdmad over a quiet
 * period, beside the do-nothing service's. */
#include "bench-idle.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "bench-common.h"

/* rdmad on a host of n devices (0: none). */
static void idle_row(unsigned n, unsigned seconds) {
        unsigned long rss_idle;
        ProcWindow w;
        Harness *h;

        h = harness_start(NULL, NULL);
        if (n > 0) {
                host_write(h, n);
                harness_restart_daemon(h, NULL);
        }
        harness_observe(h, 1500, "past the first tick, which opens the poll's descriptors");
        /* The window's, not the GetManagedObjects call's below. */
        w = proc_window(h->daemon_pid, seconds);
        rss_idle = proc_status_value(h->daemon_pid, "VmRSS:");
        (void) call_usec(h, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE, "GetManagedObjects", NULL);
        /* The daemon returns freed pages at most every 5 s, after some work. */
        harness_observe(h, n > 0 ? 6500 : 200, "the trim interval");
        printf("| %u | %u (%u IB) | %.3f %% | %.1f | %lu | %.1f MiB | %.1f MiB | %s |\n", n, 2 * n, 2 * (n / 2), w.cpu,
               (double) w.wakeups / seconds, w.wakeups, rss_idle / 1024.0,
               proc_status_value(h->daemon_pid, "VmRSS:") / 1024.0,
               n == 0 ? (w.wakeups == 0 ? "no wakeups: met" : "no wakeups: missed")
                      : (w.cpu < 1 ? "< 1 % of a core: met" : "< 1 % of a core: missed"));
        fflush(stdout);
        stop_daemon(h);
}

/* The same for the do-nothing service: the floor of a process on the bus. */
static void idle_floor_row(unsigned seconds) {
        Harness *h = harness_start(NULL, NULL);
        pid_t floor = floor_start(h);
        ProcWindow w;

        harness_observe(h, 500, "the floor service's start-up");
        w = proc_window(floor, seconds);
        printf("| floor: do-nothing sd-bus service | 0 | %.3f %% | %.1f | %lu | %.1f MiB | | |\n", w.cpu,
               (double) w.wakeups / seconds, w.wakeups, proc_status_value(floor, "VmRSS:") / 1024.0);
        fflush(stdout);
        floor_stop(floor);
        stop_daemon(h);
}

void bench_idle(const unsigned *sizes, unsigned n_sizes, unsigned seconds) {
        printf("\n### Idle (%u s, default poll interval)\n\n", seconds);
        printf("| N devices | ports | CPU of one core | wakeups/s | wakeups | resident | resident 6 s after "
               "GetManagedObjects | target |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        idle_floor_row(seconds);
        idle_row(0, seconds);
        for (unsigned i = 0; i < n_sizes; i++)
                idle_row(sizes[i], seconds);
}
