/* SPDX-License-Identifier: MIT */
/* Manager.ResolveAddress and GIDs that follow addresses: rdmad runs in a
 * network namespace of the test's own, where veth devices stand in for the
 * simulated host's netdevs (the kernel gives the routes and addresses, the
 * testbed the GID tables and the netdevs' type and address). Covers IPv4
 * and IPv6, a local address, v1 and v2 entries for one address, a VLAN
 * named only in gid_attrs/ndevs, an IPoIB netdev (a veth named ib0; the
 * testbed's ib0 has type 32 and a 20-byte address), each error, and an
 * address added before the kernel fills the GID table. Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pwd.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "rdmactl-run.h"

#define MLX5_PF_SYS "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0"
#define MLX5_SYS    MLX5_PF_SYS "/infiniband/mlx5_0"
#define MLX5_PORT   "/org/rdmad1/device/mlx5_5f0/port/1"
#define MLX4_PORT   "/org/rdmad1/device/mlx4_5f0/port/1"

static bool private_network;

static void run(Harness *h, const char *command) {
        int status;
        char *out = harness_run_command(h, command, &status);

        if (status != 0)
                fail_msg("'%s' failed (%d):\n%s", command, status, out);
        free(out);
}

/* A GID table entry of mlx5_0 port 1 in the testbed: its type and netdev
 * first, the GID last (an entry reads as unused while its GID is zero). */
static void write_gid(Harness *h, unsigned index, const char *gid, const char *type, const char *ndev) {
        char name[64], value[128];

        snprintf(name, sizeof(name), "ports/1/gid_attrs/types/%u", index);
        snprintf(value, sizeof(value), "%s\n", type);
        harness_write(h, MLX5_SYS, name, value);
        snprintf(name, sizeof(name), "ports/1/gid_attrs/ndevs/%u", index);
        snprintf(value, sizeof(value), "%s\n", ndev);
        harness_write(h, MLX5_SYS, name, value);
        snprintf(name, sizeof(name), "ports/1/gids/%u", index);
        snprintf(value, sizeof(value), "%s\n", gid);
        harness_write(h, MLX5_SYS, name, value);
}

static void rescan(Harness *h) {
        char *e = harness_call_error(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_METHOD_RESCAN, "");

        if (e)
                fail_msg("Rescan failed: %s", e);
}

/* ResolveAddress: the reply formatted as format_message_body() gives it,
 * or NULL with the error's name and message. */
static char *resolve(Harness *h, const char *address, char **ret_error, char **ret_message) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        char *body;
        int r;

        r = sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                               RDMAD_METHOD_RESOLVE_ADDRESS, &error, &reply, "s", address);
        if (r < 0) {
                assert_true(sd_bus_error_is_set(&error));
                if (ret_error)
                        *ret_error = strdup(error.name);
                if (ret_message)
                        *ret_message = strdup(error.message ? error.message : "");
                sd_bus_error_free(&error);
                return NULL;
        }
        body = format_message_body(reply);
        sd_bus_message_unref(reply);
        return body;
}

static void assert_resolves(Harness *h, const char *address, const char *port, unsigned index, const char *gid,
                            const char *type, const char *netdev, const char *source) {
        char *error = NULL, *message = NULL, *body = resolve(h, address, &error, &message), expected[512];

        snprintf(expected, sizeof(expected), "\"%s\" %u \"%s\" \"%s\" \"%s\" \"%s\"", port, index, gid, type, netdev,
                 source);

        if (!body)
                fail_msg("ResolveAddress(%s): %s: %s", address, error, message);
        assert_string_equal(body, expected);
        free(body);
}

/* Fails unless the call fails with `name` and a message holding each of the NULL-terminated words. */
static void assert_resolve_error(Harness *h, const char *address, const char *name, ...) {
        char *error = NULL, *message = NULL, *body = resolve(h, address, &error, &message);
        const char *word;
        va_list ap;

        if (body)
                fail_msg("ResolveAddress(%s) answered %s, expected %s", address, body, name);
        if (strcmp(error, name) != 0)
                fail_msg("ResolveAddress(%s): %s (%s), expected %s", address, error, message, name);
        va_start(ap, name);
        while ((word = va_arg(ap, const char *)))
                if (!strstr(message, word))
                        fail_msg("ResolveAddress(%s): the message '%s' does not say '%s'", address, message, word);
        va_end(ap);
        free(error);
        free(message);
}

