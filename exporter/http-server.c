/* SPDX-License-Identifier: MIT */
#include "http-server.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "basic/log.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "compress.h"
#include "exposition.h"
#include "guard.h"
#include "http-errors.h"
#include "log-limit.h"
#include "negotiate.h"

/* libmicrohttpd's own bound, above the guard's: connections being closed
 * by the guard still count there until they are gone. */
#define MHD_CONNECTIONS_MAX 256

/* What a peer makes libmicrohttpd log is counted, and logged at most this
 * often per reason: one peer's bad requests must not flood the journal
 * (nor use up journald's rate limit, which would drop the exporter's own
 * warnings with the noise). */
#define HTTP_ERROR_LOG_BURST         5U
#define HTTP_ERROR_LOG_INTERVAL_USEC (10 * USEC_PER_SEC)

typedef struct Connection Connection;

struct HttpServer {
        sd_event *event;
        Model *model;
        HttpConfig config;
        struct MHD_Daemon *daemon;
        sd_event_source *io, *timer, *guard_timer, *post;
        Connection **connections; /* the guard's view, one per open connection */
        size_t n_connections, allocated;
        GuardEntry *entries; /* scratch for guard_pick_victim() */
        uint64_t scrape_errors_total;
        uint64_t http_errors[_HTTP_ERROR_REASON_MAX];
        LogLimit http_error_logs[_HTTP_ERROR_REASON_MAX];
};

struct Connection {
        struct MHD_Connection *mhd;
        int fd;
        GuardEntry guard;
};

/* A scrape in progress: the connection waits suspended until done. */
typedef struct Scrape {
        HttpServer *server;
        struct MHD_Connection *connection;
        Connection *conn;
        CountersCall *call;
        uint64_t start_usec;
        ExpositionFormat format;
        bool started, gzip, done;
        char *body;
        size_t size;
        int error;
} Scrape;

static const char index_page_format[] =
        "<!DOCTYPE html>\n"
        "<html><head><title>rdmad-exporter</title></head>\n"
        "<body><h1>rdmad-exporter</h1>\n"
        "<p>Prometheus metrics of the host's RDMA devices, from rdmad: <a href=\"%s\">%s</a></p>\n"
        "</body></html>\n";

static void reschedule(HttpServer *s);

/* ---- errors caused by peers ---- */

static void http_error_log_suppressed(HttpErrorReason reason, uint64_t n) {
        if (n == 0)
                return;
        log_warning("HTTP: suppressed %" PRIu64 " similar messages (%s; at most %u are logged per %llu s, "
                    "rdmad_exporter_http_errors_total counts them all).",
                    n, http_error_reason_to_string(reason), HTTP_ERROR_LOG_BURST,
                    HTTP_ERROR_LOG_INTERVAL_USEC / USEC_PER_SEC);
}

/* Whether a message of this reason may be logged now; first the count of
 * what an interval that has just ended suppressed. */
static bool http_error_may_log(HttpServer *s, HttpErrorReason reason) {
        uint64_t suppressed;
        bool pass = log_limit_pass(&s->http_error_logs[reason], now_usec(CLOCK_MONOTONIC), &suppressed);

        http_error_log_suppressed(reason, suppressed);
        return pass;
}

/* The counts of intervals that are over: from the guard's timer, so they
 * are reported when a flood stops too; at exit all of them. */
static void http_error_logs_flush(HttpServer *s, uint64_t now) {
        for (HttpErrorReason r = 0; r < _HTTP_ERROR_REASON_MAX; r++)
                http_error_log_suppressed(r, log_limit_flush(&s->http_error_logs[r], now));
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

/* ---- the guard ---- */

static Connection *connection_of(struct MHD_Connection *c) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        return info ? info->socket_context : NULL;
}

