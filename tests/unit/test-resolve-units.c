/* SPDX-License-Identifier: MIT */
/* ResolveAddress's pure parts: the address text, the GID forms, the
 * rtnetlink answers (route, address dump, lower link, address messages)
 * and the choice of a GID in a hand-made model. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gid-follow.h"
#include "gid-resolve.h"
#include "manager.h"
#include "netlink.h"
#include "route-query.h"

static void test_route_target_parse(void **state) {
        RouteTarget t;
        char text[INET6_ADDRSTRLEN + IF_NAMESIZE + 1];

        assert_int_equal(route_target_parse("192.168.1.10", &t), 0);
        assert_int_equal(t.family, AF_INET);
        assert_memory_equal(t.addr, ((uint8_t[]){ 192, 168, 1, 10 }), 4);
        assert_int_equal(t.scope_ifindex, 0);
        assert_int_equal(route_target_parse("2001:db8::1", &t), 0);
        assert_int_equal(t.family, AF_INET6);
        route_target_format(&t, text);
        assert_string_equal(text, "2001:db8::1");
        /* A scope: on a link-local address only, naming an interface (lo exists everywhere). */
        assert_int_equal(route_target_parse("fe80::1%lo", &t), 0);
        assert_true(t.scope_ifindex > 0);
        route_target_format(&t, text);
        assert_string_equal(text, "fe80::1%lo");
        assert_int_equal(route_target_parse("fe80::1%no-such-if9", &t), -ENODEV);
        assert_int_equal(route_target_parse("2001:db8::1%lo", &t), -EINVAL);
        assert_int_equal(route_target_parse("192.168.1.10%lo", &t), -EINVAL);
        assert_int_equal(route_target_parse("fe80::1%", &t), -EINVAL);
        assert_int_equal(route_target_parse("", &t), -EINVAL);
        assert_int_equal(route_target_parse(NULL, &t), -EINVAL);
        assert_int_equal(route_target_parse("192.168.1.300", &t), -EINVAL);
        assert_int_equal(route_target_parse("mlx5_0", &t), -EINVAL);
        assert_int_equal(route_target_parse(" 192.168.1.10", &t), -EINVAL);
        assert_int_equal(route_target_parse("fe80::1%lolololololololololololololo", &t), -EINVAL);
}

static void test_gid_forms(void **state) {
        uint8_t a4[16] = { 192, 168, 1, 10 }, g[16];
        char text[GID_TEXT_MAX];

        gid_from_address(AF_INET, a4, g);
        gid_format(g, text);
        assert_string_equal(text, "0000:0000:0000:0000:0000:ffff:c0a8:010a");
        assert_int_equal(inet_pton(AF_INET6, "fe80::9a03:9bff:feaa:bbc0", a4), 1);
        gid_from_address(AF_INET6, a4, g);
        gid_format(g, text);
        assert_string_equal(text, "fe80:0000:0000:0000:9a03:9bff:feaa:bbc0");

        assert_int_equal(ipoib_address_gid("80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1", g), 0);
        gid_format(g, text);
        assert_string_equal(text, "fe80:0000:0000:0000:0002:c903:00a1:b2c1");
        assert_int_equal(ipoib_address_gid("80:00:02:08:FE:80:00:00:00:00:00:00:00:02:C9:03:00:A1:B2:C1", g), 0);
        assert_int_equal(ipoib_address_gid("98:03:9b:aa:bb:c0", g), -EINVAL); /* Ethernet */
        assert_int_equal(ipoib_address_gid("80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1:00", g),
                         -EINVAL);
        assert_int_equal(ipoib_address_gid("80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c", g), -EINVAL);
        assert_int_equal(ipoib_address_gid("", g), -EINVAL);
        assert_int_equal(ipoib_address_gid(NULL, g), -EINVAL);
}

/* A message of `type` with a fixed header of hdr bytes and attributes (type, data, len) ..., 0-terminated. */
static size_t put_msg(uint8_t *buf, uint16_t type, uint32_t seq, const void *fixed, size_t hdr, ...) {
        struct nlmsghdr *h = (struct nlmsghdr *) buf;
        va_list ap;
        int at;

        h->nlmsg_type = type;
        h->nlmsg_flags = 0;
        h->nlmsg_seq = seq;
        h->nlmsg_pid = 0;
        memcpy(NLMSG_DATA(h), fixed, hdr);
        h->nlmsg_len = NLMSG_SPACE(hdr);
        va_start(ap, hdr);
        while ((at = va_arg(ap, int)) != 0) {
                const void *data = va_arg(ap, const void *);
                size_t len = va_arg(ap, size_t);
                struct rtattr *a = (struct rtattr *) (buf + h->nlmsg_len);

                a->rta_type = (unsigned short) at;
                a->rta_len = RTA_LENGTH(len);
                memcpy(RTA_DATA(a), data, len);
                h->nlmsg_len += RTA_ALIGN(a->rta_len);
        }
        va_end(ap);
        return NLMSG_ALIGN(h->nlmsg_len);
}

