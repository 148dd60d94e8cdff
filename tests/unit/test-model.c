/* SPDX-License-Identifier: MIT */
/* Loads the fixtures of tests/data into the model through libudev and sysfs,
 * as the daemon does. Runs under umockdev's LD_PRELOAD (umockdev-wrapper). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <umockdev.h>

#include "basic/utf8.h"
#include "basic/util.h"
#include "enumerate.h"
#include "link-poll.h"
#include "properties.h"
#include "verbs-events.h"
#include "device.h"
#include "netdev.h"
#include "port.h"
#include "verbs-policy.h"

typedef struct Host {
        UMockdevTestbed *testbed;
        struct udev *udev;
        Device **devices;
        size_t n;
} Host;

static Host *host_load(const char *const *fixtures) {
        Host *h = calloc(1, sizeof(Host));
        assert_non_null(h);

        h->testbed = umockdev_testbed_new();
        for (size_t i = 0; fixtures[i]; i++) {
                GError *error = NULL;
                char path[512];

                snprintf(path, sizeof(path), "%s/%s.umockdev", FIXTURE_DIR, fixtures[i]);
                if (!umockdev_testbed_add_from_file(h->testbed, path, &error))
                        fail_msg("Cannot load %s: %s", path, error->message);
        }

        h->udev = udev_new();
        assert_non_null(h->udev);
        assert_int_equal(enumerate_devices(h->udev, &h->devices, &h->n), 0);
        return h;
}

static void host_free(Host *h) {
        device_array_free(h->devices, h->n);
        udev_unref(h->udev);
        g_object_unref(h->testbed);
        free(h);
}

#define HOST(...) host_load((const char *const[]){ __VA_ARGS__, NULL })

static const Device *host_device(const Host *h, const char *name) {
        for (size_t i = 0; i < h->n; i++)
                if (streq(h->devices[i]->name, name))
                        return h->devices[i];
        fail_msg("device %s not loaded", name);
        return NULL;
}

static const Port *port(const Device *d, uint32_t n) {
        const Port *p = device_find_port(d, n);
        if (!p)
                fail_msg("%s has no port %u", d->name, n);
        return p;
}

static void test_mlx4_vpi_ib_and_ethernet_ports(void **state) {
        Host *h = HOST("mlx4-vpi");
        const Device *d;
        const Port *p;
        const NetDev *n;

        assert_int_equal(h->n, 1);
        d = host_device(h, "mlx4_0");
        assert_string_equal(d->sysfs_path, "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0");
        assert_string_equal(d->device_path, "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0");
        assert_string_equal(d->driver, "mlx4_core");
        assert_string_equal(d->node_type, "CA");
        assert_int_equal(d->node_type_num, 1);
        assert_string_equal(d->transport, "mixed"); /* VPI: an InfiniBand and an Ethernet port */
        assert_string_equal(d->pci_address, "0000:03:00.0");
        assert_int_equal(d->numa_node, 0);
        assert_string_equal(d->physfn_path, "");
        assert_string_equal(d->node_guid, "0002:c903:00a1:b2c0");
        assert_string_equal(d->sys_image_guid, "0002:c903:00a1:b2c3");
        assert_string_equal(d->fw_ver, "2.42.5000");
        assert_string_equal(d->hca_type, "MT4099");
        assert_string_equal(d->hw_rev, "0");
        assert_string_equal(d->board_id, "MT_1090120019");
        assert_string_equal(d->node_desc, "node01 HCA-1");
        assert_false(d->sriov_capable);
        assert_int_equal(d->num_vfs, 0);
        assert_int_equal(d->total_vfs, 0);
        assert_string_equal(attr_list_get(&d->attributes, "fw_ver"), "2.42.5000");
        assert_null(attr_list_get(&d->attributes, "device")); /* a link, not an attribute */
        assert_null(attr_list_get(&d->attributes, "ports"));  /* a directory */
        assert_string_equal(attr_list_get(&d->power_attributes, "control"), "auto");

        assert_int_equal(d->n_ports, 2);
        p = port(d, 1);
        assert_ptr_equal(p->device, d);
        assert_string_equal(p->state, "4: ACTIVE");
        assert_int_equal(p->state_num, 4);
        assert_string_equal(p->state_name, "ACTIVE");
        assert_string_equal(p->phys_state, "5: LinkUp");
        assert_int_equal(p->phys_state_num, 5);
        assert_string_equal(p->phys_state_name, "LinkUp");
        assert_string_equal(p->rate, "40 Gb/sec (4X QDR)");
        assert_true(p->rate_speed == 40);
        assert_string_equal(p->rate_unit, "Gb/sec");
        assert_string_equal(p->rate_info, "4X QDR");
        assert_string_equal(p->link_width, "4X");
        assert_string_equal(p->link_speed, "QDR");
        assert_string_equal(p->link_layer, "InfiniBand");
        assert_string_equal(p->transport, "InfiniBand");
        assert_int_equal(p->lid, 5);
        assert_int_equal(p->sm_lid, 1);
        assert_int_equal(p->lid_mask_count, 0);
        assert_int_equal(p->sm_sl, 0);
        assert_int_equal(p->cap_mask, 0x02514868);
        assert_string_equal(p->netdev, "ib0");
        assert_int_equal(p->n_gids, 1);
        assert_int_equal(p->gids[0].index, 0);
        assert_string_equal(p->gids[0].gid, "fe80:0000:0000:0000:0002:c903:00a1:b2c1");
        assert_string_equal(p->gids[0].type, ""); /* InfiniBand GIDs have no type */
        assert_string_equal(p->gids[0].ndev, ""); /* nor a netdev */
        assert_string_equal(attr_list_get(&p->attributes, "lid"), "0x5");

        p = port(d, 2);
        assert_string_equal(p->state_name, "DOWN");
        assert_string_equal(p->phys_state_name, "Disabled");
        assert_string_equal(p->link_layer, "Ethernet");
        assert_string_equal(p->transport, "RoCE");
        assert_string_equal(p->netdev, "ens1d1");
        assert_int_equal(p->n_gids, 1);
        assert_string_equal(p->gids[0].type, "IB/RoCE v1");
        assert_string_equal(p->gids[0].ndev, "ens1d1");

        assert_int_equal(d->n_netdevs, 2);
        assert_string_equal(d->netdevs[0]->name, "ens1d1"); /* sorted by name */
        n = device_find_netdev(d, "ib0");
        assert_non_null(n);
        assert_int_equal(n->dev_port, 0);
        assert_int_equal(n->port, 1);
        assert_string_equal(n->operstate, "up");
        assert_int_equal(n->mtu, 2044);
        assert_string_equal(n->address, "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1");
        assert_string_equal(attr_list_get(&n->attributes, "type"), "32");
        n = device_find_netdev(d, "ens1d1");
        assert_int_equal(n->dev_port, 1);
        assert_int_equal(n->port, 2);
        assert_string_equal(n->operstate, "down");
        assert_int_equal(n->mtu, 1500);

        host_free(h);
}