static void address_string(const struct sockaddr *sa, char buf[static 64]) {
        buf[0] = '\0';
        if (!sa)
                return;
        if (sa->sa_family == AF_INET)
                inet_ntop(AF_INET, &((const struct sockaddr_in *) sa)->sin_addr, buf, 64);
        else if (sa->sa_family == AF_INET6) {
                const struct in6_addr *a = &((const struct sockaddr_in6 *) sa)->sin6_addr;

                /* A v4 client on a dual-stack socket is the same client as on a v4 one. */
                if (IN6_IS_ADDR_V4MAPPED(a))
                        inet_ntop(AF_INET, &a->s6_addr[12], buf, 64);
                else
                        inet_ntop(AF_INET6, a, buf, 64);
        } else
                snprintf(buf, 64, "family %d", sa->sa_family);
}

/* Closing is libmicrohttpd's: shut down, the connection reads EOF and goes. */
static void connection_close(HttpServer *s, Connection *c, const char *why) {
        if (c->guard.closing)
                return;
        log_debug("Closing the connection of %s: %s.", c->guard.address, why);
        c->guard.closing = true;
        (void) shutdown(c->fd, SHUT_RDWR);
}

static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen) {
        HttpServer *s = cls;
        char address[64];
        ssize_t victim;

        address_string(addr, address);
        if (s->n_connections > 0) {
                GuardEntry *entries = reallocarray(s->entries, s->n_connections, sizeof(GuardEntry));

                if (!entries)
                        return MHD_NO;
                s->entries = entries;
                for (size_t i = 0; i < s->n_connections; i++)
                        entries[i] = s->connections[i]->guard;
        }
        victim = guard_pick_victim(s->entries, s->n_connections, address, GUARD_PER_ADDRESS_MAX, GUARD_CONNECTIONS_MAX);
        if (victim == -2) {
                s->http_errors[HTTP_ERROR_CONNECTION_REFUSED]++;
                log_debug("Refusing a connection of %s: every connection in the way is being served.", address);
                return MHD_NO;
        }
        if (victim >= 0)
                connection_close(s, s->connections[victim], "a newer connection needs its place");
        return MHD_YES;
}

static void on_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe) {
        HttpServer *s = cls;
        Connection *c = *socket_context;

        if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
                const union MHD_ConnectionInfo *fd =
                        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
                const union MHD_ConnectionInfo *addr =
                        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

                if (ARRAY_RESERVE(s->connections, s->allocated, s->n_connections + 1) < 0)
                        return;
                c = calloc(1, sizeof(Connection));
                if (!c)
                        return;
                c->mhd = connection;
                c->fd = fd ? fd->connect_fd : -1;
                address_string(addr ? addr->client_addr : NULL, c->guard.address);
                guard_set_state(&c->guard, GUARD_WAITING, now_usec(CLOCK_MONOTONIC));
                s->connections[s->n_connections++] = c;
                *socket_context = c;
                return;
        }
        if (!c)
                return;
        for (size_t i = 0; i < s->n_connections; i++)
                if (s->connections[i] == c) {
                        s->connections[i] = s->connections[--s->n_connections];
                        break;
                }
        free(c);
        *socket_context = NULL;
}

/* The request line has arrived: the rest of the request is due within the request timeout. */
static void *on_request_line(void *cls, const char *uri, struct MHD_Connection *connection) {
        Connection *c = connection_of(connection);

        if (c && c->guard.state == GUARD_IDLE)
                guard_set_state(&c->guard, GUARD_WAITING, now_usec(CLOCK_MONOTONIC));
        return NULL;
}

static int on_guard_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        HttpServer *s = userdata;
        uint64_t now = now_usec(CLOCK_MONOTONIC);

        for (size_t i = 0; i < s->n_connections; i++) {
                Connection *c = s->connections[i];

                if (!guard_expired(&c->guard, now))
                        continue;
                if (c->guard.state == GUARD_IDLE)
                        connection_close(s, c, "idle too long");
                else {
                        s->http_errors[HTTP_ERROR_REQUEST_TIMEOUT]++;
                        connection_close(s, c, "no complete request in time");
                }
        }
        http_error_logs_flush(s, now);
        (void) sd_event_source_set_time_relative(source, USEC_PER_SEC / 2);
        (void) sd_event_source_set_enabled(source, SD_EVENT_ON);
        reschedule(s);
        return 0;
}

