/* SPDX-License-Identifier: MIT */
/* rdmad-exporter against the real rdmad on a private bus and umockdev
 * testbed: side by side with node_exporter's InfiniBand collector on the
 * same sysfs, promtool, HTTP and content negotiation, rdmad going away and
 * coming back, and a real Prometheus server scraping it through a link flap.
 * Every process is killed in the group teardown, even after a failure. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <glib.h>

#ifdef HAVE_FAULT_FS
#include "fault-fs.h"
#endif
#include "forge.h"
#include "harness.h"
#include "basic/util.h"
#include "prometheus-server.h"
#include "rdmactl-run.h"
#include "scrape-client.h"

#define MLX4_PORT1 "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0/ports/1"
#define HFI1_DIR   "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"

typedef struct Fixture {
        Harness *h;
        pid_t exporter_pid, node_exporter_pid, prometheus_pid;
        unsigned exporter_port;
} Fixture;

static Fixture fx;

/* A read that hangs makes its device unresponsive after 2 s, within the scrape timeout. */
static const char *const daemon_args[] = { "--poll-interval=100", "--read-timeout=2s", NULL };

/* argv += the words of $RDMAD_TEST_WRAPPER (valgrind in `make valgrind`). */
static size_t add_wrapper(char **argv, size_t n, char **ret_copy) {
        const char *wrapper = getenv("RDMAD_TEST_WRAPPER");
        char *save = NULL;

        *ret_copy = NULL;
        if (!wrapper || !*wrapper)
                return n;
        *ret_copy = strdup(wrapper);
        for (char *t = strtok_r(*ret_copy, " ", &save); t && n < 40; t = strtok_r(NULL, " ", &save))
                argv[n++] = t;
        return n;
}

/* Fails with the whole text, which says more than the line number. */
#define assert_contains(text, needle)                                                                                  \
        do {                                                                                                           \
                if (!strstr((text), (needle))) {                                                                       \
                        fprintf(stderr, "%s", (text));                                                                 \
                        fail_msg("Not found in the text above:\n%s", (needle));                                        \
                }                                                                                                      \
        } while (0)

static char *scrape_text(unsigned port, const char *accept) {
        HttpReply r;
        char *body;

        assert_int_equal(http_request(port, "GET", "/metrics", accept, 20000, &r), 0);
        assert_int_equal(r.status, 200);
        body = r.body;
        r.body = NULL;
        http_reply_clear(&r);
        return body;
}

static bool exporter_shows(unsigned port, const char *line);

static bool exporter_sees_rdmad(unsigned port, bool up) {
        return exporter_shows(port, up ? "\nrdmad_up 1\n" : "\nrdmad_up 0\n");
}

/* Socket-activated through systemd-socket-activate, as the .socket unit does. */
static void start_exporter(Fixture *f) {
        char *argv[48], *wrapper = NULL, listen_arg[64], bus_env[600];
        size_t n = 0;

        f->exporter_port = free_tcp_port();
        assert_true(f->exporter_port > 0);
        snprintf(listen_arg, sizeof(listen_arg), "--listen=127.0.0.1:%u", f->exporter_port);
        snprintf(bus_env, sizeof(bus_env), "--setenv=DBUS_SYSTEM_BUS_ADDRESS=%s", f->h->address);
        argv[n++] = "systemd-socket-activate";
        argv[n++] = listen_arg;
        argv[n++] = bus_env;
        argv[n++] = "--setenv=PATH";
        n = add_wrapper(argv, n, &wrapper);
        argv[n++] = getenv("RDMAD_EXPORTER_BINARY");
        argv[n++] = "--log-level=debug";
        argv[n] = NULL;
        assert_non_null(argv[n - 2]);
        f->exporter_pid = harness_spawn(argv);
        free(wrapper);
        assert_true(exporter_sees_rdmad(f->exporter_port, true));
}

static int group_setup(void **state) {
        fx.h = harness_start(HARNESS_FIXTURES("mlx4-vpi", "mlx5-roce-sriov", "hfi1"), daemon_args);
        start_exporter(&fx);
        *state = &fx;
        return 0;
}

