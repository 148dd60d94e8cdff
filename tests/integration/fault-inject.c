/* SPDX-License-Identifier: MIT */
/* Preloaded into rdmad by the hostile-conditions tests, for the one fault
 * umockdev cannot produce: the udev monitor socket reporting ENOBUFS (the
 * kernel dropped uevents because the receive queue was full).
 *
 * When the file named by $RDMAD_FAULT_ENOBUFS exists, the next receive on
 * a unix datagram socket (under umockdev, that is the udev monitor: sd-bus
 * uses a stream socket, rtnetlink a netlink one) consumes the datagram,
 * so the uevent is lost as it would be, deletes the file and fails with
 * ENOBUFS.
 *
 * $RDMAD_FAULT_RTNL_ENOBUFS does the same to the next receive on a netlink
 * socket (rtnetlink: link messages lost because its queue was full). */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

ssize_t recvmsg(int fd, struct msghdr *msg, int flags);

static int socket_is(int fd, int want_domain, int want_type) {
        int domain = 0, type = 0;
        socklen_t len = sizeof(int);

        if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0)
                return 0;
        len = sizeof(int);
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
                return 0;
        return domain == want_domain && (want_type < 0 || type == want_type);
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags) {
        static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
        const char *trigger = getenv("RDMAD_FAULT_ENOBUFS");
        const char *rtnl_trigger = getenv("RDMAD_FAULT_RTNL_ENOBUFS");
        ssize_t n;

        if (!real_recvmsg)
                real_recvmsg = (ssize_t (*)(int, struct msghdr *, int)) dlsym(RTLD_NEXT, "recvmsg");

        if (rtnl_trigger && !(flags & MSG_PEEK) && socket_is(fd, AF_NETLINK, -1) && access(rtnl_trigger, F_OK) >= 0)
                trigger = rtnl_trigger;
        else if (!trigger || (flags & MSG_PEEK) || !socket_is(fd, AF_UNIX, SOCK_DGRAM) || access(trigger, F_OK) < 0)
                return real_recvmsg(fd, msg, flags);

        /* Only a datagram actually received is lost; "nothing there" stays that. */
        n = real_recvmsg(fd, msg, flags);
        if (n < 0 || unlink(trigger) < 0)
                return n;
        errno = ENOBUFS;
        return -1;
}