static void test_mlx5_roce_pf_with_sriov_and_its_vf(void **state) {
        Host *h = HOST("mlx5-roce-sriov");
        const Device *pf, *vf;
        const Port *p;

        assert_int_equal(h->n, 2);
        pf = host_device(h, "mlx5_0");
        assert_string_equal(pf->device_path, "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0");
        assert_string_equal(pf->driver, "mlx5_core");
        assert_string_equal(pf->transport, "RoCE");
        assert_string_equal(pf->fw_ver, "14.28.2006");
        assert_true(pf->sriov_capable);
        assert_int_equal(pf->total_vfs, 8);
        assert_int_equal(pf->num_vfs, 1);

        p = port(pf, 1);
        assert_string_equal(p->rate, "25 Gb/sec (1X EDR)");
        assert_true(p->rate_speed == 25);
        assert_string_equal(p->rate_info, "1X EDR");
        assert_string_equal(p->link_layer, "Ethernet");
        assert_string_equal(p->netdev, "ens1f0np0");
        assert_int_equal(p->cap_mask, 0x04010000);
        /* Eight entries in the table, four in use: zero GIDs are left out. */
        assert_int_equal(p->n_gids, 4);
        assert_string_equal(p->gids[0].gid, "fe80:0000:0000:0000:9a03:9bff:feaa:bbc0");
        assert_string_equal(p->gids[0].type, "IB/RoCE v1");
        assert_string_equal(p->gids[1].type, "RoCE v2");
        assert_int_equal(p->gids[2].index, 2);
        assert_string_equal(p->gids[2].gid, "0000:0000:0000:0000:0000:ffff:c0a8:010a");
        assert_string_equal(p->gids[3].type, "RoCE v2");
        for (size_t i = 0; i < p->n_gids; i++)
                assert_string_equal(p->gids[i].ndev, "ens1f0np0");
        assert_string_equal(pf->pci_address, "0000:5e:00.0");
        assert_string_equal(pf->physfn_path, ""); /* a PF */

        assert_int_equal(pf->n_netdevs, 1);
        assert_string_equal(pf->netdevs[0]->name, "ens1f0np0");
        assert_int_equal(pf->netdevs[0]->mtu, 9000);
        assert_string_equal(pf->netdevs[0]->address, "98:03:9b:aa:bb:c0");

        /* The VF is an RDMA device of its own; SR-IOV belongs to the PF only. */
        vf = host_device(h, "mlx5_1");
        assert_string_equal(vf->device_path, "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.2");
        assert_string_equal(vf->driver, "mlx5_core");
        assert_string_equal(vf->hca_type, "MT4120");
        assert_false(vf->sriov_capable);
        assert_string_equal(vf->pci_address, "0000:5e:00.2");
        assert_string_equal(vf->physfn_path, pf->device_path); /* physfn -> ../0000:5e:00.0 */
        assert_int_equal(vf->n_netdevs, 1);
        assert_string_equal(port(vf, 1)->netdev, "ens1f0v0");
        assert_int_equal(port(vf, 1)->n_gids, 2);

        host_free(h);
}

