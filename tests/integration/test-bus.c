/* SPDX-License-Identifier: MIT */
/* The org.rdmad1 API as clients see it: the real rdmad on a private bus,
 * on umockdev testbeds of the fixtures in tests/data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>
#include <gio/gio.h>

#include "harness.h"

#define HOST_FIXTURES HARNESS_FIXTURES("mlx4-vpi", "mlx5-roce-sriov", "hfi1", "rxe", "siw", "broken")

#define MLX5_0 "/org/rdmad1/device/mlx5_5f0"
#define MLX4_0 "/org/rdmad1/device/mlx4_5f0"

static int host_setup(void **state) {
        *state = harness_start(HOST_FIXTURES, NULL);
        return 0;
}

static int empty_setup(void **state) {
        *state = harness_start(NULL, NULL);
        return 0;
}

static void test_ready_only_with_the_name_taken(void **state) {
        Harness *h = *state;
        int has = 0;

        /* READY=1 arrived in harness_start(); the name must be there already. */
        assert_true(sd_bus_call_method(h->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "NameHasOwner", NULL, NULL, "s", RDMAD_BUS_NAME) >= 0);
        sd_bus_message *reply = NULL;
        assert_true(sd_bus_call_method(h->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "NameHasOwner", NULL, &reply, "s", RDMAD_BUS_NAME) >= 0);
        assert_true(sd_bus_message_read(reply, "b", &has) > 0);
        sd_bus_message_unref(reply);
        assert_true(has);
}

static const char host_interfaces[] =
        "/org/rdmad1/device/broken_5f0 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/broken_5f0 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/broken_5f0 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/broken_5f0 org.rdmad1.Device\n"
        "/org/rdmad1/device/broken_5f0/port/1 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/broken_5f0/port/1 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/broken_5f0/port/1 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/broken_5f0/port/1 org.rdmad1.Port\n"
        "/org/rdmad1/device/broken_5f0/port/2 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/broken_5f0/port/2 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/broken_5f0/port/2 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/broken_5f0/port/2 org.rdmad1.Port\n"
        "/org/rdmad1/device/hfi1_5f0 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/hfi1_5f0 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/hfi1_5f0 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/hfi1_5f0 org.rdmad1.Device\n"
        "/org/rdmad1/device/hfi1_5f0/port/1 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/hfi1_5f0/port/1 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/hfi1_5f0/port/1 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/hfi1_5f0/port/1 org.rdmad1.Port\n"
        "/org/rdmad1/device/ib_2ddev_2e1 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/ib_2ddev_2e1 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/ib_2ddev_2e1 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/ib_2ddev_2e1 org.rdmad1.Device\n"
        "/org/rdmad1/device/ib_2ddev_2e1/port/1 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/ib_2ddev_2e1/port/1 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/ib_2ddev_2e1/port/1 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/ib_2ddev_2e1/port/1 org.rdmad1.Port\n"
        "/org/rdmad1/device/mlx4_5f0 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/mlx4_5f0 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/mlx4_5f0 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/mlx4_5f0 org.rdmad1.Device\n"
        "/org/rdmad1/device/mlx4_5f0/netdev/ens1d1 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/mlx4_5f0/netdev/ens1d1 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/mlx4_5f0/netdev/ens1d1 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/mlx4_5f0/netdev/ens1d1 org.rdmad1.NetDev\n"
        "/org/rdmad1/device/mlx4_5f0/netdev/ib0 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/mlx4_5f0/netdev/ib0 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/mlx4_5f0/netdev/ib0 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/mlx4_5f0/netdev/ib0 org.rdmad1.NetDev\n"
        "/org/rdmad1/device/mlx4_5f0/port/1 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/mlx4_5f0/port/1 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/mlx4_5f0/port/1 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/mlx4_5f0/port/1 org.rdmad1.Port\n"
        "/org/rdmad1/device/mlx4_5f0/port/2 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/mlx4_5f0/port/2 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/mlx4_5f0/port/2 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/mlx4_5f0/port/2 org.rdmad1.Port\n"
        "/org/rdmad1/device/mlx5_5f0 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/mlx5_5f0 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/mlx5_5f0 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/mlx5_5f0 org.rdmad1.Device\n"
        "/org/rdmad1/device/mlx5_5f0/netdev/ens1f0np0 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/mlx5_5f0/netdev/ens1f0np0 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/mlx5_5f0/netdev/ens1f0np0 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/mlx5_5f0/netdev/ens1f0np0 org.rdmad1.NetDev\n"
        "/org/rdmad1/device/mlx5_5f0/port/1 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/mlx5_5f0/port/1 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/mlx5_5f0/port/1 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/mlx5_5f0/port/1 org.rdmad1.Port\n"
        "/org/rdmad1/device/mlx5_5f0/sriov org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/mlx5_5f0/sriov org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/mlx5_5f0/sriov org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/mlx5_5f0/sriov org.rdmad1.Sriov\n"
        "/org/rdmad1/device/mlx5_5f1 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/mlx5_5f1 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/mlx5_5f1 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/mlx5_5f1 org.rdmad1.Device\n"
        "/org/rdmad1/device/mlx5_5f1/netdev/ens1f0v0 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/mlx5_5f1/netdev/ens1f0v0 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/mlx5_5f1/netdev/ens1f0v0 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/mlx5_5f1/netdev/ens1f0v0 org.rdmad1.NetDev\n"
        "/org/rdmad1/device/mlx5_5f1/port/1 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/mlx5_5f1/port/1 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/mlx5_5f1/port/1 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/mlx5_5f1/port/1 org.rdmad1.Port\n"
        "/org/rdmad1/device/rxe0 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/rxe0 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/rxe0 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/rxe0 org.rdmad1.Device\n"
        "/org/rdmad1/device/rxe0/netdev/veth_2drdma0 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/rxe0/netdev/veth_2drdma0 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/rxe0/netdev/veth_2drdma0 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/rxe0/netdev/veth_2drdma0 org.rdmad1.NetDev\n"
        "/org/rdmad1/device/rxe0/port/1 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/rxe0/port/1 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/rxe0/port/1 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/rxe0/port/1 org.rdmad1.Port\n"
        "/org/rdmad1/device/siw0 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/siw0 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/siw0 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/siw0 org.rdmad1.Device\n"
        "/org/rdmad1/device/siw0/netdev/dummy_2dsiw0 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/siw0/netdev/dummy_2dsiw0 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/siw0/netdev/dummy_2dsiw0 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/siw0/netdev/dummy_2dsiw0 org.rdmad1.NetDev\n"
        "/org/rdmad1/device/siw0/port/1 org.freedesktop.DBus.Introspectable\n"
        "/org/rdmad1/device/siw0/port/1 org.freedesktop.DBus.Peer\n"
        "/org/rdmad1/device/siw0/port/1 org.freedesktop.DBus.Properties\n"
        "/org/rdmad1/device/siw0/port/1 org.rdmad1.Port\n";

