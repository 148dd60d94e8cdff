/* SPDX-License-Identifier: MIT */
/* rdmad-exporter's pure parts: the exposition of a hand-built model in both
 * formats, label escaping, node_exporter's rate and counter names, content
 * negotiation, --listen parsing and the listening address as logged, the
 * reasons of libmicrohttpd's messages and the bound on logging them. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include <cmocka.h>

#include "basic/util.h"
#include "compress.h"
#include "exposition.h"
#include "guard.h"
#include "http-errors.h"
#include "listen.h"
#include "log-limit.h"
#include "negotiate.h"

static char *render(ExpositionFormat format, const ScrapeResult *s) {
        char *body = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&body, &size);

        assert_non_null(f);
        assert_int_equal(exposition_write(f, format, s), 0);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(strlen(body), size);
        return body;
}

/* A small host: an IB port with counters and an odd board id, a RoCE PF
 * with SR-IOV and device-wide hw_counters. */
static RdmaDevice dev_mlx4 = {
        .path = "/org/rdmad1/device/mlx4_5f0",
        .name = "mlx4_0",
        .driver = "mlx4_core",
        .transport = "mixed",
        .node_type = "CA",
        .firmware_version = "2.42.5000",
        .hca_type = "MT4099",
        .board_id = "MT \"quoted\" back\\slash\nnewline",
        .node_guid = "0002:c903:00a1:b2c0",
        .pci_address = "0000:03:00.0",
        .health = "ok",
};
static RdmaDevice dev_mlx5 = {
        .path = "/org/rdmad1/device/mlx5_5f0",
        .name = "mlx5_0",
        .driver = "mlx5_core",
        .transport = "RoCE",
        .node_type = "CA",
        .firmware_version = "14.28.2006",
        .hca_type = "MT4119",
        .board_id = "MT_0000000008",
        .node_guid = "9803:9b03:00aa:bbc0",
        .pci_address = "0000:5e:00.0",
        .health = "errors",
        .health_reason = "ports/1/counters/symbol_error: Input/output error",
};
static RdmaNetDev netdev_ens = {
        .path = "/org/rdmad1/device/mlx5_5f0/netdev/ens1f0np0",
        .name = "ens1f0np0",
};
static RdmaPort port_ib = {
        .path = "/org/rdmad1/device/mlx4_5f0/port/1",
        .device = "/org/rdmad1/device/mlx4_5f0",
        .number = 1,
        .state_num = 4,
        .phys_state_num = 5,
        .rate_speed = 40,
        .transport = "InfiniBand",
        .link_layer = "InfiniBand",
        .netdev = "/",
        .link_width = "4X",
        .link_speed = "QDR",
        .state_changes = 3,
};
static RdmaPort port_roce = {
        .path = "/org/rdmad1/device/mlx5_5f0/port/1",
        .device = "/org/rdmad1/device/mlx5_5f0",
        .number = 1,
        .state_num = 1,
        .phys_state_num = 3,
        .rate_speed = 2.5,
        .transport = "RoCE",
        .link_layer = "Ethernet",
        .netdev = "/org/rdmad1/device/mlx5_5f0/netdev/ens1f0np0",
        .link_width = "1X",
        .link_speed = "SDR",
};
static RdmaSriov sriov_mlx5 = {
        .path = "/org/rdmad1/device/mlx5_5f0/sriov",
        .device = "/org/rdmad1/device/mlx5_5f0",
        .num_vfs = 1,
        .total_vfs = 8,
};

static RdmaDevice *devices[] = { &dev_mlx4, &dev_mlx5 };
static RdmaPort *ports[] = { &port_ib, &port_roce };
static RdmaNetDev *netdevs[] = { &netdev_ens };
static RdmaSriov *sriovs[] = { &sriov_mlx5 };
static const Inventory inventory = {
        .devices = devices,
        .n_devices = 2,
        .ports = ports,
        .n_ports = 2,
        .netdevs = netdevs,
        .n_netdevs = 1,
        .sriovs = sriovs,
        .n_sriovs = 1,
};

static void fill_counters(CounterTable *t) {
        const CounterSample ib[] = {
                { "port_rcv_data", 4000 },  { "port_xmit_data", 18446744073709551615ULL },
                { "symbol_error", 7 },      { "VL15_dropped", 0 },
                { "port_rcv_data_64", 12 }, { "out_of_buffer", 5 },
        };
        const CounterSample device_wide[] = { { "link_downed", 9 }, { "rx_write_requests", 2 } };

        assert_int_equal(counter_table_add(t, "mlx4_0", 1, ib, ELEMENTSOF(ib)), 0);
        assert_int_equal(counter_table_add(t, "mlx5_0", 1, NULL, 0), 0);
        assert_int_equal(counter_table_add(t, "mlx5_0", 0, device_wide, ELEMENTSOF(device_wide)), 0);
}

