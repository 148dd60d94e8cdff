/* SPDX-License-Identifier: MIT */
/* rtnetlink link notifications: a RoCE or iWARP port's link follows its
 * netdev, so a link message re-reads the ports behind that netdev at once
 * instead of waiting for the next poll. Address notifications: the kernel
 * fills the GID tables from the addresses, so an address message has the
 * tables that name its netdev followed (gid-follow.h). */
#include "netlink.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "basic/log.h"
#include "basic/util.h"
#include "event-sources.h"
#include "gid-follow.h"
#include "manager.h"
#include "link-poll.h"
#include "route-query.h"
#include "rtnl.h"
#include "netdev.h"
#include "port.h"
#include "read-job.h"

#define RTNL_RCVBUF_SIZE (8 * 1024 * 1024)

/* What a parser calls back with: one of the two. */
typedef struct RtnlCallback {
        void (*name)(const char *ifname, void *userdata);
        void (*index)(int ifindex, void *userdata);
        void *userdata;
} RtnlCallback;

/* Calls fn for each message of the datagram buf of type type_new or
 * type_del; the number of them, or -EBADMSG for a length that does not
 * fit or such a message shorter than its header of header_len. */
static int rtnl_for_each_message(const void *buf, size_t len, uint16_t type_new, uint16_t type_del, size_t header_len,
                                 void (*fn)(const struct nlmsghdr *h, const RtnlCallback *c), const RtnlCallback *c) {
        const struct nlmsghdr *h;
        size_t off = 0;
        int k, n = 0;

        assert(buf || len == 0);

        while ((k = nlmsg_next(buf, len, &off, &h)) > 0) {
                if (h->nlmsg_type == NLMSG_DONE)
                        break;
                if (h->nlmsg_type != type_new && h->nlmsg_type != type_del)
                        continue;
                if (h->nlmsg_len < NLMSG_LENGTH(header_len))
                        return -EBADMSG;
                n++;
                fn(h, c);
        }
        return k < 0 ? k : n;
}

/* The IFLA_IFNAME of a link message. */
static void link_message_name(const struct nlmsghdr *h, const RtnlCallback *c) {
        const struct rtattr *a = nlmsg_attr(h, sizeof(struct ifinfomsg), IFLA_IFNAME);
        char name[IF_NAMESIZE];
        size_t l = a ? RTA_PAYLOAD(a) : 0;

        if (l == 0 || l > sizeof(name))
                return;
        memcpy(name, RTA_DATA(a), l);
        name[l - 1] = '\0';
        if (name[0])
                c->name(name, c->userdata);
}

int rtnl_parse_link_names(const void *buf, size_t len, void (*cb)(const char *ifname, void *userdata), void *userdata) {
        assert(cb);
        return rtnl_for_each_message(buf, len, RTM_NEWLINK, RTM_DELLINK, sizeof(struct ifinfomsg), link_message_name,
                                     &(RtnlCallback){ .name = cb, .userdata = userdata });
}

static void address_message_index(const struct nlmsghdr *h, const RtnlCallback *c) {
        const struct ifaddrmsg *ifa = NLMSG_DATA(h);

        if (ifa->ifa_index > 0 && ifa->ifa_index <= INT32_MAX)
                c->index((int) ifa->ifa_index, c->userdata);
}

int rtnl_parse_addr_indexes(const void *buf, size_t len, void (*cb)(int ifindex, void *userdata), void *userdata) {
        assert(cb);
        return rtnl_for_each_message(buf, len, RTM_NEWADDR, RTM_DELADDR, sizeof(struct ifaddrmsg),
                                     address_message_index, &(RtnlCallback){ .index = cb, .userdata = userdata });
}

/* An upper netdev (VLAN, macvlan) has GIDs on the port of the netdev below
 * it; before the kernel fills them, no port names it: the netdevs below are
 * followed too, a few levels down (a veth's peer links back). */
#define LOWER_DEPTH_MAX 4

