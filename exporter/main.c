/* SPDX-License-Identifier: MIT */
/* rdmad-exporter: Prometheus metrics of rdmad's model and counters over
 * HTTP. Unprivileged; socket-activated or --web.listen-address=ADDR:PORT.
 * One sd-event loop runs the bus (the model, kept by signals) and HTTP. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "basic/log.h"
#include "basic/options.h"
#include "basic/timespan.h"
#include "basic/util.h"
#include "http-server.h"
#include "listen.h"
#include "model.h"

#define BUS_TIMEOUT_USEC_DEFAULT (10 * USEC_PER_SEC)
#define BUS_TIMEOUT_USEC_MIN     (100 * USEC_PER_MSEC)
#define BUS_TIMEOUT_USEC_MAX     (3600 * USEC_PER_SEC)

typedef struct Options {
        const char *listen;
        const char *telemetry_path;
        uint64_t bus_timeout_usec;
} Options;

static void help(void) {
        printf("%s [OPTIONS...]\n\n"
               "Answers GET /metrics with Prometheus metrics of the host's RDMA devices from rdmad\n"
               "(org.rdmad1) on the system bus: its model, kept current by its signals, and its\n"
               "counters, read at every scrape.\n\n"
               "  -h --help                        Show this help\n"
               "     --version                    Show package version\n"
               "     --web.listen-address=ADDR:PORT\n"
               "                                  Listen there (default %s); a socket passed\n"
               "                                  by systemd (rdmad-exporter.socket) is used instead\n"
               "     --listen=ADDR:PORT           The same as --web.listen-address\n"
               "     --web.telemetry-path=PATH    Serve the metrics there (default /metrics)\n"
               "     --bus-timeout=SPAN           Give up on rdmad after SPAN (default 10s; 100ms-1h;\n"
               "                                  a scraper's X-Prometheus-Scrape-Timeout-Seconds\n"
               "                                  shortens it)\n"
               "     --log-level=LEVEL            Log level: emerg, alert, crit, err, warning,\n"
               "                                  notice, info (default), debug, or 0-7\n",
               program_invocation_short_name, RDMAD_EXPORTER_DEFAULT_LISTEN);
}

/* 0: go on; 1: done, exit successfully (--help, --version); <0: bad usage. */
static int parse_argv(int argc, char *argv[], Options *o) {
        enum {
                ARG_LISTEN = ARG_PROGRAM,
                ARG_TELEMETRY_PATH,
                ARG_BUS_TIMEOUT,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "web.listen-address", required_argument, NULL, ARG_LISTEN },
                { "listen", required_argument, NULL, ARG_LISTEN },
                { "web.telemetry-path", required_argument, NULL, ARG_TELEMETRY_PATH },
                { "bus-timeout", required_argument, NULL, ARG_BUS_TIMEOUT },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                {},
        };
        int c, r;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case ARG_LISTEN:
                        o->listen = optarg;
                        break;
                case ARG_TELEMETRY_PATH:
                        if (optarg[0] != '/' || strpbrk(optarg, "?# \t\r\n"))
                                return log_error_errno(EINVAL, "Invalid telemetry path (an absolute URL path): %s",
                                                       optarg);
                        o->telemetry_path = optarg;
                        break;
                case ARG_BUS_TIMEOUT:
                        r = parse_timespan(optarg, &o->bus_timeout_usec);
                        if (r < 0 || o->bus_timeout_usec < BUS_TIMEOUT_USEC_MIN ||
                            o->bus_timeout_usec > BUS_TIMEOUT_USEC_MAX)
                                return log_error_errno(EINVAL,
                                                       "Invalid bus timeout (a time span from 100ms to 1h, e.g. 5s, "
                                                       "500ms; a bare number is seconds): %s",
                                                       optarg);
                        break;
                default:
                        r = parse_common_option(c, "rdmad-exporter", help);
                        if (r != 0)
                                return r;
                }
        return parse_no_arguments(argc, argv);
}

/* The socket systemd passed, or one opened for --web.listen-address;
 * *ret_source says which, for the log. */
static int get_listen_socket(const Options *o, const char **ret_source) {
        int n = sd_listen_fds(true);

        if (n < 0)
                return log_error_errno(n, "Failed to get the sockets passed by systemd: %m");
        if (n > 1)
                return log_error_errno(EINVAL, "Expected one socket from systemd, got %d.", n);
        if (n == 1) {
                if (sd_is_socket(SD_LISTEN_FDS_START, 0, SOCK_STREAM, 1) <= 0)
                        return log_error_errno(EINVAL,
                                               "The socket passed by systemd is not a listening stream socket.");
                if (o->listen)
                        log_notice("Socket-activated: --web.listen-address=%s is not used.", o->listen);
                *ret_source = "socket passed by systemd";
                return SD_LISTEN_FDS_START;
        }
        *ret_source = o->listen ? "--listen" : "the default address";
        return listen_socket_open(o->listen ?: RDMAD_EXPORTER_DEFAULT_LISTEN);
}

static int on_hup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        return 0; /* nothing to reload: the model follows rdmad by itself */
}

static int run(int argc, char *argv[]) {
        Options o = { .telemetry_path = "/metrics", .bus_timeout_usec = BUS_TIMEOUT_USEC_DEFAULT };
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        Model *model = NULL;
        HttpServer *server = NULL;
        const char *source = NULL;
        char where[160];
        sigset_t mask;
        int fd, r;

        r = parse_argv(argc, argv, &o);
        if (r != 0)
                return r < 0 ? r : 0;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return log_error_errno(errno, "Failed to block signals: %m");
        signal(SIGPIPE, SIG_IGN);

        r = sd_event_default(&event);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGHUP, on_hup, NULL);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the event loop: %m");

        fd = get_listen_socket(&o, &source);
        if (fd < 0)
                return fd;
        r = listen_socket_describe(fd, where, sizeof(where));
        if (r < 0)
                snprintf(where, sizeof(where), "socket %d (%s)", fd, strerror(-r));
        model = model_new(event);
        if (!model)
                return log_oom();
        /* Not fatal: rdmad or the bus may come later; a scrape says rdmad_up 0 meanwhile. */
        (void) model_connect(model);
        r = http_server_start(event, model,
                              &(HttpConfig){ .listen_fd = fd,
                                             .telemetry_path = o.telemetry_path,
                                             .bus_timeout_usec = o.bus_timeout_usec },
                              &server);
        if (r < 0) {
                model_free(model);
                return r;
        }
        (void) sd_notify(false, "READY=1\nSTATUS=Serving metrics.");
        log_info("rdmad-exporter %s serving %s; listening on %s (%s).", RDMAD_VERSION, o.telemetry_path, where, source);

        r = sd_event_loop(event);
        (void) sd_notify(false, "STOPPING=1");
        http_server_stop(server);
        model_free(model);
        return r < 0 ? log_error_errno(r, "Failed to run the event loop: %m") : 0;
}

int main(int argc, char *argv[]) {
        int r = run(argc, argv);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
