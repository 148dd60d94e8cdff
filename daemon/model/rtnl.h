/* SPDX-License-Identifier: MIT */
#pragma once

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* rtnetlink's datagrams and messages, read with every length checked
 * against what was received (rtnl.c): the route queries (route-query.c)
 * and the link and address notifications (sources/netlink.c) read them so.
 * NLMSG_NEXT and RTA_NEXT subtract aligned lengths from the remaining size
 * and wrap around when the last message or attribute is not padded to the
 * end; offsets checked against the size cannot. */

/* The next message of buf at *off: 1 with *ret set; 0 at the end (a tail
 * shorter than a message header ends it too); -EBADMSG for a message whose
 * length does not fit. */
int nlmsg_next(const void *buf, size_t len, size_t *off, const struct nlmsghdr **ret);

/* The attribute `type` of a message whose fixed header is hdr_size bytes;
 * NULL when it has none, or its attributes stop making sense before it. */
const struct rtattr *nlmsg_attr(const struct nlmsghdr *h, size_t hdr_size, unsigned short type);

/* The next datagram from the kernel (any other sender is ignored: every
 * process may send to our port): its length; -EAGAIN when none is queued,
 * -ENOBUFS when the kernel dropped messages, -EBADMSG for one cut short. */
ssize_t rtnl_recv(int fd, uint8_t *buf, size_t size);
