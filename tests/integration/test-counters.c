/* SPDX-License-Identifier: MIT */
/* Port.GetCounters, Device.GetCounters, Manager.GetAllCounters and
 * Port.StateChanges against the real rdmad on the fixtures' counters
 * (tests/data/README.md, "Counters"). The fault injector makes one counter
 * file unreadable (EACCES, which root could otherwise read) and, where a
 * read must be slow, delays every open in a counters/ directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#define ALL_FIXTURES HARNESS_FIXTURES("mlx4-vpi", "mlx5-roce-sriov", "hfi1", "rxe", "siw", "broken")

#define MLX4_0   "/org/rdmad1/device/mlx4_5f0"
#define MLX5_0   "/org/rdmad1/device/mlx5_5f0"
#define MLX5_1   "/org/rdmad1/device/mlx5_5f1"
#define HFI1_0   "/org/rdmad1/device/hfi1_5f0"
#define RXE0     "/org/rdmad1/device/rxe0"
#define SIW0     "/org/rdmad1/device/siw0"
#define IB_DEV_1 "/org/rdmad1/device/ib_2ddev_2e1"
#define BROKEN_0 "/org/rdmad1/device/broken_5f0"

#define MLX4_SYS "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0"
#define MLX5_SYS "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/infiniband/mlx5_0"
#define HFI1_SYS "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"

/* Unreadable for the daemon (the fault injector's EACCES); its text is "3\n". */
#define UNREADABLE "mlx4_0/ports/1/counters/port_rcv_errors"

static const char *const fast_poll[] = { "--poll-interval=50", NULL };
static const char *const debug_log[] = { "--log-level=debug", NULL };

/* Expected values, computed from the fixtures by hand: data counters ×4,
 * lifespan, "N/A (no PMA)" and non-numbers left out, trailing blanks trimmed. */
#define EXPECT_MLX4_0_1                                                                                                \
        "{\"VL15_dropped\": 0, \"excessive_buffer_overrun_errors\": 0, \"link_downed\": 1, "                           \
        "\"link_error_recovery\": 0, \"local_link_integrity_errors\": 0, \"multicast_rcv_packets\": 123456, "          \
        "\"multicast_xmit_packets\": 2048, \"port_rcv_constraint_errors\": 0, "                                        \
        "\"port_rcv_data\": 121649382712, \"port_rcv_packets\": 215487963, "                                           \
        "\"port_rcv_remote_physical_errors\": 0, \"port_rcv_switch_relay_errors\": 0, "                                \
        "\"port_xmit_constraint_errors\": 0, \"port_xmit_data\": 115024488016, \"port_xmit_discards\": 17, "           \
        "\"port_xmit_packets\": 198754321, \"port_xmit_wait\": 4711, \"symbol_error\": 0, "                            \
        "\"unicast_rcv_packets\": 215364507, \"unicast_xmit_packets\": 198752273}"

#define EXPECT_MLX4_0_2                                                                                                \
        "{\"VL15_dropped\": 0, \"excessive_buffer_overrun_errors\": 0, \"link_downed\": 0, "                           \
        "\"link_error_recovery\": 0, \"local_link_integrity_errors\": 0, \"multicast_rcv_packets\": 0, "               \
        "\"multicast_xmit_packets\": 0, \"port_rcv_constraint_errors\": 0, \"port_rcv_data\": 0, "                     \
        "\"port_rcv_errors\": 0, \"port_rcv_packets\": 0, \"port_rcv_remote_physical_errors\": 0, "                    \
        "\"port_rcv_switch_relay_errors\": 0, \"port_xmit_constraint_errors\": 0, \"port_xmit_data\": 0, "             \
        "\"port_xmit_discards\": 0, \"port_xmit_packets\": 0, \"port_xmit_wait\": 0, \"symbol_error\": 0, "            \
        "\"unicast_rcv_packets\": 0, \"unicast_xmit_packets\": 0}"

