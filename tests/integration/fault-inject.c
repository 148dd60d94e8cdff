/* SPDX-License-Identifier: MIT */
/* Preloaded into rdmad by the hostile-conditions and counters tests, for
 * the faults umockdev cannot produce.
 *
 * $RDMAD_FAULT_ENOBUFS: the udev monitor socket reporting ENOBUFS (the
 * kernel dropped uevents because the receive queue was full). When the file
 * it names exists, the next receive on a unix datagram socket (under
 * umockdev, that is the udev monitor: sd-bus uses a stream socket, rtnetlink
 * a netlink one) consumes the datagram, so the uevent is lost as it would
 * be, deletes the file and fails with ENOBUFS.
 *
 * $RDMAD_FAULT_EACCES=<path suffix>: opening a file whose path ends so fails
 * with EACCES, as a sysfs file the daemon's user may not read does, even
 * when the tests run as root.
 *
 * $RDMAD_FAULT_SLOW=<substring>:<ms>: opening a file whose path contains
 * the substring first sleeps that long (a driver slow to answer a read).
 *
 * $RDMAD_FAULT_RTNL_ENOBUFS does the same as $RDMAD_FAULT_ENOBUFS to the
 * next receive on a netlink socket (rtnetlink: link messages lost because
 * its queue was full).
 *
 * With $RDMAD_FAULT_HANG_WRITE set, a write() to a file whose path ends with
 * its value never returns: a driver stuck in sriov_numvfs. (In front of
 * umockdev's library, so the thread holds none of its locks meanwhile.)
 *
 * $RDMAD_FAULT_ENOSPC=<substring>: a write() to a file whose path contains
 * it fails with ENOSPC, as on a full disk. */

/* openat and openat64 are two symbols to wrap, not one name for the other. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

ssize_t recvmsg(int fd, struct msghdr *msg, int flags);
int openat(int dirfd, const char *path, int flags, ...);
int openat64(int dirfd, const char *path, int flags, ...);
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

static int fd_path_contains(int fd, const char *needle) {
        char link[64], path[PATH_MAX];
        ssize_t k;

        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        k = readlink(link, path, sizeof(path) - 1);
        if (k < 0)
                return 0;
        path[k] = '\0';
        return strstr(path, needle) != NULL;
}

ssize_t write(int fd, const void *buf, size_t count) {
        static ssize_t (*real_write)(int, const void *, size_t);
        const char *hang = getenv("RDMAD_FAULT_HANG_WRITE"), *enospc = getenv("RDMAD_FAULT_ENOSPC");

        if (!real_write)
                real_write = (ssize_t(*)(int, const void *, size_t)) dlsym(RTLD_NEXT, "write");
        if (hang && fd > 2 && fd_path_ends_with(fd, hang))
                for (;;)
                        pause();
        if (enospc && *enospc && fd > 2 && fd_path_contains(fd, enospc)) {
                errno = ENOSPC;
                return -1;
        }
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
                real_recvmsg = (ssize_t(*)(int, struct msghdr *, int)) dlsym(RTLD_NEXT, "recvmsg");

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

/* dirfd/path as an absolute path (the testbed's real one), or false. */
static bool full_path(int dirfd, const char *path, char *buf, size_t size) {
        char link[64];
        ssize_t n;

        if (path[0] == '/' || dirfd == AT_FDCWD)
                return (size_t) snprintf(buf, size, "%s", path) < size;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
        n = readlink(link, buf, size - 1);
        if (n < 0)
                return false;
        buf[n] = '\0';
        return (size_t) snprintf(buf + n, size - (size_t) n, "/%s", path) < size - (size_t) n;
}

/* -1 with errno set if the open must fail, else 0 (after the delay, if any). */
static int open_fault(int dirfd, const char *path) {
        const char *eacces = getenv("RDMAD_FAULT_EACCES"), *slow = getenv("RDMAD_FAULT_SLOW");
        char full[2 * PATH_MAX];
        size_t lf, ls;

        if ((!eacces && !slow) || !full_path(dirfd, path, full, sizeof(full)))
                return 0;
        if (slow) {
                const char *colon = strrchr(slow, ':');
                char needle[256];

                if (colon && (size_t) (colon - slow) < sizeof(needle)) {
                        memcpy(needle, slow, (size_t) (colon - slow));
                        needle[colon - slow] = '\0';
                        if (strstr(full, needle)) {
                                long ms = atol(colon + 1);
                                struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
                                nanosleep(&ts, NULL);
                        }
                }
        }
        if (eacces) {
                lf = strlen(full);
                ls = strlen(eacces);
                if (ls > 0 && lf >= ls && strcmp(full + lf - ls, eacces) == 0) {
                        errno = EACCES;
                        return -1;
                }
        }
        return 0;
}

static int open_with_faults(const char *symbol, int dirfd, const char *path, int flags, mode_t mode) {
        int (*real_openat)(int, const char *, int, ...) =
                (int (*)(int, const char *, int, ...)) dlsym(RTLD_NEXT, symbol);
        int saved = errno;

        if (open_fault(dirfd, path) < 0)
                return -1;
        errno = saved;
        return real_openat(dirfd, path, flags, mode);
}

/* openat() and openat64() alike: the mode only comes with O_CREAT or O_TMPFILE. */
#define DEFINE_OPEN_WRAPPER(symbol)                                                                                    \
        int symbol(int dirfd, const char *path, int flags, ...) {                                                      \
                mode_t mode = 0;                                                                                       \
                if (flags & (O_CREAT | O_TMPFILE)) {                                                                   \
                        va_list ap;                                                                                    \
                        va_start(ap, flags);                                                                           \
                        mode = va_arg(ap, mode_t);                                                                     \
                        va_end(ap);                                                                                    \
                }                                                                                                      \
                return open_with_faults(#symbol, dirfd, path, flags, mode);                                            \
        }

DEFINE_OPEN_WRAPPER(openat)
DEFINE_OPEN_WRAPPER(openat64)
