/* SPDX-License-Identifier: MIT */
/* rdmad-exporter against node_exporter's InfiniBand collector on the same
 * simulated host, side by side in one run, both reading it at native
 * speed: scrape time, the bus bytes a scrape costs, rdmad's Get latency
 * while scrapes run, and resident memory. Prints Markdown tables. Not a
 * test: it never fails on a time.
 *
 *   bench-exporter [--quick] [N...]     (default N: 64 512 2048)
 *
 * Needs root. The bench enters a mount namespace of its own and
 * bind-mounts each testbed's sys/ on /sys, so that rdmad, both exporters
 * and the bench's own reads see the host as a real sysfs: nothing runs
 * under umockdev's preload, which would tax only the side that has it.
 * RDMAD_EXPORTER_BASELINE, when set, names a second rdmad-exporter (an
 * older build) measured next to RDMAD_EXPORTER_BINARY on the same host. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench-util.h"
#include "harness.h"
#include "scrape-client.h"

static bool quick;
static unsigned host_size; /* for prepare_host() */

static uint64_t scrape_usec(unsigned port, size_t *ret_size) {
        uint64_t t0 = now_usec(), t;
        HttpReply r;

        assert_int_equal(http_request(port, "GET", "/metrics", NULL, 20000, &r), 0);
        t = now_usec() - t0;
        assert_int_equal(r.status, 200);
        /* A figure only counts if rdmad answered that scrape. */
        if (strstr(r.body, "\nrdmad_up 0\n"))
                fail_msg("rdmad-exporter answered rdmad_up 0: rdmad did not answer in time");
        if (ret_size)
                *ret_size = r.body_size;
        http_reply_clear(&r);
        return t;
}

static size_t count_samples(unsigned port, const char *prefix) {
        HttpReply r;
        Samples s;
        size_t n = 0;

        assert_int_equal(http_request(port, "GET", "/metrics", NULL, 20000, &r), 0);
        assert_true(samples_parse(r.body, &s));
        for (size_t i = 0; i < s.n; i++)
                n += strncmp(s.items[i].name, prefix, strlen(prefix)) == 0;
        samples_clear(&s);
        http_reply_clear(&r);
        return n;
}

static uint64_t get_usec(Harness *h) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char *version = NULL;
        uint64_t t0 = now_usec(), t;

        assert_true(sd_bus_get_property_string(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                               RDMAD_MANAGER_PROPERTY_VERSION, &error, &version) >= 0);
        t = now_usec() - t0;
        free(version);
        return t;
}

static uint64_t call_usec(Harness *h, const char *interface, const char *member) {
        sd_bus_message *reply = NULL;
        uint64_t t0 = now_usec(), t;

        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, interface, member, NULL, &reply, "") >=
                    0);
        t = now_usec() - t0;
        sd_bus_message_unref(reply);
        return t;
}

/* Every counter file of the host read once, the way rdmad reads them
 * (opendir, openat, read), from the bind-mounted /sys: what reading these
 * files costs a C program on this machine. */
static uint64_t read_counters_usec(unsigned n) {
        static const char *const sources[] = { "counters", "hw_counters" };
        uint64_t t0 = now_usec();
        char pci[256], path[1024], buf[128];

        for (unsigned i = 0; i < n; i++) {
                host_pci_path(i, pci, sizeof(pci));
                for (unsigned p = 1; p <= 2; p++)
                        for (size_t k = 0; k < 2; k++) {
                                struct dirent *de;
                                DIR *d;

                                snprintf(path, sizeof(path), "/sys/%s/infiniband/mlx5_%u/ports/%u/%s", pci, i, p,
                                         sources[k]);
                                d = opendir(path);
                                if (!d) /* InfiniBand ports have no hw_counters here */
                                        continue;
                                while ((de = readdir(d))) {
                                        int fd;

                                        if (de->d_name[0] == '.')
                                                continue;
                                        fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC);
                                        assert_true(fd >= 0);
                                        assert_true(read(fd, buf, sizeof(buf)) > 0);
                                        close(fd);
                                }
                                closedir(d);
                        }
        }
        return now_usec() - t0;
}

/* Whether umockdev's library is mapped into a process: a figure taken
 * with it on one side only would compare the preload, not the programs. */