static size_t put_error(uint8_t *buf, uint32_t seq, int error) {
        struct nlmsgerr e = { .error = error };
        return put_msg(buf, NLMSG_ERROR, seq, &e, sizeof(e), 0);
}

static void test_rtnl_parse_route_reply(void **state) {
        uint8_t buf[1024] __attribute__((aligned(4))) = {}, src[4] = { 192, 168, 1, 10 };
        struct rtmsg rt = { .rtm_family = AF_INET, .rtm_type = RTN_UNICAST };
        int oif = 7;
        RouteAnswer a = {};
        size_t len;

        /* Another question's answer first: skipped. */
        len = put_error(buf, 41, -ENETUNREACH);
        len += put_msg(buf + len, RTM_NEWROUTE, 42, &rt, sizeof(rt), RTA_OIF, &oif, sizeof(oif), RTA_PREFSRC, src,
                       sizeof(src), 0);
        assert_int_equal(rtnl_parse_route_reply(buf, len, 42, &a), 1);
        assert_int_equal(a.family, AF_INET);
        assert_int_equal(a.ifindex, 7);
        assert_false(a.local);
        assert_null(a.no_route_type);
        assert_memory_equal(a.source, src, 4);
        assert_int_equal(rtnl_parse_route_reply(buf, len, 43, &a), 0);

        a = (RouteAnswer){};
        rt.rtm_type = RTN_LOCAL;
        len = put_msg(buf, RTM_NEWROUTE, 5, &rt, sizeof(rt), RTA_OIF, &oif, sizeof(oif), 0);
        assert_int_equal(rtnl_parse_route_reply(buf, len, 5, &a), 1);
        assert_true(a.local);

        a = (RouteAnswer){};
        rt.rtm_family = AF_INET6;
        rt.rtm_type = RTN_UNREACHABLE;
        len = put_msg(buf, RTM_NEWROUTE, 6, &rt, sizeof(rt), 0);
        assert_int_equal(rtnl_parse_route_reply(buf, len, 6, &a), 1);
        assert_string_equal(a.no_route_type, "unreachable");

        len = put_error(buf, 9, -EHOSTUNREACH);
        assert_int_equal(rtnl_parse_route_reply(buf, len, 9, &a), -EHOSTUNREACH);

        /* Malformed: a length past the end, a message too short for its header. */
        len = put_msg(buf, RTM_NEWROUTE, 10, &rt, sizeof(rt), 0);
        assert_int_equal(rtnl_parse_route_reply(buf, len - 4, 10, &a), -EBADMSG);
        ((struct nlmsghdr *) buf)->nlmsg_len = NLMSG_LENGTH(2);
        assert_int_equal(rtnl_parse_route_reply(buf, NLMSG_ALIGN(NLMSG_LENGTH(2)), 10, &a), -EBADMSG);
}

static void test_rtnl_parse_addr_dump(void **state) {
        uint8_t buf[1024] __attribute__((aligned(4))) = {}, mine[16] = { 10, 1, 1, 1 }, other[4] = { 10, 1, 1, 2 };
        struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_index = 3 };
        size_t len;
        bool done;

        len = put_msg(buf, RTM_NEWADDR, 8, &ifa, sizeof(ifa), IFA_LOCAL, other, sizeof(other), 0);
        ifa.ifa_index = 4;
        /* A point-to-point link: IFA_ADDRESS is the peer's, IFA_LOCAL ours. */
        len += put_msg(buf + len, RTM_NEWADDR, 8, &ifa, sizeof(ifa), IFA_ADDRESS, other, sizeof(other), IFA_LOCAL, mine,
                       (size_t) 4, 0);
        assert_int_equal(rtnl_parse_addr_dump(buf, len, 8, AF_INET, mine, &done), 4);
        assert_false(done);
        assert_int_equal(rtnl_parse_addr_dump(buf, len, 8, AF_INET, (uint8_t[16]){ 10, 9, 9, 9 }, &done), 0);
        assert_false(done);
        len += put_msg(buf + len, NLMSG_DONE, 8, &(int){ 0 }, sizeof(int), 0);
        assert_int_equal(rtnl_parse_addr_dump(buf, len, 8, AF_INET, (uint8_t[16]){ 10, 9, 9, 9 }, &done), 0);
        assert_true(done);
        len = put_error(buf, 8, -EPERM);
        assert_int_equal(rtnl_parse_addr_dump(buf, len, 8, AF_INET, mine, &done), -EPERM);
}