static void test_hfi1_omnipath(void **state) {
        Host *h = HOST("hfi1");
        const Device *d = host_device(h, "hfi1_0");
        const Port *p = port(d, 1);

        assert_string_equal(d->board_id, "HPE 100Gb 1-port OP101 QSFP28 x16 PCIe Gen3 with Intel Omni-Path Adapter");
        assert_string_equal(d->driver, "hfi1");
        assert_string_equal(d->transport, "InfiniBand");
        assert_string_equal(d->fw_ver, "1.27.0");
        assert_int_equal(d->n_netdevs, 0);
        assert_string_equal(p->rate, "100 Gb/sec (4X EDR)");
        assert_true(p->rate_speed == 100);
        assert_int_equal(p->lid, 1);
        assert_string_equal(p->netdev, "");
        assert_string_equal(p->gids[0].type, "");
        host_free(h);
}

static void test_rxe_finds_its_netdev_through_gid_ndevs(void **state) {
        Host *h = HOST("rxe");
        const Device *d = host_device(h, "rxe0");
        const Port *p = port(d, 1);

        assert_string_equal(d->sysfs_path, "/sys/devices/virtual/infiniband/rxe0");
        assert_string_equal(d->device_path, "");
        assert_string_equal(d->driver, "");
        assert_string_equal(d->transport, "RoCE");
        assert_false(d->sriov_capable);
        assert_int_equal(d->n_netdevs, 1);
        assert_string_equal(d->netdevs[0]->name, "veth-rdma0");
        assert_string_equal(d->netdevs[0]->operstate, "up");
        assert_int_equal(d->netdevs[0]->port, 1);
        assert_string_equal(p->netdev, "veth-rdma0");
        assert_string_equal(p->rate_info, "1X FDR10");
        assert_int_equal(p->n_gids, 4);
        host_free(h);
}

/* siw over a plain NIC: its parent is that NIC's PCI function, which has
 * SR-IOV, but carries no RDMA device: no SR-IOV published for siw. */