#define OBJ_EQ(o, path, iface, name, expected)                                                                         \
        do {                                                                                                           \
                const char *_v = objects_get((o), (path), (iface), (name));                                            \
                if (!_v)                                                                                               \
                        fail_msg("%s has no %s.%s", (path), (iface), (name));                                          \
                assert_string_equal(_v, (expected));                                                                   \
        } while (0)

static void test_managed_objects_of_a_realistic_host(void **state) {
        Harness *h = *state;
        Objects *o = get_managed_objects(h);
        char *ifaces = objects_interfaces(o);
        const char *v;

        /* Exactly these objects and interfaces: nothing missing, nothing extra. */
        assert_string_equal(ifaces, host_interfaces);
        free(ifaces);

        /* mlx5 PF: RoCE, SR-IOV, GIDs with types. */
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NAME, "mlx5_0");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_SYSFS_PATH,
               "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/infiniband/mlx5_0");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_DEVICE_PATH,
               "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_DRIVER, "mlx5_core");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NODE_TYPE, "CA");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_TRANSPORT, "RoCE");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_PCI_ADDRESS, "0000:5e:00.0");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NUMA_NODE, "0");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_PHYSICAL_FUNCTION, "/");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_VIRTUAL_FUNCTIONS,
               "[\"/org/rdmad1/device/mlx5_5f1\"]");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NODE_GUID, "9803:9b03:00aa:bbc0");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_SYS_IMAGE_GUID, "9803:9b03:00aa:bbc0");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_FIRMWARE_VERSION, "14.28.2006");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_HCA_TYPE, "MT4119");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_HW_REV, "0");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_BOARD_ID, "MT_0000000008");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NODE_DESCRIPTION, "node03 mlx5_0");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_PORTS, "[\"" MLX5_0 "/port/1\"]");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_PORT_NUMBERS, "[1]");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NETDEVS, "[\"" MLX5_0 "/netdev/ens1f0np0\"]");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_SRIOV_CAPABLE, "true");
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_SRIOV, MLX5_0 "/sriov");
        v = objects_get(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_ATTRIBUTES);
        assert_non_null(v);
        assert_non_null(strstr(v, "\"fw_ver\": \"14.28.2006\""));
        assert_non_null(strstr(v, "\"node_type\": \"1: CA\""));
        OBJ_EQ(o, MLX5_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_POWER_ATTRIBUTES,
               "{\"async\": \"disabled\", \"control\": \"auto\", \"runtime_active_kids\": \"0\", "
               "\"runtime_active_time\": \"0\", \"runtime_enabled\": \"disabled\", \"runtime_status\": "
               "\"unsupported\", \"runtime_suspended_time\": \"0\", \"runtime_usage\": \"0\"}");

        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_DEVICE, MLX5_0);
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_NUMBER, "1");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE, "4: ACTIVE");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NUM, "4");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_PHYS_STATE, "5: LinkUp");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_PHYS_STATE_NUM, "5");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_PHYS_STATE_NAME, "LinkUp");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_RATE, "25 Gb/sec (1X EDR)");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_RATE_SPEED, "25");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_RATE_UNIT, "Gb/sec");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_RATE_INFO, "1X EDR");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_WIDTH, "1X");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_SPEED, "EDR");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_TRANSPORT, "RoCE");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_LAYER, "Ethernet");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LID, "0");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_CAP_MASK, "67174400"); /* 0x04010000 */
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_NETDEV, MLX5_0 "/netdev/ens1f0np0");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGED_USEC, "0");
        OBJ_EQ(o, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_GIDS,
               "[(0, \"fe80:0000:0000:0000:9a03:9bff:feaa:bbc0\", \"IB/RoCE v1\", \"ens1f0np0\"), "
               "(1, \"fe80:0000:0000:0000:9a03:9bff:feaa:bbc0\", \"RoCE v2\", \"ens1f0np0\"), "
               "(2, \"0000:0000:0000:0000:0000:ffff:c0a8:010a\", \"IB/RoCE v1\", \"ens1f0np0\"), "
               "(3, \"0000:0000:0000:0000:0000:ffff:c0a8:010a\", \"RoCE v2\", \"ens1f0np0\")]");

        OBJ_EQ(o, MLX5_0 "/netdev/ens1f0np0", RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_NAME, "ens1f0np0");
        OBJ_EQ(o, MLX5_0 "/netdev/ens1f0np0", RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_DEVICE, MLX5_0);
        OBJ_EQ(o, MLX5_0 "/netdev/ens1f0np0", RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_DEV_PORT, "0");
        OBJ_EQ(o, MLX5_0 "/netdev/ens1f0np0", RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_PORT, MLX5_0 "/port/1");
        OBJ_EQ(o, MLX5_0 "/netdev/ens1f0np0", RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_OPER_STATE, "up");
        OBJ_EQ(o, MLX5_0 "/netdev/ens1f0np0", RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_ADDRESS,
               "98:03:9b:aa:bb:c0");
        OBJ_EQ(o, MLX5_0 "/netdev/ens1f0np0", RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_MTU, "9000");

        OBJ_EQ(o, MLX5_0 "/sriov", RDMAD_SRIOV_INTERFACE, RDMAD_SRIOV_PROPERTY_DEVICE, MLX5_0);
        OBJ_EQ(o, MLX5_0 "/sriov", RDMAD_SRIOV_INTERFACE, RDMAD_SRIOV_PROPERTY_DEVICE_PATH,
               "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0");
        OBJ_EQ(o, MLX5_0 "/sriov", RDMAD_SRIOV_INTERFACE, RDMAD_SRIOV_PROPERTY_NUM_VFS, "1");
        OBJ_EQ(o, MLX5_0 "/sriov", RDMAD_SRIOV_INTERFACE, RDMAD_SRIOV_PROPERTY_TOTAL_VFS, "8");

        /* The VF: an RDMA device of its own, no SR-IOV object. */
        OBJ_EQ(o, "/org/rdmad1/device/mlx5_5f1", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_SRIOV_CAPABLE, "false");
        OBJ_EQ(o, "/org/rdmad1/device/mlx5_5f1", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_SRIOV, "/");
        OBJ_EQ(o, "/org/rdmad1/device/mlx5_5f1", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_PHYSICAL_FUNCTION,
               MLX5_0);
        OBJ_EQ(o, "/org/rdmad1/device/mlx5_5f1", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_VIRTUAL_FUNCTIONS, "[]");
        OBJ_EQ(o, "/org/rdmad1/device/mlx5_5f1", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_PCI_ADDRESS,
               "0000:5e:00.2");

        /* mlx4 VPI: an InfiniBand port and an Ethernet port, each with its netdev. */
        OBJ_EQ(o, MLX4_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_TRANSPORT, "mixed");
        OBJ_EQ(o, MLX4_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_TRANSPORT, "InfiniBand");
        OBJ_EQ(o, MLX4_0 "/port/2", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_TRANSPORT, "RoCE");
        OBJ_EQ(o, MLX4_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_PHYSICAL_FUNCTION, "/");
        OBJ_EQ(o, MLX4_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_VIRTUAL_FUNCTIONS, "[]");
        OBJ_EQ(o, MLX4_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_PORT_NUMBERS, "[1, 2]");
        OBJ_EQ(o, MLX4_0, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NETDEVS,
               "[\"" MLX4_0 "/netdev/ens1d1\", \"" MLX4_0 "/netdev/ib0\"]");
        OBJ_EQ(o, MLX4_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LID, "5");
        OBJ_EQ(o, MLX4_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_SM_LID, "1");
        OBJ_EQ(o, MLX4_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_RATE, "40 Gb/sec (4X QDR)");
        OBJ_EQ(o, MLX4_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_NETDEV, MLX4_0 "/netdev/ib0");
        OBJ_EQ(o, MLX4_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_GIDS,
               "[(0, \"fe80:0000:0000:0000:0002:c903:00a1:b2c1\", \"\", \"\")]");
        OBJ_EQ(o, MLX4_0 "/port/2", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_LAYER, "Ethernet");
        OBJ_EQ(o, MLX4_0 "/port/2", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "DOWN");
        OBJ_EQ(o, MLX4_0 "/port/2", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_NETDEV, MLX4_0 "/netdev/ens1d1");
        OBJ_EQ(o, MLX4_0 "/netdev/ib0", RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_MTU, "2044");
        OBJ_EQ(o, MLX4_0 "/netdev/ib0", RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_PORT, MLX4_0 "/port/1");
        OBJ_EQ(o, MLX4_0 "/netdev/ens1d1", RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_DEV_PORT, "1");

        /* Omni-Path, soft-RoCE, soft-iWARP. */
        OBJ_EQ(o, "/org/rdmad1/device/hfi1_5f0", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_BOARD_ID,
               "HPE 100Gb 1-port OP101 QSFP28 x16 PCIe Gen3 with Intel Omni-Path Adapter");
        OBJ_EQ(o, "/org/rdmad1/device/hfi1_5f0/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_NETDEV, "/");
        OBJ_EQ(o, "/org/rdmad1/device/hfi1_5f0", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NUMA_NODE, "1");
        OBJ_EQ(o, "/org/rdmad1/device/rxe0", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_PCI_ADDRESS, "");
        OBJ_EQ(o, "/org/rdmad1/device/rxe0", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NUMA_NODE, "-1");
        OBJ_EQ(o, "/org/rdmad1/device/rxe0", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_DEVICE_PATH, "");
        OBJ_EQ(o, "/org/rdmad1/device/rxe0", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_TRANSPORT, "RoCE");
        OBJ_EQ(o, "/org/rdmad1/device/rxe0/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_NETDEV,
               "/org/rdmad1/device/rxe0/netdev/veth_2drdma0");
        OBJ_EQ(o, "/org/rdmad1/device/siw0", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_TRANSPORT, "iWARP");
        OBJ_EQ(o, "/org/rdmad1/device/siw0/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_TRANSPORT, "iWARP");
        OBJ_EQ(o, "/org/rdmad1/device/siw0/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_WIDTH, "1X");
        OBJ_EQ(o, "/org/rdmad1/device/siw0/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_SPEED, "SDR");
        OBJ_EQ(o, "/org/rdmad1/device/siw0", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NODE_TYPE, "RNIC");
        OBJ_EQ(o, "/org/rdmad1/device/siw0/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_RATE_SPEED, "2.5");

        /* The broken device: published, with "" and 0, every string valid UTF-8. */
        OBJ_EQ(o, "/org/rdmad1/device/broken_5f0", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NODE_TYPE, "");
        OBJ_EQ(o, "/org/rdmad1/device/broken_5f0", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_DRIVER, "");
        OBJ_EQ(o, "/org/rdmad1/device/broken_5f0", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_HCA_TYPE,
               "\xef\xbf\xbd(\xef\xbf\xbd"
               "A");
        OBJ_EQ(o, "/org/rdmad1/device/broken_5f0", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_FIRMWARE_VERSION,
               "1.0");
        OBJ_EQ(o, "/org/rdmad1/device/broken_5f0/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_RATE, "");
        OBJ_EQ(o, "/org/rdmad1/device/broken_5f0/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_RATE_SPEED, "0");
        OBJ_EQ(o, "/org/rdmad1/device/broken_5f0/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME,
               "FUTURE");
        OBJ_EQ(o, "/org/rdmad1/device/broken_5f0/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_PHYS_STATE_NAME,
               "Phy Test");
        OBJ_EQ(o, "/org/rdmad1/device/broken_5f0/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_LAYER,
               "Unknown");
        OBJ_EQ(o, "/org/rdmad1/device/broken_5f0/port/2", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME,
               "ACTIVE_DEFER");
        /* A name that needs escaping. */
        OBJ_EQ(o, "/org/rdmad1/device/ib_2ddev_2e1", RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NAME, "ib-dev.1");
        OBJ_EQ(o, "/org/rdmad1/device/ib_2ddev_2e1/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_RATE_INFO, "4X");
        OBJ_EQ(o, "/org/rdmad1/device/ib_2ddev_2e1/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_WIDTH, "4X");
        OBJ_EQ(o, "/org/rdmad1/device/ib_2ddev_2e1/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_SPEED, "");
        OBJ_EQ(o, "/org/rdmad1/device/broken_5f0/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_WIDTH, "");
        OBJ_EQ(o, "/org/rdmad1/device/broken_5f0/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_TRANSPORT,
               "unknown");

        objects_free(o);
}

static void test_manager_properties(void **state) {
        Harness *h = *state;

        harness_assert_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_VERSION,
                                RDMAD_VERSION);
        harness_assert_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_POLL_INTERVAL_MS,
                                "1000");
        harness_assert_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_DEVICES,
                                "[\"/org/rdmad1/device/broken_5f0\", \"/org/rdmad1/device/hfi1_5f0\", "
                                "\"/org/rdmad1/device/ib_2ddev_2e1\", \"/org/rdmad1/device/mlx4_5f0\", "
                                "\"/org/rdmad1/device/mlx5_5f0\", \"/org/rdmad1/device/mlx5_5f1\", "
                                "\"/org/rdmad1/device/rxe0\", \"/org/rdmad1/device/siw0\"]");
}

static void test_get_and_getall_agree_with_managed_objects(void **state) {
        Harness *h = *state;
        Objects *o = get_managed_objects(h);
        sd_bus_message *reply = NULL;
        const char *name;
        size_t n = 0;

        harness_assert_property(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE, "4: ACTIVE");
        harness_assert_property(h, MLX4_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_RATE_SPEED, "40");

        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, MLX4_0, "org.freedesktop.DBus.Properties", "GetAll",
                                       NULL, &reply, "s", RDMAD_DEVICE_INTERFACE) >= 0);
        assert_true(sd_bus_message_enter_container(reply, 'a', "{sv}") > 0);
        while (sd_bus_message_enter_container(reply, 'e', "sv") > 0) {
                char *body;

                assert_true(sd_bus_message_read(reply, "s", &name) > 0);
                body = harness_get_property(h, MLX4_0, RDMAD_DEVICE_INTERFACE, name, NULL);
                assert_non_null(body);
                OBJ_EQ(o, MLX4_0, RDMAD_DEVICE_INTERFACE, name, body);
                free(body);
                assert_true(sd_bus_message_skip(reply, "v") >= 0);
                assert_true(sd_bus_message_exit_container(reply) > 0);
                n++;
        }
        sd_bus_message_unref(reply);
        assert_int_equal(n, 26); /* every Device property */
        objects_free(o);
}

static void test_peer_ping(void **state) {
        Harness *h = *state;

        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, "org.freedesktop.DBus.Peer", "Ping",
                                       NULL, NULL, "") >= 0);
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, MLX5_0 "/port/1", "org.freedesktop.DBus.Peer", "Ping",
                                       NULL, NULL, "") >= 0);
}

static void test_get_device_by_name(void **state) {
        Harness *h = *state;
        sd_bus_message *reply = NULL;
        const char *path;
        char *err;

        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       "GetDeviceByName", NULL, &reply, "s", "mlx5_0") >= 0);
        assert_true(sd_bus_message_read(reply, "o", &path) > 0);
        assert_string_equal(path, MLX5_0);
        sd_bus_message_unref(reply);

        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       "GetDeviceByName", NULL, &reply, "s", "ib-dev.1") >= 0);
        assert_true(sd_bus_message_read(reply, "o", &path) > 0);
        assert_string_equal(path, "/org/rdmad1/device/ib_2ddev_2e1");
        sd_bus_message_unref(reply);

        err = harness_call_error(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, "GetDeviceByName", "s", "mlx9_9");
        assert_non_null(err);
        assert_string_equal(err, RDMAD_ERROR_NO_SUCH_DEVICE);
        free(err);

        /* Wrong argument signature. */
        err = harness_call_error(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, "GetDeviceByName", "u", 5);
        assert_non_null(err);
        assert_string_equal(err, "org.freedesktop.DBus.Error.InvalidArgs");
        free(err);
}

