/* SPDX-License-Identifier: MIT */
/* rdmad against the tools it replaces, side by side in one run: a fresh
 * sysfs scan (the floor of any scraper) and a do-nothing sd-bus service
 * (bench-floor.c, the floor of any D-Bus service). Prints Markdown tables of
 * medians and p99s. Not a test: it never fails on a time.
 *
 *   bench [--quick] [--idle-only | --get-only | --gmo-only | --start-only | --counters-only] [N...]
 *                                                            (default N: 64 512 2048)
 *   bench [--quick] --attacks N    the attack table of one unprivileged user,
 *                                  20 s per attack (5 with --quick) on N devices
 *
 * --gmo-only, --start-only and --counters-only run one measure alone, for a
 * profiler; with BENCH_BASELINE_BINARY=<another rdmad> they also time that
 * one, in turns with this one on the same host.
 *
 * Runs under umockdev's preload like the daemon (make bench does this), on
 * the bus RDMAD_TEST_BUS names (dbus-daemon, the default, or dbus-broker),
 * with the installed policy and the floor service's own (bench-floor.conf). */
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench-names.h"
#include "bench-util.h"
#include "harness.h"

static bool quick, idle_only, counters_only, get_only, gmo_only, start_only, verbs_only;
/* --verbs: flaps per row (--flaps N), and --hold S: the idle host waits S s
 * with its PID on stderr, for a profiler or strace from outside. */
static size_t verbs_flaps;
static unsigned verbs_hold;

/* ---------- simulated hosts: tests/lib/host.c, and one virtual device ---------- */

/* A soft-RoCE device, written like the kernel's: files first, then "add". */
static void write_virtual_device(const char *root) {
        char dir[512], cls[512];

        snprintf(dir, sizeof(dir), "%s/sys/devices/virtual/infiniband/benchrxe", root);
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

        snprintf(cmd, sizeof(cmd),
                 "rm -rf '%s/sys/devices/virtual/infiniband/benchrxe' '%s/sys/class/infiniband/benchrxe'", root, root);
        assert_int_equal(system(cmd), 0);
}

/* ---------- the fresh scan: what a scraper reads for the same answers ---------- */

static size_t read_file_at(int dirfd, const char *name) {
        char buf[4096];
        int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return 0;
        n = read(fd, buf, sizeof(buf));
        close(fd);
        return n > 0 ? (size_t) n : 0;
}