/* ---- scrapes ---- */

static void scrape_render(Scrape *sc, const CounterTable *counters, bool up) {
        HttpServer *s = sc->server;
        const Inventory *inv = model_inventory(s->model);
        _cleanup_fclose_ FILE *f = NULL;
        ScrapeResult result;
        char *body = NULL;
        size_t size = 0;
        int r;

        if (!up || !inv)
                s->scrape_errors_total++;
        result = (ScrapeResult){
                .up = up && inv,
                .inventory = inv,
                .counters = counters,
                .last_update_usec = model_last_update_usec(s->model),
                .version = RDMAD_VERSION,
                .libmicrohttpd_version = MHD_get_version(),
                .scrape_errors_total = s->scrape_errors_total,
                .http_errors = s->http_errors,
        };
        f = open_memstream(&body, &size);
        if (!f) {
                sc->error = -ENOMEM;
                return;
        }
        result.duration_usec = now_usec(CLOCK_MONOTONIC) - sc->start_usec;
        r = exposition_write(f, sc->format, &result);
        /* The stream owns body until it is closed. */
        if (fclose(TAKE_PTR(f)) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0) {
                free(body);
                sc->error = r;
                return;
        }
        if (sc->gzip) {
                char *z;
                size_t zsize;

                r = gzip_compress(body, size, &z, &zsize);
                free(body);
                if (r < 0) {
                        sc->error = r;
                        return;
                }
                body = z;
                size = zsize;
        }
        sc->body = body;
        sc->size = size;
}

static void on_counters(const CounterTable *t, bool up, void *userdata) {
        Scrape *sc = userdata;

        sc->call = NULL;
        scrape_render(sc, t, up);
        sc->done = true;
        MHD_resume_connection(sc->connection);
        reschedule(sc->server);
}

static enum MHD_Result scrape_respond(Scrape *sc) {
        struct MHD_Response *response;

        if (sc->error < 0) {
                log_error_errno(sc->error, "Failed to render the metrics: %m");
                return respond_static(sc->connection, MHD_HTTP_INTERNAL_SERVER_ERROR, "Out of memory.\n",
                                      "text/plain; charset=utf-8");
        }
        response = MHD_create_response_from_buffer(sc->size, sc->body, MHD_RESPMEM_MUST_FREE);
        if (!response)
                return MHD_NO;
        sc->body = NULL; /* the response's now */
        (void) MHD_add_response_header(response, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT_ENCODING);
        if (sc->gzip)
                (void) MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
        return respond(sc->connection, MHD_HTTP_OK, response, exposition_content_type(sc->format));
}

