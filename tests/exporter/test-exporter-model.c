/* SPDX-License-Identifier: MIT */
/* rdmad-exporter's model kept by signals and its HTTP under pressure,
 * against the real rdmad and bus: a hot-added device and a flapped port
 * appear without a GetManagedObjects call (dbus-monitor counts the calls
 * rdmad got), a restart of rdmad re-reads the model; a SIGSTOPped rdmad
 * gives rdmad_up 0 within a 3 s scrape timeout, through a real Prometheus
 * whose `up` stays 1; gzip and keep-alive for a client that asks; 64 and
 * 1000 slow-loris connections do not stop a scrape. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "basic/util.h"
#include "harness.h"
#include "prometheus-server.h"
#include "scrape-client.h"

#define MLX4_PORT1 "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0/ports/1"

static const char *const daemon_args[] = { "--poll-interval=100", NULL };

typedef struct Fixture {
        Harness *h;
        pid_t exporter_pid, monitor_pid, prometheus_pid;
        unsigned port;
        char monitor_log[256];
} Fixture;

static Fixture fx;

static void assert_contains(const char *haystack, const char *needle) {
        if (!strstr(haystack, needle))
                fail_msg("expected to find:\n%s\nin:\n%.4000s", needle, haystack);
}

/* One request on fd (kept open); the status, headers and body of the answer. */
typedef struct RawReply {
        int status;
        char headers[4096];
        char *body;
        size_t size;
} RawReply;

static int connect_port(unsigned port) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                close(fd);
                return -errno;
        }
        return fd;
}

static bool read_exact(int fd, char *buf, size_t n, int timeout_ms) {
        for (size_t got = 0; got < n;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                ssize_t k;

                if (poll(&p, 1, timeout_ms) <= 0)
                        return false;
                k = read(fd, buf + got, n - got);
                if (k <= 0)
                        return false;
                got += (size_t) k;
        }
        return true;
}

static bool raw_get(int fd, const char *extra_headers, int timeout_ms, RawReply *ret) {
        char request[1024];
        size_t n = 0;
        const char *cl;

        snprintf(request, sizeof(request), "GET /metrics HTTP/1.1\r\nHost: localhost\r\n%s\r\n", extra_headers);
        if (write(fd, request, strlen(request)) != (ssize_t) strlen(request))
                return false;
        *ret = (RawReply){};
        while (n + 1 < sizeof(ret->headers)) {
                if (!read_exact(fd, ret->headers + n, 1, timeout_ms))
                        return false;
                n++;
                ret->headers[n] = '\0';
                if (n >= 4 && streq(ret->headers + n - 4, "\r\n\r\n"))
                        break;
        }
        if (sscanf(ret->headers, "HTTP/1.1 %d", &ret->status) != 1)
                return false;
        cl = strcasestr(ret->headers, "\r\nContent-Length: ");
        if (!cl)
                return false;
        ret->size = strtoul(cl + 18, NULL, 10);
        ret->body = malloc(ret->size + 1);
        assert_non_null(ret->body);
        if (!read_exact(fd, ret->body, ret->size, timeout_ms))
                return false;
        ret->body[ret->size] = '\0';
        return true;
}

static char *scrape(unsigned port) {
        HttpReply r;
        char *body;

        assert_int_equal(http_request(port, "GET", "/metrics", NULL, 20000, &r), 0);
        assert_int_equal(r.status, 200);
        body = TAKE_PTR(r.body);
        http_reply_clear(&r);
        return body;
}

/* Scrapes until one has needle; says what it saw last when it gives up. */
static bool scrape_until(unsigned port, const char *needle, int timeout_ms) {
        for (int waited = 0;; waited += 100) {
                _cleanup_free_ char *body = scrape(port);

                if (strstr(body, needle))
                        return true;
                if (waited >= timeout_ms) {
                        fprintf(stderr, "waited %.1f s for a scrape with \"%s\"; last seen:\n%.4000s\n", waited / 1e3,
                                needle, body);
                        return false;
                }
                usleep(100000); /* the polling interval of this bounded wait */
        }
}