static void test_soft_device_over_a_plain_nic_has_no_sriov(void **state) {
        Host *h = HOST("siw-over-nic");
        const Device *d = host_device(h, "siw0");

        assert_string_equal(d->driver, "ixgbe");
        assert_string_equal(d->pci_address, "0000:07:00.0");
        assert_false(d->sriov_capable);
        assert_int_equal(d->total_vfs, 0);
        host_free(h);
}

static void test_siw_is_iwarp(void **state) {
        Host *h = HOST("siw");
        const Device *d = host_device(h, "siw0");
        const Port *p = port(d, 1);

        assert_string_equal(d->node_type, "RNIC");
        assert_int_equal(d->node_type_num, 4);
        assert_string_equal(d->transport, "iWARP");
        assert_string_equal(d->device_path, "");
        assert_string_equal(p->rate, "2.5 Gb/sec (1X SDR)");
        assert_true(p->rate_speed == 2.5);
        assert_string_equal(p->netdev, "dummy-siw0");
        assert_int_equal(d->n_netdevs, 1);
        host_free(h);
}

static void test_broken_device_loads_with_empty_values(void **state) {
        Host *h = HOST("broken");
        const Device *d = host_device(h, "broken_0");
        const Port *p;

        assert_string_equal(d->device_path, "/sys/devices/pci0000:ae/0000:ae:00.0/0000:af:00.0");
        assert_string_equal(d->driver, "");    /* no driver link */
        assert_string_equal(d->node_type, ""); /* empty file */
        assert_string_equal(d->transport, "unknown");
        assert_string_equal(d->node_guid, "");       /* missing */
        assert_string_equal(d->fw_ver, "1.0");       /* no trailing newline */
        assert_int_equal(strlen(d->board_id), 4096); /* oversized: cut at the cap */
        assert_string_equal(d->hca_type, "\xef\xbf\xbd(\xef\xbf\xbd"
                                         "A"); /* non-UTF-8 replaced */
        assert_string_equal(d->node_desc, "node\xef\xbf\xbd"
                                          "desc"); /* NUL replaced */
        assert_string_equal(d->hw_rev, "");        /* a directory: EISDIR */

        p = port(d, 1);
        assert_int_equal(p->state_num, 9); /* unknown number, kernel's name kept */
        assert_string_equal(p->state_name, "FUTURE");
        assert_int_equal(p->phys_state_num, 7);
        assert_string_equal(p->phys_state_name, "Phy Test");
        assert_string_equal(p->rate, ""); /* unreadable (EISDIR) */
        assert_true(p->rate_speed == 0);
        assert_string_equal(p->rate_unit, "");
        assert_string_equal(p->rate_info, "");
        assert_string_equal(p->link_layer, "Unknown"); /* missing */
        assert_int_equal(p->lid, 0);                   /* "garbage" */
        assert_int_equal(p->cap_mask, 0);              /* "0x" */
        assert_null(attr_list_get(&p->attributes, "rate"));

        p = port(d, 2);
        assert_int_equal(p->state_num, 5);
        assert_string_equal(p->state_name, "ACTIVE_DEFER");
        assert_string_equal(p->phys_state, "");
        assert_int_equal(p->phys_state_num, 0);
        assert_string_equal(p->rate, "");
        assert_int_equal(p->n_gids, 0);

        /* The device beside it loads normally: the old kernel's rate format. */
        d = host_device(h, "ib-dev.1");
        p = port(d, 1);
        assert_string_equal(p->rate, "10 Gb/sec (4X)");
        assert_string_equal(p->rate_info, "4X");
        assert_true(p->rate_speed == 10);
        assert_string_equal(p->state_name, "DOWN");
        assert_string_equal(p->phys_state_name, "Polling");
        host_free(h);
}

static void assert_attrs_utf8(const AttrList *l) {
        for (size_t i = 0; i < l->n; i++) {
                assert_true(utf8_is_valid_n(l->items[i].name, strlen(l->items[i].name)));
                assert_true(utf8_is_valid_n(l->items[i].value, strlen(l->items[i].value)));
        }
}

#define ASSERT_UTF8(s) assert_true((s) && utf8_is_valid_n((s), strlen(s)))

