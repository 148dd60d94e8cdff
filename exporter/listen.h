/* SPDX-License-Identifier: MIT */
#pragma once

/* --listen=ADDR:PORT: "127.0.0.1:10480", "[::1]:10480", ":10480" (every
 * address, IPv6 and IPv4). */

#define RDMAD_EXPORTER_DEFAULT_LISTEN ":10480"

/* Splits ADDR:PORT; *ret_host is "" for every address. Pure. -EINVAL when
 * malformed (no port, a port that is not 1-65535, an unclosed bracket). */
int listen_address_parse(const char *s, char **ret_host, unsigned *ret_port);

/* A bound, listening TCP socket for ADDR:PORT (close-on-exec). */
int listen_socket_open(const char *address);