static bool has_preload(pid_t pid) {
        char path[64], line[1024];
        bool found = false;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/maps", (int) pid);
        f = fopen(path, "re");
        if (!f)
                fail_msg("Cannot read %s: %m", path);
        while (!found && fgets(line, sizeof(line), f))
                found = strstr(line, "libumockdev-preload") != NULL;
        fclose(f);
        return found;
}

/* harness_prepare: the host written into the testbed, and the testbed's
 * sys/ on /sys before anything starts. */
static void prepare_host(Harness *h) {
        char *root = umockdev_testbed_get_root_dir(h->testbed), sys[600];

        write_host(root, host_size);
        snprintf(sys, sizeof(sys), "%s/sys", root);
        if (mount(sys, "/sys", NULL, MS_BIND | MS_REC, NULL) < 0)
                fail_msg("Cannot bind-mount %s on /sys: %m", sys);
        g_free(root);
}

/* ---------- the bus bytes of a scrape ---------- */

/* dbus-monitor --binary writes every message it sees, marshalled, with
 * write(2) as it arrives: the file's growth is the bytes through the bus. */
typedef struct Monitor {
        pid_t pid;
        char path[128];
} Monitor;

static off_t file_size(const char *path) {
        struct stat st;

        assert_int_equal(stat(path, &st), 0);
        return st.st_size;
}

static void bus_ping(Harness *h) {
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, DBUS_PEER_INTERFACE, "Ping", NULL, NULL,
                                       "") >= 0);
}