static int group_teardown(void **state) {
        int exporter_status, status;

        harness_stop_process(fx.prometheus_pid, 10000);
        harness_stop_process(fx.node_exporter_pid, 10000);
        exporter_status = harness_stop_process(fx.exporter_pid, 30000);
        status = harness_stop(fx.h);
        if (exporter_status != 0) {
                fprintf(stderr, "rdmad-exporter did not exit with 0: wait status 0x%x\n", exporter_status);
                return -1;
        }
        return status == 0 ? 0 : -1;
}

/* node_exporter 1.5.0 on <testbed>/sys: every node_infiniband_* port
 * series has its rdma_* twin with the same labels and the same value. */
static void test_every_node_exporter_port_series_has_its_twin(void **state) {
        Fixture *f = *state;
        char sysfs_arg[512], listen_arg[64];
        unsigned port = free_tcp_port();
        char *argv[] = { "prometheus-node-exporter",
                         sysfs_arg,
                         "--collector.disable-defaults",
                         "--collector.infiniband",
                         "--web.disable-exporter-metrics",
                         listen_arg,
                         NULL };
        Samples node = {}, ours = {};
        char *node_text, *our_text;
        size_t compared = 0, counters = 0;
        char *root = umockdev_testbed_get_root_dir(f->h->testbed);

        snprintf(sysfs_arg, sizeof(sysfs_arg), "--path.sysfs=%s/sys", root);
        g_free(root);
        snprintf(listen_arg, sizeof(listen_arg), "--web.listen-address=127.0.0.1:%u", port);
        f->node_exporter_pid = harness_spawn(argv);

        node_text = scrape_text(port, NULL);
        our_text = scrape_text(f->exporter_port, NULL);
        assert_true(samples_parse(node_text, &node));
        assert_true(samples_parse(our_text, &ours));

        for (size_t i = 0; i < node.n; i++) {
                const Sample *s = &node.items[i], *twin;
                char name[256];

                if (strncmp(s->name, "node_infiniband_", 16) != 0 || strcmp(s->name, "node_infiniband_info") == 0)
                        continue;
                snprintf(name, sizeof(name), "rdma_%s", s->name + 16);
                twin = samples_find(&ours, name, s->labels);
                if (!twin)
                        fail_msg("%s{%s} has no twin %s{%s}", s->name, s->labels, name, s->labels);
                if (twin->value != s->value)
                        fail_msg("%s{%s}: node_exporter %.17g, rdmad-exporter %.17g", s->name, s->labels, s->value,
                                 twin->value);
                compared++;
                if (strstr(s->name, "_total"))
                        counters++;
        }
        /* 5 ports × (state, phys state, rate) + mlx4 port 1 and 2, hfi1 port 1 and the mlx5 PF
         * port with 21 counters each; the VF's port reads "N/A (no PMA)". */
        fprintf(stderr, "compared %zu series (%zu counters) with node_exporter\n", compared, counters);
        assert_int_equal(compared - counters, 5 * 3);
        assert_int_equal(counters, 4 * 21);

        samples_clear(&node);
        samples_clear(&ours);
        free(node_text);
        free(our_text);
        harness_stop_process(f->node_exporter_pid, 10000);
        f->node_exporter_pid = 0;
}

static int run_shell(Fixture *f, const char *command, char **ret_output) {
        int status;

        *ret_output = harness_run_command(f->h, command, &status);
        return status;
}

static void test_promtool_accepts_the_exposition(void **state) {
        Fixture *f = *state;
        char path[256], command[400], *output;
        char *text = scrape_text(f->exporter_port, NULL);
        FILE *file;

        snprintf(path, sizeof(path), "%s/metrics.prom", f->h->tmpdir);
        file = fopen(path, "we");
        assert_non_null(file);
        fputs(text, file);
        fclose(file);
        snprintf(command, sizeof(command), "promtool check metrics < '%s'", path);
        if (run_shell(f, command, &output) != 0)
                fail_msg("promtool check metrics failed:\n%s", output);
        free(output);
        free(text);
}

