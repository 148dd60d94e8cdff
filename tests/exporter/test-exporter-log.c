/* SPDX-License-Identifier: MIT */
/* rdmad-exporter's log against the real rdmad and bus: the start-up line
 * says where it listens (--listen, and a socket passed by systemd over TCP
 * and AF_UNIX); thousands of bad requests (oversized headers, a too large
 * Content-Length, malformed header lines, an unsupported HTTP version,
 * connections closed in mid-request) are counted by reason in
 * rdmad_exporter_http_errors_total and logged at a bounded rate with the
 * count of what was suppressed, a POST with a body gets its 405, and a
 * scrape is answered as before; a bus it cannot reach is logged once,
 * not at every scrape. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "basic/util.h"
#include "harness.h"
#include "scrape-client.h"

/* What http-server.c allows per reason and interval (HTTP_ERROR_LOG_*). */
#define LOG_BURST         5
#define LOG_INTERVAL_USEC (10 * 1000000ULL)

typedef struct Fixture {
        Harness *h;
        pid_t exporter_pid;
        unsigned port;
        char log[256];
} Fixture;

static Fixture fx;

static char *read_file(const char *path) {
        char *text = NULL;

        if (!g_file_get_contents(path, &text, NULL, NULL))
                return strdup("");
        return text;
}

static size_t count_lines(const char *text, const char *needle) {
        size_t n = 0;

        for (const char *line = text; *line;) {
                const char *end = strchrnul(line, '\n');

                if (!needle || memmem(line, (size_t) (end - line), needle, strlen(needle)))
                        n++;
                line = *end ? end + 1 : end;
        }
        return n;
}

/* The sum of the "suppressed N similar messages (reason; ..." lines of text. */
static uint64_t suppressed_count(const char *text, const char *reason) {
        uint64_t sum = 0;

        for (const char *p = text; (p = strstr(p, "HTTP: suppressed ")); p++) {
                unsigned long long n = 0;
                char r[64] = "";

                if (sscanf(p, "HTTP: suppressed %llu similar messages (%63[a-z_];", &n, r) == 2 && streq(r, reason))
                        sum += n;
        }
        return sum;
}

/* Waits (bounded) until the file at path has a line with needle. */
static bool log_has(const char *path, const char *needle, int timeout_ms) {
        for (int waited = 0; waited <= timeout_ms; waited += 100) {
                _cleanup_free_ char *text = read_file(path);

                if (strstr(text, needle))
                        return true;
                usleep(100000);
        }
        return false;
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

static bool scrape_until(unsigned port, const char *needle, int timeout_ms) {
        for (int waited = 0; waited <= timeout_ms; waited += 100) {
                _cleanup_free_ char *body = scrape(port);

                if (strstr(body, needle))
                        return true;
                usleep(100000);
        }
        return false;
}

/* rdmad_exporter_http_errors_total{reason=...}, -1 when absent. */
static double http_errors(unsigned port, const char *reason) {
        _cleanup_free_ char *body = scrape(port), *labels = NULL;
        Samples samples = {};
        const Sample *s;
        double v;

        assert_true(samples_parse(body, &samples));
        assert_true(asprintf(&labels, "reason=\"%s\"", reason) > 0);
        s = samples_find(&samples, "rdmad_exporter_http_errors_total", labels);
        v = s ? s->value : -1;
        samples_clear(&samples);
        return v;
}

static int connect_port(unsigned port) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                fail_msg("Cannot connect to the exporter on port %u: %m", port);
        return fd;
}

/* Sends request on a new connection and reads until the exporter closes it
 * (10 s at most); the status of the answer, 0 when none came (the exporter
 * may reset a connection whose request it did not read to the end). */