static void test_whole_host_sorted_and_valid_utf8(void **state) {
        Host *h = HOST("mlx4-vpi", "mlx5-roce-sriov", "hfi1", "rxe", "siw", "broken");
        static const char *const names[] = { "broken_0", "hfi1_0", "ib-dev.1", "mlx4_0",
                                             "mlx5_0",   "mlx5_1", "rxe0",     "siw0" };

        assert_int_equal(h->n, ELEMENTSOF(names));
        for (size_t i = 0; i < h->n; i++) {
                const Device *d = h->devices[i];

                assert_string_equal(d->name, names[i]);
                ASSERT_UTF8(d->sysfs_path);
                ASSERT_UTF8(d->device_path);
                ASSERT_UTF8(d->driver);
                ASSERT_UTF8(d->node_type);
                ASSERT_UTF8(d->transport);
                ASSERT_UTF8(d->node_guid);
                ASSERT_UTF8(d->sys_image_guid);
                ASSERT_UTF8(d->fw_ver);
                ASSERT_UTF8(d->hca_type);
                ASSERT_UTF8(d->hw_rev);
                ASSERT_UTF8(d->board_id);
                ASSERT_UTF8(d->node_desc);
                assert_attrs_utf8(&d->attributes);
                assert_attrs_utf8(&d->power_attributes);
                assert_true(d->n_ports > 0);
                for (size_t j = 0; j < d->n_ports; j++) {
                        const Port *p = &d->ports[j];
                        if (j > 0)
                                assert_true(p->number > d->ports[j - 1].number);
                        ASSERT_UTF8(p->state);
                        ASSERT_UTF8(p->state_name);
                        ASSERT_UTF8(p->phys_state);
                        ASSERT_UTF8(p->phys_state_name);
                        ASSERT_UTF8(p->rate);
                        ASSERT_UTF8(p->rate_unit);
                        ASSERT_UTF8(p->rate_info);
                        ASSERT_UTF8(p->link_layer);
                        ASSERT_UTF8(p->netdev);
                        for (size_t k = 0; k < p->n_gids; k++) {
                                ASSERT_UTF8(p->gids[k].gid);
                                ASSERT_UTF8(p->gids[k].type);
                        }
                        assert_attrs_utf8(&p->attributes);
                }
                for (size_t j = 0; j < d->n_netdevs; j++) {
                        ASSERT_UTF8(d->netdevs[j]->name);
                        ASSERT_UTF8(d->netdevs[j]->operstate);
                        ASSERT_UTF8(d->netdevs[j]->address);
                        assert_attrs_utf8(&d->netdevs[j]->attributes);
                }
        }
        host_free(h);
}

#define MLX4_0   "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0"
#define MLX4_IB0 "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/net/ib0"

/* The poll's re-derivation replaces every derived string of a port and a
 * netdev, there and back: under valgrind, a replaced string that nothing
 * frees (one without a row in the change table, say) is a leak here. */
/* A re-read as rdmad makes it: the reads (a reader thread's half), then
 * their application to the model (the loop's). */
static int refresh_link(Port *p, PropertyMask *ret_changed) {
        FileValue values[PORT_LINK_FILES] = {};
        int r;

        r = port_read_files(p->device->sysfs_path, p->number, true, strcmp(p->link_layer, "Ethernet") == 0, values);
        if (r >= 0)
                r = port_apply_link(p, values, ret_changed);
        file_values_clear(values, PORT_LINK_FILES);
        return r;
}

static int refresh_netdev(NetDev *n, PropertyMask *ret_changed) {
        FileValue values[NETDEV_FILES] = {};
        int r;

        r = netdev_read(n->name, values);
        if (r >= 0)
                r = netdev_apply(n, values, ret_changed);
        file_values_clear(values, NETDEV_FILES);
        return r;
}