static void test_http_negotiation_and_errors(void **state) {
        Fixture *f = *state;
        HttpReply r;
        char *type;

        /* What Prometheus 2.42 sends. */
        assert_int_equal(http_request(f->exporter_port, "GET", "/metrics",
                                      "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                                      "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
                                      2000, &r),
                         0);
        assert_int_equal(r.status, 200);
        type = http_reply_header(&r, "Content-Type");
        assert_string_equal(type, "application/openmetrics-text; version=1.0.0; charset=utf-8");
        free(type);
        assert_true(r.body_size > 6);
        assert_string_equal(r.body + r.body_size - 6, "# EOF\n");
        assert_contains(r.body, "# TYPE rdma_port_state_changes counter\n");
        assert_contains(r.body, "# TYPE rdma_device info\n");
        http_reply_clear(&r);

        assert_int_equal(http_request(f->exporter_port, "GET", "/metrics", NULL, 2000, &r), 0);
        type = http_reply_header(&r, "Content-Type");
        assert_string_equal(type, "text/plain; version=0.0.4; charset=utf-8");
        free(type);
        assert_contains(r.body, "rdma_device_info{device=\"mlx5_0\",driver=\"mlx5_core\",transport=\"RoCE\","
                                "node_type=\"CA\",firmware_version=\"14.28.2006\",hca_type=\"MT4119\","
                                "board_id=\"MT_0000000008\",node_guid=\"9803:9b03:00aa:bbc0\","
                                "pci_address=\"0000:5e:00.0\"} 1\n");
        assert_contains(r.body, "rdma_port_info{device=\"mlx4_0\",port=\"2\",transport=\"RoCE\","
                                "link_layer=\"Ethernet\",netdev=\"ens1d1\",link_width=\"4X\","
                                "link_speed=\"QDR\"} 1\n");
        assert_contains(r.body, "rdma_sriov_vfs{device=\"mlx5_0\"} 1\n");
        assert_contains(r.body, "rdma_sriov_total_vfs{device=\"mlx5_0\"} 8\n");
        http_reply_clear(&r);

        assert_int_equal(http_request(f->exporter_port, "HEAD", "/metrics", NULL, 2000, &r), 0);
        assert_int_equal(r.status, 200);
        assert_int_equal(r.body_size, 0);
        http_reply_clear(&r);

        assert_int_equal(http_request(f->exporter_port, "GET", "/", NULL, 2000, &r), 0);
        assert_int_equal(r.status, 200);
        assert_contains(r.body, "<a href=\"/metrics\">");
        http_reply_clear(&r);

        assert_int_equal(http_request(f->exporter_port, "GET", "/metric", NULL, 2000, &r), 0);
        assert_int_equal(r.status, 404);
        http_reply_clear(&r);

        assert_int_equal(http_request(f->exporter_port, "POST", "/metrics", NULL, 2000, &r), 0);
        assert_int_equal(r.status, 405);
        type = http_reply_header(&r, "Allow");
        assert_string_equal(type, "GET, HEAD");
        free(type);
        http_reply_clear(&r);
}

static void test_rdmad_away_is_up_0_and_recovers(void **state) {
        Fixture *f = *state;
        char *text;

        harness_stop_daemon(f->h);
        assert_true(exporter_sees_rdmad(f->exporter_port, false));
        text = scrape_text(f->exporter_port, NULL);
        /* The last known model stays, with its age; counters need rdmad. */
        assert_contains(text, "\nrdmad_up 0\n");
        assert_contains(text, "\nrdmad_last_update_timestamp_seconds ");
        assert_contains(text, "rdma_state_id{device=\"hfi1_0\",port=\"1\"} 4\n");
        assert_null(strstr(text, "rdma_port_data_received_bytes_total{"));
        free(text);

        harness_start_daemon(f->h, daemon_args);
        assert_true(exporter_sees_rdmad(f->exporter_port, true));
        text = scrape_text(f->exporter_port, NULL);
        assert_contains(text, "rdma_state_id{device=\"hfi1_0\",port=\"1\"} 4\n");
        free(text);
}