static const char expected_text[] =
        "# HELP rdmad_up 1 when rdmad answered this scrape on the system bus, else 0.\n"
        "# TYPE rdmad_up gauge\n"
        "rdmad_up 1\n"
        "# HELP rdma_device_info RDMA device identity from rdmad; the value is always 1.\n"
        "# TYPE rdma_device_info gauge\n"
        "rdma_device_info{device=\"mlx4_0\",driver=\"mlx4_core\",transport=\"mixed\",node_type=\"CA\","
        "firmware_version=\"2.42.5000\",hca_type=\"MT4099\",board_id=\"MT \\\"quoted\\\" back\\\\slash\\nnewline\","
        "node_guid=\"0002:c903:00a1:b2c0\",pci_address=\"0000:03:00.0\"} 1\n"
        "rdma_device_info{device=\"mlx5_0\",driver=\"mlx5_core\",transport=\"RoCE\",node_type=\"CA\","
        "firmware_version=\"14.28.2006\",hca_type=\"MT4119\",board_id=\"MT_0000000008\","
        "node_guid=\"9803:9b03:00aa:bbc0\",pci_address=\"0000:5e:00.0\"} 1\n"
        "# HELP rdma_device_health Whether the RDMA device's files answer (rdmad's Health): 1 for its state of ok, "
        "errors (an I/O error), unresponsive (a read hangs), 0 for the others.\n"
        "# TYPE rdma_device_health gauge\n"
        "rdma_device_health{device=\"mlx4_0\",state=\"ok\"} 1\n"
        "rdma_device_health{device=\"mlx4_0\",state=\"errors\"} 0\n"
        "rdma_device_health{device=\"mlx4_0\",state=\"unresponsive\"} 0\n"
        "rdma_device_health{device=\"mlx5_0\",state=\"ok\"} 0\n"
        "rdma_device_health{device=\"mlx5_0\",state=\"errors\"} 1\n"
        "rdma_device_health{device=\"mlx5_0\",state=\"unresponsive\"} 0\n"
        "# HELP rdma_port_info RDMA port identity from rdmad; the value is always 1.\n"
        "# TYPE rdma_port_info gauge\n"
        "rdma_port_info{device=\"mlx4_0\",port=\"1\",transport=\"InfiniBand\",link_layer=\"InfiniBand\","
        "netdev=\"\",link_width=\"4X\",link_speed=\"QDR\"} 1\n"
        "rdma_port_info{device=\"mlx5_0\",port=\"1\",transport=\"RoCE\",link_layer=\"Ethernet\","
        "netdev=\"ens1f0np0\",link_width=\"1X\",link_speed=\"SDR\"} 1\n"
        "# HELP rdma_state_id Port state (1: down, 2: init, 3: armed, 4: active, 5: active defer).\n"
        "# TYPE rdma_state_id gauge\n"
        "rdma_state_id{device=\"mlx4_0\",port=\"1\"} 4\n"
        "rdma_state_id{device=\"mlx5_0\",port=\"1\"} 1\n"
        "# HELP rdma_physical_state_id Physical port state (1: sleep, 2: polling, 3: disabled, 4: configuration "
        "training, 5: link up, 6: link error recovery, 7: phy test).\n"
        "# TYPE rdma_physical_state_id gauge\n"
        "rdma_physical_state_id{device=\"mlx4_0\",port=\"1\"} 5\n"
        "rdma_physical_state_id{device=\"mlx5_0\",port=\"1\"} 3\n"
        "# HELP rdma_rate_bytes_per_second Signalling rate of the port in bytes per second.\n"
        "# TYPE rdma_rate_bytes_per_second gauge\n"
        "rdma_rate_bytes_per_second{device=\"mlx4_0\",port=\"1\"} 5000000000\n"
        "rdma_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\"} 312500000\n"
        "# HELP rdma_port_state_changes_total Port state changes rdmad observed since it started.\n"
        "# TYPE rdma_port_state_changes_total counter\n"
        "rdma_port_state_changes_total{device=\"mlx4_0\",port=\"1\"} 3\n"
        "rdma_port_state_changes_total{device=\"mlx5_0\",port=\"1\"} 0\n"
        "# HELP rdma_sriov_vfs SR-IOV virtual functions enabled.\n"
        "# TYPE rdma_sriov_vfs gauge\n"
        "rdma_sriov_vfs{device=\"mlx5_0\"} 1\n"
        "# HELP rdma_sriov_total_vfs SR-IOV virtual functions the device supports.\n"
        "# TYPE rdma_sriov_total_vfs gauge\n"
        "rdma_sriov_total_vfs{device=\"mlx5_0\"} 8\n"
        "# HELP rdma_vl15_dropped_total Incoming VL15 packets dropped for lack of resources.\n"
        "# TYPE rdma_vl15_dropped_total counter\n"
        "rdma_vl15_dropped_total{device=\"mlx4_0\",port=\"1\"} 0\n"
        "# HELP rdma_port_data_received_bytes_total Data octets received on all VLs.\n"
        "# TYPE rdma_port_data_received_bytes_total counter\n"
        "rdma_port_data_received_bytes_total{device=\"mlx4_0\",port=\"1\"} 4000\n"
        "# HELP rdma_legacy_data_received_bytes_total Data octets received on all VLs (counters_ext).\n"
        "# TYPE rdma_legacy_data_received_bytes_total counter\n"
        "rdma_legacy_data_received_bytes_total{device=\"mlx4_0\",port=\"1\"} 12\n"
        "# HELP rdma_port_data_transmitted_bytes_total Data octets transmitted on all VLs.\n"
        "# TYPE rdma_port_data_transmitted_bytes_total counter\n"
        "rdma_port_data_transmitted_bytes_total{device=\"mlx4_0\",port=\"1\"} 18446744073709551615\n"
        "# HELP rdma_symbol_error_total Minor link errors detected on one or more physical lanes.\n"
        "# TYPE rdma_symbol_error_total counter\n"
        "rdma_symbol_error_total{device=\"mlx4_0\",port=\"1\"} 7\n"
        "# HELP rdma_port_hw_counters_total Driver-specific counters (hw_counters) without a node_exporter name; "
        "port 0 is device-wide.\n"
        "# TYPE rdma_port_hw_counters_total counter\n"
        "rdma_port_hw_counters_total{device=\"mlx4_0\",port=\"1\",counter=\"out_of_buffer\"} 5\n"
        "rdma_port_hw_counters_total{device=\"mlx5_0\",port=\"0\",counter=\"link_downed\"} 9\n"
        "rdma_port_hw_counters_total{device=\"mlx5_0\",port=\"0\",counter=\"rx_write_requests\"} 2\n";

