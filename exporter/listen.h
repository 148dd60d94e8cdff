/* SPDX-License-Identifier: MIT */
#pragma once

/* --listen=ADDR:PORT: "127.0.0.1:10480", "[::1]:10480", ":10480" (every
 * address, IPv6 and IPv4). */

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define RDMAD_EXPORTER_DEFAULT_LISTEN ":10480"

/* Splits ADDR:PORT; *ret_host is "" for every address. Pure. -EINVAL when
 * malformed (no port, a port that is not 1-65535, an unclosed bracket). */
int listen_address_parse(const char *s, char **ret_host, unsigned *ret_port);

/* A bound, listening TCP socket for ADDR:PORT (close-on-exec). */
int listen_socket_open(const char *address);

/* Where a socket of that address listens, for a person: "127.0.0.1:10480",
 * "[::1]:10480", "[::]:10480, every address, IPv6 and IPv4" (v6only
 * false), "0.0.0.0:10480, every IPv4 address", "unix:/run/x.sock",
 * "unix:@abstract". Pure. -EAFNOSUPPORT for another family. */
int listen_address_format(const struct sockaddr *sa, socklen_t len, bool v6only, char *buf, size_t size);

/* The same for a socket, as getsockname() and IPV6_V6ONLY say. */
int listen_socket_describe(int fd, char *buf, size_t size);
