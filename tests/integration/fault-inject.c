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
 * socket (rtnetlink: link messages lost because its queue was full).
 *
 * With $RDMAD_FAULT_HANG_WRITE set, a write() to a file whose path ends with
 * its value never returns: a driver stuck in sriov_numvfs. (In front of
 * umockdev's library, so the thread holds none of its locks meanwhile.) */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

ssize_t recvmsg(int fd, struct msghdr *msg, int flags);
ssize_t write(int fd, const void *buf, size_t count);

static int fd_path_ends_with(int fd, const char *suffix) {
        char link[64], path[PATH_MAX];
        size_t n, l = strlen(suffix);
        ssize_t k;

        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        k = readlink(link, path, sizeof(path) - 1);
        if (k < 0)
                return 0;
        n = (size_t) k;
        path[n] = '\0';
        return n >= l && strcmp(path + n - l, suffix) == 0;
}

ssize_t write(int fd, const void *buf, size_t count) {
        static ssize_t (*real_write)(int, const void *, size_t);
        const char *hang = getenv("RDMAD_FAULT_HANG_WRITE");

        if (!real_write)
                real_write = (ssize_t (*)(int, const void *, size_t)) dlsym(RTLD_NEXT, "write");
        if (hang && fd > 2 && fd_path_ends_with(fd, hang))
                for (;;)
                        pause();
        return real_write(fd, buf, count);
}

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
