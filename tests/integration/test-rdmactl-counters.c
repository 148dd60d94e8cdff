/* SPDX-License-Identifier: MIT */
/* rdmactl counters and the error lines of rdmactl status against the real
 * rdmad on the fixtures' counters (tests/data/README.md): the values equal
 * the files (data ×4), the summary and --all as golden text, the JSON, the
 * highlighting of non-zero errors, and --watch's rates from two samples
 * between which the test changes counter files. Set
 * RDMACTL_UPDATE_GOLDEN=1 to rewrite the golden files. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "rdmactl-run.h"

#define MLX4_SYS "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0"

static int host_setup(void **state) {
        *state = harness_start(HARNESS_FIXTURES("mlx4-vpi", "mlx5-roce-sriov", "hfi1", "rxe", "siw"), NULL);
        return 0;
}

static void assert_contains(const char *haystack, const char *needle) {
        if (!strstr(haystack, needle))
                fail_msg("expected to find:\n%s\nin:\n%s", needle, haystack);
}

static void test_summary_values_are_the_files(void **state) {
        Harness *h = *state;
        char *out;

        out = rdmactl_run_ok(h, "counters mlx4_0/1");
        /* port_rcv_data 30412345678 words, port_xmit_data 28756122004. */
        assert_contains(out, "● mlx4_0/1 (ib0)\n");
        assert_contains(out, "      Data received: 113.3 GiB (121649382712 bytes)\n");
        assert_contains(out, "   Data transmitted: 107.1 GiB (115024488016 bytes)\n");
        assert_contains(out, "   Packets received: 215487963\n");
        assert_contains(out, "Packets transmitted: 198754321\n");
        assert_contains(out, "        Link downed: 1\n");
        assert_contains(out, "     Receive errors: 3\n");
        assert_contains(out, "  Transmit discards: 17\n");
        assert_contains(out, "      Symbol errors: 0\n");
        /* Not in the summary. */
        assert_null(strstr(out, "multicast"));
        rdmactl_assert_golden(out, "counters-mlx4_0-port1.txt");
        free(out);

        /* RoCE: the hw_counters operators look at, CNP and ECN included. */
        out = rdmactl_run_ok(h, "counters ens1f0np0");
        assert_contains(out, "● mlx5_0/1 (ens1f0np0)\n");
        assert_contains(out, "      out_of_buffer: 1903\n");
        assert_contains(out, "    out_of_sequence: 41\n");
        assert_contains(out, "     packet_seq_err: 7\n");
        assert_contains(out, "  rnr_nak_retry_err: 2\n");
        assert_contains(out, "local_ack_timeout_err: 3\n");
        assert_contains(out, "np_ecn_marked_roce_packets: 6044\n");
        assert_contains(out, "np_cnp_sent: 5821\n");
        assert_contains(out, "rp_cnp_handled: 5577\n");
        assert_null(strstr(out, "rx_write_requests"));
        free(out);

        /* A port whose driver publishes no counters (siw): said, not an empty block; nothing in JSON. */
        out = rdmactl_run_ok(h, "counters siw0");
        assert_string_equal(out, "● siw0/1 (dummy-siw0)\n"
                                 "           Counters: none (the driver publishes no counters for it)\n");
        free(out);
        out = rdmactl_run_ok(h, "counters -j siw0");
        assert_string_equal(out, "[{\"device\":\"siw0\",\"port\":1,\"netdev\":\"dummy-siw0\",\"counters\":{}}]\n");
        free(out);

        /* Every port of the host, in one call. */
        out = rdmactl_run_ok(h, "counters");
        rdmactl_assert_golden(out, "counters.txt");
        free(out);
}