static int bad_request(unsigned port, const char *request, size_t size) {
        int fd = connect_port(port), status = 0;
        char buf[4096];
        size_t got = 0;

        for (size_t sent = 0; sent < size;) {
                ssize_t k = send(fd, request + sent, size - sent, MSG_NOSIGNAL);

                if (k <= 0)
                        break;
                sent += (size_t) k;
        }
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                ssize_t k;

                if (poll(&p, 1, 10000) <= 0)
                        fail_msg("The exporter neither answered nor closed a bad request within 10 s:\n%.200s",
                                 request);
                k = read(fd, buf + got, sizeof(buf) - 1 - got);
                if (k <= 0)
                        break;
                got += (size_t) k;
                if (got == sizeof(buf) - 1)
                        got = 0; /* only the status line matters */
        }
        buf[got] = '\0';
        (void) sscanf(buf, "HTTP/1.%*d %d", &status);
        close(fd);
        return status;
}

/* A request with headers beyond libmicrohttpd's 32 KiB per connection:
 * 1000 lines of 40 bytes. */
static char *oversized_request(size_t *ret_size) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        assert_non_null(f);
        fputs("GET /metrics HTTP/1.1\r\nHost: localhost\r\n", f);
        for (int i = 0; i < 1000; i++)
                fprintf(f, "X-Padding-%04d: %s\r\n", i, "yyyyyyyyyyyyyyyyyyyyyyyyy");
        fputs("\r\n", f);
        assert_int_equal(fclose(f), 0);
        *ret_size = size;
        return text;
}

static int group_setup(void **state) {
        char listen_arg[64];
        char *argv[] = { getenv("RDMAD_EXPORTER_BINARY"), listen_arg, NULL };

        fx.h = harness_start(HARNESS_FIXTURES("mlx4-vpi"), NULL);
        snprintf(fx.log, sizeof(fx.log), "%s/exporter.log", fx.h->tmpdir);
        fx.port = free_tcp_port();
        snprintf(listen_arg, sizeof(listen_arg), "--listen=127.0.0.1:%u", fx.port);
        assert_non_null(argv[0]);
        fx.exporter_pid = harness_spawn_logged(argv, fx.log);
        assert_true(scrape_until(fx.port, "\nrdmad_up 1\n", 20000));
        *state = &fx;
        return 0;
}

static int group_teardown(void **state) {
        int exporter_status = harness_stop_process(fx.exporter_pid, 30000), status = harness_stop(fx.h);

        if (exporter_status != 0) {
                fprintf(stderr, "rdmad-exporter did not exit with 0: wait status 0x%x\n", exporter_status);
                return -1;
        }
        return status == 0 ? 0 : -1;
}

static void test_start_up_line_names_the_listen_address(void **state) {
        Fixture *f = *state;
        char needle[128];

        snprintf(needle, sizeof(needle), "serving /metrics; listening on 127.0.0.1:%u (--listen).", f->port);
        if (!log_has(f->log, needle, 5000)) {
                _cleanup_free_ char *text = read_file(f->log);
                fail_msg("No line with \"%s\" in the exporter's log:\n%s", needle, text);
        }
}

/* Socket-activated through systemd-socket-activate, as the .socket unit does:
 * the start-up line names the inherited socket's address. */
static void socket_activated_names(Fixture *f, const char *listen, const char *expected, unsigned tcp_port,
                                   const char *unix_path) {
        char listen_arg[160], bus_env[600], log[256], needle[256];
        char *argv[] = { "systemd-socket-activate",       listen_arg, bus_env, "--setenv=PATH",
                         getenv("RDMAD_EXPORTER_BINARY"), NULL };
        pid_t pid;
        int status;

        snprintf(listen_arg, sizeof(listen_arg), "--listen=%s", listen);
        snprintf(bus_env, sizeof(bus_env), "--setenv=DBUS_SYSTEM_BUS_ADDRESS=%s", f->h->address);
        snprintf(log, sizeof(log), "%s/activated-%u.log", f->h->tmpdir, tcp_port);
        snprintf(needle, sizeof(needle), "serving /metrics; listening on %s (socket passed by systemd).", expected);
        assert_non_null(argv[4]);
        pid = harness_spawn_logged(argv, log);

        /* systemd-socket-activate starts the program on the first connection. */
        if (tcp_port > 0)
                assert_true(scrape_until(tcp_port, "\nrdmad_up ", 10000));
        else {
                struct sockaddr_un sa = { .sun_family = AF_UNIX };
                int fd = -1;

                snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", unix_path);
                for (int waited = 0; fd < 0 && waited <= 10000; waited += 50) {
                        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                        assert_true(fd >= 0);
                        if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                                close(fd);
                                fd = -1;
                                usleep(50000);
                        }
                }
                if (fd < 0)
                        fail_msg("systemd-socket-activate did not listen on %s within 10 s", unix_path);
                assert_true(write(fd, "GET /metrics HTTP/1.0\r\n\r\n", 25) == 25);
                close(fd);
        }
        if (!log_has(log, needle, 10000)) {
                _cleanup_free_ char *text = read_file(log);
                fail_msg("No line with \"%s\" in the exporter's log:\n%s", needle, text);
        }
        status = harness_stop_process(pid, 30000);
        assert_int_equal(status, 0);
}