/* Without systemd: --listen=ADDR:PORT, --bus-timeout against a hung rdmad,
 * SIGTERM → exit 0; a bad address → exit 1. */
static void test_standalone_listen(void **state) {
        Fixture *f = *state;
        char listen_arg[64], *argv[48], *wrapper = NULL, *output, *text;
        unsigned port = free_tcp_port();
        size_t n = 0;
        pid_t pid;
        int status;

        snprintf(listen_arg, sizeof(listen_arg), "--listen=127.0.0.1:%u", port);
        n = add_wrapper(argv, n, &wrapper);
        argv[n++] = getenv("RDMAD_EXPORTER_BINARY");
        argv[n++] = listen_arg;
        argv[n++] = "--bus-timeout=2";
        argv[n] = NULL;
        pid = harness_spawn(argv);
        free(wrapper);
        assert_true(exporter_sees_rdmad(port, true));

        /* rdmad hangs (stopped): the scrape gives up after --bus-timeout, and recovers. */
        harness_pause(f->h);
        text = scrape_text(port, NULL);
        harness_resume(f->h);
        assert_contains(text, "\nrdmad_up 0\n");
        free(text);
        assert_true(exporter_sees_rdmad(port, true));
        assert_int_equal(harness_stop_process(pid, 30000), 0);

        status = run_shell(f, "\"$RDMAD_EXPORTER_BINARY\" --listen=127.0.0.1", &output);
        assert_int_equal(status, 1);
        assert_contains(output, "Invalid listen address '127.0.0.1'");
        free(output);
        status = run_shell(f, "\"$RDMAD_EXPORTER_BINARY\" --bogus", &output);
        assert_int_equal(status, 1);
        free(output);
}

static void test_prometheus_scrapes_counters_and_a_flap(void **state) {
        Fixture *f = *state;
        unsigned port;

        f->prometheus_pid = prometheus_start(f->h->tmpdir, "prometheus",
                                             "  scrape_interval: 1s\n"
                                             "  evaluation_interval: 1s\n",
                                             f->exporter_port, &port);

        assert_true(prometheus_wait_value(port, "up{job=\"rdmad\"}", "1", 30000));
        assert_true(prometheus_wait_value(port, "rdmad_up", "1", 5000));
        /* port_rcv_data counts 4-octet words: 30412345678 × 4. */
        assert_true(prometheus_wait_value(port, "rdma_port_data_received_bytes_total{device=\"mlx4_0\",port=\"1\"}",
                                          "121649382712", 5000));
        assert_true(prometheus_wait_value(port, "rdma_state_id{device=\"mlx4_0\",port=\"1\"}", "4", 5000));
        assert_true(
                prometheus_wait_value(port, "rdma_port_state_changes_total{device=\"mlx4_0\",port=\"1\"}", "0", 5000));

        /* The link goes down (the poll sees it within 100 ms) ... */
        harness_write(f->h, MLX4_PORT1, "state", "1: DOWN\n");
        harness_write(f->h, MLX4_PORT1, "phys_state", "3: Disabled\n");
        assert_true(prometheus_wait_value(port, "rdma_state_id{device=\"mlx4_0\",port=\"1\"}", "1", 15000));
        assert_true(prometheus_wait_value(port, "rdma_physical_state_id{device=\"mlx4_0\",port=\"1\"}", "3", 5000));
        assert_true(
                prometheus_wait_value(port, "rdma_port_state_changes_total{device=\"mlx4_0\",port=\"1\"}", "1", 5000));
        /* ... and up again; the change is in the series and in a rate. */
        harness_write(f->h, MLX4_PORT1, "state", "4: ACTIVE\n");
        harness_write(f->h, MLX4_PORT1, "phys_state", "5: LinkUp\n");
        assert_true(prometheus_wait_value(port, "rdma_state_id{device=\"mlx4_0\",port=\"1\"}", "4", 15000));
        assert_true(
                prometheus_wait_value(port, "rdma_port_state_changes_total{device=\"mlx4_0\",port=\"1\"}", "2", 5000));
        assert_true(prometheus_wait_value(port, "min_over_time(rdma_state_id{device=\"mlx4_0\",port=\"1\"}[1m])", "1",
                                          5000));

        harness_stop_process(f->prometheus_pid, 10000);
        f->prometheus_pid = 0;
}