static void test_all_shows_every_counter(void **state) {
        Harness *h = *state;
        char *out;

        out = rdmactl_run_ok(h, "counters mlx5_0 --all");
        assert_contains(out, "rx_write_requests: 4410032\n");
        assert_contains(out, "duplicate_request: 12\n");
        assert_contains(out, "multicast_rcv_packets: 5120\n");
        assert_contains(out, "port_rcv_data: 6.0 GiB (6491644192 bytes)\n");
        assert_null(strstr(out, "lifespan")); /* a setting, not a counter */
        rdmactl_assert_golden(out, "counters-mlx5_0-all.txt");
        free(out);

        /* hfi1's device-wide hw_counters under their own heading. */
        out = rdmactl_run_ok(h, "counters hfi1_0 --all");
        assert_contains(out, "● hfi1_0 (device-wide)\n");
        assert_contains(out, "RcvOverflow: 14\n");
        free(out);
}

static void test_json_has_the_values(void **state) {
        Harness *h = *state;
        char *out, *check;

        out = rdmactl_run_ok(h, "counters mlx4_0 1 --json=pretty");
        rdmactl_assert_golden(out, "counters-mlx4_0-json-pretty.txt");
        check = harness_python_check(h, out,
                                     "import json,sys; d=json.load(open(sys.argv[1])); p=d[0]; c=p[\"counters\"]; "
                                     "print(len(d), p[\"device\"], p[\"port\"], p[\"netdev\"], c[\"port_rcv_data\"], "
                                     "c[\"port_xmit_data\"], c[\"link_downed\"], c[\"port_xmit_discards\"], "
                                     "\"rates\" in p)");
        assert_string_equal(check, "1 mlx4_0 1 ib0 121649382712 115024488016 1 17 False");
        free(check);
        free(out);

        out = rdmactl_run_ok(h, "counters mlx4_0/2 --all --json");
        check = harness_python_check(
                h, out,
                "import json,sys; d=json.load(open(sys.argv[1])); "
                "print(len(d), d[0][\"port\"], len(d[0][\"counters\"]), sum(d[0][\"counters\"].values()))");
        assert_string_equal(check, "1 2 21 0");
        free(check);
        free(out);
}

static void test_non_zero_errors_are_highlighted(void **state) {
        Harness *h = *state;
        char *command = NULL, *out;
        int status;

        assert_true(asprintf(&command,
                             "script -qec \"env LC_ALL=C.UTF-8 TERM=xterm %s counters mlx4_0/1\" /dev/null </dev/null",
                             rdmactl_binary()) > 0);
        out = harness_run_command(h, command, &status);
        free(command);
        assert_int_equal(status, 0);
        assert_contains(out, "Link downed: \x1b[0;31m1\x1b[0m");
        assert_contains(out, "Symbol errors: 0\r\n"); /* zero: plain */
        assert_contains(out, "\x1b[0;31m●\x1b[0m mlx4_0/1");
        free(out);
}

static void test_status_lists_non_zero_errors(void **state) {
        Harness *h = *state;
        char *out, *check;

        out = rdmactl_run_ok(h, "status mlx4_0");
        assert_contains(out, "                     errors: link_downed 1, port_rcv_errors 3, port_xmit_discards 17\n");
        free(out);
        out = rdmactl_run_ok(h, "status mlx4_0/2"); /* all zero: no line */
        assert_null(strstr(out, "errors:"));
        free(out);
        out = rdmactl_run_ok(h, "status mlx5_0 --json");
        check = harness_python_check(h, out,
                                     "import json,sys; e=json.load(open(sys.argv[1]))[0][\"ports\"][0][\"errors\"]; "
                                     "print(\" \".join(\"%s=%d\" % kv for kv in sorted(e.items())))");
        assert_string_equal(check, "local_ack_timeout_err=3 out_of_buffer=1903 out_of_sequence=41 packet_seq_err=7 "
                                   "rnr_nak_retry_err=2");
        free(check);
        free(out);
}

/* rdmactl ARGS with its stdout on a pipe, for as long as the test reads it. */
typedef struct Watcher {
        pid_t pid;
        FILE *out;
} Watcher;

