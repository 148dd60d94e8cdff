/* SPDX-License-Identifier: MIT */
#pragma once

#include <arpa/inet.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's answer to "how does this host reach ADDRESS" (what `ip
 * route get` prints), asked over rtnetlink in rdmad's network namespace:
 * RTM_GETROUTE for the egress netdev and the preferred source; for a local
 * address (route type local, `dev lo`), RTM_GETADDR for the netdev that
 * holds it, the address itself being the source. The kernel answers an
 * rtnetlink request inside sendmsg() (no peer is waited for), so the
 * exchange runs on the loop with MSG_DONTWAIT, on a socket of its own. */

typedef struct RouteTarget {
        int family; /* AF_INET or AF_INET6 */
        uint8_t addr[16];
        int scope_ifindex; /* an IPv6 link-local address's %ifname, else 0 */
} RouteTarget;

typedef struct RouteAnswer {
        int family;
        uint8_t source[16];
        bool local;  /* route type local: the address is one of this host's */
        int ifindex; /* the egress netdev, or the one holding a local address */
        char ifname[IF_NAMESIZE];
        /* No route: the errno the kernel said (ENETUNREACH, EHOSTUNREACH,
         * EACCES for prohibit, EINVAL for blackhole) or the route's type
         * name ("unreachable", "prohibit", "blackhole", "throw"). 0 and ""
         * when there is one. */
        int no_route_errno;
        const char *no_route_type;
} RouteAnswer;

/* An IPv4 or IPv6 address in text form; an IPv6 link-local address may
 * carry a %ifname scope (the interface must exist). -EINVAL for anything
 * else, -ENODEV for a scope that names no interface. */
int route_target_parse(const char *text, RouteTarget *ret);

/* The address of t as inet_ntop() prints it, with its scope. */
void route_target_format(const RouteTarget *t, char buf[static INET6_ADDRSTRLEN + IF_NAMESIZE + 1]);

/* Asks the kernel. 0 with *ret filled (no_route_errno or no_route_type set
 * when there is no route); < 0: the question could not be asked or the
 * answer not read (-errno). */
int route_query(const RouteTarget *t, RouteAnswer *ret);

/* Pure, for the tests: the answer to the RTM_GETROUTE of sequence number
 * seq in buf, into ret (family, source, local, ifindex, no_route_*):
 * 1 when found, 0 when buf does not hold it, -EBADMSG when malformed, and
 * the kernel's error as -errno otherwise. */
int rtnl_parse_route_reply(const void *buf, size_t len, uint32_t seq, RouteAnswer *ret);
/* The index of the netdev that holds address `addr` of `family` in a
 * chunk of an RTM_GETADDR dump: > 0 when found, 0 when not in this chunk
 * (*ret_done set when the dump ended), -EBADMSG, or the kernel's -errno. */
int rtnl_parse_addr_dump(const void *buf, size_t len, uint32_t seq, int family, const uint8_t addr[16], bool *ret_done);

/* The netdev below ifindex (a VLAN's or macvlan's lower device: IFLA_LINK
 * of RTM_GETLINK, in this namespace): its index, 0 when there is none, or
 * -errno. */
int route_query_lower(int ifindex);
/* Pure, for the tests: IFLA_LINK of the RTM_NEWLINK answer of sequence
 * number seq in buf (0 when absent or in another namespace), -ENOENT when
 * buf does not hold it, -EBADMSG, or the kernel's -errno. */
int rtnl_parse_link_lower(const void *buf, size_t len, uint32_t seq);