/* The simulated host's netdevs as veths: ens1f0np0 (mlx5_0's, 192.168.1.10
 * as its fixture's GIDs 2 and 3 say, and the link-local address of GIDs 0
 * and 1), a VLAN on it, ib0 (mlx4_0's IPoIB netdev) and plain0 (no RDMA);
 * made once: the namespace, and they with it, go when the test ends. */
static bool make_network(void) {
        static const char *const commands[] = {
                "ip link add ens1f0np0 type veth peer name ens1f0np0p",
                "ip link set ens1f0np0 addrgenmode none",
                "ip link set ens1f0np0 up",
                "ip link set ens1f0np0p up",
                "ip addr add 192.168.1.10/24 dev ens1f0np0",
                "ip addr add 192.168.2.10/24 dev ens1f0np0",
                "ip addr add 2001:db8::10/64 dev ens1f0np0 nodad",
                "ip addr add fe80::9a03:9bff:feaa:bbc0/64 dev ens1f0np0 nodad",
                /* A VLAN; a macvlan, an upper device all the same, where the kernel has no 8021q. */
                ("ip link add link ens1f0np0 name ens1f0np0.100 type vlan id 100 2>/dev/null || "
                 "ip link add link ens1f0np0 name ens1f0np0.100 type macvlan"),
                "ip link set ens1f0np0.100 up",
                "ip addr add 192.168.100.10/24 dev ens1f0np0.100",
                "ip link add ib0 type veth peer name ib0p",
                "ip link set ib0 up",
                "ip link set ib0p up",
                "ip addr add 10.20.0.1/24 dev ib0",
                "ip link add plain0 type veth peer name plain0p",
                "ip link set plain0 up",
                "ip link set plain0p up",
                "ip addr add 10.30.0.1/24 dev plain0",
                "ip route add unreachable 198.51.100.0/24",
                "ip route add blackhole 198.51.101.0/24",
                "ip route add prohibit 198.51.102.0/24",
                "ip -6 route add unreachable 2001:db8:dead::/48",
        };

        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                if (system(commands[i]) != 0) {
                        fprintf(stderr, "'%s' failed\n", commands[i]);
                        return false;
                }
        return true;
}

/* The port's first PropertiesChanged since the signals were cleared names Gids. */
static void assert_gids_signalled(Harness *h) {
        char *names = signal_changed_names(harness_find_signal(h, MLX5_PORT, "PropertiesChanged"));

        assert_string_equal(names, RDMAD_PORT_PROPERTY_GIDS);
        free(names);
}

static int resolve_setup(void **state) {
        *state = harness_start_logged(HARNESS_FIXTURES("mlx5-roce-sriov", "mlx4-vpi"),
                                      (const char *const[]){ "--poll-interval=0", NULL });
        return 0;
}

static void test_resolve_ipv4_peer_prefers_roce_v2(void **state) {
        Harness *h = *state;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */
        /* GIDs 2 (v1) and 3 (v2) both hold 192.168.1.10: v2 wins over the lower index. */
        assert_resolves(h, "192.168.1.20", MLX5_PORT, 3, "0000:0000:0000:0000:0000:ffff:c0a8:010a", "RoCE v2",
                        "ens1f0np0", "192.168.1.10");
}

static void test_resolve_local_address_is_its_netdevs(void **state) {
        Harness *h = *state;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */
        /* The kernel says "local ... dev lo": the netdev that holds it is meant. */
        assert_resolves(h, "192.168.1.10", MLX5_PORT, 3, "0000:0000:0000:0000:0000:ffff:c0a8:010a", "RoCE v2",
                        "ens1f0np0", "192.168.1.10");
}