/* A barrier through dbus-monitor: a GetManagedObjects of the test's own, on
 * a path under /test/, to the bus driver (which refuses it); once the
 * monitor has logged it, it has logged everything routed before it. */
static void send_monitor_barrier(Harness *h, const char *path) {
        (void) sd_bus_call_method(h->bus, "org.freedesktop.DBus", path, "org.freedesktop.DBus.ObjectManager",
                                  "GetManagedObjects", NULL, NULL, "");
}

typedef struct MonitorWant {
        const char *log;
        const char *path;
        bool resend; /* until the monitor is up: each look sends the call again */
} MonitorWant;

static bool monitor_logged(Harness *h, const void *data, FILE *seen) {
        const MonitorWant *w = data;
        _cleanup_free_ char *text = NULL;
        char needle[80];

        if (w->resend)
                send_monitor_barrier(h, w->path);
        if (!g_file_get_contents(w->log, &text, NULL, NULL))
                text = g_strdup("");
        snprintf(needle, sizeof(needle), "path=%s;", w->path);
        fprintf(seen, "%zu bytes in %s", strlen(text), w->log);
        return strstr(text, needle) != NULL;
}

/* GetManagedObjects calls to rdmad so far, as dbus-monitor logged them. */
static unsigned gmo_calls(Fixture *f) {
        _cleanup_free_ char *text = NULL;
        unsigned n = 0;

        static unsigned barriers;
        char path[64];
        MonitorWant w = { f->monitor_log, path, false };

        snprintf(path, sizeof(path), "/test/barrier%u", ++barriers);
        send_monitor_barrier(f->h, path);
        harness_wait_for(f->h, monitor_logged, &w, 0, "dbus-monitor to log the call on %s", path);
        assert_true(g_file_get_contents(f->monitor_log, &text, NULL, NULL));
        /* Not the test's own (path=/test/...; member=GetManagedObjects). */
        for (const char *p = text; (p = strstr(p, "member=GetManagedObjects")); p++) {
                const char *line = p;

                while (line > text && line[-1] != '\n')
                        line--;
                if (!strstr(line, "path=/test/") || strstr(line, "path=/test/") > p)
                        n++;
        }
        return n;
}

static int group_setup(void **state) {
        char listen_arg[64], *monitor_cmd = NULL;
        char *argv[] = { getenv("RDMAD_EXPORTER_BINARY"), listen_arg, "--log-level=debug", NULL };
        struct rlimit rl;

        /* 1000 slow-loris sockets and the rest. */
        assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
        rl.rlim_cur = rl.rlim_max;
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);

        fx.h = harness_start(HARNESS_FIXTURES("mlx4-vpi", "hfi1"), daemon_args);
        snprintf(fx.monitor_log, sizeof(fx.monitor_log), "%s/gmo-monitor.log", fx.h->tmpdir);
        assert_true(asprintf(&monitor_cmd,
                             "exec dbus-monitor --address '%s' \"type='method_call',member='GetManagedObjects'\" "
                             ">'%s' 2>&1",
                             fx.h->address, fx.monitor_log) > 0);
        fx.monitor_pid = harness_spawn((char *[]){ "sh", "-c", monitor_cmd, NULL });
        free(monitor_cmd);
        /* Up once it logs a call of the test's own. */
        harness_wait_for(fx.h, monitor_logged, &(MonitorWant){ fx.monitor_log, "/test/ready", true }, 0,
                         "dbus-monitor to log a call on /test/ready");

        fx.port = free_tcp_port();
        snprintf(listen_arg, sizeof(listen_arg), "--web.listen-address=127.0.0.1:%u", fx.port);
        assert_non_null(argv[0]);
        fx.exporter_pid = harness_spawn(argv);
        assert_true(scrape_until(fx.port, "\nrdmad_up 1\n", 20000));
        *state = &fx;
        return 0;
}

static int group_teardown(void **state) {
        int exporter_status, status;

        harness_stop_process(fx.prometheus_pid, 10000);
        harness_stop_process(fx.monitor_pid, 5000);
        exporter_status = harness_stop_process(fx.exporter_pid, 30000);
        status = harness_stop(fx.h);
        if (exporter_status != 0) {
                fprintf(stderr, "rdmad-exporter did not exit with 0: wait status 0x%x\n", exporter_status);
                return -1;
        }
        return status == 0 ? 0 : -1;
}