/* The files in introspection/ are the documented contract: what the daemon
 * introspects must match them member for member. */
static void compare_annotations(GDBusAnnotationInfo **a, GDBusAnnotationInfo **b, const char *what) {
        size_t na = 0, nb = 0;

        for (; a && a[na]; na++)
                ;
        for (; b && b[nb]; nb++)
                ;
        if (na != nb)
                fail_msg("%s: %zu annotations in the file, %zu on the bus", what, na, nb);
        for (size_t i = 0; i < na; i++) {
                assert_string_equal(a[i]->key, b[i]->key);
                assert_string_equal(a[i]->value, b[i]->value);
        }
}

static void compare_args(GDBusArgInfo **a, GDBusArgInfo **b, const char *what) {
        size_t i;

        for (i = 0; a && a[i] && b && b[i]; i++) {
                if (strcmp(a[i]->signature, b[i]->signature) != 0 || strcmp(a[i]->name, b[i]->name) != 0)
                        fail_msg("%s: argument %zu is %s %s in the file, %s %s on the bus", what, i, a[i]->name,
                                 a[i]->signature, b[i]->name, b[i]->signature);
        }
        if ((a && a[i]) || (b && b[i]))
                fail_msg("%s: argument count differs", what);
}

static void compare_interface(GDBusInterfaceInfo *file, GDBusInterfaceInfo *bus) {
        size_t i;

        compare_annotations(file->annotations, bus->annotations, file->name);
        for (i = 0; file->methods && file->methods[i]; i++) {
                GDBusMethodInfo *m = g_dbus_interface_info_lookup_method(bus, file->methods[i]->name);
                if (!m)
                        fail_msg("%s.%s is documented but not on the bus", file->name, file->methods[i]->name);
                compare_args(file->methods[i]->in_args, m->in_args, m->name);
                compare_args(file->methods[i]->out_args, m->out_args, m->name);
                compare_annotations(file->methods[i]->annotations, m->annotations, m->name);
        }
        for (i = 0; bus->methods && bus->methods[i]; i++)
                if (!g_dbus_interface_info_lookup_method(file, bus->methods[i]->name))
                        fail_msg("%s.%s is on the bus but not documented", file->name, bus->methods[i]->name);

        for (i = 0; file->properties && file->properties[i]; i++) {
                GDBusPropertyInfo *p = g_dbus_interface_info_lookup_property(bus, file->properties[i]->name);
                if (!p)
                        fail_msg("%s.%s is documented but not on the bus", file->name, file->properties[i]->name);
                if (strcmp(p->signature, file->properties[i]->signature) != 0 || p->flags != file->properties[i]->flags)
                        fail_msg("%s.%s: type or access differs", file->name, p->name);
                compare_annotations(file->properties[i]->annotations, p->annotations, p->name);
        }
        for (i = 0; bus->properties && bus->properties[i]; i++)
                if (!g_dbus_interface_info_lookup_property(file, bus->properties[i]->name))
                        fail_msg("%s.%s is on the bus but not documented", file->name, bus->properties[i]->name);

        for (i = 0; file->signals && file->signals[i]; i++) {
                GDBusSignalInfo *s = g_dbus_interface_info_lookup_signal(bus, file->signals[i]->name);
                if (!s)
                        fail_msg("%s.%s is documented but not on the bus", file->name, file->signals[i]->name);
                compare_args(file->signals[i]->args, s->args, s->name);
        }
        for (i = 0; bus->signals && bus->signals[i]; i++)
                if (!g_dbus_interface_info_lookup_signal(file, bus->signals[i]->name))
                        fail_msg("%s.%s is on the bus but not documented", file->name, bus->signals[i]->name);
}

