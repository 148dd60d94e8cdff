/* SPDX-License-Identifier: MIT */
/* The simulated host of the benchmark and the floods: N dual-port devices
 * written straight into a umockdev testbed. */
#include "host.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

/* N dual-port ConnectX-5-like PFs, SR-IOV capable: even ones RoCE (4 of 16
 * GIDs used, v1/v2, a netdev per port), odd ones InfiniBand (LIDs, one GID,
 * an IPoIB netdev per port); power attributes. Written straight into
 * the testbed in umockdev's layout (uevent files, subsystem and class
 * links): loading thousands of devices through umockdev's parser takes
 * minutes. */
void mkdir_p(const char *path) {
        char buf[1024];

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *p = buf + 1; *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        (void) mkdir(buf, 0755);
                        *p = '/';
                }
        (void) mkdir(buf, 0755);
}

void put(const char *dir, const char *name, const char *fmt, ...) {
        char path[1024];
        va_list ap;
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if (strchr(name, '/')) {
                char parent[1024];
                snprintf(parent, sizeof(parent), "%s", path);
                *strrchr(parent, '/') = '\0';
                mkdir_p(parent);
        }
        f = fopen(path, "we");
        assert_non_null(f);
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        assert_int_equal(fclose(f), 0);
}

void link_at(const char *dir, const char *name, const char *target) {
        char path[1024];

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        assert_int_equal(symlink(target, path), 0);
}

/* What GetAllCounters reads: the 21 IBTA counters, and mlx5's hw_counters on RoCE ports. */
static void write_port_counters(const char *port, bool is_ib, unsigned seed) {
        static const char *const ib_counters[] = {
                "VL15_dropped",
                "excessive_buffer_overrun_errors",
                "link_downed",
                "link_error_recovery",
                "local_link_integrity_errors",
                "multicast_rcv_packets",
                "multicast_xmit_packets",
                "port_rcv_constraint_errors",
                "port_rcv_data",
                "port_rcv_errors",
                "port_rcv_packets",
                "port_rcv_remote_physical_errors",
                "port_rcv_switch_relay_errors",
                "port_xmit_constraint_errors",
                "port_xmit_data",
                "port_xmit_discards",
                "port_xmit_packets",
                "port_xmit_wait",
                "symbol_error",
                "unicast_rcv_packets",
                "unicast_xmit_packets",
        };
        static const char *const hw_counters[] = {
                "duplicate_request", "local_ack_timeout_err", "np_cnp_sent",       "np_ecn_marked_roce_packets",
                "out_of_buffer",     "out_of_sequence",       "packet_seq_err",    "rnr_nak_retry_err",
                "rp_cnp_handled",    "rx_read_requests",      "rx_write_requests",
        };
        char name[128];

        for (size_t k = 0; k < sizeof(ib_counters) / sizeof(ib_counters[0]); k++) {
                snprintf(name, sizeof(name), "counters/%s", ib_counters[k]);
                put(port, name, "%u\n", seed * 1000 + (unsigned) k);
        }
        if (is_ib)
                return;
        for (size_t k = 0; k < sizeof(hw_counters) / sizeof(hw_counters[0]); k++) {
                snprintf(name, sizeof(name), "hw_counters/%s", hw_counters[k]);
                put(port, name, "%u\n", seed + (unsigned) k);
        }
        put(port, "hw_counters/lifespan", "10\n");
}

void host_pci_path(unsigned i, char *buf, size_t size) {
        unsigned bus = 0x10 + i / 8, fn = i % 8;

        snprintf(buf, size, "devices/pci%04x:00/%04x:00:00.0/%04x:%02x:00.%u", bus / 256, bus / 256, bus / 256,
                 bus % 256, fn);
}