static void test_text_exposition_of_a_small_host(void **state) {
        CounterTable counters = {};
        ScrapeResult s = { .up = true, .inventory = &inventory, .counters = &counters };
        _cleanup_free_ char *body = NULL;

        fill_counters(&counters);
        body = render(EXPOSITION_TEXT, &s);
        assert_string_equal(body, expected_text);
        counter_table_clear(&counters);
}

static void test_openmetrics_names_families_and_ends_with_eof(void **state) {
        CounterTable counters = {};
        ScrapeResult s = { .up = true, .inventory = &inventory, .counters = &counters };
        _cleanup_free_ char *body = NULL;
        size_t len;

        fill_counters(&counters);
        body = render(EXPOSITION_OPENMETRICS, &s);
        counter_table_clear(&counters);

        /* CounterSample families drop _total, info families _info; samples keep them. */
        assert_non_null(strstr(body, "# TYPE rdma_port_state_changes counter\n"
                                     "rdma_port_state_changes_total{device=\"mlx4_0\",port=\"1\"} 3\n"));
        assert_non_null(strstr(body, "# HELP rdma_symbol_error Minor link errors"));
        assert_non_null(strstr(body, "# TYPE rdma_device info\nrdma_device_info{device=\"mlx4_0\","));
        assert_non_null(strstr(body, "# TYPE rdma_port info\nrdma_port_info{"));
        assert_non_null(strstr(body, "# TYPE rdma_state_id gauge\nrdma_state_id{"));
        assert_non_null(strstr(body, "# TYPE rdma_port_hw_counters counter\nrdma_port_hw_counters_total{"));
        assert_null(strstr(body, "# TYPE rdma_symbol_error_total"));
        len = strlen(body);
        assert_true(len > 6);
        assert_string_equal(body + len - 6, "# EOF\n");
        assert_null(strstr(body, "# EOF\n") == body + len - 6 ? NULL : body);
}

static void test_openmetrics_help_escapes_quotes(void **state) {
        _cleanup_free_ char *body = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&body, &size);

        assert_non_null(f);
        exposition_write_label_value(f, "a\"b\\c\nd\te");
        fclose(f);
        assert_string_equal(body, "a\\\"b\\\\c\\nd\te");
}

static void test_down_is_only_rdmad_up_0(void **state) {
        ScrapeResult s = { .up = false };
        _cleanup_free_ char *text = render(EXPOSITION_TEXT, &s), *om = render(EXPOSITION_OPENMETRICS, &s);

        assert_string_equal(text, "# HELP rdmad_up 1 when rdmad answered this scrape on the system bus, else 0.\n"
                                  "# TYPE rdmad_up gauge\n"
                                  "rdmad_up 0\n");
        assert_string_equal(om, "# HELP rdmad_up 1 when rdmad answered this scrape on the system bus, else 0.\n"
                                "# TYPE rdmad_up gauge\n"
                                "rdmad_up 0\n"
                                "# EOF\n");
}

static void test_empty_host_has_no_empty_families(void **state) {
        Inventory empty = {};
        CounterTable none = {};
        ScrapeResult s = { .up = true, .inventory = &empty, .counters = &none };
        _cleanup_free_ char *text = render(EXPOSITION_TEXT, &s);

        assert_string_equal(text, "# HELP rdmad_up 1 when rdmad answered this scrape on the system bus, else 0.\n"
                                  "# TYPE rdmad_up gauge\n"
                                  "rdmad_up 1\n");
}

/* An rdmad that publishes no PciAddress, Port.Transport, LinkWidth or
 * LinkSpeed: they are derived from DevicePath, RateInfo, LinkLayer, NodeType. */
static void test_labels_derived_for_an_older_rdmad(void **state) {
        RdmaDevice siw = { .path = "/org/rdmad1/device/siw0", .name = "siw0", .node_type = "RNIC", .device_path = "" };
        RdmaDevice mlx4 = { .path = "/org/rdmad1/device/mlx4_5f0",
                            .name = "mlx4_0",
                            .node_type = "CA",
                            .device_path = "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0" };
        RdmaDevice odd = { .path = "/org/rdmad1/device/odd", .name = "odd", .device_path = "/sys/devices/platform/x" };
        RdmaPort p_siw = { .path = "/org/rdmad1/device/siw0/port/1",
                           .device = siw.path,
                           .number = 1,
                           .link_layer = "Ethernet",
                           .rate_info = "1X SDR" };
        RdmaPort p_ib = { .path = "/org/rdmad1/device/mlx4_5f0/port/1",
                          .device = mlx4.path,
                          .number = 1,
                          .link_layer = "InfiniBand",
                          .rate_info = "4X" };
        RdmaPort p_eth = { .path = "/org/rdmad1/device/mlx4_5f0/port/2",
                           .device = mlx4.path,
                           .number = 2,
                           .link_layer = "Ethernet",
                           .rate_info = "4X QDR" };
        RdmaDevice *devs[] = { &siw, &mlx4, &odd };
        RdmaPort *prts[] = { &p_siw, &p_ib, &p_eth };
        Inventory inv = { .devices = devs, .n_devices = 3, .ports = prts, .n_ports = 3 };
        ScrapeResult s = { .up = true, .inventory = &inv };
        _cleanup_free_ char *text = render(EXPOSITION_TEXT, &s);

        assert_non_null(strstr(text, "rdma_device_info{device=\"mlx4_0\",driver=\"\",transport=\"\",node_type=\"CA\","
                                     "firmware_version=\"\",hca_type=\"\",board_id=\"\",node_guid=\"\","
                                     "pci_address=\"0000:03:00.0\"} 1\n"));
        assert_non_null(strstr(text,
                               "device=\"siw0\",driver=\"\",transport=\"\",node_type=\"RNIC\",firmware_version=\"\","
                               "hca_type=\"\",board_id=\"\",node_guid=\"\",pci_address=\"\"} 1\n"));
        assert_non_null(strstr(text, "device=\"odd\",driver=\"\",transport=\"\",node_type=\"\",firmware_version=\"\","
                                     "hca_type=\"\",board_id=\"\",node_guid=\"\",pci_address=\"\"} 1\n"));
        assert_non_null(strstr(text,
                               "rdma_port_info{device=\"siw0\",port=\"1\",transport=\"iWARP\",link_layer=\"Ethernet\","
                               "netdev=\"\",link_width=\"1X\",link_speed=\"SDR\"} 1\n"));
        assert_non_null(strstr(text, "rdma_port_info{device=\"mlx4_0\",port=\"1\",transport=\"InfiniBand\","
                                     "link_layer=\"InfiniBand\",netdev=\"\",link_width=\"4X\",link_speed=\"\"} 1\n"));
        assert_non_null(strstr(text, "rdma_port_info{device=\"mlx4_0\",port=\"2\",transport=\"RoCE\","
                                     "link_layer=\"Ethernet\",netdev=\"\",link_width=\"4X\",link_speed=\"QDR\"} 1\n"));
}