static void test_socket_activated_start_up_line_names_the_inherited_socket(void **state) {
        Fixture *f = *state;
        unsigned port = free_tcp_port();
        char listen[200], path[160];

        snprintf(listen, sizeof(listen), "127.0.0.1:%u", port);
        socket_activated_names(f, listen, listen, port, NULL);

        snprintf(path, sizeof(path), "%s/exporter.sock", f->h->tmpdir);
        snprintf(listen, sizeof(listen), "unix:%s", path);
        socket_activated_names(f, path, listen, 0, path);
}

static void test_flood_of_bad_requests_is_counted_and_logged_bounded(void **state) {
        Fixture *f = *state;
        static const char bad_header[] = "GET /metrics HTTP/1.1\r\nHost: localhost\r\nNo colon in this line\r\n\r\n";
        static const char bad_version[] = "GET /metrics HTTP/9.9\r\nHost: localhost\r\n\r\n";
        static const char too_long_body[] = "POST /metrics HTTP/1.1\r\nHost: localhost\r\n"
                                            "Content-Length: 99999999999999999999999\r\n\r\n";
        static const char post_with_body[] = "POST /metrics HTTP/1.1\r\nHost: localhost\r\n"
                                             "Content-Length: 5\r\n\r\nabcde";
        static const char partial[] = "GET /metrics HTTP/1.1\r\nHost: localhost\r\nX-Half: y";
        enum {
                N_OVERSIZED = 2000,
                N_TOO_LONG_BODY = 300,
                N_BAD_HEADER = 500,
                N_BAD_VERSION = 300,
                N_POST = 200,
                N_PARTIAL = 200
        };
        _cleanup_free_ char *oversized = NULL, *before = NULL, *after = NULL, *body = NULL;
        double too_large0, malformed0, closed0, other0;
        size_t oversized_size, offset, lines, logged_too_large, logged_malformed, allowed;
        uint64_t suppressed_too_large, suppressed_malformed, start, elapsed;
        const char *window;

        oversized = oversized_request(&oversized_size);
        assert_true(oversized_size > 40000);
        too_large0 = http_errors(f->port, "request_too_large");
        malformed0 = http_errors(f->port, "malformed_request");
        closed0 = http_errors(f->port, "connection_closed");
        other0 = http_errors(f->port, "other");
        before = read_file(f->log);
        offset = strlen(before);
        start = now_usec();

        for (int i = 0; i < N_OVERSIZED; i++)
                (void) bad_request(f->port, oversized, oversized_size);
        for (int i = 0; i < N_TOO_LONG_BODY; i++)
                assert_int_equal(bad_request(f->port, too_long_body, strlen(too_long_body)), 413);
        for (int i = 0; i < N_BAD_HEADER; i++)
                assert_int_equal(bad_request(f->port, bad_header, strlen(bad_header)), 400);
        for (int i = 0; i < N_BAD_VERSION; i++)
                assert_int_equal(bad_request(f->port, bad_version, strlen(bad_version)), 505);
        /* Not an error of the peer's: answered, nothing logged. */
        for (int i = 0; i < N_POST; i++)
                assert_int_equal(bad_request(f->port, post_with_body, strlen(post_with_body)), 405);
        for (int i = 0; i < N_PARTIAL; i++) {
                int fd = connect_port(f->port);

                assert_int_equal(send(fd, partial, strlen(partial), MSG_NOSIGNAL), (ssize_t) strlen(partial));
                close(fd);
        }

        /* Bounded already while the flood is fresh. */
        after = read_file(f->log);
        assert_true(strlen(after) >= offset);
        lines = count_lines(after + offset, NULL);
        allowed = 3 * (LOG_BURST + 1) * (size_t) ((now_usec() - start) / LOG_INTERVAL_USEC + 1);
        if (lines > allowed)
                fail_msg("%zu log lines for %d bad requests, at most %zu allowed; the first:\n%.3000s", lines,
                         N_OVERSIZED + N_TOO_LONG_BODY + N_BAD_HEADER + N_BAD_VERSION + N_PARTIAL, allowed,
                         after + offset);

        /* Once the interval is over, what was suppressed is reported (the
         * guard's timer flushes it, half a second apart). */
        if (!log_has(f->log, "similar messages (request_too_large;", (int) (LOG_INTERVAL_USEC / 1000) + 5000)) {
                _cleanup_free_ char *text = read_file(f->log);
                fail_msg("No count of suppressed messages in the exporter's log:\n%.20000s", text + offset);
        }
        /* Each bad request made libmicrohttpd log at least once: wait until
         * the lines and the counts account for them all (every interval
         * begun during the flood is over). */
        for (int waited = 0;; waited += 500) {
                free(after);
                after = read_file(f->log);
                assert_true(strlen(after) >= offset);
                window = after + offset;
                logged_too_large = count_lines(window, "(request_too_large)");
                suppressed_too_large = suppressed_count(window, "request_too_large");
                logged_malformed = count_lines(window, "(malformed_request)");
                suppressed_malformed = suppressed_count(window, "malformed_request");
                if (logged_too_large + suppressed_too_large >= N_OVERSIZED + N_TOO_LONG_BODY &&
                    logged_malformed + suppressed_malformed >= N_BAD_HEADER + N_BAD_VERSION)
                        break;
                if (waited > (int) (2 * LOG_INTERVAL_USEC / 1000))
                        fail_msg("After %d s, request_too_large: %zu lines logged and %" PRIu64 " suppressed "
                                 "(expected %d at least), malformed_request: %zu and %" PRIu64 " (%d):\n%.6000s",
                                 waited / 1000, logged_too_large, suppressed_too_large, N_OVERSIZED + N_TOO_LONG_BODY,
                                 logged_malformed, suppressed_malformed, N_BAD_HEADER + N_BAD_VERSION, window);
                usleep(500000);
        }
        elapsed = now_usec() - start;
        lines = count_lines(window, NULL);
        fprintf(stderr, "%d bad requests in %.1f s: %zu log lines; request_too_large: %zu logged, %llu suppressed\n",
                N_OVERSIZED + N_TOO_LONG_BODY + N_BAD_HEADER + N_BAD_VERSION + N_PARTIAL, elapsed / 1e6, lines,
                logged_too_large, (unsigned long long) suppressed_too_large);

        /* Three reasons (too large, malformed, closed), each at most LOG_BURST
         * lines and one count per interval begun in the window. */
        allowed = 3 * (LOG_BURST + 1) * (size_t) (elapsed / LOG_INTERVAL_USEC + 1);
        if (lines > allowed)
                fail_msg("%zu log lines for the flood, at most %zu allowed:\n%.6000s", lines, allowed, window);
        assert_true(logged_too_large >= 1 && logged_too_large <= LOG_BURST * (elapsed / LOG_INTERVAL_USEC + 1));
        assert_true(suppressed_too_large > 0 && suppressed_malformed > 0);
        assert_null(strstr(window, "internal error"));

        /* Counted, each request once (every reason shown, 0 too). The half requests are the exporter's to
         * notice after the test closed them: waited for. */
        assert_true(too_large0 >= 0 && malformed0 >= 0 && closed0 >= 0 && other0 >= 0);
        for (int waited = 0; http_errors(f->port, "connection_closed") < closed0 + N_PARTIAL; waited += 100) {
                if (waited > 10000)
                        fail_msg("connection_closed: %.0f after 10 s, expected %.0f",
                                 http_errors(f->port, "connection_closed"), closed0 + N_PARTIAL);
                usleep(100000);
        }
        assert_int_equal((int) http_errors(f->port, "connection_closed"), (int) closed0 + N_PARTIAL);
        assert_int_equal((int) http_errors(f->port, "request_too_large"),
                         (int) too_large0 + N_OVERSIZED + N_TOO_LONG_BODY);
        assert_int_equal((int) http_errors(f->port, "malformed_request"),
                         (int) malformed0 + N_BAD_HEADER + N_BAD_VERSION);
        assert_int_equal((int) http_errors(f->port, "other"), (int) other0);

        /* A scrape is served as before. */
        body = scrape(f->port);
        assert_non_null(strstr(body, "\nrdmad_up 1\n"));
        assert_non_null(strstr(body, "rdma_port_info{device=\"mlx4_0\",port=\"1\""));
}