static enum MHD_Result handle_request(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                      const char *version, const char *upload_data, size_t *upload_data_size,
                                      void **req_cls) {
        HttpServer *s = cls;
        Scrape *sc = *req_cls;
        Connection *c = connection_of(connection);
        int r;

        /* A response queued in the first call closes the connection
         * (libmicrohttpd): the first call only notes the request, but for
         * a method that is not served, answered there before any body it
         * comes with is read (a response queued while a body arrives is
         * refused, and the connection dropped as an "internal error"). */
        if (!sc) {
                if (!streq(method, MHD_HTTP_METHOD_GET) && !streq(method, MHD_HTTP_METHOD_HEAD))
                        return respond_static(connection, MHD_HTTP_METHOD_NOT_ALLOWED, "Method not allowed.\n",
                                              "text/plain; charset=utf-8");
                sc = calloc(1, sizeof(Scrape));
                if (!sc)
                        return MHD_NO;
                *sc = (Scrape){ .server = s, .connection = connection, .conn = c };
                *req_cls = sc;
                if (c)
                        guard_set_state(&c->guard, GUARD_SERVING, now_usec(CLOCK_MONOTONIC));
                return MHD_YES;
        }
        if (sc->done)
                return scrape_respond(sc);
        if (sc->started)
                return MHD_YES;
        sc->started = true;

        if (streq(url, "/") && !streq(s->config.telemetry_path, "/")) {
                _cleanup_free_ char *page = NULL;
                int len = asprintf(&page, index_page_format, s->config.telemetry_path, s->config.telemetry_path);

                if (len < 0)
                        return MHD_NO;
                return respond(connection, MHD_HTTP_OK,
                               MHD_create_response_from_buffer((size_t) len, TAKE_PTR(page), MHD_RESPMEM_MUST_FREE),
                               "text/html; charset=utf-8");
        }
        if (!streq(url, s->config.telemetry_path))
                return respond_static(connection, MHD_HTTP_NOT_FOUND, "Not found.\n", "text/plain; charset=utf-8");

        sc->start_usec = now_usec(CLOCK_MONOTONIC);
        sc->format =
                exposition_negotiate(MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
        sc->gzip =
                accepts_gzip(MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING));
        MHD_suspend_connection(connection);
        r = model_get_counters(s->model,
                               scrape_budget_usec(MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
                                                                              "X-Prometheus-Scrape-Timeout-Seconds"),
                                                  s->config.bus_timeout_usec),
                               on_counters, sc, &sc->call);
        if (r < 0) {
                sc->error = r;
                sc->done = true;
                MHD_resume_connection(connection);
        }
        return MHD_YES;
}

/* A scrape of a big host allocates its model copy and text, and frees them
 * when the answer is sent: give the pages back between scrapes. */
static void on_request_completed(void *cls, struct MHD_Connection *connection, void **req_cls,
                                 enum MHD_RequestTerminationCode toe) {
        Scrape *sc = *req_cls;
        Connection *c = connection_of(connection);

        if (c)
                guard_set_state(&c->guard, GUARD_IDLE, now_usec(CLOCK_MONOTONIC));
        if (!sc)
                return;
        model_counters_cancel(sc->call);
        free(sc->body);
        free(sc);
        *req_cls = NULL;
        (void) malloc_trim(0);
}

/* libmicrohttpd's messages are about peers and their requests, or about a
 * lack of resources (which peers can cause too): each is counted under its
 * reason and logged within that reason's limit. */
static void log_mhd(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void log_mhd(void *cls, const char *fmt, va_list ap) {
        HttpServer *s = cls;
        HttpErrorReason reason;
        char buf[512];
        size_t len;
        bool counted;
        int code;

        vsnprintf(buf, sizeof(buf), fmt, ap);
        len = strlen(buf);
        if (len > 0 && buf[len - 1] == '\n')
                buf[len - 1] = '\0';
        reason = http_error_classify(buf, &counted);
        /* What only precedes the message that ends the request says no more
         * than it ("Not enough memory in pool..." before the 431). */
        if (!counted) {
                log_debug("libmicrohttpd: %s (%s)", buf, http_error_reason_to_string(reason));
                return;
        }
        s->http_errors[reason]++;
        if (!http_error_may_log(s, reason))
                return;
        /* Its HTML page says nothing the status does not. */
        code = http_error_response_status(buf);
        if (code > 0)
                log_warning("HTTP: a request was answered %d %s and its connection closed (%s).", code,
                            strempty(MHD_get_reason_phrase_for((unsigned) code)), http_error_reason_to_string(reason));
        else
                log_warning("libmicrohttpd: %s (%s)", buf, http_error_reason_to_string(reason));
}

/* ---- the loop ---- */

static void run_mhd(HttpServer *s) {
        if (MHD_run(s->daemon) == MHD_NO)
                log_debug("Failed to run libmicrohttpd (MHD_run()).");
        reschedule(s);
}

/* libmicrohttpd's next timeout, as a timer of the loop. */
static void reschedule(HttpServer *s) {
        MHD_UNSIGNED_LONG_LONG ms;

        if (MHD_get_timeout(s->daemon, &ms) == MHD_YES) {
                (void) sd_event_source_set_time_relative(s->timer, (uint64_t) ms * USEC_PER_MSEC);
                (void) sd_event_source_set_enabled(s->timer, SD_EVENT_ONESHOT);
        } else
                (void) sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
}

static int on_io(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        run_mhd(userdata);
        return 0;
}

static int on_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        run_mhd(userdata);
        return 0;
}