/* A state set: one sample per state, the current one 1; a state from a
 * newer rdmad gets a sample of its own; no Health (an older rdmad), none. */
static void test_device_health_is_a_state_set(void **state) {
        RdmaDevice sick = { .path = "/org/rdmad1/device/mlx5_5f3", .name = "mlx5_3", .health = "unresponsive" };
        RdmaDevice newer = { .path = "/org/rdmad1/device/mlx5_5f4", .name = "mlx5_4", .health = "degraded" };
        RdmaDevice older = { .path = "/org/rdmad1/device/mlx5_5f5", .name = "mlx5_5", .health = "" };
        RdmaDevice *devs[] = { &sick, &newer, &older };
        Inventory inv = { .devices = devs, .n_devices = 3 };
        ScrapeResult s = { .up = true, .inventory = &inv };
        _cleanup_free_ char *text = render(EXPOSITION_TEXT, &s), *om = render(EXPOSITION_OPENMETRICS, &s);

        assert_non_null(strstr(text, "# TYPE rdma_device_health gauge\n"
                                     "rdma_device_health{device=\"mlx5_3\",state=\"ok\"} 0\n"
                                     "rdma_device_health{device=\"mlx5_3\",state=\"errors\"} 0\n"
                                     "rdma_device_health{device=\"mlx5_3\",state=\"unresponsive\"} 1\n"
                                     "rdma_device_health{device=\"mlx5_4\",state=\"ok\"} 0\n"
                                     "rdma_device_health{device=\"mlx5_4\",state=\"errors\"} 0\n"
                                     "rdma_device_health{device=\"mlx5_4\",state=\"unresponsive\"} 0\n"
                                     "rdma_device_health{device=\"mlx5_4\",state=\"degraded\"} 1\n"));
        assert_null(strstr(text, "rdma_device_health{device=\"mlx5_5\""));
        /* A gauge in OpenMetrics too: a stateset's label would have to be named after the metric. */
        assert_non_null(
                strstr(om, "# TYPE rdma_device_health gauge\nrdma_device_health{device=\"mlx5_3\",state=\"ok\"} 0\n"));
}

static void test_rate_bytes_as_node_exporter(void **state) {
        assert_int_equal(exposition_rate_bytes(2.5), 312500000);
        assert_int_equal(exposition_rate_bytes(14), 1750000000);
        assert_int_equal(exposition_rate_bytes(25), 3125000000);
        assert_int_equal(exposition_rate_bytes(100), 12500000000ULL);
        assert_int_equal(exposition_rate_bytes(800), 100000000000ULL);
        /* 53.125 is exact in a float; 0.1 is not, and node_exporter truncates the float's value. */
        assert_int_equal(exposition_rate_bytes(53.125), 6640625000ULL);
        assert_int_equal(exposition_rate_bytes(0.1), 12500000);
        assert_int_equal(exposition_rate_bytes(0), 0);
        assert_int_equal(exposition_rate_bytes(-1), 0);
        assert_int_equal(exposition_rate_bytes(0.0 / 0.0), 0);
        assert_int_equal(exposition_rate_bytes(1e300), 0);
}

static void test_counter_names_as_node_exporter(void **state) {
        static const char *const pairs[][2] = {
                { "port_rcv_data", "port_data_received_bytes_total" },
                { "port_xmit_wait", "port_transmit_wait_total" },
                { "VL15_dropped", "vl15_dropped_total" },
                { "port_xmit_data_64", "legacy_data_transmitted_bytes_total" },
                { "port_unicast_rcv_packets", "legacy_unicast_packets_received_total" },
                { "port_rcv_remote_physical_errors", "port_receive_remote_physical_errors_total" },
                { "excessive_buffer_overrun_errors", "excessive_buffer_overrun_errors_total" },
                { "unicast_xmit_packets", "unicast_packets_transmitted_total" },
        };

        for (size_t i = 0; i < ELEMENTSOF(pairs); i++)
                assert_string_equal(exposition_counter_metric(pairs[i][0]), pairs[i][1]);
        assert_null(exposition_counter_metric("out_of_buffer"));
        assert_null(exposition_counter_metric("vl15_dropped")); /* the kernel's file name is case-sensitive */
        assert_null(exposition_counter_metric("lifespan"));
}