static void test_resolve_ipv6(void **state) {
        Harness *h = *state;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */
        write_gid(h, 4, "2001:0db8:0000:0000:0000:0000:0000:0010", "IB/RoCE v1", "ens1f0np0");
        write_gid(h, 5, "2001:0db8:0000:0000:0000:0000:0000:0010", "RoCE v2", "ens1f0np0");
        rescan(h);
        assert_resolves(h, "2001:db8::20", MLX5_PORT, 5, "2001:0db8:0000:0000:0000:0000:0000:0010", "RoCE v2",
                        "ens1f0np0", "2001:db8::10");
        assert_resolves(h, "2001:db8::10", MLX5_PORT, 5, "2001:0db8:0000:0000:0000:0000:0000:0010", "RoCE v2",
                        "ens1f0np0", "2001:db8::10");
        /* Link-local, with its scope: the fixture's GIDs 0 (v1) and 1 (v2). */
        assert_resolves(h, "fe80::1%ens1f0np0", MLX5_PORT, 1, "fe80:0000:0000:0000:9a03:9bff:feaa:bbc0", "RoCE v2",
                        "ens1f0np0", "fe80::9a03:9bff:feaa:bbc0");
}

static void test_resolve_vlan_named_only_in_gid_attrs(void **state) {
        Harness *h = *state;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */
        /* ens1f0np0.100 is no NetDev object: only gid_attrs/ndevs names it. */
        write_gid(h, 6, "0000:0000:0000:0000:0000:ffff:c0a8:640a", "RoCE v2", "ens1f0np0.100");
        rescan(h);
        harness_assert_property(h, MLX5_PORT, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_NETDEV,
                                "/org/rdmad1/device/mlx5_5f0/netdev/ens1f0np0");
        assert_resolves(h, "192.168.100.20", MLX5_PORT, 6, "0000:0000:0000:0000:0000:ffff:c0a8:640a", "RoCE v2",
                        "ens1f0np0.100", "192.168.100.10");
}

static void test_resolve_ipoib(void **state) {
        Harness *h = *state;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */
        /* ib0's hardware address 80:00:02:08:fe:80:...:02:c9:03:00:a1:b2:c1 carries mlx4_0 port 1's GID 0. */
        assert_resolves(h, "10.20.0.2", MLX4_PORT, 0, "fe80:0000:0000:0000:0002:c903:00a1:b2c1", "", "ib0",
                        "10.20.0.1");
        assert_resolves(h, "10.20.0.1", MLX4_PORT, 0, "fe80:0000:0000:0000:0002:c903:00a1:b2c1", "", "ib0",
                        "10.20.0.1");
}

/* Open to every caller: nobody gets the answer root gets (through the rationing of reads). */
static void test_resolve_unprivileged(void **state) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        struct passwd *pw = getpwnam("nobody");
        sd_bus *bus;
        char *body;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */
        assert_non_null(pw);
        bus = harness_open_bus_as(pw->pw_uid);
        if (sd_bus_call_method(bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                               RDMAD_METHOD_RESOLVE_ADDRESS, &error, &reply, "s", "192.168.1.20") < 0)
                fail_msg("ResolveAddress as nobody: %s: %s", error.name, error.message);
        body = format_message_body(reply);
        assert_string_equal(body, "\"" MLX5_PORT "\" 3 \"0000:0000:0000:0000:0000:ffff:c0a8:010a\" \"RoCE v2\" "
                                  "\"ens1f0np0\" \"192.168.1.10\"");
        free(body);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
}

