/* SPDX-License-Identifier: MIT */
/* Which netdev and source address the kernel uses to reach an address:
 * RTM_GETROUTE, and RTM_GETADDR for a local one (route-query.h). */
#include "route-query.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "basic/util.h"
#include "rtnl.h"

#define RTNL_ANSWER_BUF 32768

static bool ipv6_is_link_local(const uint8_t a[16]) {
        return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

int route_target_parse(const char *text, RouteTarget *ret) {
        char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 1];
        const char *scope;
        size_t len;

        assert(ret);
        *ret = (RouteTarget){};
        if (!text)
                return -EINVAL;
        len = strlen(text);
        if (len == 0 || len >= sizeof(buf))
                return -EINVAL;
        memcpy(buf, text, len + 1);

        if (inet_pton(AF_INET, buf, ret->addr) == 1) {
                ret->family = AF_INET;
                return 0;
        }
        scope = strchr(buf, '%');
        if (scope)
                buf[scope++ - buf] = '\0';
        if (inet_pton(AF_INET6, buf, ret->addr) != 1)
                return -EINVAL;
        ret->family = AF_INET6;
        if (!scope)
                return 0;
        /* A scope belongs to a link-local address only, and names an interface. */
        if (!ipv6_is_link_local(ret->addr) || !*scope || strlen(scope) >= IF_NAMESIZE)
                return -EINVAL;
        ret->scope_ifindex = (int) if_nametoindex(scope);
        return ret->scope_ifindex > 0 ? 0 : -ENODEV;
}

void route_target_format(const RouteTarget *t, char buf[static INET6_ADDRSTRLEN + IF_NAMESIZE + 1]) {
        char name[IF_NAMESIZE];
        size_t n;

        if (!inet_ntop(t->family, t->addr, buf, INET6_ADDRSTRLEN)) {
                strcpy(buf, "?");
                return;
        }
        if (t->scope_ifindex > 0 && if_indextoname((unsigned) t->scope_ifindex, name)) {
                n = strlen(buf);
                snprintf(buf + n, IF_NAMESIZE + 1, "%%%s", name);
        }
}

static size_t addr_len(int family) {
        return family == AF_INET ? 4 : 16;
}

/* The next answer of `type` to question seq from *off, at least hdrlen
 * long, in *ret: 1 found; 0 none left in buf, or the answer's end (*ret is
 * then its NLMSG_DONE); < 0 the kernel's error, or a message too short to
 * be one. Other questions' messages, other types, acknowledgements are skipped. */
static int nlmsg_next_answer(const void *buf, size_t len, size_t *off, uint32_t seq, uint16_t type, size_t hdrlen,
                             const struct nlmsghdr **ret) {
        const struct nlmsghdr *h;
        int k;

        *ret = NULL;
        while ((k = nlmsg_next(buf, len, off, &h)) > 0) {
                if (h->nlmsg_seq != seq)
                        continue;
                if (h->nlmsg_type == NLMSG_ERROR) {
                        const struct nlmsgerr *e = NLMSG_DATA(h);

                        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
                                return -EBADMSG;
                        return e->error > 0 ? -e->error : e->error;
                }
                if (h->nlmsg_type == NLMSG_DONE) {
                        *ret = h;
                        return 0;
                }
                if (h->nlmsg_type != type)
                        continue;
                if (h->nlmsg_len < NLMSG_LENGTH(hdrlen))
                        return -EBADMSG;
                *ret = h;
                return 1;
        }
        return k;
}

static const char *route_type_no_route(unsigned char type) {
        switch (type) {
        case RTN_UNREACHABLE:
                return "unreachable";
        case RTN_PROHIBIT:
                return "prohibit";
        case RTN_BLACKHOLE:
                return "blackhole";
        case RTN_THROW:
                return "throw";
        default:
                return NULL;
        }
}

int rtnl_parse_route_reply(const void *buf, size_t len, uint32_t seq, RouteAnswer *ret) {
        const struct nlmsghdr *h;
        const struct rtmsg *rt;
        const struct rtattr *a;
        size_t n, off = 0;
        int r;

        assert(buf || len == 0);
        assert(ret);
        r = nlmsg_next_answer(buf, len, &off, seq, RTM_NEWROUTE, sizeof(struct rtmsg), &h);
        if (r <= 0)
                return r;
        rt = NLMSG_DATA(h);
        if (rt->rtm_family != AF_INET && rt->rtm_family != AF_INET6)
                return -EBADMSG;
        ret->family = rt->rtm_family;
        ret->local = rt->rtm_type == RTN_LOCAL;
        ret->no_route_type = route_type_no_route(rt->rtm_type);
        n = addr_len(rt->rtm_family);
        a = nlmsg_attr(h, sizeof(struct rtmsg), RTA_OIF);
        if (a && RTA_PAYLOAD(a) >= sizeof(int))
                memcpy(&ret->ifindex, RTA_DATA(a), sizeof(int));
        a = nlmsg_attr(h, sizeof(struct rtmsg), RTA_PREFSRC);
        if (a && RTA_PAYLOAD(a) == n)
                memcpy(ret->source, RTA_DATA(a), n);
        return 1;
}