static void test_refresh_replaces_derived_strings(void **state) {
        Host *h = HOST("mlx4-vpi");
        Device *d = (Device *) host_device(h, "mlx4_0");
        Port *p = (Port *) port(d, 1), *eth = (Port *) port(d, 2);
        NetDev *n = (NetDev *) device_find_netdev(d, "ib0");
        PropertyMask changed;

        for (int round = 0; round < 2; round++) {
                bool down = round == 0;

                umockdev_testbed_set_attribute(h->testbed, MLX4_0, "ports/1/state", down ? "1: DOWN\n" : "4: ACTIVE\n");
                umockdev_testbed_set_attribute(h->testbed, MLX4_0, "ports/1/phys_state",
                                               down ? "3: Disabled\n" : "5: LinkUp\n");
                umockdev_testbed_set_attribute(h->testbed, MLX4_0, "ports/1/rate",
                                               down ? "10 Mb/sec (1X SDR)\n" : "40 Gb/sec (4X QDR)\n");
                umockdev_testbed_set_attribute(h->testbed, MLX4_0, "ports/1/lid", down ? "0x6\n" : "0x5\n");
                assert_int_equal(refresh_link(p, &changed), 0);
                assert_int_equal(changed,
                                 PORT_STATE_MASK | PROPERTY_BIT(PORT_PROP_RATE) | PROPERTY_BIT(PORT_PROP_RATE_SPEED) |
                                         PROPERTY_BIT(PORT_PROP_RATE_UNIT) | PROPERTY_BIT(PORT_PROP_RATE_INFO) |
                                         PROPERTY_BIT(PORT_PROP_LINK_WIDTH) | PROPERTY_BIT(PORT_PROP_LINK_SPEED) |
                                         PROPERTY_BIT(PORT_PROP_LID) | PROPERTY_BIT(PORT_PROP_ATTRIBUTES));
                assert_string_equal(p->state_name, down ? "DOWN" : "ACTIVE");
                assert_string_equal(p->phys_state_name, down ? "Disabled" : "LinkUp");
                assert_string_equal(p->rate_unit, down ? "Mb/sec" : "Gb/sec");
                assert_string_equal(p->link_width, down ? "1X" : "4X");
                assert_string_equal(p->link_speed, down ? "SDR" : "QDR");
                assert_int_equal(p->lid, down ? 6 : 5);

                /* Nothing new: nothing re-derived. */
                assert_int_equal(refresh_link(p, &changed), 0);
                assert_int_equal(changed, 0);

                umockdev_testbed_set_attribute(h->testbed, MLX4_IB0, "operstate", down ? "down\n" : "up\n");
                umockdev_testbed_set_attribute(h->testbed, MLX4_IB0, "address", down ? "00:11\n" : "00:22\n");
                assert_int_equal(refresh_netdev(n, &changed), 0);
                assert_int_equal(changed, PROPERTY_BIT(NETDEV_PROP_OPER_STATE) | PROPERTY_BIT(NETDEV_PROP_ADDRESS) |
                                                  PROPERTY_BIT(NETDEV_PROP_ATTRIBUTES));
                assert_string_equal(n->operstate, down ? "down" : "up");
                assert_string_equal(n->address, down ? "00:11" : "00:22");
        }

        /* An Ethernet port's InfiniBand addressing is not re-read; its state is. */
        umockdev_testbed_set_attribute(h->testbed, MLX4_0, "ports/2/lid", "0x9\n");
        assert_int_equal(refresh_link(eth, &changed), 0);
        assert_int_equal(changed, 0);
        umockdev_testbed_set_attribute(h->testbed, MLX4_0, "ports/2/state", "4: ACTIVE\n");
        assert_int_equal(refresh_link(eth, &changed), 0);
        assert_true(changed & PROPERTY_BIT(PORT_PROP_STATE));
        assert_int_equal(eth->lid, 0);
        assert_string_equal(attr_list_get(&eth->attributes, "lid"), "0x0");

        host_free(h);
}

static void test_vanished_device_is_an_error_not_a_crash(void **state) {
        Host *h = HOST("hfi1");
        Device *d = NULL;

        assert_int_equal(device_load("/sys/devices/pci0000:80/gone/infiniband/x", "x", &d), -ENOENT);
        assert_null(d);
        host_free(h);
}

