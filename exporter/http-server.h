/* SPDX-License-Identifier: MIT */
#pragma once

/* The HTTP side of rdmad-exporter, all HTTP handled by libmicrohttpd:
 * GET/HEAD /metrics (a scrape of rdmad, in the negotiated format), / (a
 * page pointing there), 404 and 405 for the rest. One polling thread, so
 * scrapes run one at a time and the bus connection has one user. */

#include "rdmad-client.h"

typedef struct HttpServer HttpServer;

/* Serves on listen_fd, a bound and listening stream socket (taken over). */
int http_server_start(int listen_fd, uint64_t bus_timeout_usec, HttpServer **ret);
HttpServer *http_server_stop(HttpServer *s);

/* Renders what GET /metrics answers for this Accept header: the body
 * (malloc'd), its size and its content type. The scrape happens here. */
int metrics_render(RdmadClient *client, const char *accept, char **ret_body, size_t *ret_size,
                   const char **ret_content_type);