/* A bus that is not there is tried again at every scrape: one line for it. */
static void test_unreachable_bus_is_logged_once(void **state) {
        Fixture *f = *state;
        char listen_arg[64], bus_env[300], log[256];
        char *argv[] = { "env", bus_env, getenv("RDMAD_EXPORTER_BINARY"), listen_arg, NULL };
        _cleanup_free_ char *text = NULL;
        unsigned port = free_tcp_port();
        pid_t pid;

        snprintf(listen_arg, sizeof(listen_arg), "--listen=127.0.0.1:%u", port);
        snprintf(bus_env, sizeof(bus_env), "DBUS_SYSTEM_BUS_ADDRESS=unix:path=%s/no-bus-here", f->h->tmpdir);
        snprintf(log, sizeof(log), "%s/no-bus.log", f->h->tmpdir);
        assert_non_null(argv[2]);
        pid = harness_spawn_logged(argv, log);
        for (int i = 0; i < 20; i++) {
                _cleanup_free_ char *body = NULL;

                assert_true(scrape_until(port, "\nrdmad_up 0\n", 10000));
                body = scrape(port);
                assert_non_null(strstr(body, "\nrdmad_up 0\n"));
        }
        assert_int_equal(harness_stop_process(pid, 30000), 0);
        text = read_file(log);
        if (count_lines(text, "Failed to connect to the system bus") != 1)
                fail_msg("Expected one line about the bus in:\n%s", text);
}