static void test_resolve_errors(void **state) {
        Harness *h = *state;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */
        assert_resolve_error(h, "203.0.113.1", RDMAD_ERROR_NO_ROUTE, "203.0.113.1", NULL);
        assert_resolve_error(h, "198.51.100.1", RDMAD_ERROR_NO_ROUTE, "198.51.100.1", NULL);
        assert_resolve_error(h, "198.51.101.1", RDMAD_ERROR_NO_ROUTE, "198.51.101.1", NULL);
        assert_resolve_error(h, "198.51.102.1", RDMAD_ERROR_NO_ROUTE, "198.51.102.1", NULL);
        assert_resolve_error(h, "2001:db8:dead::1", RDMAD_ERROR_NO_ROUTE, "2001:db8:dead::1", NULL);
        assert_resolve_error(h, "10.30.0.2", RDMAD_ERROR_NOT_RDMA, "plain0", "10.30.0.1", NULL);
        assert_resolve_error(h, "127.0.0.1", RDMAD_ERROR_NOT_RDMA, "lo", NULL);
        /* ens1f0np0 is mlx5_0's, but no GID holds 192.168.2.10. */
        assert_resolve_error(h, "192.168.2.20", RDMAD_ERROR_NO_GID, "ens1f0np0", "192.168.2.10", "mlx5_0/1",
                             "0000:0000:0000:0000:0000:ffff:c0a8:020a", NULL);
        assert_resolve_error(h, "not-an-address", SD_BUS_ERROR_INVALID_ARGS, "not-an-address", NULL);
        assert_resolve_error(h, "192.168.1.300", SD_BUS_ERROR_INVALID_ARGS, "192.168.1.300", NULL);
        assert_resolve_error(h, "", SD_BUS_ERROR_INVALID_ARGS, "''", NULL);
        assert_resolve_error(h, "192.168.1.20%ens1f0np0", SD_BUS_ERROR_INVALID_ARGS, NULL);
        assert_resolve_error(h, "2001:db8::20%ens1f0np0", SD_BUS_ERROR_INVALID_ARGS, NULL);
        assert_resolve_error(h, "fe80::1%nosuchif0", SD_BUS_ERROR_INVALID_ARGS, "nosuchif0", NULL);
        harness_assert_daemon_answers(h);
}

/* The kernel fills a GID table after the address event: the address comes
 * first, the entry about 0.9 s later. With the poll off, only the address
 * message makes rdmad read the table again. */
static void test_gids_follow_address_changes(void **state) {
        Harness *h = *state;
        const struct timespec later = { 0, 900 * 1000 * 1000 };
        char *gids;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */
        harness_clear_signals(h);
        run(h, "ip addr add 192.168.3.10/24 dev ens1f0np0");
        nanosleep(&later, NULL); /* the kernel's delay, stood in for */
        write_gid(h, 7, "0000:0000:0000:0000:0000:ffff:c0a8:030a", "RoCE v2", "ens1f0np0");
        harness_wait_signals(h, MLX5_PORT, "PropertiesChanged", 1);
        assert_gids_signalled(h);
        gids = harness_get_property(h, MLX5_PORT, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_GIDS, NULL);
        assert_non_null(strstr(gids, "(7, \"0000:0000:0000:0000:0000:ffff:c0a8:030a\", \"RoCE v2\", \"ens1f0np0\")"));
        free(gids);
        assert_resolves(h, "192.168.3.20", MLX5_PORT, 7, "0000:0000:0000:0000:0000:ffff:c0a8:030a", "RoCE v2",
                        "ens1f0np0", "192.168.3.10");

        /* And when it goes: the entry goes later too. */
        harness_clear_signals(h);
        run(h, "ip addr del 192.168.3.10/24 dev ens1f0np0");
        nanosleep(&later, NULL);
        harness_write(h, MLX5_SYS, "ports/1/gids/7", "0000:0000:0000:0000:0000:0000:0000:0000\n");
        harness_wait_signals(h, MLX5_PORT, "PropertiesChanged", 1);
        assert_gids_signalled(h);
        gids = harness_get_property(h, MLX5_PORT, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_GIDS, NULL);
        assert_null(strstr(gids, "c0a8:030a"));
        free(gids);
}