/* contrib/grafana's dashboard and contrib/prometheus' rules name only
 * metrics this exporter exposes (every name in every expression is in a
 * real scrape of the three fixtures), and a real Prometheus scraping it
 * parses every expression as Grafana sends it (tests/exporter/check-dashboard.py). */
static void test_dashboard_and_rules_use_only_exposed_metrics(void **state) {
        Fixture *f = *state;
        char path[256], command[1600], *output;
        char *text = scrape_text(f->exporter_port, NULL);
        unsigned port;
        FILE *file;
        int status;

        snprintf(path, sizeof(path), "%s/dashboard-scrape.prom", f->h->tmpdir);
        file = fopen(path, "we");
        assert_non_null(file);
        fputs(text, file);
        assert_int_equal(fclose(file), 0);
        free(text);

        f->prometheus_pid = prometheus_start(f->h->tmpdir, "prometheus-dashboard", "  scrape_interval: 1s\n",
                                             f->exporter_port, &port);
        assert_true(prometheus_wait_value(port, "up{job=\"rdmad\"}", "1", 30000));
        snprintf(command, sizeof(command),
                 "/usr/bin/python3 '%s' --metrics '%s' --prometheus http://127.0.0.1:%u '%s' '%s'", CHECK_DASHBOARD,
                 path, port, GRAFANA_DASHBOARD, RULES_FILE);
        status = run_shell(f, command, &output);
        fprintf(stderr, "%s", output);
        if (status != 0)
                fail_msg("the dashboard or the rules name what the exporter does not expose (above)");
        assert_contains(output, "parsed by Prometheus");
        free(output);
        harness_stop_process(f->prometheus_pid, 10000);
        f->prometheus_pid = 0;
}

/* The lines of a scrape that come from the exporter's model (what signals
 * change), without counters (read per scrape, left out when a read is slow)
 * or the exporter's own series (durations, timestamps). */
static char *model_lines(unsigned port) {
        static const char *const model_series[] = {
                "rdma_device_info{",
                "rdma_port_info{",
                "rdma_state_id{",
                "rdma_physical_state_id{",
                "rdma_rate_bytes_per_second{",
                "rdma_port_state_changes_total{",
                "rdma_sriov_",
        };
        char *text = scrape_text(port, NULL), *save = NULL;
        GString *lines = g_string_new(NULL);

        for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
                for (size_t i = 0; i < sizeof(model_series) / sizeof(model_series[0]); i++)
                        if (strncmp(l, model_series[i], strlen(model_series[i])) == 0) {
                                g_string_append_printf(lines, "%s\n", l);
                                break;
                        }
        free(text);
        return g_string_free(lines, FALSE);
}

/* Scrapes until one shows line, 200 times at most; says what it saw last otherwise. */
static bool exporter_shows(unsigned port, const char *line) {
        uint64_t start = now_usec();

        for (int i = 0;; i++) {
                char *text = scrape_text(port, NULL);
                bool found = strstr(text, line) != NULL;

                if (!found && i == 199)
                        fprintf(stderr, "waited %.1f s for a scrape with \"%s\"; last seen:\n%s\n",
                                (now_usec() - start) / 1e6, line, text);
                free(text);
                if (found)
                        return true;
                if (i == 199)
                        return false;
                usleep(50000); /* the polling interval of this bounded wait */
        }
}

/* Another user's InterfacesAdded (a fake device), InterfacesRemoved (a real
 * one), PropertiesChanged (a DOWN port ACTIVE, its state changes) and
 * NameOwnerChanged (rdmad gone, back as the forger), each broadcast and
 * sent to every connection: /metrics stays as it was. */