static void test_content_types(void **state) {
        assert_string_equal(exposition_content_type(EXPOSITION_TEXT), "text/plain; version=0.0.4; charset=utf-8");
        assert_string_equal(exposition_content_type(EXPOSITION_OPENMETRICS),
                            "application/openmetrics-text; version=1.0.0; charset=utf-8");
}

static void test_negotiation(void **state) {
        static const struct {
                const char *accept;
                ExpositionFormat expected;
        } cases[] = {
                { NULL, EXPOSITION_TEXT },
                { "", EXPOSITION_TEXT },
                { "*/*", EXPOSITION_TEXT },
                { "text/plain", EXPOSITION_TEXT },
                /* what Prometheus 2.42 sends */
                { "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
                  "text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
                  EXPOSITION_OPENMETRICS },
                /* Prometheus with scrape_classic... / OpenMetrics disabled */
                { "text/plain;version=0.0.4;q=1,*/*;q=0.1", EXPOSITION_TEXT },
                { "application/openmetrics-text", EXPOSITION_OPENMETRICS },
                { "Application/OpenMetrics-Text ; Version=\"1.0.0\"", EXPOSITION_OPENMETRICS },
                { "application/openmetrics-text; version=0.0.1", EXPOSITION_TEXT },
                { "application/openmetrics-text; version=1.0.0; q=0.4, text/plain; q=0.6", EXPOSITION_TEXT },
                { "application/openmetrics-text; version=1.0.0; q=0.6, text/plain; q=0.4", EXPOSITION_OPENMETRICS },
                { "application/openmetrics-text, text/plain", EXPOSITION_OPENMETRICS },
                { "text/plain, application/openmetrics-text", EXPOSITION_OPENMETRICS },
                { "application/openmetrics-text;q=0, */*", EXPOSITION_TEXT },
                { "text/plain;q=0, */*", EXPOSITION_OPENMETRICS },
                { "text/*;q=0.2, application/*;q=0.3", EXPOSITION_OPENMETRICS },
                { "application/json", EXPOSITION_TEXT },
                { "application/openmetrics-text;q=2", EXPOSITION_TEXT }, /* invalid qvalue: range ignored */
                { "application/openmetrics-text;q=0.1234", EXPOSITION_TEXT },
                { "garbage,,; ;=", EXPOSITION_TEXT },
                { "application/openmetrics-text;q=0.5;version=9, text/plain;q=0.4", EXPOSITION_OPENMETRICS },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                ExpositionFormat f = exposition_negotiate(cases[i].accept);
                if (f != cases[i].expected)
                        fail_msg("Accept: %s → %d, expected %d", strempty(cases[i].accept), f, cases[i].expected);
        }
}

static void test_qvalues(void **state) {
        assert_int_equal(qvalue_parse("1", 1), 1000);
        assert_int_equal(qvalue_parse("0", 1), 0);
        assert_int_equal(qvalue_parse("0.5", 3), 500);
        assert_int_equal(qvalue_parse("0.75", 4), 750);
        assert_int_equal(qvalue_parse("0.001", 5), 1);
        assert_int_equal(qvalue_parse("1.000", 5), 1000);
        assert_int_equal(qvalue_parse("1.", 2), 1000);
        assert_int_equal(qvalue_parse("1.001", 5), -1);
        assert_int_equal(qvalue_parse("0.0001", 6), -1);
        assert_int_equal(qvalue_parse("2", 1), -1);
        assert_int_equal(qvalue_parse(".5", 2), -1);
        assert_int_equal(qvalue_parse("0.x", 3), -1);
        assert_int_equal(qvalue_parse("", 0), -1);
}

static void test_listen_address_parse(void **state) {
        static const struct {
                const char *address, *host;
                unsigned port;
        } good[] = {
                { "127.0.0.1:10480", "127.0.0.1", 10480 },
                { "[::1]:9", "::1", 9 },
                { ":10480", "", 10480 },
                { "[::]:65535", "::", 65535 },
                { "localhost:1", "localhost", 1 },
        };
        static const char *const bad[] = {
                "10480",   "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "::1:80",
                "[::1]80", "[::1:80",   "host:-1",    "host:+80",    "host:80x",        "",
        };

        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                _cleanup_free_ char *host = NULL;
                unsigned port = 0;

                assert_int_equal(listen_address_parse(good[i].address, &host, &port), 0);
                assert_string_equal(host, good[i].host);
                assert_int_equal(port, good[i].port);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char *host = NULL;
                unsigned port = 0;

                if (listen_address_parse(bad[i], &host, &port) != -EINVAL)
                        fail_msg("'%s' was accepted", bad[i]);
                assert_null(host);
        }
}

static void test_scrape_budget_from_the_header(void **state) {
        assert_int_equal(scrape_budget_usec(NULL, 10000000), 10000000);
        assert_int_equal(scrape_budget_usec("3", 10000000), 2700000);     /* a tenth off */
        assert_int_equal(scrape_budget_usec("10.000", 5000000), 5000000); /* --bus-timeout is shorter */
        assert_int_equal(scrape_budget_usec("1.5", 10000000), 1250000);   /* at least 250 ms off */
        assert_int_equal(scrape_budget_usec("0.2", 10000000), 100000);    /* never below 100 ms */
        assert_int_equal(scrape_budget_usec("abc", 7000000), 7000000);
        assert_int_equal(scrape_budget_usec("3s", 7000000), 7000000);
        assert_int_equal(scrape_budget_usec("0", 7000000), 7000000);
}