static void monitor_start(Harness *h, Monitor *m) {
        char *argv[] = { "dbus-monitor", "--address", h->address, "--binary", NULL };
        int fd;

        snprintf(m->path, sizeof(m->path), "%s/monitor.bin", h->tmpdir);
        fd = open(m->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        m->pid = fork();
        assert_true(m->pid >= 0);
        if (m->pid == 0) {
                setpgid(0, 0);
                dup2(fd, STDOUT_FILENO);
                execvp(argv[0], argv);
                _exit(127);
        }
        close(fd);
        /* Monitoring once it has seen a call of ours. */
        for (uint64_t deadline = now_usec() + 20 * 1000000ULL; file_size(m->path) == 0;) {
                if (now_usec() > deadline)
                        fail_msg("dbus-monitor saw nothing within 20 s");
                bus_ping(h);
                usleep(20000);
        }
}

/* The bytes through the bus per scrape of the exporter on port, over k
 * scrapes, everything else on the bus being quiet. */
static size_t bus_bytes_per_scrape(Harness *h, unsigned port, size_t k) {
        Monitor m;
        off_t before, after;
        int status;

        monitor_start(h, &m);
        usleep(200000);
        before = file_size(m.path);
        for (size_t i = 0; i < k; i++)
                scrape_usec(port, NULL);
        usleep(200000);
        after = file_size(m.path);
        kill(m.pid, SIGTERM);
        assert_int_equal(waitpid(m.pid, &status, 0), m.pid);
        unlink(m.path);
        return (size_t) (after - before) / k;
}

/* ---------- one host ---------- */

typedef struct Scraper {
        unsigned port;
        atomic_bool stop;
        atomic_size_t scrapes;
} Scraper;

static void *scrape_loop(void *userdata) {
        Scraper *s = userdata;

        while (!atomic_load(&s->stop)) {
                scrape_usec(s->port, NULL);
                atomic_fetch_add(&s->scrapes, 1);
        }
        return NULL;
}

typedef struct Result {
        unsigned n;
        bool baseline;
        size_t our_series, node_series, our_bytes, node_bytes;
        Stats ours, node, old, gmo, counters, get_idle, get_busy, read_bare;
        size_t our_bus_bytes, old_bus_bytes;
        size_t busy_gets;
        unsigned long our_rss, our_hwm, node_rss, node_hwm, old_rss, old_hwm, rdmad_rss;
        double load[3]; /* load average at the start of the host's scrapes */
} Result;

static pid_t spawn_exporter(const char *binary, unsigned port) {
        char listen_arg[64];
        /* A scrape of 2048 devices on a loaded machine can take longer than the default 10 s. */
        char *argv[] = { (char *) binary, listen_arg, "--bus-timeout=600", NULL };

        snprintf(listen_arg, sizeof(listen_arg), "--listen=127.0.0.1:%u", port);
        return harness_spawn(argv);
}

static void bench_host(unsigned n, Result *res) {
        size_t runs = quick ? 3 : (n >= 2048 ? 7 : 21), runs_get = 5000, runs_bytes = quick ? 1 : 3;
        uint64_t *a = calloc(runs_get, sizeof(uint64_t)), *b = calloc(runs_get, sizeof(uint64_t)),
                 *c = calloc(runs_get, sizeof(uint64_t));
        const char *binary = getenv("RDMAD_EXPORTER_BINARY"), *baseline = getenv("RDMAD_EXPORTER_BASELINE");
        unsigned our_port, node_port, old_port = 0;
        char node_listen_arg[64];
        /* The default /sys, which is the testbed's here. */
        char *node_argv[] = { "prometheus-node-exporter",
                              "--collector.disable-defaults",
                              "--collector.infiniband",
                              "--web.disable-exporter-metrics",
                              node_listen_arg,
                              NULL };
        pid_t exporter_pid, node_pid, old_pid = 0;
        pthread_t thread;
        Scraper scraper;
        Harness *h;

        assert_non_null(binary);
        *res = (Result){ .n = n, .baseline = baseline && *baseline };
        host_size = n;
        harness_prepare = prepare_host;
        h = harness_start(NULL, NULL);
        harness_prepare = NULL;

        our_port = free_tcp_port();
        exporter_pid = spawn_exporter(binary, our_port);
        node_port = free_tcp_port();
        snprintf(node_listen_arg, sizeof(node_listen_arg), "--web.listen-address=127.0.0.1:%u", node_port);
        node_pid = harness_spawn(node_argv);
        if (res->baseline) {
                old_port = free_tcp_port();
                old_pid = spawn_exporter(baseline, old_port);
        }

        res->our_series = count_samples(our_port, "rdma_");
        res->node_series = count_samples(node_port, "node_infiniband_");
        if (res->our_series == 0 || res->node_series == 0)
                fail_msg("an exporter saw no device: %zu and %zu series", res->our_series, res->node_series);
        if (res->baseline)
                count_samples(old_port, "rdma_");
        if (has_preload(getpid()) || has_preload(h->daemon_pid) || has_preload(exporter_pid) ||
            (old_pid && has_preload(old_pid)))
                fail_msg("umockdev's preload is loaded on one side");
        scrape_usec(our_port, &res->our_bytes);
        scrape_usec(node_port, &res->node_bytes);
        if (getloadavg(res->load, 3) != 3)
                memset(res->load, 0, sizeof(res->load));

        /* Interleaved, so that all see the same machine. */
        for (size_t i = 0; i < runs; i++) {
                a[i] = scrape_usec(our_port, NULL);
                b[i] = scrape_usec(node_port, NULL);
                if (res->baseline)
                        c[i] = scrape_usec(old_port, NULL);
        }
        res->ours = stats(a, runs);
        res->node = stats(b, runs);
        if (res->baseline)
                res->old = stats(c, runs);

        res->our_bus_bytes = bus_bytes_per_scrape(h, our_port, runs_bytes);
        if (res->baseline)
                res->old_bus_bytes = bus_bytes_per_scrape(h, old_port, runs_bytes);

        /* What a scrape waits for: rdmad's replies, one after the other here. */
        for (size_t i = 0; i < runs; i++) {
                a[i] = call_usec(h, DBUS_OBJECT_MANAGER_INTERFACE, "GetManagedObjects");
                b[i] = call_usec(h, RDMAD_MANAGER_INTERFACE, RDMAD_METHOD_GET_ALL_COUNTERS);
                c[i] = read_counters_usec(n);
        }
        res->gmo = stats(a, runs);
        res->counters = stats(b, runs);
        res->read_bare = stats(c, runs);

        /* rdmad's Get latency, idle and while the exporter scrapes back to back. */
        for (size_t i = 0; i < runs_get; i++)
                a[i] = get_usec(h);
        res->get_idle = stats(a, runs_get);
        /* Gets every 2 ms, for as long as three whole scrapes take. */
        scraper = (Scraper){ .port = our_port };
        assert_int_equal(pthread_create(&thread, NULL, scrape_loop, &scraper), 0);
        size_t n_busy = 0;
        while (atomic_load(&scraper.scrapes) < 3) {
                if (n_busy < runs_get)
                        b[n_busy++] = get_usec(h);
                usleep(2000);
        }
        atomic_store(&scraper.stop, true);
        pthread_join(thread, NULL);
        res->get_busy = stats(b, n_busy ?: 1);
        res->busy_gets = n_busy;

        res->our_rss = proc_status_value(exporter_pid, "VmRSS:");
        res->our_hwm = proc_status_value(exporter_pid, "VmHWM:");
        res->node_rss = proc_status_value(node_pid, "VmRSS:");
        res->node_hwm = proc_status_value(node_pid, "VmHWM:");
        if (old_pid) {
                res->old_rss = proc_status_value(old_pid, "VmRSS:");
                res->old_hwm = proc_status_value(old_pid, "VmHWM:");
        }
        res->rdmad_rss = proc_status_value(h->daemon_pid, "VmRSS:");

        harness_stop_process(node_pid, 10000);
        if (old_pid)
                harness_stop_process(old_pid, 10000);
        if (harness_stop_process(exporter_pid, 10000) != 0)
                fprintf(stderr, "bench: rdmad-exporter did not exit with 0\n");
        if (harness_stop(h) != 0)
                fprintf(stderr, "bench: rdmad did not exit cleanly\n");
        if (umount2("/sys", MNT_DETACH) < 0)
                fail_msg("Cannot unmount the testbed from /sys: %m");
        free(a);
        free(b);
        free(c);
}

/* ---------- the namespace ---------- */

/* Without umockdev's preload (re-executed if make gave it), in a mount
 * namespace of its own whose changes go nowhere else. */
static void enter_namespace(char *argv[]) {
        const char *preload = getenv("LD_PRELOAD");
        const char *wrapper = getenv("RDMAD_TEST_WRAPPER");
        char *w;

        if (preload && strstr(preload, "libumockdev-preload")) {
                unsetenv("LD_PRELOAD");
                execv("/proc/self/exe", argv);
                fprintf(stderr, "bench-exporter: cannot re-execute itself: %m\n");
                exit(EXIT_FAILURE);
        }
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
                fprintf(stderr, "bench-exporter: a private mount namespace needs root: %m\n");
                exit(EXIT_FAILURE);
        }
        /* The harness starts rdmad through umockdev-wrapper; the wrapper's
         * command takes the preload off again. */
        if (asprintf(&w, "env -u LD_PRELOAD%s%s", wrapper && *wrapper ? " " : "", wrapper ?: "") < 0)
                exit(EXIT_FAILURE);
        setenv("RDMAD_TEST_WRAPPER", w, 1);
        free(w);
        setenv("SYSTEMD_DEVICE_VERIFY_SYSFS", "0", 1);
}