void write_host(const char *root, unsigned n) {
        char sys[512], dir[1024], target[1024], pci[256];

        snprintf(sys, sizeof(sys), "%s/sys", root);
        snprintf(dir, sizeof(dir), "%s/class/infiniband", sys);
        mkdir_p(dir);
        snprintf(dir, sizeof(dir), "%s/class/net", sys);
        mkdir_p(dir);
        snprintf(dir, sizeof(dir), "%s/bus/pci/devices", sys);
        mkdir_p(dir);

        for (unsigned i = 0; i < n; i++) {
                char pcidir[1024], ib[1024], slot[64];

                host_pci_path(i, pci, sizeof(pci));
                snprintf(slot, sizeof(slot), "%s", strrchr(pci, '/') + 1);
                snprintf(pcidir, sizeof(pcidir), "%s/%s", sys, pci);
                mkdir_p(pcidir);
                put(pcidir, "uevent", "SUBSYSTEM=pci\nDRIVER=mlx5_core\nPCI_SLOT_NAME=%s\n", slot);
                put(pcidir, "vendor", "0x15b3\n");
                put(pcidir, "device", "0x1017\n");
                put(pcidir, "sriov_totalvfs", "8\n");
                put(pcidir, "sriov_numvfs", "0\n");
                link_at(pcidir, "driver", "../../../../bus/pci/drivers/mlx5_core");
                link_at(pcidir, "subsystem", "../../../../bus/pci");
                snprintf(dir, sizeof(dir), "%s/bus/pci/devices", sys);
                snprintf(target, sizeof(target), "../../../%s", pci);
                link_at(dir, slot, target);

                snprintf(ib, sizeof(ib), "%s/infiniband/mlx5_%u", pcidir, i);
                mkdir_p(ib);
                put(ib, "uevent", "NAME=mlx5_%u\n", i);
                link_at(ib, "subsystem", "../../../../../../class/infiniband");
                snprintf(target, sizeof(target), "../../../%s", slot);
                link_at(ib, "device", target);
                snprintf(dir, sizeof(dir), "%s/class/infiniband", sys);
                snprintf(target, sizeof(target), "../../%s/infiniband/mlx5_%u", pci, i);
                snprintf(slot, sizeof(slot), "mlx5_%u", i);
                link_at(dir, slot, target);
                put(ib, "node_type", "1: CA\n");
                put(ib, "node_guid", "9803:9b03:00aa:%04x\n", i);
                put(ib, "sys_image_guid", "9803:9b03:00aa:%04x\n", i);
                put(ib, "fw_ver", "16.35.2000\n");
                put(ib, "hca_type", "MT4119\n");
                put(ib, "hw_rev", "0\n");
                put(ib, "board_id", "MT_0000000012\n");
                put(ib, "node_desc", "host mlx5_%u\n", i);
                put(ib, "fw_pages", "155443\n");
                put(ib, "reg_pages", "0\n");
                put(ib, "power/control", "auto\n");
                put(ib, "power/runtime_status", "unsupported\n");

                for (unsigned p = 1; p <= 2; p++) {
                        char port[1100], name[64], netdir[1100];

                        snprintf(port, sizeof(port), "%s/ports/%u", ib, p);
                        mkdir_p(port);
                        bool is_ib = i % 2 == 1;

                        put(port, "state", "4: ACTIVE\n");
                        put(port, "phys_state", "5: LinkUp\n");
                        put(port, "rate", "100 Gb/sec (4X EDR)\n");
                        put(port, "link_layer", is_ib ? "InfiniBand\n" : "Ethernet\n");
                        put(port, "lid", "0x%x\n", is_ib ? 2 * i + p : 0);
                        put(port, "sm_lid", is_ib ? "0x1\n" : "0x0\n");
                        put(port, "lid_mask_count", "0\n");
                        put(port, "sm_sl", "0\n");
                        put(port, "cap_mask", is_ib ? "0x2651e848\n" : "0x04010000\n");
                        for (unsigned g = 0; g < 16; g++) {
                                snprintf(name, sizeof(name), "gids/%u", g);
                                if (g >= (is_ib ? 1u : 4u)) {
                                        put(port, name, "0000:0000:0000:0000:0000:0000:0000:0000\n");
                                        continue;
                                }
                                put(port, name, "fe80:0000:0000:0000:9a03:9bff:fe%02x:%04x\n", p, i);
                                if (is_ib)
                                        continue;
                                snprintf(name, sizeof(name), "gid_attrs/types/%u", g);
                                put(port, name, "%s\n", g % 2 ? "RoCE v2" : "IB/RoCE v1");
                                snprintf(name, sizeof(name), "gid_attrs/ndevs/%u", g);
                                put(port, name, "eth%up%u\n", i, p);
                        }
                        write_port_counters(port, is_ib, i * 2 + p);

                        snprintf(name, sizeof(name), "eth%up%u", i, p);
                        snprintf(netdir, sizeof(netdir), "%s/net/%s", pcidir, name);
                        mkdir_p(netdir);
                        put(netdir, "uevent", "INTERFACE=%s\nIFINDEX=%u\n", name, 10 + 2 * i + p);
                        link_at(netdir, "subsystem", "../../../../../../class/net");
                        put(netdir, "dev_port", "%u\n", p - 1);
                        put(netdir, "operstate", "up\n");
                        put(netdir, "mtu", "9000\n");
                        put(netdir, "address", "98:03:9b:%02x:%02x:%02x\n", (i >> 8) & 0xff, i & 0xff, p);
                        put(netdir, "type", is_ib ? "32\n" : "1\n");
                        put(netdir, "carrier", "1\n");
                        put(netdir, "speed", "100000\n");
                        snprintf(dir, sizeof(dir), "%s/class/net", sys);
                        snprintf(target, sizeof(target), "../../%s/net/%s", pci, name);
                        link_at(dir, name, target);
                }
        }
}