static void test_accept_encoding_gzip(void **state) {
        assert_true(accepts_gzip("gzip"));
        assert_true(accepts_gzip("deflate, gzip;q=0.5"));
        assert_true(accepts_gzip("*"));
        assert_true(accepts_gzip("GZIP ; q=1"));
        assert_false(accepts_gzip(NULL));
        assert_false(accepts_gzip("identity"));
        assert_false(accepts_gzip("gzip;q=0"));
        assert_false(accepts_gzip("*, gzip;q=0")); /* named beats the wildcard */
        assert_false(accepts_gzip("gzipx"));
}

static void test_gzip_round_trip(void **state) {
        static const char text[] = "rdmad_up 1\nrdmad_up 1\nrdmad_up 1\n";
        char *z = NULL;
        size_t size = 0;

        assert_int_equal(gzip_compress(text, strlen(text), &z, &size), 0);
        assert_true(size > 18);
        assert_int_equal((unsigned char) z[0], 0x1f); /* the gzip magic */
        assert_int_equal((unsigned char) z[1], 0x8b);
        free(z);
}

static void test_guard_evicts_the_oldest_unserved(void **state) {
        GuardEntry e[4] = {};
        ssize_t v;

        for (int i = 0; i < 3; i++) {
                strcpy(e[i].address, "192.0.2.1");
                guard_set_state(&e[i], GUARD_WAITING, 1000 + (uint64_t) i);
        }
        strcpy(e[3].address, "192.0.2.9");
        guard_set_state(&e[3], GUARD_IDLE, 10);
        /* Room under both limits. */
        assert_int_equal(guard_pick_victim(e, 4, "192.0.2.1", 4, 8), -1);
        /* The address at its limit: its own oldest, never another's. */
        assert_int_equal(guard_pick_victim(e, 4, "192.0.2.1", 3, 8), 0);
        /* Overall at the limit: the oldest of anyone. */
        assert_int_equal(guard_pick_victim(e, 4, "198.51.100.7", 3, 4), 3);
        /* Served connections are never taken; closing ones are not counted. */
        guard_set_state(&e[0], GUARD_SERVING, 2000);
        assert_int_equal(guard_pick_victim(e, 4, "192.0.2.1", 3, 8), 1);
        e[1].closing = e[2].closing = true;
        assert_int_equal(guard_pick_victim(e, 4, "192.0.2.1", 3, 8), -1);
        e[1].closing = e[2].closing = false;
        guard_set_state(&e[1], GUARD_SERVING, 2000);
        guard_set_state(&e[2], GUARD_SERVING, 2000);
        v = guard_pick_victim(e, 4, "192.0.2.1", 3, 8);
        assert_int_equal(v, -2);

        /* Deadlines: a request is due within the request timeout; idle lasts longer. */
        guard_set_state(&e[0], GUARD_WAITING, 0);
        assert_false(guard_expired(&e[0], GUARD_REQUEST_TIMEOUT_USEC - 1));
        assert_true(guard_expired(&e[0], GUARD_REQUEST_TIMEOUT_USEC));
        guard_set_state(&e[0], GUARD_IDLE, 0);
        assert_false(guard_expired(&e[0], GUARD_REQUEST_TIMEOUT_USEC));
        assert_true(guard_expired(&e[0], GUARD_IDLE_TIMEOUT_USEC));
        guard_set_state(&e[0], GUARD_SERVING, 0);
        assert_false(guard_expired(&e[0], UINT64_MAX));
}

static void test_exporter_series_with_http_errors(void **state) {
        const uint64_t errors[_HTTP_ERROR_REASON_MAX] = {
                [HTTP_ERROR_REQUEST_TOO_LARGE] = 14920,
                [HTTP_ERROR_MALFORMED_REQUEST] = 3,
                [HTTP_ERROR_OTHER] = 1,
        };
        ScrapeResult s = { .up = true,
                           .version = "0.1.0",
                           .libmicrohttpd_version = "0.9.75",
                           .duration_usec = 1500,
                           .scrape_errors_total = 2,
                           .http_errors = errors };
        _cleanup_free_ char *text = render(EXPOSITION_TEXT, &s), *om = render(EXPOSITION_OPENMETRICS, &s);

        assert_string_equal(
                text,
                "# HELP rdmad_up 1 when rdmad answered this scrape on the system bus, else 0.\n"
                "# TYPE rdmad_up gauge\n"
                "rdmad_up 1\n"
                "# HELP rdmad_exporter_build_info rdmad-exporter's version and the libmicrohttpd it runs on; the "
                "value is always 1.\n"
                "# TYPE rdmad_exporter_build_info gauge\n"
                "rdmad_exporter_build_info{version=\"0.1.0\",libmicrohttpd=\"0.9.75\"} 1\n"
                "# HELP rdmad_exporter_scrape_duration_seconds How long this scrape took until its exposition was "
                "rendered.\n"
                "# TYPE rdmad_exporter_scrape_duration_seconds gauge\n"
                "rdmad_exporter_scrape_duration_seconds 0.001500\n"
                "# HELP rdmad_exporter_scrape_errors_total Scrapes in which rdmad did not answer (rdmad_up was 0) "
                "since the exporter started.\n"
                "# TYPE rdmad_exporter_scrape_errors_total counter\n"
                "rdmad_exporter_scrape_errors_total 2\n"
                "# HELP rdmad_exporter_http_errors_total Connections and requests of HTTP peers that failed, by "
                "reason, since the exporter started.\n"
                "# TYPE rdmad_exporter_http_errors_total counter\n"
                "rdmad_exporter_http_errors_total{reason=\"request_too_large\"} 14920\n"
                "rdmad_exporter_http_errors_total{reason=\"malformed_request\"} 3\n"
                "rdmad_exporter_http_errors_total{reason=\"request_timeout\"} 0\n"
                "rdmad_exporter_http_errors_total{reason=\"connection_closed\"} 0\n"
                "rdmad_exporter_http_errors_total{reason=\"connection_refused\"} 0\n"
                "rdmad_exporter_http_errors_total{reason=\"other\"} 1\n");
        /* OpenMetrics names the family without _total. */
        assert_non_null(strstr(om, "# TYPE rdmad_exporter_http_errors counter\n"
                                   "rdmad_exporter_http_errors_total{reason=\"request_too_large\"} 14920\n"));
        /* Without counts (the pure callers), no family. */
        s.http_errors = NULL;
        free(text);
        text = render(EXPOSITION_TEXT, &s);
        assert_null(strstr(text, "http_errors"));
}

