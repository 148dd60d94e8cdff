/* SPDX-License-Identifier: MIT */
/* Verbs events against the poll: a port change from the verbs library's
 * PORT_ERR/PORT_ACTIVE against the poll of sysfs, and what each costs when
 * idle, under umockdev's preload and at native speed. */
#include "bench-verbs.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/verbs.h>

#include "verbs-stub.h"

static char verbs_dir[64];

/* A uverbs node for every InfiniBand device of write_host() (the odd ones). */
static void write_uverbs_nodes(const char *root, unsigned n) {
        for (unsigned i = 1; i < n; i += 2) {
                char path[1024];
                FILE *f;

                snprintf(path, sizeof(path), "%s/sys/class/infiniband_verbs/uverbs%u", root, i);
                mkdir_p(path);
                strcat(path, "/ibdev");
                f = fopen(path, "we");
                assert_non_null(f);
                fprintf(f, "mlx5_%u\n", i);
                assert_int_equal(fclose(f), 0);
        }
}

static unsigned verbs_opens(void) {
        char path[128], line[256];
        unsigned n = 0;
        FILE *f;

        snprintf(path, sizeof(path), "%s/log", verbs_dir);
        f = fopen(path, "re");
        while (f && fgets(line, sizeof(line), f))
                n += strncmp(line, "open ", 5) == 0;
        if (f)
                fclose(f);
        return n;
}

/* The flapped device's FIFO, open for a whole row: an event is then one
 * write, as the kernel's is, not the bench's open and close around it. */
static int events_fd = -EBADF;

/* What the kernel sends on a port's change: PORT_ACTIVE or PORT_ERR of port 1. */
static void verbs_send_port_event(unsigned device, bool up) {
        StubEvent ev = { up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR, 1 };

        (void) device; /* its FIFO is events_fd */
        assert_int_equal(write(events_fd, &ev, sizeof(ev)), (ssize_t) sizeof(ev));
}

/* A row of flaps of one port of n devices, by verbs events or by the poll. */
static Stats verbs_flap(Harness *h, unsigned n, size_t runs, bool events) {
        unsigned device = n / 2 | 1;
        char path[128];
        Stats s;

        if (!events)
                return flap_port(h, device, runs, NULL);
        snprintf(path, sizeof(path), "%s/mlx5_%u.events", verbs_dir, device);
        events_fd = open(path, O_RDWR | O_CLOEXEC);
        assert_true(events_fd >= 0);
        s = flap_port(h, device, runs, verbs_send_port_event);
        close(events_fd);
        events_fd = -EBADF;
        return s;
}

/* openat() calls of the daemon (all of sysfs when idle, but the test verbs
 * library's log) over
 * `seconds`, counted by strace in a window of its own. */
static double openat_per_second(pid_t pid, unsigned seconds) {
        char cmd[256], line[512];
        unsigned long n = 0;
        FILE *f;

        snprintf(cmd, sizeof(cmd), "timeout -s INT %u strace -f -qq -e trace=openat -p %d 2>&1", seconds, (int) pid);
        f = popen(cmd, "re");
        assert_non_null(f);
        while (fgets(line, sizeof(line), f))
                /* Not the test verbs library's own log. */
                n += strstr(line, "openat(") && !strstr(line, verbs_dir);
        pclose(f);
        return (double) n / seconds;
}

typedef struct VerbsIdle {
        double cpu, wakeups, opens;
} VerbsIdle;

typedef struct VerbsFigures {
        Stats flap, native_flap;
        VerbsIdle idle, native; /* under umockdev's preload; with the testbed's sys/ on /sys */
} VerbsFigures;

static VerbsIdle verbs_idle(Harness *h, unsigned seconds) {
        ProcWindow w = proc_window(h->daemon_pid, seconds);

        return (VerbsIdle){
                .cpu = w.cpu,
                .wakeups = (double) w.wakeups / seconds,
                .opens = openat_per_second(h->daemon_pid, seconds),
        };
}

/* rdmad at native speed: the testbed's sys/ bind-mounted on /sys in this
 * (private) mount namespace, rdmad started without umockdev's preload (the
 * test verbs library stays, in events mode). The same flaps as under the
 * preload, whose interception taxes the reader's seven files a port, then
 * the idle figures. */