static void test_forgeries_leave_the_metrics_unchanged(void **state) {
        Fixture *f = *state;
        sd_bus *forger = forger_open(f->h, FORGER_UID);
        char *before, *after, *owner = bus_name_owner(f->h, RDMAD_BUS_NAME);
        const char *self = NULL;

        assert_true(sd_bus_get_unique_name(forger, &self) >= 0);
        before = model_lines(f->exporter_port);
        assert_contains(before, "rdma_state_id{device=\"mlx4_0\",port=\"2\"} 1\n");

        /* First the owner change (a believed one would make it read the
         * real model again), then the rest as from the new "owner". */
        forge_owner_change(forger, RDMAD_BUS_NAME, owner, self);
        /* Routed to the exporter; it says nothing of what it makes of it, and
         * anything rdmad sends as a barrier would change the metrics: a window. */
        harness_bus_barrier(forger);
        harness_observe(f->h, 500, "the exporter to take in the owner change");
        forge_evil_device(forger);
        forge_device_removed(forger, RDMAD_DEVICE_PREFIX "/hfi1_5f0");
        forge_port_active(forger, RDMAD_DEVICE_PREFIX "/mlx4_5f0/port/2");
        harness_bus_barrier(forger);
        harness_observe(f->h, 1000, "the exporter to take in the forgeries");

        after = model_lines(f->exporter_port);
        if (!streq(before, after)) {
                fprintf(stderr, "before:\n%s\nafter:\n%s", before, after);
                fail_msg("the forgeries changed /metrics");
        }
        assert_null(strstr(after, "evil0"));
        assert_true(exporter_sees_rdmad(f->exporter_port, true));

        /* rdmad's own change still goes through, and back. On hfi1_0's port,
         * InfiniBand, which the poll reads every tick: mlx4_0's port 2 is RoCE,
         * and rtnetlink covers it, so a change of its files alone shows only in
         * the poll's slow round (10 s). */
        harness_write(f->h, HFI1_DIR, "ports/1/state", "3: ARMED\n");
        assert_true(exporter_shows(f->exporter_port, "rdma_state_id{device=\"hfi1_0\",port=\"1\"} 3\n"));
        harness_write(f->h, HFI1_DIR, "ports/1/state", "4: ACTIVE\n");
        assert_true(exporter_shows(f->exporter_port, "rdma_state_id{device=\"hfi1_0\",port=\"1\"} 4\n"));

        free(before);
        free(after);
        free(owner);
        sd_bus_flush_close_unref(forger);
}

/* A scrape with the timeout Prometheus announces: the body, and how long it took. */
static char *scrape_with_timeout(unsigned port, const char *seconds, uint64_t *ret_usec) {
        char headers[128];
        uint64_t start = now_usec();
        HttpReply r;
        char *body;

        snprintf(headers, sizeof(headers), "X-Prometheus-Scrape-Timeout-Seconds: %s\r\n", seconds);
        assert_int_equal(http_request_with(port, "GET", "/metrics", headers, 20000, &r), 0);
        *ret_usec = now_usec() - start;
        assert_int_equal(r.status, 200);
        body = TAKE_PTR(r.body);
        http_reply_clear(&r);
        return body;
}

#ifdef HAVE_FAULT_FS
static FaultFs *hung;

/* Every blocked read let go and the mount gone, also after a failure. */
static int hang_teardown(void **state) {
        Fixture *f = *state;

        harness_stop_process(f->prometheus_pid, 10000);
        f->prometheus_pid = 0;
        fault_fs_unmount(hung);
        hung = NULL;
        return 0;
}

/* The health series of hfi1_0 in state (1), the other two 0. */
static void assert_hfi1_health(const char *text, const char *state) {
        static const char *const states[] = { "ok", "errors", "unresponsive" };
        char line[128];

        for (size_t i = 0; i < ELEMENTSOF(states); i++) {
                snprintf(line, sizeof(line), "\nrdma_device_health{device=\"hfi1_0\",state=\"%s\"} %d\n", states[i],
                         streq(states[i], state));
                assert_contains(text, line);
        }
        assert_contains(text, "\nrdma_device_health{device=\"mlx4_0\",state=\"ok\"} 1\n");
}