/* What libmicrohttpd 0.9.75 logs, as the exporter saw it. */
static void test_http_error_reasons_of_libmicrohttpd_messages(void **state) {
        static const struct {
                const char *message;
                HttpErrorReason reason;
                bool counted;
        } table[] = {
                { "Error processing request (HTTP response code is 431 ('<html><head><title>Request too big</title>"
                  "</head><body>Your HTTP header was too big for the memory constraints of this webserver.</body>"
                  "</html>')). Closing connection.",
                  HTTP_ERROR_REQUEST_TOO_LARGE, true },
                { "Error processing request (HTTP response code is 414 ('<html>...')). Closing connection.",
                  HTTP_ERROR_REQUEST_TOO_LARGE, true },
                { "Error processing request (HTTP response code is 413 ('<html>...')). Closing connection.",
                  HTTP_ERROR_REQUEST_TOO_LARGE, true },
                { "Error processing request (HTTP response code is 400 ('<html>...')). Closing connection.",
                  HTTP_ERROR_MALFORMED_REQUEST, true },
                { "Error processing request (HTTP response code is 505 ('<html>...')). Closing connection.",
                  HTTP_ERROR_MALFORMED_REQUEST, true },
                { "Not enough memory in pool to allocate header record!", HTTP_ERROR_REQUEST_TOO_LARGE, false },
                { "Too large value of 'Content-Length' header. Closing connection.", HTTP_ERROR_REQUEST_TOO_LARGE,
                  false },
                { "Failed to parse `Content-Length' header. Closing connection.", HTTP_ERROR_MALFORMED_REQUEST, false },
                { "Connection was closed by remote side with incomplete request.", HTTP_ERROR_CONNECTION_CLOSED, true },
                { "Socket has been disconnected when reading request.", HTTP_ERROR_CONNECTION_CLOSED, true },
                { "Connection socket is closed when reading request due to the error: The connection was forcibly "
                  "closed by remote peer",
                  HTTP_ERROR_CONNECTION_CLOSED, true },
                { "Failed to send the response headers for the request for `/metrics'. Error: The socket is no "
                  "longer available for sending",
                  HTTP_ERROR_CONNECTION_CLOSED, true },
                { "Server reached connection limit. Closing inbound connection.", HTTP_ERROR_CONNECTION_REFUSED, true },
                { "Error accepting connection: Too many open files", HTTP_ERROR_CONNECTION_REFUSED, true },
                { "Application reported internal error, closing connection.", HTTP_ERROR_OTHER, true },
                { "Error processing request (HTTP response code is", HTTP_ERROR_OTHER, true },
                { "Error processing request (HTTP response code is 4311 ('x')).", HTTP_ERROR_OTHER, true },
                { "", HTTP_ERROR_OTHER, true },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                bool counted = !table[i].counted;
                HttpErrorReason r = http_error_classify(table[i].message, &counted);

                if (r != table[i].reason || counted != table[i].counted)
                        fail_msg("'%s': %s%s, expected %s%s", table[i].message, http_error_reason_to_string(r),
                                 counted ? "" : " (not counted)", http_error_reason_to_string(table[i].reason),
                                 table[i].counted ? "" : " (not counted)");
        }
        assert_int_equal(http_error_response_status("Error processing request (HTTP response code is 431 ('x'))"), 431);
        assert_int_equal(http_error_response_status("Error processing request (HTTP response code is 43"), -1);
        assert_int_equal(http_error_response_status("Error processing request (HTTP response code is 099 ('x'))"), -1);
        assert_int_equal(http_error_response_status("Not enough memory in pool"), -1);
        /* Every reason has its label value, each different. */
        for (HttpErrorReason a = 0; a < _HTTP_ERROR_REASON_MAX; a++) {
                assert_non_null(http_error_reason_to_string(a));
                for (HttpErrorReason b = 0; b < a; b++)
                        assert_string_not_equal(http_error_reason_to_string(a), http_error_reason_to_string(b));
        }
}

