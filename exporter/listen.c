/* SPDX-License-Identifier: MIT */
#include "listen.h"

#include <assert.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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
                return log_error_errno(EADDRNOTAVAIL, "Cannot resolve '%s': %s", host, gai_strerror(r));
        if (fd < 0)
                return log_error_errno(fd, "Cannot listen on %s: %m", address);
        return fd;
}
