/* SPDX-License-Identifier: MIT */
/* rdmad against the tools it replaces, side by side in one run: a fresh
 * sysfs scan (the floor of any scraper) and a bus round trip (the floor of
 * any D-Bus call). Prints Markdown tables of medians and p99s. Not a test:
 * it never fails on a time.
 *
 *   bench [--quick] [N...]     (default N: 64 512 2048)
 *
 * Runs under umockdev's preload like the daemon (make bench does this). */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench-util.h"
#include "harness.h"

static bool quick, idle_only;

/* ---------- simulated hosts (bench-util.c) ---------- */

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

        snprintf(cmd, sizeof(cmd), "rm -rf '%s/sys/devices/virtual/infiniband/benchrxe' '%s/sys/class/infiniband/benchrxe'",
                 root, root);
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

/* ---------- statistics ---------- */

static void row(const char *what, Stats a, const char *ref, Stats b, const char *verdict) {
        char s1[32], s2[32], s3[32], s4[32];

        printf("| %s | %s | %s | %s | %s | %s | %s |\n", what, fmt_usec(a.median, s1, sizeof(s1)),
               fmt_usec(a.p99, s2, sizeof(s2)), ref, b.median > 0 ? fmt_usec(b.median, s3, sizeof(s3)) : "",
               b.p99 > 0 ? fmt_usec(b.p99, s4, sizeof(s4)) : "", verdict);
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

static bool got_signal(Harness *h, const void *data) {
        return harness_count_signals(h, NULL, data) > 0;
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

static void bench_host(unsigned n) {
        char pathbuf[256];
        size_t runs_start = quick ? 3 : (n >= 2048 ? 7 : 11);
        size_t runs_scan = quick ? 5 : 21, runs_call = quick ? 50 : 1000, runs_gmo = quick ? 5 : (n >= 2048 ? 21 : 51);
        size_t runs_event = quick ? 5 : 51, runs_flap = quick ? 3 : 21;
        uint64_t *a = calloc(runs_call, sizeof(uint64_t)), *b = calloc(runs_call, sizeof(uint64_t));
        Stats start, scan, gmo, get, getid, add, change, remove, flap;
        unsigned long rss_kib;
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
        for (size_t i = 0; i < runs_scan; i++) {
                t0 = now_usec();
                assert_true(fresh_scan() > 0 || n == 0);
                b[i] = now_usec() - t0;
        }
        scan = stats(b, runs_scan);

        /* 2. GetManagedObjects, reply parsed by sd-bus as a client would. */
        for (size_t i = 0; i < runs_gmo; i++)
                a[i] = call_usec(h, "org.rdmad1", "/org/rdmad1", "org.freedesktop.DBus.ObjectManager",
                                 "GetManagedObjects", NULL);
        gmo = stats(a, runs_gmo);
        rss_kib = proc_status_value(h->daemon_pid, "VmRSS:");

        /* 3. One property against the bus floor, interleaved. */
        snprintf(pathbuf, sizeof(pathbuf), "/org/rdmad1/device/mlx5_5f%u/port/1", n / 2);
        for (size_t i = 0; i < runs_call; i++) {
                a[i] = call_usec(h, "org.rdmad1", pathbuf, "org.freedesktop.DBus.Properties", "Get", "ss",
                                 "org.rdmad1.Port", "State");
                b[i] = call_usec(h, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                                 NULL);
        }
        get = stats(a, runs_call);
        getid = stats(b, runs_call);

        /* 4. uevent → signal: add, change, remove, each timed from the uevent. */
        char *root = umockdev_testbed_get_root_dir(h->testbed);
        uint64_t *c = calloc(runs_event, sizeof(uint64_t)), *d = calloc(runs_event, sizeof(uint64_t));
        for (size_t i = 0; i < runs_event; i++) {
                harness_clear_signals(h);
                write_virtual_device(root);
                t0 = now_usec();
                umockdev_testbed_uevent(h->testbed, "/sys/devices/virtual/infiniband/benchrxe", "add");
                assert_true(harness_wait(h, got_signal, "InterfacesAdded", 10000));
                a[i] = harness_find_signal(h, NULL, "InterfacesAdded")->usec - t0;

                harness_clear_signals(h);
                harness_write(h, "/sys/devices/virtual/infiniband/benchrxe", "node_desc", "changed\n");
                t0 = now_usec();
                umockdev_testbed_uevent(h->testbed, "/sys/devices/virtual/infiniband/benchrxe", "change");
                assert_true(harness_wait(h, got_signal, "PropertiesChanged", 10000));
                c[i] = harness_find_signal(h, NULL, "PropertiesChanged")->usec - t0;

                harness_clear_signals(h);
                t0 = now_usec();
                umockdev_testbed_uevent(h->testbed, "/sys/devices/virtual/infiniband/benchrxe", "remove");
                assert_true(harness_wait(h, got_signal, "InterfacesRemoved", 10000));
                d[i] = harness_find_signal(h, NULL, "InterfacesRemoved")->usec - t0;
                remove_virtual_device(root);
                harness_settle(h, 5);
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
                        harness_settle(h, rand() % 1000);
                        harness_clear_signals(h);
                        harness_write(h, devpath, "ports/1/state", i % 2 ? "4: ACTIVE\n" : "1: DOWN\n");
                        t0 = now_usec();
                        if (!harness_wait(h, got_signal, "PropertiesChanged", 10000)) {
                                fprintf(stderr, "bench: no PropertiesChanged after writing %s/ports/1/state\n", devpath);
                                exit(EXIT_FAILURE);
                        }
                        a[i] = harness_find_signal(h, NULL, "PropertiesChanged")->usec - t0;
                }
                flap = stats(a, runs_flap);
        }

        printf("\n### N = %u devices (%u ports: %u InfiniBand, %u RoCE; %u netdevs)\n\n", n, 2 * n, 2 * (n / 2),
               2 * (n - n / 2), 2 * n);
        printf("| measure | rdmad median | rdmad p99 | reference | ref. median | ref. p99 | target |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- |\n");
        snprintf(verdict, sizeof(verdict), "%.2f× scan; ≤ 3×: %s", start.median / scan.median,
                 start.median <= 3 * scan.median ? "met" : "missed");
        row("start → name + READY=1", start, "fresh sysfs scan", scan, verdict);
        snprintf(verdict, sizeof(verdict), "%.1f× faster than a scan%s", scan.median / gmo.median,
                 n >= 512 ? (scan.median >= 10 * gmo.median ? "; ≥ 10×: met" : "; ≥ 10×: missed") : "");
        row("GetManagedObjects", gmo, "fresh sysfs scan", scan, verdict);
        snprintf(verdict, sizeof(verdict), "%.2f× GetId; ≤ 2×: %s", get.median / getid.median,
                 get.median <= 2 * getid.median ? "met" : "missed");
        row("Get Port.State", get, "bus GetId", getid, verdict);
        snprintf(verdict, sizeof(verdict), "p99 < 10 ms: %s", add.p99 < 10000 ? "met" : "missed");
        row("uevent add → InterfacesAdded", add, "", (Stats) {}, verdict);
        snprintf(verdict, sizeof(verdict), "p99 < 10 ms: %s", change.p99 < 10000 ? "met" : "missed");
        row("uevent change → PropertiesChanged", change, "", (Stats) {}, verdict);
        snprintf(verdict, sizeof(verdict), "p99 < 10 ms: %s", remove.p99 < 10000 ? "met" : "missed");
        row("uevent remove → InterfacesRemoved", remove, "", (Stats) {}, verdict);
        snprintf(verdict, sizeof(verdict), "≤ poll 1000 ms + 10 ms: %s", flap.p99 <= 1010000 ? "met" : "missed");
        row("port file → PropertiesChanged", flap, "", (Stats) {}, verdict);
        printf("| resident memory after GetManagedObjects | %.1f MiB | | | | | %s |\n", rss_kib / 1024.0,
               n >= 2048 ? (rss_kib < 16 * 1024 ? "< 16 MiB: met" : "< 16 MiB: missed") : "");
        fflush(stdout);

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
        harness_settle(h, 1500); /* past the first tick, which opens the poll's descriptors */
        cpu0 = proc_cpu_ns(h->daemon_pid);
        sw0 = proc_status_value(h->daemon_pid, "voluntary_ctxt_switches:") +
              proc_status_value(h->daemon_pid, "nonvoluntary_ctxt_switches:");
        sleep(seconds);
        cpu1 = proc_cpu_ns(h->daemon_pid);
        rss_idle = proc_status_value(h->daemon_pid, "VmRSS:");
        (void) call_usec(h, "org.rdmad1", "/org/rdmad1", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
                         NULL);
        /* The daemon returns freed pages at most every 5 s, after some work. */
        harness_settle(h, n > 0 ? 6500 : 200);
        sw1 = proc_status_value(h->daemon_pid, "voluntary_ctxt_switches:") +
              proc_status_value(h->daemon_pid, "nonvoluntary_ctxt_switches:");
        printf("| %u | %u (%u IB) | %.3f %% | %.1f | %lu | %.1f MiB | %.1f MiB | %s |\n", n, 2 * n, 2 * (n / 2),
               (double) (cpu1 - cpu0) / (seconds * 1e9) * 100, (double) (sw1 - sw0) / seconds, sw1 - sw0,
               rss_idle / 1024.0, proc_status_value(h->daemon_pid, "VmRSS:") / 1024.0,
               n == 0 ? (sw1 == sw0 ? "no wakeups: met" : "no wakeups: missed")
                      : ((double) (cpu1 - cpu0) / (seconds * 1e9) < 0.01 ? "< 1 % of a core: met"
                                                                          : "< 1 % of a core: missed"));
        fflush(stdout);
        stop_daemon(h);
}

int main(int argc, char *argv[]) {
        unsigned sizes[8], n_sizes = bench_parse_sizes(argc, argv, sizes, &quick, &idle_only);

        if (!harness_private_network())
                fprintf(stderr, "bench: running without a private network namespace\n");

        printf("## rdmad benchmark\n\nEach figure: median and p99 over repeated runs; the reference measured in the "
               "same run. Poll interval: default (1000 ms).\n");
        for (unsigned i = 0; i < n_sizes && !idle_only; i++)
                bench_host(sizes[i]);

        printf("\n### Idle (%u s, default poll interval)\n\n", quick ? 2 : 10);
        printf("| N devices | ports | CPU of one core | wakeups/s | wakeups | resident | resident 6 s after GetManagedObjects | target |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        bench_idle(0, quick ? 2 : 10);
        for (unsigned i = 0; i < n_sizes; i++)
                bench_idle(sizes[i], quick ? 2 : 10);
        return 0;
}