static void test_log_limit_bursts_then_counts(void **state) {
        LogLimit l = LOG_LIMIT_INIT(10 * 1000000ULL, 3);
        uint64_t suppressed = 99;

        /* Nothing to flush before the first message. */
        assert_int_equal(log_limit_flush(&l, 1000), 0);
        /* An interval from the first message at t=5 s: three lines, then counted. */
        for (int i = 0; i < 3; i++) {
                assert_true(log_limit_pass(&l, 5000000 + (uint64_t) i, &suppressed));
                assert_int_equal(suppressed, 0);
        }
        for (int i = 0; i < 1000; i++)
                assert_false(log_limit_pass(&l, 6000000, &suppressed));
        assert_int_equal(suppressed, 0);
        /* The interval runs until t=15 s: no count yet. */
        assert_int_equal(log_limit_flush(&l, 14999999), 0);
        /* Over: the count once, then nothing. */
        assert_int_equal(log_limit_flush(&l, 15000000), 1000);
        assert_int_equal(log_limit_flush(&l, 30000000), 0);
        /* The next message begins a new interval, with its own burst. */
        assert_true(log_limit_pass(&l, 40000000, &suppressed));
        assert_int_equal(suppressed, 0);
        assert_true(log_limit_pass(&l, 40000001, &suppressed));
        assert_true(log_limit_pass(&l, 40000002, &suppressed));
        assert_false(log_limit_pass(&l, 40000003, &suppressed));
        assert_false(log_limit_pass(&l, 40000004, &suppressed));
        /* A message after the interval reports the count before it passes. */
        assert_true(log_limit_pass(&l, 50000000, &suppressed));
        assert_int_equal(suppressed, 2);
        assert_true(log_limit_pass(&l, 50000001, &suppressed));
        assert_true(log_limit_pass(&l, 50000002, &suppressed));
        assert_false(log_limit_pass(&l, 50000003, &suppressed));
        /* At exit, whatever the age of the interval. */
        assert_int_equal(log_limit_flush(&l, 50000004), 0);
        assert_int_equal(log_limit_flush(&l, UINT64_MAX), 1);
        /* A burst of 0 logs nothing and counts everything. */
        l = LOG_LIMIT_INIT(1000, 0);
        assert_false(log_limit_pass(&l, 1, &suppressed));
        assert_false(log_limit_pass(&l, 2, &suppressed));
        assert_int_equal(log_limit_flush(&l, 1001), 2);
}

static void test_listen_address_format(void **state) {
        struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(10480) };
        struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(10480) };
        struct sockaddr_un un = { .sun_family = AF_UNIX };
        struct sockaddr other = { .sa_family = AF_APPLETALK };
        char buf[160];

        in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_int_equal(listen_address_format((struct sockaddr *) &in, sizeof(in), false, buf, sizeof(buf)), 0);
        assert_string_equal(buf, "127.0.0.1:10480");
        in.sin_addr.s_addr = htonl(INADDR_ANY);
        assert_int_equal(listen_address_format((struct sockaddr *) &in, sizeof(in), false, buf, sizeof(buf)), 0);
        assert_string_equal(buf, "0.0.0.0:10480, every IPv4 address");

        assert_int_equal(listen_address_format((struct sockaddr *) &in6, sizeof(in6), false, buf, sizeof(buf)), 0);
        assert_string_equal(buf, "[::]:10480, every address, IPv6 and IPv4");
        assert_int_equal(listen_address_format((struct sockaddr *) &in6, sizeof(in6), true, buf, sizeof(buf)), 0);
        assert_string_equal(buf, "[::]:10480, every IPv6 address");
        in6.sin6_addr = in6addr_loopback;
        assert_int_equal(listen_address_format((struct sockaddr *) &in6, sizeof(in6), false, buf, sizeof(buf)), 0);
        assert_string_equal(buf, "[::1]:10480");

        strcpy(un.sun_path, "/run/rdmad-exporter.sock");
        assert_int_equal(
                listen_address_format((struct sockaddr *) &un,
                                      (socklen_t) (offsetof(struct sockaddr_un, sun_path) + strlen(un.sun_path) + 1),
                                      false, buf, sizeof(buf)),
                0);
        assert_string_equal(buf, "unix:/run/rdmad-exporter.sock");
        /* Abstract: a NUL, then the name, not terminated. */
        memcpy(un.sun_path, "\0rdmad", 6);
        assert_int_equal(listen_address_format((struct sockaddr *) &un,
                                               (socklen_t) (offsetof(struct sockaddr_un, sun_path) + 6), false, buf,
                                               sizeof(buf)),
                         0);
        assert_string_equal(buf, "unix:@rdmad");
        assert_int_equal(listen_address_format(&other, sizeof(other), false, buf, sizeof(buf)), -EAFNOSUPPORT);
        /* Too short for its family. */
        assert_int_equal(listen_address_format((struct sockaddr *) &in, 4, false, buf, sizeof(buf)), -EAFNOSUPPORT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_text_exposition_of_a_small_host),
                cmocka_unit_test(test_openmetrics_names_families_and_ends_with_eof),
                cmocka_unit_test(test_openmetrics_help_escapes_quotes),
                cmocka_unit_test(test_down_is_only_rdmad_up_0),
                cmocka_unit_test(test_empty_host_has_no_empty_families),
                cmocka_unit_test(test_labels_derived_for_an_older_rdmad),
                cmocka_unit_test(test_device_health_is_a_state_set),
                cmocka_unit_test(test_rate_bytes_as_node_exporter),
                cmocka_unit_test(test_counter_names_as_node_exporter),
                cmocka_unit_test(test_content_types),
                cmocka_unit_test(test_negotiation),
                cmocka_unit_test(test_qvalues),
                cmocka_unit_test(test_listen_address_parse),
                cmocka_unit_test(test_scrape_budget_from_the_header),
                cmocka_unit_test(test_accept_encoding_gzip),
                cmocka_unit_test(test_gzip_round_trip),
                cmocka_unit_test(test_guard_evicts_the_oldest_unserved),
                cmocka_unit_test(test_exporter_series_with_http_errors),
                cmocka_unit_test(test_http_error_reasons_of_libmicrohttpd_messages),
                cmocka_unit_test(test_log_limit_bursts_then_counts),
                cmocka_unit_test(test_listen_address_format),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