static void verbs_native(Harness *h, const char *root, unsigned n, bool events, size_t runs, unsigned seconds,
                         VerbsFigures *ret) {
        char sys[512], wrapper[] = "/tmp/rdmad-bench-native-XXXXXX";
        int fd = mkstemp(wrapper);
        FILE *f;

        assert_true(fd >= 0);
        f = fdopen(fd, "w");
        assert_non_null(f);
        fprintf(f, "#!/bin/sh\nLD_PRELOAD=$(echo \"$LD_PRELOAD\" | tr ':' '\\n' | grep -v umockdev | paste -sd:)\n"
                   "export LD_PRELOAD\nexec \"$@\"\n");
        assert_int_equal(fclose(f), 0);
        assert_int_equal(chmod(wrapper, 0755), 0);
        snprintf(sys, sizeof(sys), "%s/sys", root);
        harness_stop_daemon(h);
        assert_int_equal(mount(sys, "/sys", "none", MS_BIND | MS_REC, NULL), 0);
        setenv("RDMAD_TEST_WRAPPER", wrapper, 1);
        harness_start_daemon(h, NULL);
        unsetenv("RDMAD_TEST_WRAPPER");
        /* The contexts open, then a first slow round opens the kept state descriptors. */
        for (unsigned i = 0; events && verbs_opens() < n && i < 3000; i++)
                harness_observe(h, 20, "a verbs context to open");
        ret->native_flap = verbs_flap(h, n, runs, events);
        harness_observe(h, 12000, "the first slow round of reads");
        ret->native = verbs_idle(h, seconds);
        harness_stop_daemon(h);
        assert_int_equal(umount2("/sys", MNT_DETACH), 0);
        unlink(wrapper);
        harness_start_daemon(h, NULL);
}

/* One host of n devices: with the test verbs library (events) or without
 * it (the real libibverbs, which finds no device here: poll only). */
static VerbsFigures verbs_host(unsigned n, bool events, size_t runs, unsigned idle_seconds, unsigned hold) {
        VerbsFigures f = {};
        char *root, cmd[128];
        Harness *h;

        strcpy(verbs_dir, "/tmp/rdmad-bench-verbs-XXXXXX");
        assert_non_null(mkdtemp(verbs_dir));
        assert_int_equal(chmod(verbs_dir, 0777), 0);
        setenv("RDMAD_VERBS_STUB_DIR", verbs_dir, 1);
        setenv("RDMAD_VERBS_STUB_NO_REREADS", "1", 1);
        harness_daemon_preload = events ? VERBS_STUB : NULL;
        h = harness_start(NULL, NULL);
        root = umockdev_testbed_get_root_dir(h->testbed);
        write_host(root, n);
        if (events)
                write_uverbs_nodes(root, n);
        g_free(root);
        harness_restart_daemon(h, NULL);
        for (unsigned i = 0; events && verbs_opens() < n / 2 && i < 3000; i++)
                harness_observe(h, 20, "a verbs context to open");
        if (events && verbs_opens() < n / 2) {
                fprintf(stderr, "bench: %u verbs contexts of %u opened\n", verbs_opens(), n / 2);
                exit(EXIT_FAILURE);
        }

        f.flap = verbs_flap(h, n, runs, events);

        if (idle_seconds > 0) {
                char *tb = umockdev_testbed_get_root_dir(h->testbed);

                /* Past the first slow round, whose reads open the kept state descriptors. */
                harness_observe(h, 12000, "the first slow round of reads");
                if (hold > 0) {
                        fprintf(stderr, "bench: %s host of %u devices idle, rdmad PID %d, for %u s\n",
                                events ? "events" : "poll-only", n, (int) h->daemon_pid, hold);
                        harness_observe(h, hold * 1000, "the idle period asked for");
                }
                f.idle = verbs_idle(h, idle_seconds);
                /* The second run opens as many contexts again. */
                verbs_native(h, tb, n, events, runs, idle_seconds, &f);
                g_free(tb);
        }
        stop_daemon(h);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", verbs_dir);
        (void) !system(cmd);
        unsetenv("RDMAD_VERBS_STUB_DIR");
        unsetenv("RDMAD_VERBS_STUB_NO_REREADS");
        harness_daemon_preload = NULL;
        return f;
}

/* Beside BENCH_BASELINE_BINARY: the same host, both daemons in turns,
 * each mode's flaps and idle figures (as above) per daemon. */