#define EXPECT_MLX5_0_1                                                                                                \
        "{\"VL15_dropped\": 0, \"duplicate_request\": 12, \"excessive_buffer_overrun_errors\": 0, "                    \
        "\"implied_nak_seq_err\": 0, \"link_downed\": 0, \"link_error_recovery\": 0, "                                 \
        "\"local_ack_timeout_err\": 3, \"local_link_integrity_errors\": 0, \"multicast_rcv_packets\": 5120, "          \
        "\"multicast_xmit_packets\": 4096, \"np_cnp_sent\": 5821, \"np_ecn_marked_roce_packets\": 6044, "              \
        "\"out_of_buffer\": 1903, \"out_of_sequence\": 41, \"packet_seq_err\": 7, "                                    \
        "\"port_rcv_constraint_errors\": 0, \"port_rcv_data\": 6491644192, \"port_rcv_errors\": 0, "                   \
        "\"port_rcv_packets\": 98124551, \"port_rcv_remote_physical_errors\": 0, "                                     \
        "\"port_rcv_switch_relay_errors\": 0, \"port_xmit_constraint_errors\": 0, "                                    \
        "\"port_xmit_data\": 5679481224, \"port_xmit_discards\": 0, \"port_xmit_packets\": 87611240, "                 \
        "\"port_xmit_wait\": 0, \"req_cqe_error\": 0, \"req_cqe_flush_error\": 0, "                                    \
        "\"req_remote_access_errors\": 0, \"req_remote_invalid_request\": 0, \"resp_cqe_error\": 0, "                  \
        "\"resp_cqe_flush_error\": 0, \"resp_local_length_error\": 0, \"resp_remote_access_errors\": 0, "              \
        "\"rnr_nak_retry_err\": 2, \"roce_adp_retrans\": 0, \"roce_adp_retrans_to\": 0, "                              \
        "\"roce_slow_restart\": 0, \"roce_slow_restart_cnps\": 0, \"roce_slow_restart_trans\": 0, "                    \
        "\"rp_cnp_handled\": 5577, \"rp_cnp_ignored\": 0, \"rx_atomic_requests\": 0, "                                 \
        "\"rx_icrc_encapsulated\": 0, \"rx_read_requests\": 880211, \"rx_write_requests\": 4410032, "                  \
        "\"symbol_error\": 0, \"unicast_rcv_packets\": 98119431, \"unicast_xmit_packets\": 87607144}"

#define EXPECT_MLX5_1_1                                                                                                \
        "{\"local_ack_timeout_err\": 0, \"out_of_buffer\": 0, \"out_of_sequence\": 0, "                                \
        "\"rx_read_requests\": 512, \"rx_write_requests\": 1024}"

#define EXPECT_HFI1_0_0                                                                                                \
        "{\"DcRecvErr\": 0, \"Intr\": 8212445, \"RcvOverflow\": 14, \"RxEBPCnt\": 0, \"RxICrcErr\": 0, "               \
        "\"RxMaxMinLenErr\": 0}"

#define EXPECT_HFI1_0_1                                                                                                \
        "{\"VL15_dropped\": 0, \"excessive_buffer_overrun_errors\": 0, \"link_downed\": 2, "                           \
        "\"link_error_recovery\": 1, \"local_link_integrity_errors\": 0, \"multicast_rcv_packets\": 0, "               \
        "\"multicast_xmit_packets\": 0, \"port_rcv_constraint_errors\": 0, \"port_rcv_data\": 395061728436, "          \
        "\"port_rcv_errors\": 0, \"port_rcv_packets\": 512345678, \"port_rcv_remote_physical_errors\": 0, "            \
        "\"port_rcv_switch_relay_errors\": 0, \"port_xmit_constraint_errors\": 0, "                                    \
        "\"port_xmit_data\": 350617284392, \"port_xmit_discards\": 4, \"port_xmit_packets\": 498765432, "              \
        "\"port_xmit_wait\": 33, \"symbol_error\": 0, \"unicast_rcv_packets\": 512345678, "                            \
        "\"unicast_xmit_packets\": 498765432}"

#define EXPECT_RXE0_1                                                                                                  \
        "{\"ack_deferred\": 0, \"completer_retry_err\": 0, \"duplicate_request\": 0, \"link_downed\": 0, "             \
        "\"out_of_seq_request\": 0, \"rcvd_pkts\": 75210, \"rcvd_rnr_err\": 0, \"rcvd_seq_err\": 0, "                  \
        "\"rdma_recvs\": 37588, \"rdma_sends\": 37601, \"retry_exceeded_err\": 0, "                                    \
        "\"retry_rnr_exceeded_err\": 0, \"send_err\": 0, \"send_rnr_err\": 0, \"sent_pkts\": 75231}"