static void test_introspection_matches_the_documented_files(void **state) {
        static const struct {
                const char *interface, *path;
        } objects[] = {
                { RDMAD_MANAGER_INTERFACE, RDMAD_ROOT_PATH }, { RDMAD_DEVICE_INTERFACE, MLX5_0 },
                { RDMAD_PORT_INTERFACE, MLX5_0 "/port/1" },   { RDMAD_NETDEV_INTERFACE, MLX5_0 "/netdev/ens1f0np0" },
                { RDMAD_SRIOV_INTERFACE, MLX5_0 "/sriov" },
        };
        Harness *h = *state;

        for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
                sd_bus_message *reply = NULL;
                GDBusNodeInfo *file_node, *bus_node;
                GDBusInterfaceInfo *file_iface, *bus_iface;
                GError *error = NULL;
                char *xml = NULL, path[512];
                const char *bus_xml;

                snprintf(path, sizeof(path), "%s/%s.xml", INTROSPECTION_DIR, objects[i].interface);
                if (!g_file_get_contents(path, &xml, NULL, &error))
                        fail_msg("%s: %s", path, error->message);
                file_node = g_dbus_node_info_new_for_xml(xml, &error);
                if (!file_node)
                        fail_msg("%s: %s", path, error->message);
                g_free(xml);

                assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, objects[i].path,
                                               "org.freedesktop.DBus.Introspectable", "Introspect", NULL, &reply,
                                               "") >= 0);
                assert_true(sd_bus_message_read(reply, "s", &bus_xml) > 0);
                bus_node = g_dbus_node_info_new_for_xml(bus_xml, &error);
                if (!bus_node)
                        fail_msg("Introspect %s: %s", objects[i].path, error->message);
                sd_bus_message_unref(reply);

                /* Each file documents exactly one interface. */
                assert_non_null(file_node->interfaces[0]);
                assert_null(file_node->interfaces[1]);
                file_iface = file_node->interfaces[0];
                assert_string_equal(file_iface->name, objects[i].interface);
                bus_iface = g_dbus_node_info_lookup_interface(bus_node, objects[i].interface);
                if (!bus_iface)
                        fail_msg("%s does not have %s", objects[i].path, objects[i].interface);
                compare_interface(file_iface, bus_iface);

                g_dbus_node_info_unref(file_node);
                g_dbus_node_info_unref(bus_node);
        }
}

