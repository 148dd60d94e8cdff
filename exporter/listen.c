/* SPDX-License-Identifier: MIT */
#include "listen.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/util.h"

int listen_address_parse(const char *s, char **ret_host, unsigned *ret_port) {
        const char *colon, *host = s, *host_end;
        char *end, *copy;
        unsigned long port;

        assert(s);
        if (s[0] == '[') {
                host = s + 1;
                host_end = strchr(host, ']');
                if (!host_end || host_end[1] != ':')
                        return -EINVAL;
                colon = host_end + 1;
        } else {
                colon = strrchr(s, ':');
                if (!colon || memchr(s, ':', colon - s)) /* a bare IPv6 address needs brackets */
                        return -EINVAL;
                host_end = colon;
        }
        if (colon[1] < '0' || colon[1] > '9')
                return -EINVAL;
        errno = 0;
        port = strtoul(colon + 1, &end, 10);
        if (errno != 0 || *end != '\0' || port == 0 || port > 65535)
                return -EINVAL;
        copy = strndup(host, host_end - host);
        if (!copy)
                return -ENOMEM;
        *ret_host = copy;
        *ret_port = (unsigned) port;
        return 0;
}

static int open_bound(const struct addrinfo *ai) {
        _cleanup_close_ int fd = -1;
        int on = 1, off = 0, r;

        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
                return -errno;
        (void) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
        /* "::" serves IPv4 too. */
        if (ai->ai_family == AF_INET6)
                (void) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0)
                return -errno;
        r = fd;
        fd = -1;
        return r;
}

int listen_socket_open(const char *address) {
        _cleanup_free_ char *host = NULL;
        struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
        struct addrinfo *result = NULL;
        char service[8];
        unsigned port;
        int r, fd = -EADDRNOTAVAIL;

        r = listen_address_parse(address, &host, &port);
        if (r < 0)
                return log_error_errno(r, "Invalid listen address '%s': expected ADDR:PORT, [IPV6]:PORT or :PORT.",
                                       address);
        snprintf(service, sizeof(service), "%u", port);
        if (host[0] == '\0')
                hints.ai_family = AF_INET6; /* dual-stack "::" first, then 0.0.0.0 below */
        r = getaddrinfo(host[0] ? host : NULL, service, &hints, &result);
        if (r == 0) {
                for (struct addrinfo *ai = result; ai && fd < 0; ai = ai->ai_next)
                        fd = open_bound(ai);
                freeaddrinfo(result);
        }
        if (fd < 0 && host[0] == '\0') {
                hints.ai_family = AF_INET; /* a host without IPv6 */
                if (getaddrinfo(NULL, service, &hints, &result) == 0) {
                        for (struct addrinfo *ai = result; ai && fd < 0; ai = ai->ai_next)
                                fd = open_bound(ai);
                        freeaddrinfo(result);
                }
        } else if (r != 0)
                return log_error_errno(EADDRNOTAVAIL, "Failed to resolve '%s': %s", host, gai_strerror(r));
        if (fd < 0)
                return log_error_errno(fd, "Failed to listen on %s: %m", address);
        return fd;
}

int listen_address_format(const struct sockaddr *sa, socklen_t len, bool v6only, char *buf, size_t size) {
        char host[INET6_ADDRSTRLEN];
        int n;

        assert(sa);
        assert(buf);
        if (sa->sa_family == AF_INET && len >= (socklen_t) sizeof(struct sockaddr_in)) {
                const struct sockaddr_in *in = (const struct sockaddr_in *) sa;

                inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
                n = snprintf(buf, size, "%s:%u%s", host, ntohs(in->sin_port),
                             in->sin_addr.s_addr == htonl(INADDR_ANY) ? ", every IPv4 address" : "");
        } else if (sa->sa_family == AF_INET6 && len >= (socklen_t) sizeof(struct sockaddr_in6)) {
                const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) sa;
                bool any = IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr);

                inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
                n = snprintf(buf, size, "[%s]:%u%s", host, ntohs(in6->sin6_port),
                             !any     ? ""
                             : v6only ? ", every IPv6 address"
                                      : ", every address, IPv6 and IPv4");
        } else if (sa->sa_family == AF_UNIX && len >= (socklen_t) offsetof(struct sockaddr_un, sun_path)) {
                const struct sockaddr_un *un = (const struct sockaddr_un *) sa;
                size_t path_len = (size_t) len - offsetof(struct sockaddr_un, sun_path);

                if (path_len == 0)
                        n = snprintf(buf, size, "unix:(unnamed)");
                else if (un->sun_path[0] == '\0') /* abstract: not NUL-terminated */
                        n = snprintf(buf, size, "unix:@%.*s", (int) path_len - 1, un->sun_path + 1);
                else
                        n = snprintf(buf, size, "unix:%.*s", (int) strnlen(un->sun_path, path_len), un->sun_path);
        } else
                return -EAFNOSUPPORT;
        return n < 0 ? -EINVAL : 0;
}

int listen_socket_describe(int fd, char *buf, size_t size) {
        struct sockaddr_storage ss = {};
        socklen_t len = sizeof(ss);
        int v6only = 0;
        socklen_t optlen = sizeof(v6only);

        if (getsockname(fd, (struct sockaddr *) &ss, &len) < 0)
                return -errno;
        if (ss.ss_family == AF_INET6 && getsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, &optlen) < 0)
                return -errno;
        return listen_address_format((const struct sockaddr *) &ss, len, v6only != 0, buf, size);
}