static void verbs_baseline_table(unsigned n, size_t runs, unsigned seconds, unsigned hold) {
        Baseline base;

        baseline_init(&base);
        if (!base.link)
                return;
        printf("\n### Verbs events, this rdmad beside the baseline (N = %u, %zu flaps per row; idle %u s each)\n\n", n,
               runs, seconds);
        printf("| turn | mode | rdmad | flap median / p99, preload | flap median / p99, native | idle CPU, preload | "
               "idle CPU, native | wakeups/s, native | sysfs opens/s, native |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (unsigned turn = 1; turn <= 2; turn++)
                for (int events = 1; events >= 0; events--) {
                        /* Poll only once: its figures move less. */
                        if (!events && turn > 1)
                                continue;
                        for (unsigned k = 0; k < 2; k++) {
                                VerbsFigures f;

                                setenv("RDMAD_BINARY", k == 1 ? base.link : base.self, 1);
                                f = verbs_host(n, events, runs, seconds, hold);
                                setenv("RDMAD_BINARY", base.self, 1);
                                printf("| %u | %s | %s | %.2f / %.2f ms | %.2f / %.2f ms | %.3f %% | %.3f %% | %.1f | "
                                       "%.1f |\n",
                                       turn, events ? "events" : "poll only", k == 1 ? "baseline" : "this",
                                       f.flap.median / 1000, f.flap.p99 / 1000, f.native_flap.median / 1000,
                                       f.native_flap.p99 / 1000, f.idle.cpu, f.native.cpu, f.native.wakeups,
                                       f.native.opens);
                                fflush(stdout);
                        }
                }
        baseline_done(&base);
}

void bench_verbs(const unsigned *sizes, unsigned n_sizes, const BenchOptions *o) {
        size_t runs = o->flaps > 0 ? o->flaps : o->quick ? 10 : 40;
        /* Whole slow periods (10 s): a covered port is read once per period. */
        unsigned seconds = o->quick ? 10 : 20;
        VerbsFigures idle[2] = {};
        bool have_idle = false;

        printf("\n### Verbs events against the poll: IB port change → PropertiesChanged at a subscriber\n\n");
        printf("%zu flaps per row, each at a random point of the 1000 ms poll period. events: the test verbs "
               "library delivers PORT_ERR/PORT_ACTIVE 20 ms after the sysfs write (rdmad back at rest), timed from "
               "the event's write; poll only: no verbs device (the real libibverbs), timed from the sysfs write.\n\n",
               runs);
        printf("| N devices | IB ports | mode | rdmad | median | p99 | target |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- |\n");
        for (unsigned i = 0; i < n_sizes; i++)
                for (int events = 1; events >= 0; events--) {
                        bool at_2048 = sizes[i] == 2048 || (i == n_sizes - 1 && !have_idle);
                        VerbsFigures f = verbs_host(sizes[i], events, runs, at_2048 ? seconds : 0, o->hold);

                        if (at_2048) {
                                idle[events] = f;
                                have_idle = events == 0 ? true : have_idle;
                        }
                        for (int native = 0; native <= at_2048; native++) {
                                const Stats *st = native ? &f.native_flap : &f.flap;

                                printf("| %u | %u | %s | %s | %.2f ms | %.2f ms | %s |\n", sizes[i], 2 * (sizes[i] / 2),
                                       events ? "events" : "poll only",
                                       native ? "native (sys/ on /sys)" : "umockdev preload", st->median / 1000,
                                       st->p99 / 1000,
                                       !events  ? ""
                                       : native ? (st->p99 <= 1000 ? "p99 ≤ 1 ms: met" : "p99 ≤ 1 ms: missed")
                                       : st->p99 <= 10000 ? "p99 ≤ 10 ms: met"
                                                          : "p99 ≤ 10 ms: missed");
                        }
                        fflush(stdout);
                }
        if (!have_idle)
                return;
        printf("\n### Verbs events against the poll: idle at N = %u (%u s each; openat() over %u s, by strace)\n\n",
               sizes[n_sizes - 1], seconds, seconds);
        printf("| mode | rdmad | CPU of one core | wakeups/s | sysfs opens/s | target |\n| --- | --- | --- | --- | --- "
               "| --- |\n");
        for (int native = 0; native <= 1; native++) {
                const VerbsIdle *e = native ? &idle[1].native : &idle[1].idle,
                                *p = native ? &idle[0].native : &idle[0].idle;

                printf("| events | %s | %.3f %% | %.1f | %.1f | CPU ≤ 0.1 %%: %s; opens ≥ 10× fewer: %s (%.1f×) |\n",
                       native ? "native (sys/ on /sys)" : "umockdev preload", e->cpu, e->wakeups, e->opens,
                       e->cpu <= 0.1 ? "met" : "missed", e->opens * 10 <= p->opens ? "met" : "missed",
                       e->opens > 0 ? p->opens / e->opens : 0.0);
                printf("| poll only | %s | %.3f %% | %.1f | %.1f | |\n",
                       native ? "native (sys/ on /sys)" : "umockdev preload", p->cpu, p->wakeups, p->opens);
        }
        fflush(stdout);
        verbs_baseline_table(sizes[n_sizes - 1], runs, seconds, o->hold);
}