#define EXPECT_IB_DEV_1_1                                                                                              \
        "{\"VL15_dropped\": 0, \"excessive_buffer_overrun_errors\": 0, \"link_downed\": 0, "                           \
        "\"link_error_recovery\": 0, \"local_link_integrity_errors\": 0, "                                             \
        "\"port_multicast_rcv_packets\": 1200, \"port_multicast_xmit_packets\": 300, "                                 \
        "\"port_rcv_constraint_errors\": 0, \"port_rcv_data\": 17179869180, "                                          \
        "\"port_rcv_data_64\": 68719476736, \"port_rcv_errors\": 0, \"port_rcv_packets\": 4294967295, "                \
        "\"port_rcv_packets_64\": 8589934592, \"port_rcv_remote_physical_errors\": 0, "                                \
        "\"port_rcv_switch_relay_errors\": 0, \"port_unicast_rcv_packets\": 8589933392, "                              \
        "\"port_unicast_xmit_packets\": 6442450644, \"port_xmit_constraint_errors\": 0, "                              \
        "\"port_xmit_data\": 17179869180, \"port_xmit_data_64\": 51539607552, \"port_xmit_discards\": 0, "             \
        "\"port_xmit_packets\": 4294967295, \"port_xmit_packets_64\": 6442450944, \"symbol_error\": 0}"

#define EXPECT_BROKEN_0_1 "{\"VL15_dropped\": 5, \"port_xmit_data\": 4611686018427387900}"

static char *call_body(Harness *h, const char *path, const char *interface, const char *member) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        char *body;
        int r;

        r = sd_bus_call_method(h->bus, RDMAD_BUS_NAME, path, interface, member, &error, &reply, "");
        if (r < 0)
                fail_msg("%s.%s on %s: %s", interface, member, path, error.name);
        body = format_message_body(reply);
        sd_bus_message_unref(reply);
        return body;
}

static void assert_counters(Harness *h, const char *path, const char *interface, const char *expected) {
        char *body = call_body(h, path, interface, RDMAD_METHOD_GET_COUNTERS);

        if (strcmp(body, expected) != 0)
                fail_msg("GetCounters on %s:\n%s\nexpected:\n%s", path, body, expected);
        free(body);
}

static void assert_port_counters(Harness *h, const char *port_path, const char *expected) {
        assert_counters(h, port_path, RDMAD_PORT_INTERFACE, expected);
}

static int counters_setup(void **state) {
        setenv("RDMAD_FAULT_EACCES", UNREADABLE, 1);
        harness_daemon_preload = FAULT_INJECT;
        *state = harness_start(ALL_FIXTURES, fast_poll);
        harness_daemon_preload = NULL;
        unsetenv("RDMAD_FAULT_EACCES");
        return 0;
}

/* IB counters/ (mlx4, hfi1), RoCE counters/ + hw_counters/ (mlx5), a VF
 * without PMA, rxe's hw_counters/ only, siw with none, an old kernel's
 * counters_ext/, and a device whose counters/ hold no numbers. */
static void test_port_counters_exact_values(void **state) {
        Harness *h = *state;

        assert_port_counters(h, MLX4_0 "/port/1", EXPECT_MLX4_0_1);
        assert_port_counters(h, MLX4_0 "/port/2", EXPECT_MLX4_0_2);
        assert_port_counters(h, MLX5_0 "/port/1", EXPECT_MLX5_0_1);
        assert_port_counters(h, MLX5_1 "/port/1", EXPECT_MLX5_1_1);
        assert_port_counters(h, HFI1_0 "/port/1", EXPECT_HFI1_0_1);
        assert_port_counters(h, RXE0 "/port/1", EXPECT_RXE0_1);
        assert_port_counters(h, SIW0 "/port/1", "{}");
        assert_port_counters(h, IB_DEV_1 "/port/1", EXPECT_IB_DEV_1_1);
        assert_port_counters(h, BROKEN_0 "/port/1", EXPECT_BROKEN_0_1);
        assert_port_counters(h, BROKEN_0 "/port/2", "{}");
}

/* The file is there and holds a number; the daemon may not read it: it is
 * left out and the call succeeds. */
static void test_unreadable_counter_is_left_out(void **state) {
        Harness *h = *state;
        char *text, *body;

        text = harness_read(h, MLX4_SYS, "ports/1/counters/port_rcv_errors");
        assert_string_equal(text, "3\n");
        free(text);
        body = call_body(h, MLX4_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_METHOD_GET_COUNTERS);
        assert_null(strstr(body, "port_rcv_errors"));
        assert_non_null(strstr(body, "\"port_rcv_packets\": 215487963"));
        free(body);
        body = call_body(h, MLX4_0 "/port/2", RDMAD_PORT_INTERFACE, RDMAD_METHOD_GET_COUNTERS);
        assert_non_null(strstr(body, "\"port_rcv_errors\": 0"));
        free(body);
}

static void test_device_wide_counters(void **state) {
        Harness *h = *state;

        assert_counters(h, HFI1_0, RDMAD_DEVICE_INTERFACE, EXPECT_HFI1_0_0);
        assert_counters(h, RXE0, RDMAD_DEVICE_INTERFACE, "{}");
        assert_counters(h, MLX5_0, RDMAD_DEVICE_INTERFACE, "{}");
}