static void on_address_index(int ifindex, void *userdata) {
        EventSources *s = userdata;
        int seen[LOWER_DEPTH_MAX + 1];
        size_t n_seen = 0;

        for (int i = ifindex; i > 0 && n_seen <= LOWER_DEPTH_MAX;) {
                char name[IF_NAMESIZE];
                bool again = false;

                for (size_t k = 0; k < n_seen; k++)
                        again = again || seen[k] == i;
                if (again || !if_indextoname((unsigned) i, name))
                        break; /* gone meanwhile: its link message re-reads what it had */
                seen[n_seen++] = i;
                gid_follow_netdev(s->gid_follow, name);
                i = route_query_lower(i);
        }
}

static void refresh_netdev(Manager *m, NetDev *n) {
        int r = netdev_refresh(n);

        if (errno_is_resource(r))
                resync_defer(m, r, n->name);
}

static void refresh_all_links(Manager *m) {
        for (size_t i = 0; i < m->n_devices; i++) {
                Device *d = m->devices[i];

                for (size_t j = 0; j < d->n_netdevs; j++)
                        refresh_netdev(m, d->netdevs[j]);
                for (size_t j = 0; j < d->n_ports; j++)
                        (void) port_refresh(&d->ports[j]);
        }
}

static void on_link_name(const char *ifname, void *userdata) {
        EventSources *s = userdata;
        Manager *m = s->manager;

        for (size_t i = 0; i < m->n_devices; i++) {
                Device *d = m->devices[i];
                NetDev *n = (NetDev *) device_find_netdev(d, ifname);

                if (!n)
                        continue;
                refresh_netdev(m, n);
                for (size_t j = 0; j < d->n_ports; j++) {
                        Port *p = &d->ports[j];

                        if (!streq(p->netdev, ifname) && !streq(p->gid_ndev, ifname))
                                continue;
                        /* The driver may update the port after the netdev: watch it for a few ticks. */
                        link_poll_port_boost(s->poll, p, 3);
                        (void) port_refresh(p);
                }
        }
}

static int on_rtnl(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        EventSources *s = userdata;
        Manager *m = s->manager;
        uint8_t buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));

        for (;;) {
                ssize_t n = rtnl_recv(fd, buf, sizeof(buf));

                if (n == -ENOBUFS) {
                        /* Link messages were lost: re-read every netdev and port. */
                        log_warning("rtnetlink overflowed; re-reading all netdevs and ports.");
                        refresh_all_links(m);
                        gid_follow_all(s->gid_follow);
                        continue;
                }
                if (n == -EBADMSG) {
                        log_debug("Ignoring an rtnetlink datagram cut short.");
                        continue;
                }
                if (n < 0) {
                        if (n != -EAGAIN)
                                log_warning_errno((int) n, "rtnetlink receive failed: %m");
                        break;
                }
                if (rtnl_parse_link_names(buf, (size_t) n, on_link_name, s) < 0 ||
                    rtnl_parse_addr_indexes(buf, (size_t) n, on_address_index, s) < 0)
                        log_debug("Ignoring a malformed rtnetlink message.");
        }
        manager_retry_resync(m);
        return 0;
}

int rtnl_start(EventSources *s) {
        struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
                                  .nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR };
        int r;

        assert(s);
        assert(s->rtnl_fd < 0);

        s->rtnl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
        if (s->rtnl_fd < 0)
                return log_error_errno(errno, "Failed to open an rtnetlink socket: %m");
        /* A link flap on a big host is a burst of messages: room for it, so that
         * ENOBUFS (and the full re-read it costs) stays rare. Beyond rmem_max
         * with CAP_NET_ADMIN only; without it, as much as the kernel allows. */
        if (setsockopt(s->rtnl_fd, SOL_SOCKET, SO_RCVBUFFORCE, &(int){ RTNL_RCVBUF_SIZE }, sizeof(int)) < 0)
                (void) setsockopt(s->rtnl_fd, SOL_SOCKET, SO_RCVBUF, &(int){ RTNL_RCVBUF_SIZE }, sizeof(int));
        if (bind(s->rtnl_fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return log_error_errno(errno, "Failed to subscribe to rtnetlink link and address messages: %m");

        r = sd_event_add_io(s->manager->event, &s->rtnl_event, s->rtnl_fd, EPOLLIN, on_rtnl, s);
        if (r < 0)
                return log_error_errno(r, "Failed to watch rtnetlink: %m");
        (void) sd_event_source_set_description(s->rtnl_event, "rtnetlink");
        return 0;
}
