/* SPDX-License-Identifier: MIT */
#include "rtnl.h"

#include <errno.h>
#include <sys/socket.h>

#include "basic/log.h"
#include "basic/util.h"

int nlmsg_next(const void *buf, size_t len, size_t *off, const struct nlmsghdr **ret) {
        const struct nlmsghdr *h;

        if (*off >= len || len - *off < sizeof(struct nlmsghdr))
                return 0;
        h = (const struct nlmsghdr *) ((const uint8_t *) buf + *off);
        if (h->nlmsg_len < sizeof(struct nlmsghdr) || h->nlmsg_len > len - *off)
                return -EBADMSG;
        *off += NLMSG_ALIGN(h->nlmsg_len);
        *ret = h;
        return 1;
}

const struct rtattr *nlmsg_attr(const struct nlmsghdr *h, size_t hdr_size, unsigned short type) {
        size_t end = h->nlmsg_len, off = NLMSG_SPACE(hdr_size);

        while (off < end && end - off >= sizeof(struct rtattr)) {
                const struct rtattr *a = (const struct rtattr *) ((const uint8_t *) h + off);

                if (a->rta_len < sizeof(struct rtattr) || a->rta_len > end - off)
                        return NULL;
                if (a->rta_type == type)
                        return a;
                off += RTA_ALIGN(a->rta_len);
        }
        return NULL;
}

ssize_t rtnl_recv(int fd, uint8_t *buf, size_t size) {
        for (;;) {
                struct sockaddr_nl sender = {};
                struct iovec iov = { .iov_base = buf, .iov_len = size };
                struct msghdr msg = {
                        .msg_name = &sender, .msg_namelen = sizeof(sender), .msg_iov = &iov, .msg_iovlen = 1
                };
                ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (msg.msg_flags & MSG_TRUNC)
                        return -EBADMSG;
                if (msg.msg_namelen == sizeof(sender) && sender.nl_pid == 0)
                        return n;
                log_debug("Ignoring an rtnetlink message from port %u, not from the kernel.", (unsigned) sender.nl_pid);
        }
}