static void test_rtnl_parse_link_lower(void **state) {
        uint8_t buf[512] __attribute__((aligned(4))) = {};
        struct ifinfomsg ifi = { .ifi_index = 9 };
        int link = 5, self = 9, nsid = 0;
        size_t len;

        len = put_msg(buf, RTM_NEWLINK, 3, &ifi, sizeof(ifi), IFLA_LINK, &link, sizeof(link), 0);
        assert_int_equal(rtnl_parse_link_lower(buf, len, 3), 5);
        assert_int_equal(rtnl_parse_link_lower(buf, len, 4), -ENOENT);
        len = put_msg(buf, RTM_NEWLINK, 3, &ifi, sizeof(ifi), IFLA_LINK, &self, sizeof(self), 0);
        assert_int_equal(rtnl_parse_link_lower(buf, len, 3), 0);
        len = put_msg(buf, RTM_NEWLINK, 3, &ifi, sizeof(ifi), IFLA_LINK, &link, sizeof(link), IFLA_LINK_NETNSID, &nsid,
                      sizeof(nsid), 0);
        assert_int_equal(rtnl_parse_link_lower(buf, len, 3), 0);
        len = put_msg(buf, RTM_NEWLINK, 3, &ifi, sizeof(ifi), 0);
        assert_int_equal(rtnl_parse_link_lower(buf, len, 3), 0);
        len = put_error(buf, 3, -ENODEV);
        assert_int_equal(rtnl_parse_link_lower(buf, len, 3), -ENODEV);
}

typedef struct Indexes {
        int seen[8];
        int n;
} Indexes;

static void collect_index(int ifindex, void *userdata) {
        Indexes *x = userdata;
        if (x->n < 8)
                x->seen[x->n++] = ifindex;
}

static void test_rtnl_parse_addr_indexes(void **state) {
        uint8_t buf[1024] __attribute__((aligned(4))) = {};
        struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_index = 3 };
        struct ifinfomsg ifi = { .ifi_index = 4 };
        Indexes x = {};
        size_t len;

        len = put_msg(buf, RTM_NEWADDR, 0, &ifa, sizeof(ifa), 0);
        len += put_msg(buf + len, RTM_NEWLINK, 0, &ifi, sizeof(ifi), 0);
        ifa.ifa_index = 6;
        len += put_msg(buf + len, RTM_DELADDR, 0, &ifa, sizeof(ifa), 0);
        ifa.ifa_index = 0;
        len += put_msg(buf + len, RTM_NEWADDR, 0, &ifa, sizeof(ifa), 0); /* counted, no callback */
        assert_int_equal(rtnl_parse_addr_indexes(buf, len, collect_index, &x), 3);
        assert_int_equal(x.n, 2);
        assert_int_equal(x.seen[0], 3);
        assert_int_equal(x.seen[1], 6);
        ((struct nlmsghdr *) buf)->nlmsg_len = NLMSG_LENGTH(2);
        assert_int_equal(rtnl_parse_addr_indexes(buf, NLMSG_ALIGN(NLMSG_LENGTH(2)), collect_index, &x), -EBADMSG);
}

/* A model by hand: mlx5_0 port 1 (ens1f0np0 and a VLAN in its GIDs), mlx4_0 port 1 (InfiniBand, ib0). */
static Gid mlx5_gids[] = {
        { 0, "fe80:0000:0000:0000:9a03:9bff:feaa:bbc0", "IB/RoCE v1", "ens1f0np0" },
        { 1, "fe80:0000:0000:0000:9a03:9bff:feaa:bbc0", "RoCE v2", "ens1f0np0" },
        { 2, "0000:0000:0000:0000:0000:ffff:c0a8:010a", "IB/RoCE v1", "ens1f0np0" },
        { 3, "0000:0000:0000:0000:0000:ffff:c0a8:010a", "RoCE v2", "ens1f0np0" },
        { 4, "0000:0000:0000:0000:0000:ffff:c0a8:640a", "IB/RoCE v1", "vlan100" },
        { 5, "0000:0000:0000:0000:0000:ffff:c0a8:010a", "RoCE v2", "ens1f0np0" },
};
static Gid mlx4_gids[] = {
        { 0, "fe80:0000:0000:0000:0002:c903:00a1:b2c1", "", "" },
};

