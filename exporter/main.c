/* SPDX-License-Identifier: MIT */
/* rdmad-exporter: Prometheus metrics of rdmad's model and counters over
 * HTTP. Unprivileged; socket-activated or --listen=ADDR:PORT. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-daemon.h>

#include "http-server.h"
#include "listen.h"
#include "log.h"
#include "util.h"

#define BUS_TIMEOUT_SEC_DEFAULT 10

typedef struct Options {
        const char *listen;
        unsigned bus_timeout_sec;
} Options;

static void help(void) {
        printf("%s [OPTIONS...]\n\n"
               "Answers GET /metrics with Prometheus metrics of the host's RDMA devices,\n"
               "read from rdmad (org.rdmad1) on the system bus at every scrape.\n\n"
               "  -h --help                Show this help\n"
               "     --version            Show package version\n"
               "     --listen=ADDR:PORT   Listen there (default %s); a socket passed by\n"
               "                          systemd (rdmad-exporter.socket) is used instead\n"
               "     --bus-timeout=SEC    Give up on rdmad after SEC seconds (default %u)\n"
               "     --log-level=LEVEL    Log level: emerg, alert, crit, err, warning,\n"
               "                          notice, info (default), debug, or 0-7\n",
               program_invocation_short_name, RDMAD_EXPORTER_DEFAULT_LISTEN, BUS_TIMEOUT_SEC_DEFAULT);
}

/* 0: go on; 1: done, exit successfully (--help, --version); <0: bad usage. */
static int parse_argv(int argc, char *argv[], Options *o) {
        enum {
                ARG_VERSION = 0x100,
                ARG_LISTEN,
                ARG_BUS_TIMEOUT,
                ARG_LOG_LEVEL,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "listen", required_argument, NULL, ARG_LISTEN },
                { "bus-timeout", required_argument, NULL, ARG_BUS_TIMEOUT },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                {},
        };
        char *end;
        int c, r;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 1;
                case ARG_VERSION:
                        printf("rdmad-exporter %s\n", RDMAD_VERSION);
                        return 1;
                case ARG_LISTEN:
                        o->listen = optarg;
                        break;
                case ARG_BUS_TIMEOUT: {
                        unsigned long v;

                        errno = 0;
                        v = strtoul(optarg, &end, 10);
                        if (errno != 0 || *end != '\0' || optarg[0] < '1' || optarg[0] > '9' || v > 3600)
                                return log_error_errno(EINVAL, "Invalid bus timeout (1-3600 s): %s", optarg);
                        o->bus_timeout_sec = (unsigned) v;
                        break;
                }
                case ARG_LOG_LEVEL:
                        r = log_level_from_string(optarg);
                        if (r < 0)
                                return log_error_errno(EINVAL, "Invalid log level: %s", optarg);
                        log_set_max_level(r);
                        break;
                default:
                        return -EINVAL;
                }

        if (optind < argc)
                return log_error_errno(EINVAL, "%s takes no arguments.", program_invocation_short_name);
        return 0;
}

/* The socket systemd passed, or one opened for --listen. */
static int get_listen_socket(const Options *o) {
        int n = sd_listen_fds(true);

        if (n < 0)
                return log_error_errno(n, "Cannot get the sockets passed by systemd: %m");
        if (n > 1)
                return log_error_errno(EINVAL, "Expected one socket from systemd, got %d.", n);
        if (n == 1) {
                if (sd_is_socket(SD_LISTEN_FDS_START, 0, SOCK_STREAM, 1) <= 0)
                        return log_error_errno(EINVAL,
                                               "The socket passed by systemd is not a listening stream socket.");
                if (o->listen)
                        log_notice("Socket-activated: --listen=%s is not used.", o->listen);
                return SD_LISTEN_FDS_START;
        }
        return listen_socket_open(o->listen ?: RDMAD_EXPORTER_DEFAULT_LISTEN);
}

static int run(int argc, char *argv[]) {
        Options o = { .bus_timeout_sec = BUS_TIMEOUT_SEC_DEFAULT };
        HttpServer *server = NULL;
        sigset_t mask;
        int fd, sig, r;

        r = parse_argv(argc, argv, &o);
        if (r != 0)
                return r < 0 ? r : 0;

        /* Blocked before the HTTP thread starts, so only sigwait() sees them. */
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        r = -pthread_sigmask(SIG_BLOCK, &mask, NULL);
        if (r < 0)
                return log_error_errno(r, "Cannot block signals: %m");
        signal(SIGPIPE, SIG_IGN);

        fd = get_listen_socket(&o);
        if (fd < 0)
                return fd;
        r = http_server_start(fd, (uint64_t) o.bus_timeout_sec * 1000000, &server);
        if (r < 0)
                return r;
        (void) sd_notify(false, "READY=1\nSTATUS=Serving /metrics.");
        log_info("rdmad-exporter %s serving /metrics.", RDMAD_VERSION);

        do {
                r = sigwait(&mask, &sig);
        } while (r == 0 && sig == SIGHUP); /* nothing to reload: every scrape reads everything */
        (void) sd_notify(false, "STOPPING=1");
        http_server_stop(server);
        return 0;
}

int main(int argc, char *argv[]) {
        int r = run(argc, argv);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