static void test_busctl_tree_and_get_property(void **state) {
        Harness *h = *state;
        char *out;
        int status;

        out = harness_run_command(h, "busctl --system --no-pager --list tree org.rdmad1", &status);
        assert_int_equal(status, 0);
        assert_string_equal(out, "/\n/org\n/org/rdmad1\n/org/rdmad1/device\n"
                                 "/org/rdmad1/device/broken_5f0\n/org/rdmad1/device/broken_5f0/port/1\n"
                                 "/org/rdmad1/device/broken_5f0/port/2\n"
                                 "/org/rdmad1/device/hfi1_5f0\n/org/rdmad1/device/hfi1_5f0/port/1\n"
                                 "/org/rdmad1/device/ib_2ddev_2e1\n/org/rdmad1/device/ib_2ddev_2e1/port/1\n"
                                 "/org/rdmad1/device/mlx4_5f0\n/org/rdmad1/device/mlx4_5f0/netdev/ens1d1\n"
                                 "/org/rdmad1/device/mlx4_5f0/netdev/ib0\n/org/rdmad1/device/mlx4_5f0/port/1\n"
                                 "/org/rdmad1/device/mlx4_5f0/port/2\n"
                                 "/org/rdmad1/device/mlx5_5f0\n/org/rdmad1/device/mlx5_5f0/netdev/ens1f0np0\n"
                                 "/org/rdmad1/device/mlx5_5f0/port/1\n/org/rdmad1/device/mlx5_5f0/sriov\n"
                                 "/org/rdmad1/device/mlx5_5f1\n/org/rdmad1/device/mlx5_5f1/netdev/ens1f0v0\n"
                                 "/org/rdmad1/device/mlx5_5f1/port/1\n"
                                 "/org/rdmad1/device/rxe0\n/org/rdmad1/device/rxe0/netdev/veth_2drdma0\n"
                                 "/org/rdmad1/device/rxe0/port/1\n"
                                 "/org/rdmad1/device/siw0\n/org/rdmad1/device/siw0/netdev/dummy_2dsiw0\n"
                                 "/org/rdmad1/device/siw0/port/1\n");
        free(out);

        out = harness_run_command(h,
                                  "busctl --system get-property org.rdmad1 /org/rdmad1/device/mlx5_5f0/port/1 "
                                  "org.rdmad1.Port State Rate LinkLayer RateSpeed NetDev",
                                  &status);
        assert_int_equal(status, 0);
        assert_string_equal(out, "s \"4: ACTIVE\"\ns \"25 Gb/sec (1X EDR)\"\ns \"Ethernet\"\nd 25\n"
                                 "o \"/org/rdmad1/device/mlx5_5f0/netdev/ens1f0np0\"\n");
        free(out);

        out = harness_run_command(h,
                                  "busctl --system get-property org.rdmad1 /org/rdmad1/device/mlx5_5f0/sriov "
                                  "org.rdmad1.Sriov NumVfs TotalVfs",
                                  &status);
        assert_int_equal(status, 0);
        assert_string_equal(out, "u 1\nu 8\n");
        free(out);

        out = harness_run_command(h,
                                  "busctl --system call org.rdmad1 /org/rdmad1 org.rdmad1.Manager "
                                  "GetDeviceByName s nope",
                                  &status);
        assert_int_equal(status, 1);
        assert_non_null(strstr(out, "No RDMA device 'nope'."));
        free(out);
}

