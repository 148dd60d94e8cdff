/* SPDX-License-Identifier: MIT */
#pragma once

/* The HTTP side of rdmad-exporter, all HTTP handled by libmicrohttpd, run
 * by the exporter's sd-event loop (one thread: the bus, the model and the
 * connections never wait for each other): GET/HEAD on the telemetry path (a
 * scrape, in the negotiated format, gzip when asked, keep-alive), / (a page
 * pointing there), 404 and 405 for the rest. A scrape suspends its
 * connection until rdmad's counters arrive or its budget is spent, so a
 * hung rdmad delays no other connection. guard.h says who may stay
 * connected. */

#include <stdint.h>
#include <systemd/sd-event.h>

#include "model.h"

typedef struct HttpServer HttpServer;

typedef struct HttpConfig {
        int listen_fd;              /* bound and listening; taken over */
        const char *telemetry_path; /* "/metrics" */
        uint64_t bus_timeout_usec;  /* the longest a scrape waits for rdmad */
} HttpConfig;

int http_server_start(sd_event *event, Model *model, const HttpConfig *config, HttpServer **ret);
HttpServer *http_server_stop(HttpServer *s);