static void test_gid_resolve(void **state) {
        Port mlx5_port = {
                .number = 1, .netdev = "ens1f0np0", .link_layer = "Ethernet", .gids = mlx5_gids, .n_gids = 6
        };
        Port mlx4_port = { .number = 1, .netdev = "", .link_layer = "InfiniBand", .gids = mlx4_gids, .n_gids = 1 };
        NetDev ib0 = { .name = "ib0", .port = 1 }, ens = { .name = "ens1f0np0", .port = 1 };
        NetDev *mlx5_netdevs[] = { &ens }, *mlx4_netdevs[] = { &ib0 };
        Device mlx5 = { .name = "mlx5_0", .ports = &mlx5_port, .n_ports = 1, .netdevs = mlx5_netdevs, .n_netdevs = 1 };
        Device mlx4 = { .name = "mlx4_0", .ports = &mlx4_port, .n_ports = 1, .netdevs = mlx4_netdevs, .n_netdevs = 1 };
        Device *devices[] = { &mlx4, &mlx5 };
        Manager m = { .devices = devices, .n_devices = 2 };
        uint8_t a[16] = { 192, 168, 1, 10 };
        GidMatch g;

        mlx5_port.device = &mlx5;
        mlx4_port.device = &mlx4;
        ib0.device = &mlx4;
        ens.device = &mlx5;
        assert_int_equal(attr_list_set(&ib0.attributes, "type", "32"), 0);
        assert_int_equal(attr_list_set(&ib0.attributes, "address",
                                       "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1"),
                         0);

        /* v2 before v1, the lowest index among the v2 entries. */
        assert_int_equal(gid_resolve(&m, "ens1f0np0", AF_INET, a, &g), GID_RESOLVE_FOUND);
        assert_ptr_equal(g.port, &mlx5_port);
        assert_int_equal(g.gid->index, 3);
        assert_false(g.ipoib);
        /* Only v1 there: v1. */
        a[2] = 100;
        assert_int_equal(gid_resolve(&m, "vlan100", AF_INET, a, &g), GID_RESOLVE_FOUND);
        assert_int_equal(g.gid->index, 4);
        /* The same address on another netdev: not this entry. */
        assert_int_equal(gid_resolve(&m, "ens1f0np0", AF_INET, a, &g), GID_RESOLVE_NO_GID);
        assert_ptr_equal(g.port, &mlx5_port);
        assert_string_equal(g.wanted, "0000:0000:0000:0000:0000:ffff:c0a8:640a");
        assert_int_equal(gid_resolve(&m, "eth9", AF_INET, a, &g), GID_RESOLVE_NOT_RDMA);
        /* IPoIB: whatever the source, the GID in the hardware address. */
        assert_int_equal(gid_resolve(&m, "ib0", AF_INET, a, &g), GID_RESOLVE_FOUND);
        assert_ptr_equal(g.port, &mlx4_port);
        assert_int_equal(g.gid->index, 0);
        assert_true(g.ipoib);
        assert_int_equal(attr_list_set(&ib0.attributes, "address",
                                       "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c2"),
                         0);
        assert_int_equal(gid_resolve(&m, "ib0", AF_INET, a, &g), GID_RESOLVE_NO_GID);
        assert_ptr_equal(g.port, &mlx4_port);
        /* Not type 32: a netdev of an RDMA device all the same, that no GID names. */
        assert_int_equal(attr_list_set(&ib0.attributes, "type", "1"), 0);
        assert_int_equal(gid_resolve(&m, "ib0", AF_INET, a, &g), GID_RESOLVE_NO_GID);
        attr_list_clear(&ib0.attributes);

        /* gid-follow's choice of ports. */
        assert_true(port_gids_name(&mlx5_port, "ens1f0np0"));
        assert_true(port_gids_name(&mlx5_port, "vlan100"));
        assert_false(port_gids_name(&mlx5_port, "ib0"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_route_target_parse),
                cmocka_unit_test(test_gid_forms),
                cmocka_unit_test(test_rtnl_parse_route_reply),
                cmocka_unit_test(test_rtnl_parse_addr_dump),
                cmocka_unit_test(test_rtnl_parse_link_lower),
                cmocka_unit_test(test_rtnl_parse_addr_indexes),
                cmocka_unit_test(test_gid_resolve),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