/* Every port, in device order; port 0 only where device-wide counters exist. */
static void test_get_all_counters(void **state) {
        Harness *h = *state;
        char *body = call_body(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_METHOD_GET_ALL_COUNTERS);
        const char *expected = "[(\"broken_0\", 1, " EXPECT_BROKEN_0_1 "), "
                               "(\"broken_0\", 2, {}), "
                               "(\"hfi1_0\", 0, " EXPECT_HFI1_0_0 "), "
                               "(\"hfi1_0\", 1, " EXPECT_HFI1_0_1 "), "
                               "(\"ib-dev.1\", 1, " EXPECT_IB_DEV_1_1 "), "
                               "(\"mlx4_0\", 1, " EXPECT_MLX4_0_1 "), "
                               "(\"mlx4_0\", 2, " EXPECT_MLX4_0_2 "), "
                               "(\"mlx5_0\", 1, " EXPECT_MLX5_0_1 "), "
                               "(\"mlx5_1\", 1, " EXPECT_MLX5_1_1 "), "
                               "(\"rxe0\", 1, " EXPECT_RXE0_1 "), "
                               "(\"siw0\", 1, {})]";

        if (strcmp(body, expected) != 0)
                fail_msg("GetAllCounters:\n%s\nexpected:\n%s", body, expected);
        free(body);
}

/* Counters are read at call time (this caller: root gets a fresh read; anyone
 * else a result at most COUNTERS_MIN_AGE old, so wait that out), and never
 * become properties or signals. */
static void test_counters_read_at_call_time(void **state) {
        Harness *h = *state;
        char *body;

        body = call_body(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_METHOD_GET_COUNTERS);
        assert_non_null(strstr(body, "\"out_of_buffer\": 1903,"));
        free(body);
        harness_clear_signals(h);
        harness_write(h, MLX5_SYS, "ports/1/hw_counters/out_of_buffer", "2000\n");
        harness_write(h, MLX5_SYS, "ports/1/counters/port_xmit_data", "1419870307\n");
        if (geteuid() != 0) /* the daemon's own interval, not a wait for anything */
                harness_observe(h, 1100, "the 1 s an unprivileged caller's counters are kept");
        body = call_body(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_METHOD_GET_COUNTERS);
        assert_non_null(strstr(body, "\"out_of_buffer\": 2000,"));
        assert_non_null(strstr(body, "\"port_xmit_data\": 5679481228,"));
        free(body);
        harness_observe(h, 200, "signals for counters, which must not come");
        assert_int_equal(harness_count_signals(h, MLX5_0 "/port/1", "PropertiesChanged"), 0);
}

/* A write of hfi1_0's sysfs that the poll cannot see half done (harness_write
 * truncates first). */
static void write_paused(Harness *h, const char *name, const char *value) {
        harness_pause(h);
        harness_write(h, HFI1_SYS, name, value);
        harness_resume(h);
}

/* A flap between two scrapes: both State changes count; a PhysState change
 * alone does not; a state file printed with trailing blanks is no change. */
static void test_state_changes_count_flaps(void **state) {
        Harness *h = *state;

        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGES, "0");
        harness_clear_signals(h);
        write_paused(h, "ports/1/state", "1: DOWN\n");
        harness_wait_signals(h, HFI1_0 "/port/1", "PropertiesChanged", 1);
        write_paused(h, "ports/1/state", "4: ACTIVE\n");
        harness_wait_signals(h, HFI1_0 "/port/1", "PropertiesChanged", 2);
        assert_non_null(strstr(h->signals[h->n_signals - 1].body, "\"StateChanges\": 2"));
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE");
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGES, "2");

        write_paused(h, "ports/1/phys_state", "6: LinkErrorRecovery\n");
        harness_wait_signals(h, HFI1_0 "/port/1", "PropertiesChanged", 3);
        assert_null(strstr(h->signals[h->n_signals - 1].body, RDMAD_PORT_PROPERTY_STATE_CHANGES));
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGES, "2");

        harness_clear_signals(h);
        write_paused(h, "ports/1/state", "4: ACTIVE  \n\n");
        harness_observe(h, 300, "several poll ticks, which must see no change");
        assert_int_equal(harness_count_signals(h, HFI1_0 "/port/1", "PropertiesChanged"), 0);
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE, "4: ACTIVE");
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGES, "2");
        /* The other ports have seen nothing. */
        harness_assert_property(h, MLX4_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGES, "0");
}

/* ---- a slow read ------------------------------------------------------ */