int rtnl_parse_addr_dump(const void *buf, size_t len, uint32_t seq, int family, const uint8_t addr[16],
                         bool *ret_done) {
        const struct nlmsghdr *h;
        size_t n = addr_len(family), off = 0;
        int r;

        assert(buf || len == 0);
        assert(ret_done);
        *ret_done = false;
        while ((r = nlmsg_next_answer(buf, len, &off, seq, RTM_NEWADDR, sizeof(struct ifaddrmsg), &h)) > 0) {
                const struct ifaddrmsg *ifa = NLMSG_DATA(h);
                const struct rtattr *a;

                if (ifa->ifa_family != family)
                        continue;
                /* IFA_LOCAL is the address of an IPv4 point-to-point link's own end; IFA_ADDRESS the peer's there. */
                a = nlmsg_attr(h, sizeof(struct ifaddrmsg), IFA_LOCAL);
                if (!a)
                        a = nlmsg_attr(h, sizeof(struct ifaddrmsg), IFA_ADDRESS);
                if (a && RTA_PAYLOAD(a) == n && memcmp(RTA_DATA(a), addr, n) == 0 && ifa->ifa_index > 0)
                        return (int) ifa->ifa_index;
        }
        *ret_done = r == 0 && h;
        return r;
}

static void rta_put(uint8_t *buf, size_t *off, unsigned short type, const void *data, size_t len) {
        struct rtattr *a = (struct rtattr *) (buf + *off);

        a->rta_type = type;
        a->rta_len = RTA_LENGTH(len);
        memcpy(RTA_DATA(a), data, len);
        *off += RTA_SPACE(len);
}

static uint32_t next_seq(void) {
        static uint32_t seq;

        if (seq == 0)
                seq = (uint32_t) time(NULL);
        return ++seq;
}

/* A socket per question: no answer of an earlier one can be left in it. */
static int rtnl_open(void) {
        struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
        int fd;

        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
        if (fd < 0)
                return negative_errno();
        if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                closep(&fd); /* keeps errno */
                return negative_errno();
        }
        return fd;
}

/* An exchange: what was asked (its sequence number) and what the answer said. */
typedef struct RtnlExchange {
        uint32_t seq;
        const RouteTarget *target;
        RouteAnswer *answer;
        int result;
} RtnlExchange;

/* Sends req, then hands each datagram to parse until it ends the exchange:
 * > 0 done (x->result holds the answer), 0 not yet (the next datagram),
 * < 0 an error. The kernel queues its answer during sendmsg() (and a
 * dump's next part during the previous recvmsg()): nothing there means
 * nothing will come, -EAGAIN, and the loop never waits. */
static int rtnl_transact(int fd, const void *req, size_t len,
                         int (*parse)(const uint8_t *buf, size_t n, RtnlExchange *x), RtnlExchange *x) {
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
        _cleanup_free_ uint8_t *buf = NULL;
        int r;

        if (sendto(fd, req, len, 0, (const struct sockaddr *) &kernel, sizeof(kernel)) < 0)
                return negative_errno();
        buf = malloc(RTNL_ANSWER_BUF);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t n = rtnl_recv(fd, buf, RTNL_ANSWER_BUF);

                if (n < 0)
                        return (int) n;
                r = parse(buf, (size_t) n, x);
                if (r != 0)
                        return r < 0 ? r : x->result;
        }
}

static int route_reply(const uint8_t *buf, size_t n, RtnlExchange *x) {
        int r = rtnl_parse_route_reply(buf, n, x->seq, x->answer);

        if (r >= 0)
                return r; /* 0: not our answer */
        switch (-r) {
        case ENETUNREACH:
        case EHOSTUNREACH:
        case EACCES:
        case EPERM:
        case EINVAL: /* IPv4 answers a blackhole route so */
                x->answer->no_route_errno = -r;
                return 1;
        default:
                return r;
        }
}