/* What the exporter says of its command line, in rdmad's words (both use
 * basic/options.c): getopt's complaint and where the right options are. */
static void test_usage_errors_name_the_help(void **state) {
        static const struct {
                const char *args;
                int status;
                const char *expected;
        } cases[] = {
                { "--version", 0, "rdmad-exporter " RDMAD_VERSION "\n" },
                { "--frobnicate", 1,
                  "rdmad-exporter: unrecognized option '--frobnicate'\nTry 'rdmad-exporter --help'.\n" },
                { "extra", 1, "rdmad-exporter takes no arguments; try 'rdmad-exporter --help'.\n" },
                { "--log-level=chatty", 1, "Invalid log level: chatty\n" },
        };
        Fixture *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char cmd[512];
                _cleanup_free_ char *out = NULL;
                int status;

                snprintf(cmd, sizeof(cmd), "%s %s", getenv("RDMAD_EXPORTER_BINARY"), cases[i].args);
                out = harness_run_command(f->h, cmd, &status);
                assert_non_null(out);
                assert_int_equal(status, cases[i].status);
                if (!strstr(out, cases[i].expected))
                        fail_msg("rdmad-exporter %s: no \"%s\" in:\n%s", cases[i].args, cases[i].expected, out);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_start_up_line_names_the_listen_address),
                cmocka_unit_test(test_socket_activated_start_up_line_names_the_inherited_socket),
                cmocka_unit_test(test_flood_of_bad_requests_is_counted_and_logged_bounded),
                cmocka_unit_test(test_unreachable_bus_is_logged_once),
                cmocka_unit_test(test_usage_errors_name_the_help),
        };

        signal(SIGPIPE, SIG_IGN);
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