static void test_hot_add_and_flap_without_get_managed_objects(void **state) {
        Fixture *f = *state;
        unsigned before = gmo_calls(f);
        char *text;

        assert_true(before >= 1); /* the exporter's first read */
        harness_add_device(f->h, "P: /devices/virtual/infiniband/hotadd0\nE: SUBSYSTEM=infiniband\nE: NAME=hotadd0\n"
                                 "A: node_type=1: CA\\n\nA: ports/1/state=4: ACTIVE\\n\n"
                                 "A: ports/1/phys_state=5: LinkUp\\n\nA: ports/1/link_layer=InfiniBand\\n\n");
        assert_true(scrape_until(f->port, "rdma_state_id{device=\"hotadd0\",port=\"1\"} 4\n", 10000));

        harness_write(f->h, MLX4_PORT1, "state", "1: DOWN\n");
        harness_write(f->h, MLX4_PORT1, "phys_state", "3: Disabled\n");
        assert_true(scrape_until(f->port, "rdma_state_id{device=\"mlx4_0\",port=\"1\"} 1\n", 10000));
        harness_write(f->h, MLX4_PORT1, "state", "4: ACTIVE\n");
        harness_write(f->h, MLX4_PORT1, "phys_state", "5: LinkUp\n");
        assert_true(scrape_until(f->port, "rdma_port_state_changes_total{device=\"mlx4_0\",port=\"1\"} 2\n", 10000));
        text = scrape(f->port);
        assert_contains(text, "rdma_state_id{device=\"mlx4_0\",port=\"1\"} 4\n");
        free(text);

        /* Dozens of scrapes, and not one more GetManagedObjects. */
        assert_int_equal(gmo_calls(f), before);
}

static void test_restart_rereads_the_model(void **state) {
        Fixture *f = *state;
        unsigned before = gmo_calls(f);
        char *text;

        harness_stop_daemon(f->h);
        assert_true(scrape_until(f->port, "\nrdmad_up 0\n", 10000));
        text = scrape(f->port);
        /* The last known model stays, with its age; no counters. */
        assert_contains(text, "rdma_port_info{device=\"hfi1_0\",port=\"1\"");
        assert_contains(text, "\nrdmad_last_update_timestamp_seconds ");
        assert_null(strstr(text, "rdma_port_data_received_bytes_total{"));
        assert_contains(text, "\nrdmad_exporter_scrape_errors_total ");
        free(text);

        harness_start_daemon(f->h, daemon_args);
        assert_true(scrape_until(f->port, "\nrdmad_up 1\n", 20000));
        assert_true(scrape_until(f->port, "rdma_port_data_received_bytes_total{device=\"mlx4_0\",port=\"1\"}", 5000));
        assert_int_equal(gmo_calls(f), before + 1);
}

static void test_gzip_and_keep_alive_when_asked(void **state) {
        Fixture *f = *state;
        int fd = connect_port(f->port);
        RawReply r;
        char *plain;
        uLongf plain_size = 16 * 1024 * 1024;

        assert_true(fd >= 0);
        assert_true(raw_get(fd, "Accept-Encoding: gzip\r\n", 10000, &r));
        assert_int_equal(r.status, 200);
        assert_non_null(strcasestr(r.headers, "\r\nContent-Encoding: gzip\r\n"));
        assert_null(strcasestr(r.headers, "Connection: close"));
        plain = malloc(plain_size);
        assert_non_null(plain);
        {
                z_stream z = { .next_in = (Bytef *) r.body,
                               .avail_in = (uInt) r.size,
                               .next_out = (Bytef *) plain,
                               .avail_out = (uInt) plain_size - 1 };

                assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
                assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
                plain[z.total_out] = '\0';
                inflateEnd(&z);
        }
        assert_contains(plain, "\nrdmad_up 1\n");
        assert_contains(plain, "rdmad_exporter_build_info{version=\"");
        free(plain);
        free(r.body);

        /* The same connection again, without gzip. */
        assert_true(raw_get(fd, "", 10000, &r));
        assert_int_equal(r.status, 200);
        assert_null(strcasestr(r.headers, "Content-Encoding"));
        assert_contains(r.body, "\nrdmad_up 1\n");
        free(r.body);
        close(fd);
}

