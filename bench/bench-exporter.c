/* SPDX-License-Identifier: MIT */
/* rdmad-exporter against node_exporter's InfiniBand collector on the same
 * simulated host, side by side in one run: scrape time, rdmad's Get latency
 * while scrapes run, and resident memory. Prints Markdown tables. Not a
 * test: it never fails on a time.
 *
 *   bench-exporter [--quick] [N...]     (default N: 64 512 2048)
 *
 * Runs under umockdev's preload like the daemon (make bench does this). */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench-util.h"
#include "harness.h"
#include "scrape-client.h"

static bool quick;

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
                                               "Version", &error, &version) >= 0);
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
 * (opendir, openat, read): through umockdev's preload when sys is "/sys",
 * straight from the testbed directory, as node_exporter reads it, when sys
 * is <root>/sys. The difference is what the preload costs rdmad here. */
static uint64_t read_counters_usec(const char *sys, unsigned n) {
        static const char *const sources[] = { "counters", "hw_counters" };
        uint64_t t0 = now_usec();
        char pci[256], path[1024], buf[128];

        for (unsigned i = 0; i < n; i++) {
                host_pci_path(i, pci, sizeof(pci));
                for (unsigned p = 1; p <= 2; p++)
                        for (size_t k = 0; k < 2; k++) {
                                struct dirent *de;
                                DIR *d;

                                snprintf(path, sizeof(path), "%s/%s/infiniband/mlx5_%u/ports/%u/%s", sys, pci, i, p,
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

/* The same read in a fresh process without umockdev's preload: what
 * reading these files costs a C program on this machine (the bench
 * re-executes itself with --read-counters SYS N). */
static uint64_t read_counters_clean_usec(const char *sys, unsigned n) {
        char n_arg[16], out[64] = "";
        char *argv[] = { "/proc/self/exe", "--read-counters", (char *) sys, n_arg, NULL };
        int pipefd[2], status;
        pid_t pid;

        snprintf(n_arg, sizeof(n_arg), "%u", n);
        assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                dup2(pipefd[1], STDOUT_FILENO);
                unsetenv("LD_PRELOAD");
                execv(argv[0], argv);
                _exit(127);
        }
        close(pipefd[1]);
        assert_true(read(pipefd[0], out, sizeof(out) - 1) > 0);
        close(pipefd[0]);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_int_equal(status, 0);
        return strtoull(out, NULL, 10);
}

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
        size_t our_series, node_series, our_bytes, node_bytes;
        Stats ours, node, gmo, counters, get_idle, get_busy, read_preload, read_direct, read_clean;
        size_t busy_scrapes;
        unsigned long our_rss, our_hwm, node_rss, node_hwm, rdmad_rss;
} Result;

static void bench_host(unsigned n, Result *res) {
        size_t runs = quick ? 3 : (n >= 2048 ? 7 : 21), runs_get = 5000;
        uint64_t *a = calloc(runs_get, sizeof(uint64_t)), *b = calloc(runs_get, sizeof(uint64_t));
        unsigned our_port = free_tcp_port(), node_port;
        char listen_arg[64], sysfs_arg[600], node_listen_arg[64];
        /* A scrape of 2048 devices on a loaded machine can take longer than the default 10 s. */
        char *exporter_argv[] = { getenv("RDMAD_EXPORTER_BINARY"), listen_arg, "--bus-timeout=600", NULL };
        char *node_argv[] = { "prometheus-node-exporter",
                              sysfs_arg,
                              "--collector.disable-defaults",
                              "--collector.infiniband",
                              "--web.disable-exporter-metrics",
                              node_listen_arg,
                              NULL };
        pid_t exporter_pid, node_pid;
        pthread_t thread;
        Scraper scraper;
        Harness *h;
        char *root;

        assert_non_null(exporter_argv[0]);
        h = harness_start(NULL, NULL);
        root = umockdev_testbed_get_root_dir(h->testbed);
        write_host(root, n);
        harness_restart_daemon(h, NULL);

        snprintf(listen_arg, sizeof(listen_arg), "--listen=127.0.0.1:%u", our_port);
        exporter_pid = harness_spawn(exporter_argv);
        node_port = free_tcp_port();
        snprintf(sysfs_arg, sizeof(sysfs_arg), "--path.sysfs=%s/sys", root);
        snprintf(node_listen_arg, sizeof(node_listen_arg), "--web.listen-address=127.0.0.1:%u", node_port);
        node_pid = harness_spawn(node_argv);

        *res = (Result){ .n = n };
        res->our_series = count_samples(our_port, "rdma_");
        res->node_series = count_samples(node_port, "node_infiniband_");
        scrape_usec(our_port, &res->our_bytes);
        scrape_usec(node_port, &res->node_bytes);

        /* Interleaved, so that both see the same machine. */
        for (size_t i = 0; i < runs; i++) {
                a[i] = scrape_usec(our_port, NULL);
                b[i] = scrape_usec(node_port, NULL);
        }
        res->ours = stats(a, runs);
        res->node = stats(b, runs);

        /* What a scrape waits for: rdmad's two replies, one after the other here. */
        for (size_t i = 0; i < runs; i++) {
                a[i] = call_usec(h, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects");
                b[i] = call_usec(h, RDMAD_MANAGER_INTERFACE, "GetAllCounters");
        }
        res->gmo = stats(a, runs);
        res->counters = stats(b, runs);

        for (size_t i = 0; i < runs; i++) {
                char sys[600];

                a[i] = read_counters_usec("/sys", n);
                snprintf(sys, sizeof(sys), "%s/sys", root);
                b[i] = read_counters_usec(sys, n);
        }
        res->read_preload = stats(a, runs);
        res->read_direct = stats(b, runs);
        for (size_t i = 0; i < runs; i++) {
                char sys[600];

                snprintf(sys, sizeof(sys), "%s/sys", root);
                a[i] = read_counters_clean_usec(sys, n);
        }
        res->read_clean = stats(a, runs);

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
        res->busy_scrapes = n_busy;

        res->our_rss = proc_status_value(exporter_pid, "VmRSS:");
        res->our_hwm = proc_status_value(exporter_pid, "VmHWM:");
        res->node_rss = proc_status_value(node_pid, "VmRSS:");
        res->node_hwm = proc_status_value(node_pid, "VmHWM:");
        res->rdmad_rss = proc_status_value(h->daemon_pid, "VmRSS:");

        harness_stop_process(node_pid, 10000);
        if (harness_stop_process(exporter_pid, 10000) != 0)
                fprintf(stderr, "bench: rdmad-exporter did not exit with 0\n");
        if (harness_stop(h) != 0)
                fprintf(stderr, "bench: rdmad did not exit cleanly\n");
        g_free(root);
        free(a);
        free(b);
}

int main(int argc, char *argv[]) {
        unsigned sizes[8], n_sizes;
        Result results[8];
        char s[8][32];

        if (argc == 4 && strcmp(argv[1], "--read-counters") == 0) {
                printf("%llu\n", (unsigned long long) read_counters_usec(argv[2], (unsigned) atoi(argv[3])));
                return 0;
        }
        n_sizes = bench_parse_sizes(argc, argv, sizes, &quick, NULL);
        /* The daemon's start on a big host under load takes longer than a test's 20 s. */
        setenv("RDMAD_TEST_READY_TIMEOUT_MS", "300000", 0);
        printf("## rdmad-exporter against node_exporter (InfiniBand collector only)\n\n"
               "Dual-port devices, 21 IBTA counters per port, 11 hw_counters on RoCE ports. Scrape: connect to last\n"
               "byte, text format, the two exporters interleaved. Median (p99).\n");
        for (unsigned i = 0; i < n_sizes; i++) {
                Result *r = &results[i];
                double ratio;

                bench_host(sizes[i], r);
                ratio = r->ours.median / r->node.median;
                printf("\n### N = %u devices (%u ports)\n\n", r->n, 2 * r->n);
                printf("| measure | rdmad-exporter | node_exporter |\n| --- | --- | --- |\n");
                printf("| series, bytes | %zu, %zu | %zu, %zu |\n", r->our_series, r->our_bytes, r->node_series,
                       r->node_bytes);
                printf("| scrape | %s (%s) | %s (%s) |\n", fmt_usec(r->ours.median, s[0], 32),
                       fmt_usec(r->ours.p99, s[1], 32), fmt_usec(r->node.median, s[2], 32),
                       fmt_usec(r->node.p99, s[3], 32));
                printf("| ratio (target ≤ 0.5 at 2048) | %.2f%s | |\n", ratio,
                       r->n == 2048 ? (ratio <= 0.5 ? ": met" : ": missed") : "");
                printf("| rdmad `GetManagedObjects`, alone | %s (%s) | |\n", fmt_usec(r->gmo.median, s[0], 32),
                       fmt_usec(r->gmo.p99, s[1], 32));
                printf("| rdmad `GetAllCounters`, alone | %s (%s) | |\n", fmt_usec(r->counters.median, s[0], 32),
                       fmt_usec(r->counters.p99, s[1], 32));
                printf("| the counter files read once: through umockdev's preload / testbed path, preload "
                       "loaded / no preload | %s / %s / %s | |\n",
                       fmt_usec(r->read_preload.median, s[0], 32), fmt_usec(r->read_direct.median, s[1], 32),
                       fmt_usec(r->read_clean.median, s[2], 32));
                printf("| rdmad `Get` idle / every 2 ms during 3 back-to-back scrapes (%zu Gets) | %s (%s) / %s (%s) | "
                       "|\n",
                       r->busy_scrapes, fmt_usec(r->get_idle.median, s[0], 32), fmt_usec(r->get_idle.p99, s[1], 32),
                       fmt_usec(r->get_busy.median, s[2], 32), fmt_usec(r->get_busy.p99, s[3], 32));
                printf("| resident memory (peak) | %.1f MiB (%.1f) | %.1f MiB (%.1f) |\n", r->our_rss / 1024.0,
                       r->our_hwm / 1024.0, r->node_rss / 1024.0, r->node_hwm / 1024.0);
                printf("| rdmad resident | %.1f MiB | |\n", r->rdmad_rss / 1024.0);
                fflush(stdout);
        }
        return 0;
}