/* An address on a VLAN that no GID names yet: the port below it is re-read. */
static void test_gids_follow_an_upper_netdev(void **state) {
        Harness *h = *state;
        const struct timespec later = { 0, 900 * 1000 * 1000 };
        char *gids;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */
        run(h, "ip link add link ens1f0np0 name ens1f0np0.200 type vlan id 200 2>/dev/null || "
               "ip link add link ens1f0np0 name ens1f0np0.200 type macvlan");
        run(h, "ip link set ens1f0np0.200 up");
        /* The new link's own messages (a re-read, maybe a signal) are not what
         * this test counts: let rdmad take them before the count starts. */
        harness_observe(h, 200, "the new upper netdev's link messages reach rdmad");
        harness_clear_signals(h);
        run(h, "ip addr add 192.168.200.10/24 dev ens1f0np0.200");
        nanosleep(&later, NULL);
        write_gid(h, 7, "0000:0000:0000:0000:0000:ffff:c0a8:c80a", "RoCE v2", "ens1f0np0.200");
        harness_wait_signals(h, MLX5_PORT, "PropertiesChanged", 1);
        assert_gids_signalled(h);
        gids = harness_get_property(h, MLX5_PORT, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_GIDS, NULL);
        assert_non_null(
                strstr(gids, "(7, \"0000:0000:0000:0000:0000:ffff:c0a8:c80a\", \"RoCE v2\", \"ens1f0np0.200\")"));
        free(gids);
        assert_resolves(h, "192.168.200.20", MLX5_PORT, 7, "0000:0000:0000:0000:0000:ffff:c0a8:c80a", "RoCE v2",
                        "ens1f0np0.200", "192.168.200.10");
}

/* rdmactl route: the answer on one line, the port's state beside it; JSON; an exit status per error. */
static void test_rdmactl_route(void **state) {
        Harness *h = *state;
        char *out;
        int status;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */
        out = rdmactl_run(h, &status, "route --no-color 192.168.1.20");
        assert_int_equal(status, 0);
        assert_string_equal(out, "192.168.1.20 via ens1f0np0 from 192.168.1.10: mlx5_0/1 gid 3 "
                                 "0000:0000:0000:0000:0000:ffff:c0a8:010a RoCE v2 (ACTIVE)\n");
        free(out);
        out = rdmactl_run(h, &status, "route --no-color 10.20.0.2");
        assert_int_equal(status, 0);
        assert_string_equal(out, "10.20.0.2 via ib0 from 10.20.0.1: mlx4_0/1 gid 0 "
                                 "fe80:0000:0000:0000:0002:c903:00a1:b2c1 (ACTIVE)\n");
        free(out);
        out = rdmactl_run(h, &status, "route --json=pretty 10.20.0.2");
        assert_int_equal(status, 0);
        free(harness_python_check(h, out,
                                  "import json, sys\n"
                                  "d = json.load(open(sys.argv[1]))\n"
                                  "assert d == {\"address\": \"10.20.0.2\", \"device\": \"mlx4_0\", \"port\": 1, "
                                  "\"gid_index\": 0, \"gid\": \"fe80:0000:0000:0000:0002:c903:00a1:b2c1\", "
                                  "\"gid_type\": None, \"netdev\": \"ib0\", \"source\": \"10.20.0.1\", "
                                  "\"state\": \"ACTIVE\", \"object\": \"" MLX4_PORT "\"}, d\n"));
        free(out);
        out = rdmactl_run(h, &status, "route --json 192.168.1.20");
        assert_int_equal(status, 0);
        free(harness_python_check(h, out,
                                  "import json, sys\n"
                                  "d = json.load(open(sys.argv[1]))\n"
                                  "assert (d[\"device\"], d[\"port\"], d[\"gid_index\"], d[\"gid_type\"]) == "
                                  "(\"mlx5_0\", 1, 3, \"RoCE v2\"), d\n"));
        free(out);

        rdmactl_assert_run(h, "route 203.0.113.1", 7, "rdmactl: No route to 203.0.113.1");
        rdmactl_assert_run(h, "route 10.30.0.2", 8, "plain0");
        rdmactl_assert_run(h, "route 192.168.2.20", 9, "mlx5_0/1");
        rdmactl_assert_run(h, "route not-an-address", 2, "not-an-address");
        rdmactl_assert_run(h, "route", 2, "'route' needs ADDRESS");
}