static void print_host(const Result *r) {
        char s[4][32];
        double ratio = r->ours.median / r->node.median;

        printf("\n### N = %u devices (%u ports), load average %.2f %.2f %.2f\n\n", r->n, 2 * r->n, r->load[0],
               r->load[1], r->load[2]);
        printf("| measure | rdmad-exporter | node_exporter |%s\n| --- | --- | --- |%s\n",
               r->baseline ? " rdmad-exporter, baseline |" : "", r->baseline ? " --- |" : "");
        printf("| series, bytes | %zu, %zu | %zu, %zu |%s\n", r->our_series, r->our_bytes, r->node_series,
               r->node_bytes, r->baseline ? " |" : "");
        printf("| scrape | %s (%s) | %s (%s) |", fmt_usec(r->ours.median, s[0], 32), fmt_usec(r->ours.p99, s[1], 32),
               fmt_usec(r->node.median, s[2], 32), fmt_usec(r->node.p99, s[3], 32));
        if (r->baseline)
                printf(" %s (%s) |", fmt_usec(r->old.median, s[0], 32), fmt_usec(r->old.p99, s[1], 32));
        printf("\n| ratio to node_exporter (target ≤ 0.5 at 2048) | %.2f%s | |", ratio,
               r->n == 2048 ? (ratio <= 0.5 ? ": met" : ": missed") : "");
        if (r->baseline)
                printf(" %.2f |", r->old.median / r->node.median);
        printf("\n| bus bytes per scrape | %zu | |", r->our_bus_bytes);
        if (r->baseline)
                printf(" %zu |", r->old_bus_bytes);
        printf("\n| rdmad `GetManagedObjects`, alone | %s (%s) | |%s\n", fmt_usec(r->gmo.median, s[0], 32),
               fmt_usec(r->gmo.p99, s[1], 32), r->baseline ? " |" : "");
        printf("| rdmad `GetAllCounters`, alone | %s (%s) | |%s\n", fmt_usec(r->counters.median, s[0], 32),
               fmt_usec(r->counters.p99, s[1], 32), r->baseline ? " |" : "");
        printf("| the counter files read once by a C loop | %s (%s) | |%s\n", fmt_usec(r->read_bare.median, s[0], 32),
               fmt_usec(r->read_bare.p99, s[1], 32), r->baseline ? " |" : "");
        printf("| rdmad `Get` idle / every 2 ms during 3 back-to-back scrapes (%zu Gets) | %s (%s) / %s (%s) | |%s\n",
               r->busy_gets, fmt_usec(r->get_idle.median, s[0], 32), fmt_usec(r->get_idle.p99, s[1], 32),
               fmt_usec(r->get_busy.median, s[2], 32), fmt_usec(r->get_busy.p99, s[3], 32), r->baseline ? " |" : "");
        printf("| resident memory (peak) | %.1f MiB (%.1f) | %.1f MiB (%.1f) |", r->our_rss / 1024.0,
               r->our_hwm / 1024.0, r->node_rss / 1024.0, r->node_hwm / 1024.0);
        if (r->baseline)
                printf(" %.1f MiB (%.1f) |", r->old_rss / 1024.0, r->old_hwm / 1024.0);
        printf("\n| rdmad resident | %.1f MiB | |%s\n", r->rdmad_rss / 1024.0, r->baseline ? " |" : "");
        fflush(stdout);
}