/* Which devices get a verbs context, what LinkEvents says, how often the
 * poll reads each port, and the back-off of a failing context. */
static void test_verbs_coverage_and_poll_schedule(void **state) {
        Host *h = HOST("mlx4-vpi", "hfi1", "rxe", "siw", "mlx5-roce-sriov");
        Device *mlx4 = (Device *) host_device(h, "mlx4_0");
        Device *mlx5 = (Device *) host_device(h, "mlx5_0");
        Port *ib = &mlx4->ports[0], *eth = &mlx4->ports[1];
        LinkPoll *poll = NULL;

        assert_int_equal(link_poll_new(NULL, &poll), 0);

        assert_null(verbs_skip_reason(mlx4));
        assert_null(verbs_skip_reason(host_device(h, "hfi1_0")));
        assert_string_equal(verbs_skip_reason(host_device(h, "rxe0")), "a software device");
        assert_string_equal(verbs_skip_reason(host_device(h, "siw0")), "a software device");
        assert_string_equal(verbs_skip_reason(host_device(h, "mlx5_0")), "no InfiniBand port");

        assert_string_equal(ib->link_events, "poll");
        assert_string_equal(eth->link_events, "rtnetlink");
        assert_true(link_poll_port_every_tick(poll, ib));
        assert_false(link_poll_port_every_tick(poll, eth));
        link_poll_port_boost(poll, eth, 1);
        assert_true(link_poll_port_every_tick(poll, eth));
        /* A state change: read every tick until the next tick re-read it in full. */
        assert_false(link_poll_port_every_tick(poll, &mlx5->ports[0]));
        link_poll_port_changed(poll, &mlx5->ports[0], PROPERTY_BIT(PORT_PROP_LID));
        assert_false(link_poll_port_every_tick(poll, &mlx5->ports[0]));
        link_poll_port_changed(poll, &mlx5->ports[0], PROPERTY_BIT(PORT_PROP_STATE));
        assert_true(link_poll_port_every_tick(poll, &mlx5->ports[0]));

        mlx4->verbs_covered = true;
        ib->link_events = port_link_events(ib);
        assert_string_equal(ib->link_events, "verbs");
        assert_string_equal(port_link_events(eth), "rtnetlink");
        /* ACTIVE: the events cover it; INIT and ARMED: polled until ACTIVE. */
        assert_false(link_poll_port_every_tick(poll, ib));
        ib->state_num = 2;
        assert_true(link_poll_port_every_tick(poll, ib));
        ib->state_num = 3;
        assert_true(link_poll_port_every_tick(poll, ib));
        ib->state_num = 1;
        assert_false(link_poll_port_every_tick(poll, ib));

        assert_int_equal(verbs_retry_delay_usec(1), 1000000);
        assert_int_equal(verbs_retry_delay_usec(2), 2000000);
        assert_int_equal(verbs_retry_delay_usec(4), 8000000);
        assert_int_equal(verbs_retry_delay_usec(40), 300000000);
        link_poll_free(poll);
        host_free(h);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mlx4_vpi_ib_and_ethernet_ports),
                cmocka_unit_test(test_mlx5_roce_pf_with_sriov_and_its_vf),
                cmocka_unit_test(test_hfi1_omnipath),
                cmocka_unit_test(test_rxe_finds_its_netdev_through_gid_ndevs),
                cmocka_unit_test(test_siw_is_iwarp),
                cmocka_unit_test(test_verbs_coverage_and_poll_schedule),
                cmocka_unit_test(test_broken_device_loads_with_empty_values),
                cmocka_unit_test(test_soft_device_over_a_plain_nic_has_no_sriov),
                cmocka_unit_test(test_whole_host_sorted_and_valid_utf8),
                cmocka_unit_test(test_refresh_replaces_derived_strings),
                cmocka_unit_test(test_vanished_device_is_an_error_not_a_crash),
        };

        if (!strstr(getenv("LD_PRELOAD") ?: "", "libumockdev-preload")) {
                fprintf(stderr, "test-model must run under umockdev-wrapper\n");
                return 1;
        }
        return cmocka_run_group_tests(tests, NULL, NULL);
}