static int query_route(int fd, const RouteTarget *t, RouteAnswer *ret) {
        uint8_t req[NLMSG_SPACE(sizeof(struct rtmsg)) + 2 * RTA_SPACE(16)] __attribute__((aligned(NLMSG_ALIGNTO))) = {};
        struct nlmsghdr *h = (struct nlmsghdr *) req;
        struct rtmsg *rt = NLMSG_DATA(h);
        size_t off = NLMSG_SPACE(sizeof(struct rtmsg));
        RtnlExchange x = { .seq = next_seq(), .answer = ret };

        rt->rtm_family = (unsigned char) t->family;
        rt->rtm_dst_len = (unsigned char) (addr_len(t->family) * 8);
        rta_put(req, &off, RTA_DST, t->addr, addr_len(t->family));
        if (t->scope_ifindex > 0)
                rta_put(req, &off, RTA_OIF, &t->scope_ifindex, sizeof(int));
        h->nlmsg_len = (uint32_t) off;
        h->nlmsg_type = RTM_GETROUTE;
        h->nlmsg_flags = NLM_F_REQUEST;
        h->nlmsg_seq = x.seq;
        return rtnl_transact(fd, req, off, route_reply, &x);
}

/* Found: the rest of the dump goes with the socket. */
static int address_reply(const uint8_t *buf, size_t n, RtnlExchange *x) {
        bool done;
        int r = rtnl_parse_addr_dump(buf, n, x->seq, x->target->family, x->target->addr, &done);

        if (r < 0)
                return r;
        x->result = r;
        return r > 0 || done;
}

static int query_address_holder(int fd, const RouteTarget *t) {
        struct {
                struct nlmsghdr h;
                struct ifaddrmsg ifa;
        } req = {};
        RtnlExchange x = { .seq = next_seq(), .target = t };

        req.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
        req.h.nlmsg_type = RTM_GETADDR;
        req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
        req.h.nlmsg_seq = x.seq;
        req.ifa.ifa_family = (unsigned char) t->family;
        return rtnl_transact(fd, &req, req.h.nlmsg_len, address_reply, &x);
}

int route_query(const RouteTarget *t, RouteAnswer *ret) {
        _cleanup_close_ int fd = -EBADF;
        int r;

        assert(t);
        assert(ret);
        *ret = (RouteAnswer){ .family = t->family };

        fd = rtnl_open();
        if (fd < 0)
                return fd;
        (void) setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &(int){ 1 }, sizeof(int));

        r = query_route(fd, t, ret);
        if (r < 0 || ret->no_route_errno > 0 || ret->no_route_type)
                return r;
        if (ret->local) {
                /* The kernel says "dev lo": the netdev that holds the address is meant. */
                memcpy(ret->source, t->addr, addr_len(t->family));
                r = query_address_holder(fd, t);
                if (r < 0)
                        return r;
                if (r > 0)
                        ret->ifindex = r;
        }
        if (ret->ifindex <= 0 || !if_indextoname((unsigned) ret->ifindex, ret->ifname))
                return ret->ifindex <= 0 ? -ENXIO : negative_errno();
        return 0;
}

int rtnl_parse_link_lower(const void *buf, size_t len, uint32_t seq) {
        const struct nlmsghdr *h;
        const struct rtattr *a;
        size_t off = 0;
        int link = 0, r;

        assert(buf || len == 0);
        r = nlmsg_next_answer(buf, len, &off, seq, RTM_NEWLINK, sizeof(struct ifinfomsg), &h);
        if (r <= 0)
                return r < 0 ? r : -ENOENT;
        /* A link into another namespace (a veth's peer there) is none of ours. */
        if (nlmsg_attr(h, sizeof(struct ifinfomsg), IFLA_LINK_NETNSID))
                return 0;
        a = nlmsg_attr(h, sizeof(struct ifinfomsg), IFLA_LINK);
        if (a && RTA_PAYLOAD(a) >= sizeof(int))
                memcpy(&link, RTA_DATA(a), sizeof(int));
        return link > 0 && link != ((const struct ifinfomsg *) NLMSG_DATA(h))->ifi_index ? link : 0;
}

static int link_reply(const uint8_t *buf, size_t n, RtnlExchange *x) {
        int r = rtnl_parse_link_lower(buf, n, x->seq);

        if (r == -ENOENT)
                return 0; /* not our answer */
        if (r < 0)
                return r;
        x->result = r;
        return 1;
}

int route_query_lower(int ifindex) {
        struct {
                struct nlmsghdr h;
                struct ifinfomsg ifi;
        } req = {};
        _cleanup_close_ int fd = rtnl_open();
        RtnlExchange x = { .seq = next_seq() };

        if (fd < 0)
                return fd;
        req.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
        req.h.nlmsg_type = RTM_GETLINK;
        req.h.nlmsg_flags = NLM_F_REQUEST;
        req.h.nlmsg_seq = x.seq;
        req.ifi.ifi_family = AF_UNSPEC;
        req.ifi.ifi_index = ifindex;
        return rtnl_transact(fd, &req, req.h.nlmsg_len, link_reply, &x);
}