/* The sizes side by side, one row per N. */
static void print_summary(const Result *results, unsigned n) {
        char s[6][32];

        printf("\n### Side by side\n\n| N | rdmad-exporter | node_exporter | ratio | root's `Get` p99 during scrapes |"
               " bus bytes per scrape |%s\n| --- | --- | --- | --- | --- | --- |%s\n",
               results[0].baseline ? " baseline scrape (ratio) | baseline bus bytes |" : "",
               results[0].baseline ? " --- | --- |" : "");
        for (unsigned i = 0; i < n; i++) {
                const Result *r = &results[i];

                printf("| %u | %s | %s | %.2f | %s | %zu |", r->n, fmt_usec(r->ours.median, s[0], 32),
                       fmt_usec(r->node.median, s[1], 32), r->ours.median / r->node.median,
                       fmt_usec(r->get_busy.p99, s[2], 32), r->our_bus_bytes);
                if (r->baseline)
                        printf(" %s (%.2f) | %zu |", fmt_usec(r->old.median, s[3], 32), r->old.median / r->node.median,
                               r->old_bus_bytes);
                printf("\n");
        }
}

int main(int argc, char *argv[]) {
        unsigned sizes[8], n_sizes;
        Result results[8];

        n_sizes = bench_parse_sizes(argc, argv, sizes, &quick, NULL);
        enter_namespace(argv);
        /* The daemon's start on a big host under load takes longer than a test's 20 s. */
        setenv("RDMAD_TEST_READY_TIMEOUT_MS", "300000", 0);
        printf("## rdmad-exporter against node_exporter (InfiniBand collector only), native sysfs\n\n"
               "Dual-port devices, 21 IBTA counters per port, 11 hw_counters on RoCE ports, the testbed's sys/ on\n"
               "/sys in a private mount namespace, no preload anywhere. Scrape: connect to the close, text format,\n"
               "the exporters interleaved. Median (p99).\n");
        for (unsigned i = 0; i < n_sizes; i++) {
                bench_host(sizes[i], &results[i]);
                print_host(&results[i]);
        }
        print_summary(results, n_sizes);
        return 0;
}