/* Resumed connections are processed on the next MHD_run(): run it after
 * every pass of the loop that resumed one. A connection answered in full
 * is closed only by the run after the one that sent its last byte, and
 * MHD_get_timeout() does not say so: without the second run, a client
 * that reads to the end (Connection: close) waited for the guard's next
 * tick, up to half a second. */
static int on_post(sd_event_source *source, void *userdata) {
        HttpServer *s = userdata;

        (void) MHD_run(s->daemon);
        run_mhd(s);
        return 0;
}

int http_server_start(sd_event *event, Model *model, const HttpConfig *config, HttpServer **ret) {
        const union MHD_DaemonInfo *info;
        HttpServer *s;
        int r;

        assert(config->listen_fd >= 0);
        assert(ret);

        s = calloc(1, sizeof(HttpServer));
        if (!s)
                return -ENOMEM;
        s->event = sd_event_ref(event);
        s->model = model;
        s->config = *config;
        for (HttpErrorReason reason = 0; reason < _HTTP_ERROR_REASON_MAX; reason++)
                s->http_error_logs[reason] = LOG_LIMIT_INIT(HTTP_ERROR_LOG_INTERVAL_USEC, HTTP_ERROR_LOG_BURST);
        s->daemon = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, 0, on_accept, s,
                                     handle_request, s, MHD_OPTION_EXTERNAL_LOGGER, log_mhd, s,
                                     MHD_OPTION_LISTEN_SOCKET, config->listen_fd, MHD_OPTION_NOTIFY_COMPLETED,
                                     on_request_completed, s, MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
                                     MHD_OPTION_URI_LOG_CALLBACK, on_request_line, s, MHD_OPTION_CONNECTION_TIMEOUT,
                                     (unsigned) (GUARD_IDLE_TIMEOUT_USEC / USEC_PER_SEC), MHD_OPTION_CONNECTION_LIMIT,
                                     (unsigned) MHD_CONNECTIONS_MAX, MHD_OPTION_END);
        if (!s->daemon) {
                sd_event_unref(s->event);
                free(s);
                return log_error_errno(EINVAL, "Failed to start libmicrohttpd on the listening socket.");
        }
        info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_EPOLL_FD);
        r = info ? sd_event_add_io(event, &s->io, info->epoll_fd, EPOLLIN, on_io, s) : -EINVAL;
        if (r >= 0)
                r = sd_event_add_time_relative(event, &s->timer, CLOCK_MONOTONIC, 0, 0, on_timer, s);
        if (r >= 0)
                r = sd_event_add_time_relative(event, &s->guard_timer, CLOCK_MONOTONIC, USEC_PER_SEC / 2, 0,
                                               on_guard_timer, s);
        if (r >= 0)
                r = sd_event_source_set_enabled(s->guard_timer, SD_EVENT_ON);
        if (r >= 0)
                r = sd_event_add_post(event, &s->post, on_post, s);
        if (r < 0) {
                http_server_stop(s);
                return log_error_errno(r, "Failed to watch libmicrohttpd's sockets: %m");
        }
        reschedule(s);
        *ret = s;
        return 0;
}

HttpServer *http_server_stop(HttpServer *s) {
        if (!s)
                return NULL;
        sd_event_source_disable_unref(s->io);
        sd_event_source_disable_unref(s->timer);
        sd_event_source_disable_unref(s->guard_timer);
        sd_event_source_disable_unref(s->post);
        MHD_stop_daemon(s->daemon);
        http_error_logs_flush(s, UINT64_MAX);
        for (size_t i = 0; i < s->n_connections; i++)
                free(s->connections[i]);
        free(s->connections);
        free(s->entries);
        sd_event_unref(s->event);
        free(s);
        return NULL;
}