/* n connections that send a byte of a request now and then, never a whole one. */
static void slow_loris(Fixture *f, size_t n) {
        int *fds = calloc(n, sizeof(int));
        size_t opened = 0, closed = 0;

        assert_non_null(fds);
        for (size_t i = 0; i < n; i++) {
                fds[i] = connect_port(f->port);
                if (fds[i] >= 0) {
                        opened++;
                        (void) send(fds[i], "G", 1, MSG_NOSIGNAL);
                }
        }
        assert_true(opened > 0);
        /* Scrapes while they trickle. */
        for (int round = 0; round < 4; round++) {
                int fd = connect_port(f->port);
                RawReply r;

                for (size_t i = 0; i < n; i++)
                        if (fds[i] >= 0)
                                (void) send(fds[i], "E", 1, MSG_NOSIGNAL);
                assert_true(fd >= 0);
                if (!raw_get(fd, "", 10000, &r))
                        fail_msg("no answer to a scrape with %zu slow connections open (round %d)", n, round);
                assert_int_equal(r.status, 200);
                assert_contains(r.body, "\nrdmad_up 1\n");
                free(r.body);
                close(fd);
                usleep(1500000); /* not a wait: the trickle goes on across the rounds */
        }
        /* After the request timeout, no slow connection is left open. */
        for (size_t i = 0; i < n; i++) {
                char c;

                if (fds[i] < 0)
                        continue;
                if (!read_exact(fds[i], &c, 1, 100))
                        closed++;
                close(fds[i]);
        }
        assert_int_equal(closed, opened);
        free(fds);
}

static void test_64_slow_loris_connections(void **state) {
        slow_loris(*state, 64);
}

static void test_1000_slow_loris_connections(void **state) {
        slow_loris(*state, 1000);
}

static void test_hung_rdmad_within_a_3s_scrape_timeout(void **state) {
        Fixture *f = *state;
        unsigned port;
        int fd;
        RawReply r;
        uint64_t start;

        f->prometheus_pid = prometheus_start(f->h->tmpdir, "prometheus-stop",
                                             "  scrape_interval: 4s\n"
                                             "  scrape_timeout: 3s\n",
                                             f->port, &port);
        assert_true(prometheus_wait_value(port, "rdmad_up", "1", 30000));

        harness_pause(f->h); /* SIGSTOP */
        /* Directly, with the header Prometheus sends: complete, and in time (the bound the issue asks for). */
        fd = connect_port(f->port);
        start = now_usec();
        assert_true(raw_get(fd, "X-Prometheus-Scrape-Timeout-Seconds: 3\r\n", 10000, &r));
        assert_true(now_usec() - start < 3000000);
        assert_contains(r.body, "\nrdmad_up 0\n");
        assert_contains(r.body, "rdma_port_info{device=\"mlx4_0\",port=\"1\"");
        free(r.body);
        close(fd);
        /* Prometheus: the scrape succeeds (up 1) and says rdmad_up 0. */
        assert_true(prometheus_wait_value(port, "rdmad_up", "0", 20000));
        assert_true(prometheus_wait_value(port, "min_over_time(up{job=\"rdmad\"}[20s])", "1", 5000));

        harness_resume(f->h); /* SIGCONT */
        assert_true(prometheus_wait_value(port, "rdmad_up", "1", 20000));
        harness_stop_process(f->prometheus_pid, 10000);
        f->prometheus_pid = 0;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_hot_add_and_flap_without_get_managed_objects),
                cmocka_unit_test(test_gzip_and_keep_alive_when_asked),
                cmocka_unit_test(test_64_slow_loris_connections),
                cmocka_unit_test(test_1000_slow_loris_connections),
                cmocka_unit_test(test_hung_rdmad_within_a_3s_scrape_timeout),
                cmocka_unit_test(test_restart_rereads_the_model),
        };
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
