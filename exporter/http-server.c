/* SPDX-License-Identifier: MIT */
#include "http-server.h"

#include <assert.h>
#include <errno.h>
#include <malloc.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "exposition.h"
#include "log.h"
#include "negotiate.h"
#include "util.h"

struct HttpServer {
        struct MHD_Daemon *daemon;
        RdmadClient client;
};

static const char index_page[] =
        "<!DOCTYPE html>\n"
        "<html><head><title>rdmad-exporter</title></head>\n"
        "<body><h1>rdmad-exporter</h1>\n"
        "<p>Prometheus metrics of the host's RDMA devices, from rdmad: <a href=\"/metrics\">/metrics</a></p>\n"
        "</body></html>\n";

int metrics_render(RdmadClient *client, const char *accept, char **ret_body, size_t *ret_size,
                   const char **ret_content_type) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        CounterTable counters = {};
        ExpositionFormat format = exposition_negotiate(accept);
        ScrapeResult scrape;
        char *body = NULL;
        size_t size = 0;
        int r;

        r = rdmad_client_scrape(client, &inv, &counters);
        scrape = (ScrapeResult){ .up = r >= 0, .inventory = inv, .counters = &counters };

        f = open_memstream(&body, &size);
        if (!f) {
                counter_table_clear(&counters);
                return -ENOMEM;
        }
        r = exposition_write(f, format, &scrape);
        counter_table_clear(&counters);
        /* The stream owns body until it is closed. */
        if (fclose(TAKE_PTR(f)) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0) {
                free(body);
                return r;
        }
        *ret_body = body;
        *ret_size = size;
        *ret_content_type = exposition_content_type(format);
        return 0;
}

static enum MHD_Result respond(struct MHD_Connection *connection, unsigned status, struct MHD_Response *response,
                               const char *content_type) {
        enum MHD_Result ret;

        if (!response)
                return MHD_NO;
        if (content_type && MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type) == MHD_NO) {
                MHD_destroy_response(response);
                return MHD_NO;
        }
        if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
                (void) MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
        ret = MHD_queue_response(connection, status, response);
        MHD_destroy_response(response);
        return ret;
}

static enum MHD_Result respond_static(struct MHD_Connection *connection, unsigned status, const char *text,
                                      const char *content_type) {
        return respond(connection, status,
                       MHD_create_response_from_buffer(strlen(text), (void *) text, MHD_RESPMEM_PERSISTENT),
                       content_type);
}

static enum MHD_Result handle_request(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                      const char *version, const char *upload_data, size_t *upload_data_size,
                                      void **req_cls) {
        HttpServer *s = cls;
        const char *content_type;
        char *body;
        size_t size;
        int r;

        if (!streq(method, MHD_HTTP_METHOD_GET) && !streq(method, MHD_HTTP_METHOD_HEAD))
                return respond_static(connection, MHD_HTTP_METHOD_NOT_ALLOWED, "Method not allowed.\n",
                                      "text/plain; charset=utf-8");
        if (streq(url, "/"))
                return respond_static(connection, MHD_HTTP_OK, index_page, "text/html; charset=utf-8");
        if (!streq(url, "/metrics"))
                return respond_static(connection, MHD_HTTP_NOT_FOUND, "Not found: try /metrics.\n",
                                      "text/plain; charset=utf-8");

        r = metrics_render(&s->client, MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT),
                           &body, &size, &content_type);
        if (r < 0) {
                log_error_errno(r, "Cannot render the metrics: %m");
                return respond_static(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, "Out of memory.\n",
                                      "text/plain; charset=utf-8");
        }
        return respond(connection, MHD_HTTP_OK, MHD_create_response_from_buffer(size, body, MHD_RESPMEM_MUST_FREE),
                       content_type);
}

/* A scrape of a big host allocates its model, counters and text, and frees
 * them when the answer is sent: give the pages back between scrapes. */
static void on_request_completed(void *cls, struct MHD_Connection *connection, void **req_cls,
                                 enum MHD_RequestTerminationCode toe) {
        (void) malloc_trim(0);
}

static void log_mhd(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void log_mhd(void *cls, const char *fmt, va_list ap) {
        char buf[512];
        size_t len;

        vsnprintf(buf, sizeof(buf), fmt, ap);
        len = strlen(buf);
        if (len > 0 && buf[len - 1] == '\n')
                buf[len - 1] = '\0';
        log_warning("libmicrohttpd: %s", buf);
}

int http_server_start(int listen_fd, uint64_t bus_timeout_usec, HttpServer **ret) {
        HttpServer *s;

        assert(listen_fd >= 0);
        assert(ret);

        s = calloc(1, sizeof(HttpServer));
        if (!s)
                return -ENOMEM;
        s->client.timeout_usec = bus_timeout_usec;
        s->daemon =
                MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, handle_request, s,
                                 MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL, MHD_OPTION_LISTEN_SOCKET, listen_fd,
                                 MHD_OPTION_NOTIFY_COMPLETED, on_request_completed, NULL, MHD_OPTION_CONNECTION_TIMEOUT,
                                 (unsigned) 60, MHD_OPTION_CONNECTION_LIMIT, (unsigned) 64, MHD_OPTION_END);
        if (!s->daemon) {
                free(s);
                return log_error_errno(EINVAL, "libmicrohttpd could not start on the listening socket.");
        }
        *ret = s;
        return 0;
}

HttpServer *http_server_stop(HttpServer *s) {
        if (!s)
                return NULL;
        /* Joins the polling thread: the bus connection is ours again. */
        MHD_stop_daemon(s->daemon);
        rdmad_client_done(&s->client);
        free(s);
        return NULL;
}