/* What a scrape must have while hfi1_0 hangs: rdmad answered, the healthy
 * devices' counters, hfi1_0's last known link and none of its counters. */
static void assert_scrape_without_hfi1_counters(const char *text) {
        assert_contains(text, "\nrdmad_up 1\n");
        assert_contains(text, "\nrdma_port_data_received_bytes_total{device=\"mlx4_0\",port=\"1\"} ");
        assert_contains(text, "\nrdma_symbol_error_total{device=\"mlx5_0\",port=\"1\"} ");
        assert_contains(text, "\nrdma_state_id{device=\"hfi1_0\",port=\"1\"} 4\n");
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                size_t name = strcspn(l, "{\n");

                /* A counter is a series named *_total; the state changes are rdmad's own count, not read. */
                if (name > 6 && strncmp(l + name - 6, "_total", 6) == 0 &&
                    strncmp(l + name, "{device=\"hfi1_0\"", 16) == 0 &&
                    strncmp(l, "rdma_port_state_changes_total{", 30) != 0)
                        fail_msg("a counter of the hung device: %.*s", (int) strcspn(l, "\n"), l);
        }
}
#endif

/* Every read of hfi1_0's files hangs (a FUSE file system over its sysfs
 * directory): each scrape still answers within the scrape timeout, with
 * rdma_device_health, the other devices' counters and none of hfi1_0's;
 * a real Prometheus sees every scrape succeed; the release brings it back. */
static void test_scrape_during_a_hung_read(void **state) {
#ifndef HAVE_FAULT_FS
        fprintf(stderr, "Skipping: built without libfuse3 (the FUSE fault file system of test-sick).\n");
        skip();
#else
        Fixture *f = *state;
        char *root, dir[4096], *text;
        unsigned port;
        uint64_t usec;

        if (!fault_fs_available()) {
                fprintf(stderr, "Skipping: a hung read needs FUSE (/dev/fuse, fusermount3).\n");
                skip();
        }
        root = umockdev_testbed_get_root_dir(f->h->testbed);
        snprintf(dir, sizeof(dir), "%s%s", root, HFI1_DIR);
        g_free(root);
        hung = fault_fs_mount(dir);
        assert_non_null(hung);

        text = scrape_text(f->exporter_port, NULL);
        assert_hfi1_health(text, "ok");
        assert_contains(text, "\nrdma_port_data_received_bytes_total{device=\"hfi1_0\",port=\"1\"} ");
        free(text);
        /* 4 s: what the header says is 3.6 s for rdmad (negotiate.c), above its read timeout. */
        f->prometheus_pid = prometheus_start(f->h->tmpdir, "prometheus-hang",
                                             "  scrape_interval: 4s\n"
                                             "  scrape_timeout: 4s\n",
                                             f->exporter_port, &port);
        assert_true(prometheus_wait_value(port, "rdma_device_health{device=\"hfi1_0\",state=\"ok\"}", "1", 30000));

        /* The poll's next read of its port hangs. At once, before rdmad calls it unresponsive:
         * GetAllCounters waits for it at most the read timeout, the scrape is in time. */
        fault_fs_set(hung, "*", FAULT_BLOCK, 0);
        assert_true(fault_fs_wait_blocked(hung, 1, 10000));
        text = scrape_with_timeout(f->exporter_port, "4", &usec);
        fprintf(stderr, "a scrape as hfi1_0 hangs: %.2f s\n", usec / 1e6);
        assert_true(usec < 4000000);
        assert_scrape_without_hfi1_counters(text);
        free(text);

        /* Unresponsive: followed through PropertiesChanged, the scrape in time again. */
        assert_true(
                exporter_shows(f->exporter_port, "\nrdma_device_health{device=\"hfi1_0\",state=\"unresponsive\"} 1\n"));
        text = scrape_with_timeout(f->exporter_port, "4", &usec);
        fprintf(stderr, "a scrape while hfi1_0 is unresponsive: %.2f s\n", usec / 1e6);
        assert_true(usec < 4000000);
        assert_hfi1_health(text, "unresponsive");
        assert_scrape_without_hfi1_counters(text);
        free(text);

        /* Prometheus: the state set, the healthy counters, the sick ones gone, no scrape failed. */
        assert_true(prometheus_wait_value(port, "rdma_device_health{device=\"hfi1_0\",state=\"unresponsive\"}", "1",
                                          20000));
        assert_true(prometheus_wait_value(port, "absent(rdma_port_data_received_bytes_total{device=\"hfi1_0\"})", "1",
                                          20000));
        assert_true(prometheus_wait_value(port, "count(rdma_port_data_received_bytes_total{device=\"mlx4_0\"})", "2",
                                          5000));
        assert_true(prometheus_wait_value(port, "min_over_time(up{job=\"rdmad\"}[30s])", "1", 5000));
        assert_true(prometheus_wait_value(port, "min_over_time(rdmad_up[30s])", "1", 5000));

        /* Released: rdmad reads it again, the exporter follows. */
        fault_fs_release(hung);
        assert_true(exporter_shows(f->exporter_port, "\nrdma_device_health{device=\"hfi1_0\",state=\"ok\"} 1\n"));
        text = scrape_text(f->exporter_port, NULL);
        assert_hfi1_health(text, "ok");
        assert_contains(text, "\nrdma_port_data_received_bytes_total{device=\"hfi1_0\",port=\"1\"} ");
        free(text);
        assert_true(prometheus_wait_value(port, "rdma_device_health{device=\"hfi1_0\",state=\"ok\"}", "1", 20000));
#endif
}