/* rdmactl gids: show_gids's columns, a line per non-zero entry; JSON rows; names as elsewhere. */
static void test_rdmactl_gids(void **state) {
        Harness *h = *state;
        char *out;
        int status;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */
        out = rdmactl_run(h, &status, "gids --no-color mlx5_0/1");
        assert_int_equal(status, 0);
        assert_string_equal(out,
                            "DEV    PORT INDEX GID                                     IPv4         VER NETDEV\n"
                            "mlx5_0 1    0     fe80:0000:0000:0000:9a03:9bff:feaa:bbc0 -            v1  ens1f0np0\n"
                            "mlx5_0 1    1     fe80:0000:0000:0000:9a03:9bff:feaa:bbc0 -            v2  ens1f0np0\n"
                            "mlx5_0 1    2     0000:0000:0000:0000:0000:ffff:c0a8:010a 192.168.1.10 v1  ens1f0np0\n"
                            "mlx5_0 1    3     0000:0000:0000:0000:0000:ffff:c0a8:010a 192.168.1.10 v2  ens1f0np0\n"
                            "\n"
                            "4 GIDs listed.\n");
        free(out);
        /* The same port named by its netdev, and by "DEVICE PORT". */
        out = rdmactl_run(h, &status, "gids --no-legend ens1f0np0");
        assert_int_equal(status, 0);
        assert_string_equal(out, "mlx5_0 1 0 fe80:0000:0000:0000:9a03:9bff:feaa:bbc0 -            v1 ens1f0np0\n"
                                 "mlx5_0 1 1 fe80:0000:0000:0000:9a03:9bff:feaa:bbc0 -            v2 ens1f0np0\n"
                                 "mlx5_0 1 2 0000:0000:0000:0000:0000:ffff:c0a8:010a 192.168.1.10 v1 ens1f0np0\n"
                                 "mlx5_0 1 3 0000:0000:0000:0000:0000:ffff:c0a8:010a 192.168.1.10 v2 ens1f0np0\n");
        free(out);
        out = rdmactl_run(h, &status, "gids --json mlx4_0 1");
        assert_int_equal(status, 0);
        free(harness_python_check(h, out,
                                  "import json, sys\n"
                                  "d = json.load(open(sys.argv[1]))\n"
                                  "assert d == [{\"device\": \"mlx4_0\", \"port\": 1, \"index\": 0, "
                                  "\"gid\": \"fe80:0000:0000:0000:0002:c903:00a1:b2c1\", \"ipv4\": None, "
                                  "\"ver\": None, \"netdev\": None, \"type\": None}], d\n"));
        free(out);
        /* Every port of the host: mlx4_0's two, mlx5_0's and mlx5_1's. */
        out = rdmactl_run(h, &status, "gids --json");
        assert_int_equal(status, 0);
        free(harness_python_check(h, out,
                                  "import json, sys\n"
                                  "d = json.load(open(sys.argv[1]))\n"
                                  "assert sorted({(r[\"device\"], r[\"port\"]) for r in d}) == "
                                  "[(\"mlx4_0\", 1), (\"mlx4_0\", 2), (\"mlx5_0\", 1), (\"mlx5_1\", 1)], d\n"
                                  "assert len(d) == 1 + 1 + 4 + 2, d\n"));
        free(out);
        rdmactl_assert_run(h, "gids mlx9_9", 4, "mlx9_9");
}

int main(void) {
        private_network = harness_private_network();
        if (private_network && !make_network())
                return 1;
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_resolve_ipv4_peer_prefers_roce_v2, resolve_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_resolve_local_address_is_its_netdevs, resolve_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_resolve_ipv6, resolve_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_resolve_vlan_named_only_in_gid_attrs, resolve_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_resolve_ipoib, resolve_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_resolve_unprivileged, resolve_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_resolve_errors, resolve_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rdmactl_route, resolve_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rdmactl_gids, resolve_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_gids_follow_address_changes, resolve_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_gids_follow_an_upper_netdev, resolve_setup,
                                                harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