static void test_empty_host(void **state) {
        Harness *h = *state;
        Objects *o = get_managed_objects(h);

        harness_assert_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_DEVICES, "[]");
        assert_int_equal(o->n, 0);
        objects_free(o);
}

static void test_rescan_publishes_only_the_difference(void **state) {
        Harness *h = *state;
        const Signal *s;
        GError *error = NULL;

        harness_clear_signals(h);
        /* The port went down behind the daemon's back, and a new device appeared. */
        umockdev_testbed_set_attribute(h->testbed,
                                       "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/infiniband/mlx5_0",
                                       "ports/1/state", "1: DOWN\n");
        assert_true(umockdev_testbed_add_from_string(h->testbed,
                                                     "P: /devices/virtual/infiniband/rxe9\n"
                                                     "E: SUBSYSTEM=infiniband\n"
                                                     "A: node_type=1: CA\\n\n"
                                                     "A: ports/1/state=4: ACTIVE\\n\n"
                                                     "A: ports/1/link_layer=Ethernet\\n\n",
                                                     &error));

        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       RDMAD_METHOD_RESCAN, NULL, NULL, "") >= 0);
        harness_wait_signals(h, NULL, "InterfacesAdded", 1);
        harness_wait_signals(h, MLX5_0 "/port/1", "PropertiesChanged", 1);
        harness_wait_signals(h, RDMAD_ROOT_PATH, "PropertiesChanged", 1);
        harness_ping(h); /* every signal of the batch is in */

        /* One PropertiesChanged for the port, naming exactly the state trio and the timestamp. */
        assert_int_equal(harness_count_signals(h, MLX5_0 "/port/1", "PropertiesChanged"), 1);
        s = harness_find_signal(h, MLX5_0 "/port/1", "PropertiesChanged");
        assert_non_null(strstr(s->body, "\"org.rdmad1.Port\" {\"State\": \"1: DOWN\", \"StateNum\": 1, "
                                        "\"StateName\": \"DOWN\", \"Attributes\": "));
        assert_non_null(strstr(s->body, "\"StateChangedUsec\": "));
        /* Nothing else changed: no other object is announced as changed. */
        assert_int_equal(harness_count_signals(h, NULL, "PropertiesChanged"), 2); /* the port, Manager.Devices */
        assert_int_equal(harness_count_signals(h, RDMAD_ROOT_PATH, "PropertiesChanged"), 1);
        assert_int_equal(harness_count_signals(h, "/org/rdmad1/device/rxe9", "InterfacesAdded"), 0);
        /* ObjectManager signals come from the root, naming the object. */
        assert_int_equal(harness_count_signals(h, RDMAD_ROOT_PATH, "InterfacesAdded"), 2); /* rxe9 and its port */
        s = harness_find_signal(h, RDMAD_ROOT_PATH, "InterfacesAdded");
        assert_non_null(strstr(s->body, "/org/rdmad1/device/rxe9"));
        assert_int_equal(harness_count_signals(h, NULL, "InterfacesRemoved"), 0);

        harness_assert_property(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "DOWN");
        harness_assert_property(h, "/org/rdmad1/device/rxe9/port/1", RDMAD_PORT_INTERFACE,
                                RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE");

        /* A second rescan with nothing changed says nothing. */
        harness_clear_signals(h);
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       RDMAD_METHOD_RESCAN, NULL, NULL, "") >= 0);
        /* Its changes, were there any, come after its answer: a window, no barrier. */
        harness_observe(h, 200, "the second Rescan's signals, of which there must be none");
        assert_int_equal(h->n_signals, 0);

        /* Removed behind its back: InterfacesRemoved, and the list shrinks. */
        umockdev_testbed_remove_device(h->testbed, "/sys/devices/virtual/infiniband/rxe9");
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       RDMAD_METHOD_RESCAN, NULL, NULL, "") >= 0);
        harness_wait_signals(h, NULL, "InterfacesRemoved", 1);
        harness_ping(h);
        assert_int_equal(harness_count_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved"), 2);
        assert_null(harness_get_property(h, "/org/rdmad1/device/rxe9", RDMAD_DEVICE_INTERFACE,
                                         RDMAD_DEVICE_PROPERTY_NAME, NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_ready_only_with_the_name_taken, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_managed_objects_of_a_realistic_host, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_manager_properties, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_get_and_getall_agree_with_managed_objects, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_peer_ping, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_get_device_by_name, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_introspection_matches_the_documented_files, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_busctl_tree_and_get_property, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_empty_host, empty_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rescan_publishes_only_the_difference, host_setup,
                                                harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