static Watcher watch_start(const char *args) {
        int fds[2];
        Watcher w;

        assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
        w.pid = rdmactl_spawn(args, fds[1], STDERR_FILENO);
        close(fds[1]);
        w.out = fdopen(fds[0], "r");
        assert_non_null(w.out);
        return w;
}

static char *watch_line(Watcher *w) {
        char *line = NULL;
        size_t size = 0;

        if (getline(&line, &size, w->out) < 0)
                fail_msg("rdmactl --watch ended early");
        return line;
}

static void watch_stop(Watcher *w) {
        int status;

        kill(w->pid, SIGTERM);
        assert_int_equal(waitpid(w->pid, &status, 0), w->pid);
        fclose(w->out);
}

static void test_watch_rates_from_two_samples(void **state) {
        Harness *h = *state;
        Watcher w = watch_start("counters mlx4_0/1 --watch=500ms --json");
        char *first, *second, *both = NULL, *check;

        first = watch_line(&w);
        /* +1000 packets, +250 words (1000 octets), +2 receive errors. */
        harness_write(h, MLX4_SYS, "ports/1/counters/port_rcv_packets", "215488963\n");
        harness_write(h, MLX4_SYS, "ports/1/counters/port_rcv_data", "30412345928\n");
        harness_write(h, MLX4_SYS, "ports/1/counters/port_rcv_errors", "5\n");
        second = watch_line(&w);
        watch_stop(&w);

        assert_true(asprintf(&both, "[%s,%s]", first, second) > 0);
        check = harness_python_check(
                h, both,
                "import json,sys; a,b=json.load(open(sys.argv[1])); a=a[0]; b=b[0]; "
                "u=b[\"interval_usec\"]; d=b[\"deltas\"]; r=b[\"rates\"]; "
                "ok=all(r[k]==int(d[k]*1000000/u) for k in d); "
                "print(\"rates\" in a, d[\"port_rcv_packets\"], d[\"port_rcv_data\"], "
                "d[\"port_rcv_errors\"], d[\"port_xmit_packets\"], b[\"counters\"][\"port_rcv_errors\"], "
                "ok, u >= 400000)");
        assert_string_equal(check, "False 1000 1000 2 0 5 True True");
        free(check);
        free(both);
        free(first);
        free(second);

        /* Not a terminal: a line per interval, the totals first. */
        harness_write(h, MLX4_SYS, "ports/1/counters/port_rcv_errors", "3\n");
        w = watch_start("counters mlx4_0/1 --watch=200ms");
        first = watch_line(&w);
        second = watch_line(&w);
        watch_stop(&w);
        assert_contains(first, " mlx4_0/1 ib0 total rx 113.3 GiB tx 107.1 GiB packets 414243284 errors 21\n");
        /* Nothing moved: every rate is zero. */
        assert_contains(second, " mlx4_0/1 ib0 rx 0 B/s tx 0 B/s packets 0/s errors 0/s\n");
        free(first);
        free(second);
}

static void test_usage_errors(void **state) {
        Harness *h = *state;
        char *out;
        int status;

        out = rdmactl_run(h, &status, "list --all");
        assert_int_equal(status, 2);
        assert_contains(out, "rdmactl: --all is for 'counters' only.\n");
        free(out);
        out = rdmactl_run(h, &status, "status --watch");
        assert_int_equal(status, 2);
        assert_contains(out, "rdmactl: --watch is for 'counters' only.\n");
        free(out);
        out = rdmactl_run(h, &status, "counters --watch=10ms");
        assert_int_equal(status, 2);
        free(out);
        out = rdmactl_run(h, &status, "counters no_such_dev");
        assert_int_equal(status, 4);
        free(out);
        out = rdmactl_run(h, &status, "help");
        assert_contains(out, "counters [NAME...]");
        free(out);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_summary_values_are_the_files, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_all_shows_every_counter, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_json_has_the_values, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_non_zero_errors_are_highlighted, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_status_lists_non_zero_errors, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_watch_rates_from_two_samples, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_usage_errors, host_setup, harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