static int slow_setup(void **state) {
        /* Every counters/ file takes 10 ms to open: a full read takes over a second. */
        setenv("RDMAD_FAULT_SLOW", "/counters/:10", 1);
        harness_daemon_preload = FAULT_INJECT;
        harness_capture_daemon_log = true;
        *state = harness_start(ALL_FIXTURES, debug_log);
        harness_daemon_preload = NULL;
        harness_capture_daemon_log = false;
        unsetenv("RDMAD_FAULT_SLOW");
        return 0;
}

static size_t count_reads(Harness *h) {
        char *log = harness_daemon_log(h);
        size_t n = 0;

        for (const char *p = log; (p = strstr(p, "Reading the counters of")); p++)
                n++;
        free(log);
        return n;
}

#define N_SHARED 16 /* COUNTERS_CALLS_PER_CALLER_MAX */

/* While GetAllCounters reads, the loop answers other calls; the calls that
 * arrive meanwhile share the read; one connection cannot queue more than
 * 16 of them. */
static void test_slow_read_shared_and_loop_answers(void **state) {
        Harness *h = *state;
        AsyncReply replies[N_SHARED] = {};
        char *value, *error_name = NULL;

        assert_int_equal(count_reads(h), 0);
        for (size_t i = 0; i < N_SHARED; i++) {
                assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                                     RDMAD_MANAGER_INTERFACE, RDMAD_METHOD_GET_ALL_COUNTERS,
                                                     harness_on_reply, &replies[i], "") >= 0);
                if (i == 0) {
                        /* Answered while the read runs (it takes over a second). */
                        value = harness_get_property(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE,
                                                     RDMAD_PORT_PROPERTY_STATE, NULL);
                        assert_string_equal(value, "4: ACTIVE");
                        free(value);
                        assert_false(replies[0].done);
                }
        }
        error_name = harness_call_error(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_METHOD_GET_ALL_COUNTERS, "");
        assert_non_null(error_name);
        assert_string_equal(error_name, RDMAD_ERROR_BUSY);
        free(error_name);

        for (size_t i = 0; i < N_SHARED; i++) {
                harness_wait_reply(h, &replies[i], 30000, "a shared GetAllCounters");
                assert_null(replies[i].error_name);
                assert_string_equal(replies[i].value, replies[0].value);
        }
        assert_non_null(strstr(replies[0].value, "(\"mlx5_0\", 1, {\"VL15_dropped\": 0, \"duplicate_request\": 12,"));
        assert_int_equal(count_reads(h), 1);
        for (size_t i = 0; i < N_SHARED; i++)
                async_reply_clear(&replies[i]);

        /* The next call gets a read of its own. */
        assert_port_counters(h, MLX5_0 "/port/1", EXPECT_MLX5_0_1);
        assert_int_equal(count_reads(h), 2);
}

/* ---- callers other than root ------------------------------------------ */

static int log_setup(void **state) {
        harness_capture_daemon_log = true;
        *state = harness_start(ALL_FIXTURES, debug_log);
        harness_capture_daemon_log = false;
        return 0;
}

/* An unprivileged caller is answered, but cannot make the daemon read
 * sysfs again within COUNTERS_MIN_AGE (1 s) of the last read. */
static void test_unprivileged_caller_gets_cached_result(void **state) {
        Harness *h = *state;
        uint64_t start;
        char *error_name;
        size_t reads;

        if (geteuid() != 0) {
                fprintf(stderr, "skipping: needs root to call as nobody\n");
                skip();
        }
        start = now_usec();
        for (int i = 0; i < 5; i++) {
                error_name = harness_call_as(h, 65534, 65534, RDMAD_BUS_NAME, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE,
                                             RDMAD_METHOD_GET_COUNTERS, "");
                assert_null(error_name);
        }
        error_name = harness_call_as(h, 65534, 65534, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                     RDMAD_METHOD_GET_ALL_COUNTERS, "");
        assert_null(error_name);
        if (now_usec() - start < 900 * 1000)         /* else too slow a machine to tell */
                assert_int_equal(count_reads(h), 2); /* the port once, then everything */

        /* Root is never served from the cache. */
        reads = count_reads(h);
        assert_port_counters(h, MLX5_0 "/port/1", EXPECT_MLX5_0_1);
        assert_int_equal(count_reads(h), reads + 1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_port_counters_exact_values, counters_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_unreadable_counter_is_left_out, counters_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_device_wide_counters, counters_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_get_all_counters, counters_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_counters_read_at_call_time, counters_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_state_changes_count_flaps, counters_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_slow_read_shared_and_loop_answers, slow_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_unprivileged_caller_gets_cached_result, log_setup,
                                                harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