static size_t read_dir_files(int dirfd, const char *sub) {
        int fd = openat(dirfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        size_t total = 0;
        struct dirent *de;
        DIR *d;

        if (fd < 0)
                return 0;
        d = fdopendir(fd);
        while ((de = readdir(d))) {
                struct stat st;
                if (de->d_name[0] == '.' || fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISREG(st.st_mode))
                        continue;
                total += read_file_at(fd, de->d_name);
        }
        closedir(d);
        return total;
}

/* Every attribute rdmad publishes, read once: device, power, ports, used
 * GIDs with types and netdevs, the parent's SR-IOV files and netdevs. */
static size_t fresh_scan(void) {
        DIR *class = opendir("/sys/class/infiniband");
        struct dirent *de;
        size_t total = 0;

        assert_non_null(class);
        while ((de = readdir(class))) {
                char path[512], target[512];
                int dev, ports;
                DIR *pd;
                struct dirent *pe;

                if (de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), "/sys/class/infiniband/%s", de->d_name);
                dev = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (dev < 0)
                        continue;
                total += read_dir_files(dev, ".");
                total += read_dir_files(dev, "power");
                ports = openat(dev, "ports", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                pd = ports >= 0 ? fdopendir(ports) : NULL;
                while (pd && (pe = readdir(pd))) {
                        int port, gids;
                        DIR *gd;
                        struct dirent *ge;

                        if (pe->d_name[0] == '.')
                                continue;
                        port = openat(ports, pe->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        total += read_dir_files(port, ".");
                        gids = openat(port, "gids", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        gd = gids >= 0 ? fdopendir(gids) : NULL;
                        while (gd && (ge = readdir(gd))) {
                                char buf[64], sub[300];
                                int fd;
                                ssize_t n;

                                if (ge->d_name[0] == '.')
                                        continue;
                                fd = openat(gids, ge->d_name, O_RDONLY | O_CLOEXEC);
                                n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : 0;
                                if (fd >= 0)
                                        close(fd);
                                if (n <= 0 || strncmp(buf, "0000:0000:0000:0000:0000:0000:0000:0000", 39) == 0)
                                        continue;
                                total += (size_t) n;
                                snprintf(sub, sizeof(sub), "gid_attrs/types/%s", ge->d_name);
                                total += read_file_at(port, sub);
                                snprintf(sub, sizeof(sub), "gid_attrs/ndevs/%s", ge->d_name);
                                total += read_file_at(port, sub);
                        }
                        if (gd)
                                closedir(gd);
                        close(port);
                }
                if (pd)
                        closedir(pd);
                if (readlinkat(dev, "device", target, sizeof(target)) > 0) {
                        int parent = openat(dev, "device", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        int net = openat(parent, "net", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        DIR *nd = net >= 0 ? fdopendir(net) : NULL;

                        total += read_file_at(parent, "sriov_totalvfs") + read_file_at(parent, "sriov_numvfs");
                        total += readlinkat(parent, "driver", target, sizeof(target)) > 0;
                        while (nd && (pe = readdir(nd)))
                                if (pe->d_name[0] != '.')
                                        total += read_dir_files(net, pe->d_name);
                        if (nd)
                                closedir(nd);
                        close(parent);
                }
                close(dev);
        }
        closedir(class);
        return total;
}

/* One fresh scan of the host, timed. */
static uint64_t timed_scan_usec(unsigned n) {
        uint64_t t0 = now_usec();

        assert_true(fresh_scan() > 0 || n == 0);
        return now_usec() - t0;
}

/* ---------- statistics: tests/lib/stats.c ---------- */

static void row(const char *what, Stats a, const char *ref, Stats b, const char *verdict) {
        char s1[32], s2[32], s3[32], s4[32];

        printf("| %s | %s | %s | %s | %s | %s | %s |\n", what, fmt_usec(a.median, s1, sizeof(s1)),
               a.p99 > 0 ? fmt_usec(a.p99, s2, sizeof(s2)) : "", ref,
               b.median > 0 ? fmt_usec(b.median, s3, sizeof(s3)) : "", b.p99 > 0 ? fmt_usec(b.p99, s4, sizeof(s4)) : "",
               verdict);
}

/* ---------- the daemon's process ---------- */

static uint64_t proc_cpu_ns(pid_t pid) {
        char path[64];
        unsigned long long ns = 0;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/schedstat", (int) pid);
        f = fopen(path, "re");
        if (f) {
                if (fscanf(f, "%llu", &ns) != 1)
                        ns = 0;
                fclose(f);
        }
        return ns;
}

static void stop_daemon(Harness *h) {
        int status = harness_stop(h);

        if (status != 0) {
                fprintf(stderr, "bench: rdmad did not exit cleanly: wait status 0x%x\n", status);
                exit(EXIT_FAILURE);
        }
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
        else if (ret_error)
                *ret_error = strdup(error.name ? error.message ? error.message : error.name : strerror(-r));
        else
                fail_msg("GetManagedObjects: %s", error.name ?: strerror(-r));
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        return size;
}

static uint64_t call_usec(Harness *h, const char *dest, const char *path, const char *iface, const char *member,
                          const char *types, ...) {
        sd_bus_message *m = NULL, *reply = NULL;
        uint64_t t0, t;
        va_list ap;

        assert_true(sd_bus_message_new_method_call(h->bus, &m, dest, path, iface, member) >= 0);
        va_start(ap, types);
        if (types)
                assert_true(sd_bus_message_appendv(m, types, ap) >= 0);
        va_end(ap);
        t0 = now_usec();
        assert_true(sd_bus_call(h->bus, m, 0, NULL, &reply) >= 0);
        t = now_usec() - t0;
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        return t;
}

/* Get Port.State, back to back, while GetAllCounters runs (the caller is
 * root: a fresh read each time); returns how many Gets were timed. */
static size_t bench_get_during_counters(Harness *h, const char *port_path, size_t max_gets, Stats *ret_all,
                                        Stats *ret_during) {
        size_t runs = quick ? 3 : 11, n_during = 0;
        uint64_t *all = calloc(runs, sizeof(uint64_t)), *during = calloc(max_gets, sizeof(uint64_t)), t0;

        for (size_t i = 0; i < runs; i++) {
                AsyncReply r = {};

                t0 = now_usec();
                assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                                     RDMAD_MANAGER_INTERFACE, "GetAllCounters", harness_on_reply, &r,
                                                     "") >= 0);
                while (!r.done) {
                        if (n_during < max_gets)
                                during[n_during++] = call_usec(h, RDMAD_BUS_NAME, port_path, DBUS_PROPERTIES_INTERFACE,
                                                               "Get", "ss", RDMAD_PORT_INTERFACE, "State");
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

static void row_get_during_counters(Stats during, size_t n_during, const char *ref, Stats ref_stats) {
        char verdict[128];

        snprintf(verdict, sizeof(verdict), "%zu calls; p99 < 50 ms: %s", n_during,
                 n_during > 0 && during.p99 < 50000 ? "met" : "missed");
        row("Get Port.State during GetAllCounters", during, ref, ref_stats, verdict);
}

/* BENCH_BASELINE_BINARY: another rdmad, timed in turns with this one
 * (RDMAD_BINARY) on the same host, so that the load of the moment weighs
 * on both. It runs under a name of its own: the harness copies a daemon
 * for its user once per name. */
typedef struct Baseline {
        char dir[24];
        char *link; /* NULL: no baseline */
        char *self;
} Baseline;

static void baseline_init(Baseline *b) {
        const char *baseline = getenv("BENCH_BASELINE_BINARY"), *self = getenv("RDMAD_BINARY");

        *b = (Baseline){};
        if (!baseline || !self)
                return;
        strcpy(b->dir, "/tmp/rdmad-bench-XXXXXX");
        assert_non_null(mkdtemp(b->dir));
        assert_true(asprintf(&b->link, "%s/rdmad-baseline", b->dir) > 0);
        assert_int_equal(symlink(baseline, b->link), 0);
        b->self = strdup(self);
        assert_non_null(b->self);
}

/* Restarts the daemon as the baseline (or as this rdmad again). */
static void baseline_restart(Harness *h, const Baseline *b, bool baseline, const char *const *args) {
        setenv("RDMAD_BINARY", baseline ? b->link : b->self, 1);
        harness_restart_daemon(h, args);
        setenv("RDMAD_BINARY", b->self, 1);
}

static void baseline_done(Baseline *b) {
        if (!b->link)
                return;
        (void) unlink(b->link);
        (void) rmdir(b->dir);
        free(b->link);
        free(b->self);
}

/* make bench BENCH_ARGS="--counters-only 2048": only the counters figures. */
static void bench_counters(unsigned n) {
        char port_path[256];
        Stats all, during;
        size_t n_during;
        Harness *h;

        h = harness_start(NULL, NULL);
        write_host(umockdev_testbed_get_root_dir(h->testbed), n);
        harness_restart_daemon(h, NULL);
        snprintf(port_path, sizeof(port_path), "/org/rdmad1/device/mlx5_5f%u/port/1", n / 2);
        n_during = bench_get_during_counters(h, port_path, quick ? 200 : 2000, &all, &during);
        printf("\n### Counters, N = %u devices (%u ports)\n\n", n, 2 * n);
        printf("| measure | rdmad median | rdmad p99 | reference | ref. median | ref. p99 | target |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- |\n");
        row("GetAllCounters (every port, read now)", all, "", (Stats){}, "");
        row_get_during_counters(during, n_during, "", (Stats){});
        fflush(stdout);

        Baseline base;
        baseline_init(&base);
        for (unsigned turn = 1; base.link && turn <= 3; turn++) {
                Stats mine, theirs;

                baseline_restart(h, &base, false, NULL);
                (void) bench_get_during_counters(h, port_path, 50, &mine, &during);
                baseline_restart(h, &base, true, NULL);
                (void) bench_get_during_counters(h, port_path, 50, &theirs, &during);
                printf("| turn %u: GetAllCounters, this rdmad | %.1f ms | | baseline | %.1f ms | | %.2f× |\n", turn,
                       mine.median / 1000, theirs.median / 1000, mine.median / theirs.median);
                fflush(stdout);
        }
        baseline_done(&base);
        stop_daemon(h);
}
static void bench_flood(Harness *h, unsigned n, unsigned seconds);

/* ---------- the floor of a Get: a do-nothing sd-bus service ---------- */

/* bench-floor, next to this binary, started like the daemon: under
 * umockdev-wrapper (the same preload) and RDMAD_TEST_WRAPPER (callgrind). */
static pid_t floor_start(Harness *h) {
        const char *wrapper = getenv("RDMAD_TEST_WRAPPER");
        char exe[1024], *argv[40], *wrapper_copy = NULL;
        pid_t parent = getpid(), pid;
        ssize_t len;
        size_t n = 0;

        len = readlink("/proc/self/exe", exe, sizeof(exe) - 32);
        assert_true(len > 0);
        exe[len] = '\0';
        strcpy(strrchr(exe, '/') + 1, "bench-floor");

        argv[n++] = "umockdev-wrapper";
        if (wrapper && *wrapper) {
                wrapper_copy = strdup(wrapper);
                for (char *save = NULL, *t = strtok_r(wrapper_copy, " ", &save); t && n < 36;
                     t = strtok_r(NULL, " ", &save))
                        argv[n++] = t;
        }
        argv[n++] = exe;
        argv[n] = NULL;

        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                setpgid(0, 0);
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent)
                        _exit(127);
                unsetenv("LD_PRELOAD");
                execvp(argv[0], argv);
                fprintf(stderr, "bench: cannot execute %s: %m\n", argv[0]);
                _exit(127);
        }
        free(wrapper_copy);

        /* Ready when its name is on the bus. */
        for (unsigned i = 0; i < 60 * 50; i++) {
                sd_bus_message *reply = NULL;
                int has = 0;

                assert_true(sd_bus_call_method(h->bus, DBUS_SERVICE_NAME, DBUS_PATH, DBUS_INTERFACE, "NameHasOwner",
                                               NULL, &reply, "s", FLOOR_NAME) >= 0);
                assert_true(sd_bus_message_read(reply, "b", &has) >= 0);
                sd_bus_message_unref(reply);
                if (has)
                        return pid;
                assert_int_equal(waitpid(pid, NULL, WNOHANG), 0);
                usleep(20000);
        }
        fprintf(stderr, "bench: %s did not take its name\n", exe);
        exit(EXIT_FAILURE);
}

static void floor_stop(pid_t pid) {
        int status = 0;

        kill(pid, SIGTERM);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (status != 0) {
                fprintf(stderr, "bench: bench-floor did not exit cleanly: wait status 0x%x\n", status);
                exit(EXIT_FAILURE);
        }
}

typedef struct GetFigures {
        Stats get, floor, getid;
} GetFigures;

/* One property of rdmad, the same of the floor service, and the bus's own
 * GetId, interleaved so that the load of the moment weighs on all three. */
static GetFigures measure_gets(Harness *h, unsigned n, size_t runs) {
        uint64_t *a = calloc(runs, sizeof(uint64_t)), *b = calloc(runs, sizeof(uint64_t)),
                 *c = calloc(runs, sizeof(uint64_t));
        char path[256];
        GetFigures f;
        pid_t floor;

        floor = floor_start(h);
        snprintf(path, sizeof(path), "/org/rdmad1/device/mlx5_5f%u/port/1", n / 2);
        for (size_t i = 0; i < runs; i++) {
                a[i] = call_usec(h, RDMAD_BUS_NAME, path, DBUS_PROPERTIES_INTERFACE, "Get", "ss", RDMAD_PORT_INTERFACE,
                                 "State");
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

static void get_rows(const GetFigures *f) {
        char verdict[128];

        snprintf(verdict, sizeof(verdict), "%.2f× the floor; ≤ 1.25×: %s", f->get.median / f->floor.median,
                 f->get.median <= 1.25 * f->floor.median ? "met" : "missed");
        row("Get Port.State", f->get, "sd-bus service Get (floor)", f->floor, verdict);
        snprintf(verdict, sizeof(verdict), "two hops: %.2f× GetId", f->floor.median / f->getid.median);
        row("sd-bus service Get (floor)", f->floor, "bus GetId (one hop)", f->getid, verdict);
}

/* Only the Gets, without polling: for callgrind (RDMAD_TEST_WRAPPER) on
 * rdmad and the floor alike, to count instructions per Get. */
static void bench_get_only(unsigned n) {
        static const char *const args[] = { "--poll-interval=0", NULL };
        Harness *h = harness_start(NULL, NULL);
        GetFigures f;

        write_host(umockdev_testbed_get_root_dir(h->testbed), n);
        harness_restart_daemon(h, args);
        f = measure_gets(h, n, quick ? 200 : 2000);
        printf("\n### Get only, N = %u\n\n", n);
        printf("| measure | rdmad median | rdmad p99 | reference | ref. median | ref. p99 | target |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- |\n");
        get_rows(&f);
        fflush(stdout);

        /* Beside BENCH_BASELINE_BINARY: each turn both daemons, each against
         * the floor measured in its own window. */
        Baseline base;
        baseline_init(&base);
        if (base.link) {
                printf("\n| turn | this rdmad: median | p99 | × its floor | baseline: median | p99 | × its floor | "
                       "this / baseline |\n");
                printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
                for (unsigned turn = 1; turn <= 3; turn++) {
                        GetFigures g[2];

                        for (unsigned k = 0; k < 2; k++) {
                                baseline_restart(h, &base, k == 1, args);
                                g[k] = measure_gets(h, n, quick ? 100 : 1000);
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

static GmoFigures measure_gmo(Harness *h, size_t runs) {
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

/* The rows every GetManagedObjects figure is printed with. */
static void gmo_rows(const GmoFigures *f, Stats scan, unsigned n) {
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

/* Only start-up and the scan beside it, in turns: for a profiler on rdmad,
 * and beside BENCH_BASELINE_BINARY's start-up when it is set. */
static void bench_start_only(unsigned n) {
        size_t runs = quick ? 3 : 7;
        uint64_t *a = calloc(runs, sizeof(uint64_t)), *b = calloc(runs, sizeof(uint64_t)),
                 *c = calloc(runs, sizeof(uint64_t));
        Harness *h = harness_start(NULL, NULL);
        Stats start, scan;
        Baseline base;
        char verdict[128];

        baseline_init(&base);
        write_host(umockdev_testbed_get_root_dir(h->testbed), n);
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
        printf("| measure | rdmad median | rdmad p99 | reference | ref. median | ref. p99 | target |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- |\n");
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

/* Only GetManagedObjects, without polling: for a profiler on rdmad and
 * dbus-daemon (perf record -a), and the split of one call's time. */
static void bench_gmo_only(unsigned n) {
        static const char *const args[] = { "--poll-interval=0", NULL };
        Harness *h = harness_start(NULL, NULL);
        uint64_t b[5];
        GmoFigures f;
        Baseline base;
        Stats scan;

        write_host(umockdev_testbed_get_root_dir(h->testbed), n);
        harness_restart_daemon(h, args);
        for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
                b[i] = timed_scan_usec(n);
        scan = stats(b, sizeof(b) / sizeof(b[0]));
        fprintf(stderr, "bench: rdmad %d: GetManagedObjects\n", (int) h->daemon_pid);
        f = measure_gmo(h, quick ? 5 : 21);
        printf("\n### GetManagedObjects only, N = %u (reply %.2f MiB; rdmad resident after: %.1f MiB)\n\n", n,
               f.size / 1048576.0, f.rss_kib / 1024.0);
        printf("| measure | rdmad median | rdmad p99 | reference | ref. median | ref. p99 | target |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- |\n");
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
                                g[k] = measure_gmo(h, quick ? 3 : 11);
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

static void bench_host(unsigned n) {
        size_t runs_start = quick ? 3 : (n >= 2048 ? 7 : 11);
        size_t runs_scan = quick ? 5 : 21, runs_call = quick ? 50 : 1000, runs_gmo = quick ? 5 : (n >= 2048 ? 21 : 51);
        size_t runs_event = quick ? 5 : 51, runs_flap = quick ? 3 : 21;
        uint64_t *a = calloc(runs_call, sizeof(uint64_t)), *b = calloc(runs_call, sizeof(uint64_t));
        Stats start, scan, add, change, remove, flap;
        GmoFigures gmo;
        GetFigures gets;
        Harness *h = NULL;
        char verdict[128];
        uint64_t t0;

        /* 1. start → READY, on the same tree; then the scan of it. */
        h = harness_start(NULL, NULL);
        write_host(umockdev_testbed_get_root_dir(h->testbed), n);
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

        snprintf(port_path, sizeof(port_path), "/org/rdmad1/device/mlx5_5f%u/port/1", n / 2);
        n_during = bench_get_during_counters(h, port_path, runs_call, &all, &during);

        /* 4. uevent → signal: add, change, remove, each timed from the uevent. */
        char *root = umockdev_testbed_get_root_dir(h->testbed);
        uint64_t *c = calloc(runs_event, sizeof(uint64_t)), *d = calloc(runs_event, sizeof(uint64_t));
        for (size_t i = 0; i < runs_event; i++) {
                harness_clear_signals(h);
                write_virtual_device(root);
                t0 = now_usec();
                umockdev_testbed_uevent(h->testbed, "/sys/devices/virtual/infiniband/benchrxe", "add");
                harness_wait_signals(h, NULL, "InterfacesAdded", 1);
                a[i] = harness_find_signal(h, NULL, "InterfacesAdded")->usec - t0;

                harness_clear_signals(h);
                harness_write(h, "/sys/devices/virtual/infiniband/benchrxe", "node_desc", "changed\n");
                t0 = now_usec();
                umockdev_testbed_uevent(h->testbed, "/sys/devices/virtual/infiniband/benchrxe", "change");
                harness_wait_signals(h, NULL, "PropertiesChanged", 1);
                c[i] = harness_find_signal(h, NULL, "PropertiesChanged")->usec - t0;

                harness_clear_signals(h);
                t0 = now_usec();
                umockdev_testbed_uevent(h->testbed, "/sys/devices/virtual/infiniband/benchrxe", "remove");
                harness_wait_signals(h, NULL, "InterfacesRemoved", 1);
                d[i] = harness_find_signal(h, NULL, "InterfacesRemoved")->usec - t0;
                remove_virtual_device(root);
                harness_observe(h, 5, "a gap between two runs");
        }
        g_free(root);
        add = stats(a, runs_event);
        change = stats(c, runs_event);
        remove = stats(d, runs_event);

        /* Port file → PropertiesChanged: bounded by the poll interval. */
        {
                char devpath[256];

                char pci[256];

                /* An InfiniBand port: the kind the poll exists for. */
                host_pci_path(n / 2 | 1, pci, sizeof(pci));
                snprintf(devpath, sizeof(devpath), "/sys/%s/infiniband/mlx5_%u", pci, n / 2 | 1);
                srand(1);
                for (size_t i = 0; i < runs_flap; i++) {
                        /* At a random point of the poll period, as a real link would change. */
                        harness_observe(h, rand() % 1000, "a random point of the poll period");
                        harness_clear_signals(h);
                        harness_write(h, devpath, "ports/1/state", i % 2 ? "4: ACTIVE\n" : "1: DOWN\n");
                        t0 = now_usec();
                        harness_wait_signals(h, NULL, "PropertiesChanged", 1);
                        a[i] = harness_find_signal(h, NULL, "PropertiesChanged")->usec - t0;
                }
                flap = stats(a, runs_flap);
        }

        printf("\n### N = %u devices (%u ports: %u InfiniBand, %u RoCE; %u netdevs)\n\n", n, 2 * n, 2 * (n / 2),
               2 * (n - n / 2), 2 * n);
        printf("| measure | rdmad median | rdmad p99 | reference | ref. median | ref. p99 | target |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- |\n");
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

        bench_flood(h, n, quick ? 3 : 10);
        stop_daemon(h);
        free(a);
        free(b);
        free(c);
        free(d);
}

/* Idle: CPU time and wakeups of the daemon over a quiet period. */
static void bench_idle(unsigned n, unsigned seconds) {
        unsigned long sw0, sw1, rss_idle;
        uint64_t cpu0, cpu1;
        Harness *h;

        h = harness_start(NULL, NULL);
        if (n > 0) {
                write_host(umockdev_testbed_get_root_dir(h->testbed), n);
                harness_restart_daemon(h, NULL);
        }
        harness_observe(h, 1500, "past the first tick, which opens the poll's descriptors");
        cpu0 = proc_cpu_ns(h->daemon_pid);
        sw0 = proc_status_value(h->daemon_pid, "voluntary_ctxt_switches:") +
              proc_status_value(h->daemon_pid, "nonvoluntary_ctxt_switches:");
        sleep(seconds);
        cpu1 = proc_cpu_ns(h->daemon_pid);
        /* The window's, not the GetManagedObjects call's below. */
        sw1 = proc_status_value(h->daemon_pid, "voluntary_ctxt_switches:") +
              proc_status_value(h->daemon_pid, "nonvoluntary_ctxt_switches:");
        rss_idle = proc_status_value(h->daemon_pid, "VmRSS:");
        (void) call_usec(h, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE, "GetManagedObjects", NULL);
        /* The daemon returns freed pages at most every 5 s, after some work. */
        harness_observe(h, n > 0 ? 6500 : 200, "the trim interval");
        printf("| %u | %u (%u IB) | %.3f %% | %.1f | %lu | %.1f MiB | %.1f MiB | %s |\n", n, 2 * n, 2 * (n / 2),
               (double) (cpu1 - cpu0) / (seconds * 1e9) * 100, (double) (sw1 - sw0) / seconds, sw1 - sw0,
               rss_idle / 1024.0, proc_status_value(h->daemon_pid, "VmRSS:") / 1024.0,
               n == 0 ? (sw1 == sw0 ? "no wakeups: met" : "no wakeups: missed")
                      : ((double) (cpu1 - cpu0) / (seconds * 1e9) < 0.01 ? "< 1 % of a core: met"
                                                                         : "< 1 % of a core: missed"));
        fflush(stdout);
        stop_daemon(h);
}

/* ---------- a GetManagedObjects flood ---------- */

#define FLOOD_CLIENTS 32

static void drop_privileges(void) {
        if (geteuid() == 0 &&
            (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0))
                _exit(3);
}

/* A flood client: unprivileged, its own connection, GetManagedObjects in a
 * loop; one byte to `fd` per answer ('r' a reply, 'e' an error). */
static void flood_client(int fd) {
        sd_bus *bus = NULL;

        drop_privileges();
        if (sd_bus_open_system(&bus) < 0)
                _exit(3);
        for (;;) {
                sd_bus_message *m = NULL, *reply = NULL;
                char c;

                if (sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                                   DBUS_OBJECT_MANAGER_INTERFACE, "GetManagedObjects") < 0)
                        _exit(3);
                c = sd_bus_call(bus, m, 300 * 1000000ULL, NULL, &reply) >= 0 ? 'r' : 'e';
                if (write(fd, &c, 1) != 1)
                        _exit(0);
                sd_bus_message_unref(m);
                sd_bus_message_unref(reply);
        }
}

/* A subscriber on its own connection: the CLOCK_MONOTONIC time of each
 * PropertiesChanged of `path` to fd. */
static int on_flap_signal(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        uint64_t t = now_usec();

        if (write(*(int *) userdata, &t, sizeof(t)) != sizeof(t))
                _exit(0);
        return 0;
}

static void flap_subscriber(int fd, const char *path, int ready_fd) {
        char match[512];
        sd_bus *bus = NULL;

        snprintf(match, sizeof(match),
                 "type='signal',sender='" RDMAD_BUS_NAME "',path='%s',interface='" DBUS_PROPERTIES_INTERFACE "',"
                 "member='PropertiesChanged'",
                 path);
        if (sd_bus_open_system(&bus) < 0 || sd_bus_add_match(bus, NULL, match, on_flap_signal, &fd) < 0)
                _exit(3);
        (void) !write(ready_fd, "x", 1);
        for (;;) {
                if (sd_bus_process(bus, NULL) > 0)
                        continue;
                if (sd_bus_wait(bus, UINT64_MAX) < 0)
                        _exit(0);
        }
}

static pid_t fork_or_die(void) {
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0)
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        return pid;
}

/* 32 unprivileged clients loop GetManagedObjects for `seconds`; meanwhile
 * root calls Get Port.State in a loop, and a port flaps every 1-2 s at a
 * random point of the poll period, timed to its PropertiesChanged at a
 * subscriber. */
static void bench_flood(Harness *h, unsigned n, unsigned seconds) {
        char get_path[256], flap_path[256], devpath[256], pci[256];
        size_t max_gets = 200000, n_gets = 0, n_flaps = 0, replies = 0, errors = 0, get_errors = 0;
        uint64_t *gets = calloc(max_gets, sizeof(uint64_t)), flaps[64], t0 = 0, next_flap, deadline;
        pid_t clients[FLOOD_CLIENTS], subscriber;
        int answers[2], arrivals[2], ready[2];
        bool flapping = false;
        unsigned flap_round = 0;
        char c;

        snprintf(get_path, sizeof(get_path), "/org/rdmad1/device/mlx5_5f%u/port/1", n / 2);
        host_pci_path(n / 2 | 1, pci, sizeof(pci));
        snprintf(devpath, sizeof(devpath), "/sys/%s/infiniband/mlx5_%u", pci, n / 2 | 1);
        snprintf(flap_path, sizeof(flap_path), "/org/rdmad1/device/mlx5_5f%u/port/2", n / 2 | 1);
        harness_write(h, devpath, "ports/2/state", "4: ACTIVE\n");
        harness_observe(h, 1500, "the poll to see the port ACTIVE");
        assert_true(sd_bus_set_method_call_timeout(h->bus, 300 * 1000000ULL) >= 0);

        assert_int_equal(pipe2(answers, O_CLOEXEC | O_NONBLOCK), 0);
        assert_int_equal(pipe2(arrivals, O_CLOEXEC | O_NONBLOCK), 0);
        assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
        subscriber = fork_or_die();
        if (subscriber == 0)
                flap_subscriber(arrivals[1], flap_path, ready[1]);
        assert_int_equal(read(ready[0], &c, 1), 1);
        harness_observe(h, 200, "its match is in place");
        for (unsigned i = 0; i < FLOOD_CLIENTS; i++) {
                clients[i] = fork_or_die();
                if (clients[i] == 0)
                        flood_client(answers[1]);
        }

        srand(2);
        next_flap = now_usec() + 1000000 + (uint64_t) (rand() % 1000) * 1000;
        deadline = now_usec() + (uint64_t) seconds * 1000000;
        while (now_usec() < deadline || flapping) {
                uint64_t arrival, t;

                if (n_gets < max_gets && now_usec() < deadline) {
                        /* Not call_usec(): its default timeout of 25 s is what rdmad took without slices. */
                        uint64_t g = now_usec();
                        if (sd_bus_call_method(h->bus, RDMAD_BUS_NAME, get_path, DBUS_PROPERTIES_INTERFACE, "Get", NULL,
                                               NULL, "ss", RDMAD_PORT_INTERFACE, "State") < 0)
                                get_errors++;
                        gets[n_gets++] = now_usec() - g;
                } else
                        usleep(1000);
                t = now_usec();
                if (!flapping && t >= next_flap && t < deadline && n_flaps < sizeof(flaps) / sizeof(flaps[0])) {
                        harness_write(h, devpath, "ports/2/state", flap_round++ % 2 ? "4: ACTIVE\n" : "1: DOWN\n");
                        t0 = now_usec();
                        flapping = true;
                } else if (flapping && read(arrivals[0], &arrival, sizeof(arrival)) == sizeof(arrival)) {
                        flaps[n_flaps++] = arrival - t0;
                        flapping = false;
                        next_flap = t + 1000000 + (uint64_t) (rand() % 1000) * 1000;
                } else if (flapping && t > t0 + 10 * 1000000ULL) {
                        fprintf(stderr, "bench: no PropertiesChanged 10 s after a flap under the flood\n");
                        flapping = false;
                }
                while (read(answers[0], &c, 1) == 1)
                        c == 'r' ? replies++ : errors++;
        }
        for (unsigned i = 0; i < FLOOD_CLIENTS; i++)
                kill(clients[i], SIGKILL);
        kill(subscriber, SIGKILL);
        for (unsigned i = 0; i < FLOOD_CLIENTS; i++)
                waitpid(clients[i], NULL, 0);
        waitpid(subscriber, NULL, 0);
        while (read(answers[0], &c, 1) == 1)
                c == 'r' ? replies++ : errors++;
        close(answers[0]);
        close(answers[1]);
        close(arrivals[0]);
        close(arrivals[1]);
        close(ready[0]);
        close(ready[1]);

        Stats get = stats(gets, n_gets), flap = n_flaps ? stats(flaps, n_flaps) : (Stats){};
        char s1[32], s2[32], s3[32], s4[32];
        printf("\n#### GetManagedObjects flood: %u unprivileged clients for %u s, N = %u\n\n", FLOOD_CLIENTS, seconds,
               n);
        printf("| measure | median | p99 | count | target |\n| --- | --- | --- | --- | --- |\n");
        printf("| root's Get Port.State | %s | %s | %zu (%zu failed) | p99 < 100 ms: %s |\n",
               fmt_usec(get.median, s1, sizeof(s1)), fmt_usec(get.p99, s2, sizeof(s2)), n_gets, get_errors,
               get.p99 < 100000 && get_errors == 0 ? "met" : "missed");
        printf("| port file → PropertiesChanged at a subscriber | %s | %s | %zu | ≤ poll 1000 ms + 100 ms: %s |\n",
               fmt_usec(flap.median, s3, sizeof(s3)), fmt_usec(flap.p99, s4, sizeof(s4)), n_flaps,
               n_flaps && flap.p99 <= 1100000 ? "met" : "missed");
        printf("| GetManagedObjects answered to the flood | %zu replies, %zu errors | | | |\n", replies, errors);
        fflush(stdout);
        free(gets);
}

static void bench_flood_host(unsigned n, unsigned seconds) {
        /* BENCH_DAEMON_LOG=file: the daemon's debug log of the flood (restarted builds, dropped calls). */
        const char *log_path = getenv("BENCH_DAEMON_LOG");
        Harness *h;

        harness_capture_daemon_log = log_path != NULL;
        h = harness_start(NULL, NULL);
        write_host(umockdev_testbed_get_root_dir(h->testbed), n);
        harness_restart_daemon(h, log_path ? (const char *const[]){ "--log-level=debug", NULL } : NULL);
        bench_flood(h, n, seconds);
        if (log_path) {
                char *log = harness_daemon_log(h);
                FILE *f = fopen(log_path, "we");

                assert_non_null(f);
                fputs(log, f);
                fclose(f);
                free(log);
        }
        stop_daemon(h);
}

/* A host beyond the system bus's message limit (32 MiB by default): what a
 * GetManagedObjects caller gets, and whether rdmad is still there after it. */
static void bench_big_host(unsigned n) {
        char *error = NULL, *version;
        size_t size;
        uint64_t t0;
        Harness *h;
        int status;

        char *log, *counted;

        harness_capture_daemon_log = true;
        h = harness_start(NULL, NULL);
        write_host(umockdev_testbed_get_root_dir(h->testbed), n);
        harness_restart_daemon(h, (const char *const[]){ "--log-level=debug", NULL });
        t0 = now_usec();
        size = gmo_reply_size(h, &error);
        t0 = now_usec() - t0;
        harness_observe(h, 500, "the start-up's debug lines");
        version = harness_get_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, "Version", NULL);
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

/* The same for the do-nothing service: the floor of a process on the bus. */
static void bench_idle_floor(unsigned seconds) {
        unsigned long sw0, sw1, rss;
        uint64_t cpu0, cpu1;
        Harness *h = harness_start(NULL, NULL);
        pid_t floor = floor_start(h);

        harness_observe(h, 500, "the floor service's start-up");
        cpu0 = proc_cpu_ns(floor);
        sw0 = proc_status_value(floor, "voluntary_ctxt_switches:") +
              proc_status_value(floor, "nonvoluntary_ctxt_switches:");
        sleep(seconds);
        cpu1 = proc_cpu_ns(floor);
        sw1 = proc_status_value(floor, "voluntary_ctxt_switches:") +
              proc_status_value(floor, "nonvoluntary_ctxt_switches:");
        rss = proc_status_value(floor, "VmRSS:");
        printf("| floor: do-nothing sd-bus service | 0 | %.3f %% | %.1f | %lu | %.1f MiB | | |\n",
               (double) (cpu1 - cpu0) / (seconds * 1e9) * 100, (double) (sw1 - sw0) / seconds, sw1 - sw0, rss / 1024.0);
        fflush(stdout);
        floor_stop(floor);
        stop_daemon(h);
}

/* ---------- verbs events against the poll (--verbs) ---------- */

#ifdef VERBS_STUB
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

static void verbs_send(unsigned device, uint32_t type) {
        StubEvent ev = { type, 1 };
        char path[128];
        int fd;

        snprintf(path, sizeof(path), "%s/mlx5_%u.events", verbs_dir, device);
        fd = open(path, O_RDWR | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, &ev, sizeof(ev)), (ssize_t) sizeof(ev));
        close(fd);
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
        Stats flap;
        VerbsIdle idle, native; /* under umockdev's preload; with the testbed's sys/ on /sys */
} VerbsFigures;

static VerbsIdle verbs_idle(Harness *h, unsigned seconds) {
        uint64_t cpu0, cpu1;
        unsigned long sw0, sw1;
        VerbsIdle f;

        cpu0 = proc_cpu_ns(h->daemon_pid);
        sw0 = proc_status_value(h->daemon_pid, "voluntary_ctxt_switches:") +
              proc_status_value(h->daemon_pid, "nonvoluntary_ctxt_switches:");
        sleep(seconds);
        cpu1 = proc_cpu_ns(h->daemon_pid);
        sw1 = proc_status_value(h->daemon_pid, "voluntary_ctxt_switches:") +
              proc_status_value(h->daemon_pid, "nonvoluntary_ctxt_switches:");
        f.cpu = (double) (cpu1 - cpu0) / (seconds * 1e9) * 100;
        f.wakeups = (double) (sw1 - sw0) / seconds;
        f.opens = openat_per_second(h->daemon_pid, seconds);
        return f;
}

/* rdmad at native speed: the testbed's sys/ bind-mounted on /sys in this
 * (private) mount namespace, rdmad started without umockdev's preload (the
 * test verbs library stays, in events mode). */
static void verbs_native_idle(Harness *h, const char *root, unsigned n, bool events, unsigned seconds, VerbsIdle *ret) {
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
        harness_observe(h, 12000, "the first slow round of reads");
        *ret = verbs_idle(h, seconds);
        harness_stop_daemon(h);
        assert_int_equal(umount2("/sys", MNT_DETACH), 0);
        unlink(wrapper);
        harness_start_daemon(h, NULL);
}

/* One host of n devices: with the test verbs library (events) or without
 * it (the real libibverbs, which finds no device here: poll only). */
static VerbsFigures bench_verbs_mode(unsigned n, bool events, size_t runs, unsigned idle_seconds) {
        unsigned device = n / 2 | 1;
        uint64_t *a = calloc(runs, sizeof(uint64_t)), t0;
        VerbsFigures f = {};
        char devpath[512], pci[256], *root, cmd[128];
        Harness *h;

        strcpy(verbs_dir, "/tmp/rdmad-bench-verbs-XXXXXX");
        assert_non_null(mkdtemp(verbs_dir));
        assert_int_equal(chmod(verbs_dir, 0777), 0);
        setenv("RDMAD_VERBS_STUB_DIR", verbs_dir, 1);
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

        host_pci_path(device, pci, sizeof(pci));
        snprintf(devpath, sizeof(devpath), "/sys/%s/infiniband/mlx5_%u", pci, device);
        srand(1);
        for (size_t i = 0; i < runs; i++) {
                bool up = i % 2;

                /* At a random point of the poll period, as a real link would change. */
                harness_observe(h, rand() % 1000, "a random point of the poll period");
                harness_clear_signals(h);
                harness_write(h, devpath, "ports/1/state", up ? "4: ACTIVE\n" : "1: DOWN\n");
                t0 = now_usec();
                if (events)
                        verbs_send(device, up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR);
                harness_wait_signals(h, NULL, "PropertiesChanged", 1);
                a[i] = harness_find_signal(h, NULL, "PropertiesChanged")->usec - t0;
        }
        f.flap = stats(a, runs);
        free(a);

        if (idle_seconds > 0) {
                char *tb = umockdev_testbed_get_root_dir(h->testbed);

                /* Past the first slow round, whose reads open the kept state descriptors. */
                harness_observe(h, 12000, "the first slow round of reads");
                if (verbs_hold > 0) {
                        fprintf(stderr, "bench: %s host of %u devices idle, rdmad PID %d, for %u s\n",
                                events ? "events" : "poll-only", n, (int) h->daemon_pid, verbs_hold);
                        harness_observe(h, verbs_hold * 1000, "the idle period asked for");
                }
                f.idle = verbs_idle(h, idle_seconds);
                /* The second run opens as many contexts again. */
                verbs_native_idle(h, tb, events ? n : 0, events, idle_seconds, &f.native);
                g_free(tb);
        }
        stop_daemon(h);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", verbs_dir);
        (void) !system(cmd);
        unsetenv("RDMAD_VERBS_STUB_DIR");
        harness_daemon_preload = NULL;
        return f;
}

/* Beside BENCH_BASELINE_BINARY: the same host, both daemons in turns,
 * each mode's flaps and idle figures (as above) per daemon. */
static void bench_verbs_baseline(unsigned n, size_t runs, unsigned seconds) {
        Baseline base;

        baseline_init(&base);
        if (!base.link)
                return;
        printf("\n### Verbs events, this rdmad beside the baseline (N = %u, %zu flaps per row; idle %u s each)\n\n", n,
               runs, seconds);
        printf("| turn | mode | rdmad | flap median | flap p99 | idle CPU, preload | idle CPU, native | wakeups/s, "
               "native | sysfs opens/s, native |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (unsigned turn = 1; turn <= 2; turn++)
                for (int events = 1; events >= 0; events--) {
                        /* Poll only once: its figures move less. */
                        if (!events && turn > 1)
                                continue;
                        for (unsigned k = 0; k < 2; k++) {
                                VerbsFigures f;

                                setenv("RDMAD_BINARY", k == 1 ? base.link : base.self, 1);
                                f = bench_verbs_mode(n, events, runs, seconds);
                                setenv("RDMAD_BINARY", base.self, 1);
                                printf("| %u | %s | %s | %.2f ms | %.2f ms | %.3f %% | %.3f %% | %.1f | %.1f |\n", turn,
                                       events ? "events" : "poll only", k == 1 ? "baseline" : "this",
                                       f.flap.median / 1000, f.flap.p99 / 1000, f.idle.cpu, f.native.cpu,
                                       f.native.wakeups, f.native.opens);
                                fflush(stdout);
                        }
                }
        baseline_done(&base);
}

static void bench_verbs(const unsigned *sizes, unsigned n_sizes) {
        size_t runs = verbs_flaps > 0 ? verbs_flaps : quick ? 10 : 40;
        /* Whole slow periods (10 s): a covered port is read once per period. */
        unsigned seconds = quick ? 10 : 20;
        VerbsFigures idle[2] = {};
        bool have_idle = false;

        printf("\n### Verbs events against the poll: IB port change → PropertiesChanged at a subscriber\n\n");
        printf("%zu flaps per row, each at a random point of the 1000 ms poll period. events: the test verbs "
               "library delivers PORT_ERR/PORT_ACTIVE right after the sysfs write; poll only: no verbs device "
               "(the real libibverbs).\n\n",
               runs);
        printf("| N devices | IB ports | mode | median | p99 | target |\n| --- | --- | --- | --- | --- | --- |\n");
        for (unsigned i = 0; i < n_sizes; i++)
                for (int events = 1; events >= 0; events--) {
                        bool at_2048 = sizes[i] == 2048 || (i == n_sizes - 1 && !have_idle);
                        VerbsFigures f = bench_verbs_mode(sizes[i], events, runs, at_2048 ? seconds : 0);

                        if (at_2048) {
                                idle[events] = f;
                                have_idle = events == 0 ? true : have_idle;
                        }
                        printf("| %u | %u | %s | %.2f ms | %.2f ms | %s |\n", sizes[i], 2 * (sizes[i] / 2),
                               events ? "events" : "poll only", f.flap.median / 1000, f.flap.p99 / 1000,
                               events ? (f.flap.p99 <= 10000 ? "p99 ≤ 10 ms: met" : "p99 ≤ 10 ms: missed") : "");
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
        bench_verbs_baseline(sizes[n_sizes - 1], runs, seconds);
}
#endif

/* ---------- a hostile local user: the attack table's long versions ---------- */

/* The same attacks as tests/integration/test-floods.c's test_attack_* rows,
 * which hold them (one engine, two lengths): run for `seconds` each on `n` devices.
 * Its lines are the figures; a row over its bound says so and goes on. */
static void bench_attacks(unsigned n, unsigned seconds) {
        char self[4096], program[4200], devices[16], duration[16];
        ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
        pid_t pid;
        int status;

        assert_true(k > 0);
        self[k] = '\0';
        *strrchr(self, '/') = '\0';
        snprintf(program, sizeof(program), "%s/../tests/test-floods", self);
        snprintf(devices, sizeof(devices), "%u", n);
        snprintf(duration, sizeof(duration), "%u", seconds);
        printf("\n## Hostile local user: %u s per attack, N = %u\n\n", seconds, n);
        fflush(stdout);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                setenv("RDMAD_ATTACK_DEVICES", devices, 1);
                setenv("RDMAD_ATTACK_SECONDS", duration, 1);
                setenv("RDMAD_ATTACK_ONLY", "test_attack_*", 1);
                execl(program, program, NULL);
                _exit(127);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        printf("\n(the attacks' program exited with %d)\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(int argc, char *argv[]) {
        unsigned sizes[8], n_sizes = 0, big_sizes[8], n_big = 0, flood_sizes[8], n_flood = 0, attacks = 0;

        /* The floor service owns a name of its own on the strict bus. */
        harness_bus_policy = "bench-floor.conf";
        printf("Bus: %s (RDMAD_TEST_BUS)\n\n", harness_bus_name());
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--quick") == 0)
                        quick = true;
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
                        verbs_flaps = strtoul(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--hold") == 0 && i + 1 < argc)
                        verbs_hold = (unsigned) strtoul(argv[++i], NULL, 10);
                else if (n_sizes < 8)
                        sizes[n_sizes++] = (unsigned) strtoul(argv[i], NULL, 10);
        }
        if (attacks > 0) {
                bench_attacks(attacks, quick ? 5 : 20);
                return 0;
        }
        for (unsigned i = 0; i < n_flood; i++)
                bench_flood_host(flood_sizes[i], quick ? 3 : 10);
        if (n_flood > 0 && n_sizes == 0 && n_big == 0)
                return 0;
        if (n_big > 0) {
                printf("## GetManagedObjects near the bus's message limit\n\n");
                printf("| N devices | objects | answer | time | rdmad afterwards |\n| --- | --- | --- | --- | --- |\n");
                for (unsigned i = 0; i < n_big; i++)
                        bench_big_host(big_sizes[i]);
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
        if (get_only) {
                for (unsigned i = 0; i < n_sizes; i++)
                        bench_get_only(sizes[i]);
                return 0;
        }
        if (start_only) {
                for (unsigned i = 0; i < n_sizes; i++)
                        bench_start_only(sizes[i]);
                return 0;
        }
        if (gmo_only) {
                for (unsigned i = 0; i < n_sizes; i++)
                        bench_gmo_only(sizes[i]);
                return 0;
        }
        if (verbs_only) {
#ifdef VERBS_STUB
                bench_verbs(sizes, n_sizes);
                return 0;
#else
                fprintf(stderr, "bench: built without libibverbs: no --verbs\n");
                return 77;
#endif
        }
        if (counters_only) {
                for (unsigned i = 0; i < n_sizes; i++)
                        bench_counters(sizes[i]);
                return 0;
        }
        for (unsigned i = 0; i < n_sizes && !idle_only; i++)
                bench_host(sizes[i]);

        printf("\n### Idle (%u s, default poll interval)\n\n", quick ? 2 : 10);
        printf("| N devices | ports | CPU of one core | wakeups/s | wakeups | resident | resident 6 s after "
               "GetManagedObjects | target |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        bench_idle_floor(quick ? 2 : 10);
        bench_idle(0, quick ? 2 : 10);
        for (unsigned i = 0; i < n_sizes; i++)
                bench_idle(sizes[i], quick ? 2 : 10);
        return 0;
}