/* One rule for a port's transport (client/inventory.h's port_transport()):
 * the transport label of each port's rdma_port_info is what `rdmactl list`
 * prints for that port, for every port of the fixtures. */
static void test_transport_label_is_what_rdmactl_lists(void **state) {
        Fixture *f = *state;
        char *listed = rdmactl_run_ok(f->h, "list --json"), *scraped = scrape_text(f->exporter_port, NULL),
             *both = NULL, *out;

        assert_true(asprintf(&both, "%s\n#----\n%s", listed, scraped) >= 0);
        out = harness_python_check(
                f->h, both,
                "import json, re, sys\n"
                "listed, scraped = open(sys.argv[1]).read().split(\"\\n#----\\n\")\n"
                "rows = {(r[\"device\"], str(r[\"port\"])): r[\"transport\"] for r in json.loads(listed)}\n"
                "labels = {}\n"
                "for m in re.finditer(r\"^rdma_port_info[{](.*)[}] 1$\", scraped, re.M):\n"
                "    l = dict(re.findall(r\"(\\w+)=\\x22([^\\x22]*)\\x22\", m.group(1)))\n"
                "    labels[(l[\"device\"], l[\"port\"])] = l[\"transport\"]\n"
                "assert rows == labels, (rows, labels)\n"
                "print(len(rows), \" \".join(sorted(set(rows.values()))))\n");
        /* mlx4_0's two ports (a VPI card: InfiniBand and RoCE), mlx5_0's and mlx5_1's, hfi1_0's. */
        assert_string_equal(out, "5 InfiniBand RoCE");
        free(out);
        free(both);
        free(scraped);
        free(listed);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_forgeries_leave_the_metrics_unchanged),
                cmocka_unit_test(test_every_node_exporter_port_series_has_its_twin),
                cmocka_unit_test(test_promtool_accepts_the_exposition),
                cmocka_unit_test(test_http_negotiation_and_errors),
                cmocka_unit_test(test_transport_label_is_what_rdmactl_lists),
                cmocka_unit_test(test_prometheus_scrapes_counters_and_a_flap),
                cmocka_unit_test(test_dashboard_and_rules_use_only_exposed_metrics),
                cmocka_unit_test(test_standalone_listen),
                cmocka_unit_test(test_rdmad_away_is_up_0_and_recovers),
#ifdef HAVE_FAULT_FS
                cmocka_unit_test_teardown(test_scrape_during_a_hung_read, hang_teardown),
#else
                cmocka_unit_test(test_scrape_during_a_hung_read),
#endif
        };
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
