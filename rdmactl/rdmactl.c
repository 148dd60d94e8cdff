/* SPDX-License-Identifier: MIT */
/* rdmactl: the operator's view of the RDMA devices rdmad publishes on the
 * system bus (org.rdmad1), and the two things an operator does with them:
 * wait for a link, change the number of SR-IOV VFs.
 *
 * This file holds the options and the verb table; each verb lives in a
 * file of its own (list.c, status.c, monitor.c, wait.c, set-vfs.c,
 * counters.c, gids.c, route.c). */
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "basic/util.h"
#include "format.h"
#include "rdmactl.h"
#include "verb-util.h"
#include "verbs.h"

static void help(void) {
        printf("rdmactl [OPTIONS...] COMMAND ...\n"
               "\n"
               "Show and control the RDMA devices that rdmad publishes on the system bus.\n"
               "\n"
               "Commands:\n"
               "  list [PATTERN...]         One line per port (the default command)\n"
               "  status [NAME...]          One line per port: state, rate, flaps, last change;\n"
               "                            with NAMEs, everything known about them and their\n"
               "                            ports' link history\n"
               "  monitor [PATTERN...]      Print device, port and SR-IOV changes until interrupted,\n"
               "                            across restarts of rdmad\n"
               "  wait [NAME...] [STATE]    Wait until the ports named (every port with a link when\n"
               "                            none is) are in STATE (ACTIVE, DOWN, INIT, ARMED, ...,\n"
               "                            or the kernel's number after a port: 4 is ACTIVE;\n"
               "                            default ACTIVE), also for names not there yet and\n"
               "                            across restarts of rdmad\n"
               "  set-vfs DEVICE COUNT      Set the number of SR-IOV virtual functions\n"
               "  counters [NAME...]        Traffic and error counters of each port\n"
               "  gids [NAME...]            The GID tables, as show_gids prints them\n"
               "  route ADDRESS             Which port and GID carry an IP address (the kernel's\n"
               "                            route, then the port GID of its source address)\n"
               "\n"
               "A PORT is 'DEVICE PORT' (mlx5_0 1), 'DEVICE/PORT' (mlx5_0/1) or a netdev (ib0);\n"
               "a NAME is a DEVICE or a PORT. A PATTERN is a NAME or a shell glob of one (mlx5_*).\n"
               "\n"
               "Options:\n"
               "  -h --help                 Show this help\n"
               "     --version              Show the version\n"
               "  -j --json=pretty|short|off\n"
               "                            JSON output (list, status, monitor, counters, gids,\n"
               "                            route); --json and -j are short\n"
               "     --no-legend            No header and footer (list)\n"
               "     --no-color             No colours, even on a terminal\n"
               "     --no-pager             Accepted; rdmactl never pages\n"
               "     --timeout=SPAN         wait: give up after SPAN (30s, 500ms, 2min; a bare number\n"
               "                            is seconds); default 2min, 0 or infinity: never\n"
               "     --state=STATE          wait: the state to wait for (default ACTIVE);\n"
               "                            list: only the ports in STATE\n"
               "     --any                  wait: one of the ports in STATE suffices\n"
               "     --ignore=GLOB          wait: leave out the devices, ports (DEV/PORT), netdevs\n"
               "                            that match (repeatable)\n"
               "  -q --quiet                wait: no progress lines on stderr\n"
               "     --no-ask-password      set-vfs: never ask for a password\n"
               "     --exit-on-disconnect   monitor: exit (status 3) when rdmad leaves the bus\n"
               "                            instead of waiting for it to return\n"
               "     --all                  counters: every counter, not only the summary\n"
               "     --watch[=SPAN]         counters: sample every SPAN (default 1s) and show\n"
               "                            rates per second until interrupted\n"
               "\n"
               "Exit status:\n"
               "  0 success, 1 failure, 2 invalid arguments, 3 rdmad not running or no system bus,\n"
               "  4 no such device or port, 5 timeout, 6 permission denied; route: 7 no route,\n"
               "  8 the netdev carries no RDMA port, 9 no GID holds the source address\n"
               "\n"
               "See rdmactl(1).\n");
}

static int verb_help(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        help();
        return finish_output(EXIT_OK);
}

static const Verb verbs[] = {
        { "list", 0, SIZE_MAX, VERB_DEFAULT | VERB_JSON, "[PATTERN...]", verb_list },
        { "status", 0, SIZE_MAX, VERB_JSON, "DEVICE...", verb_status },
        { "monitor", 0, SIZE_MAX, VERB_JSON | VERB_FOLLOWS, "[PATTERN...]", verb_monitor },
        /* wait checks its own arguments: names, then a state. */
        { "wait", 0, SIZE_MAX, VERB_TIMEOUT, "[NAME...] [STATE]", verb_wait },
        { "set-vfs", 2, 2, 0, "DEVICE COUNT", verb_set_vfs },
        { "counters", 0, SIZE_MAX, VERB_JSON, "NAME...", verb_counters },
        { "gids", 0, SIZE_MAX, VERB_JSON, "NAME...", verb_gids },
        { "route", 1, 1, VERB_JSON, "ADDRESS", verb_route },
        { "help", 0, 0, VERB_NO_BUS, NULL, verb_help },
};

/* Hidden, for the shell completion: names one a line, not a command a person types. */
static const Verb list_names_verb = { "--list", 0, 0, 0, NULL, verb_list_names };

enum {
        ARG_VERSION = 0x100,
        ARG_JSON,
        ARG_NO_LEGEND,
        ARG_NO_COLOR,
        ARG_NO_PAGER,
        ARG_TIMEOUT,
        ARG_NO_ASK_PASSWORD,
        ARG_EXIT_ON_DISCONNECT,
        ARG_LIST_DEVICES,
        ARG_LIST,
        ARG_STATE,
        ARG_ANY,
        ARG_IGNORE,
        ARG_ALL,
        ARG_WATCH,
};

static const struct option long_options[] = {
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, ARG_VERSION },
        { "json", optional_argument, NULL, ARG_JSON },
        { "no-legend", no_argument, NULL, ARG_NO_LEGEND },
        { "no-color", no_argument, NULL, ARG_NO_COLOR },
        { "no-colour", no_argument, NULL, ARG_NO_COLOR },
        { "no-pager", no_argument, NULL, ARG_NO_PAGER },
        { "timeout", required_argument, NULL, ARG_TIMEOUT },
        { "no-ask-password", no_argument, NULL, ARG_NO_ASK_PASSWORD },
        { "exit-on-disconnect", no_argument, NULL, ARG_EXIT_ON_DISCONNECT },
        { "state", required_argument, NULL, ARG_STATE },
        { "any", no_argument, NULL, ARG_ANY },
        { "ignore", required_argument, NULL, ARG_IGNORE },
        { "quiet", no_argument, NULL, 'q' },
        { "all", no_argument, NULL, ARG_ALL },
        { "watch", optional_argument, NULL, ARG_WATCH },
        /* Hidden: for the shell completion. */
        { "list-devices", no_argument, NULL, ARG_LIST_DEVICES },
        { "list", required_argument, NULL, ARG_LIST },
        {},
};

/* getopt's '?' and ':' in words: what was wrong with which option. */
static int option_error(int c, const char *arg) {
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t) (eq - arg) : strlen(arg);

        if (strncmp(arg, "--", 2) != 0) /* a short option */
                return usage_error(c == ':' ? "option '-%c' needs a value." : "unknown option '-%c'.", optopt);
        if (c == ':')
                return usage_error("option '%s' needs a value, as in '%s=VALUE'.", arg, arg);
        /* getopt also says '?' for a value given to an option that takes none. */
        if (eq)
                for (const struct option *opt = long_options; opt->name; opt++)
                        if (opt->has_arg == no_argument && strlen(opt->name) == len - 2 &&
                            strncmp(opt->name, arg + 2, len - 2) == 0)
                                return usage_error("option '%.*s' takes no value.", (int) len, arg);
        return usage_error("unknown option '%.*s'.", (int) len, arg);
}

static void options_done(Options *o) {
        strv_free(o->ignore);
}

int main(int argc, char *argv[]) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(options_done) Options o = { .legend = true, .ask_password = true, .watch_usec = USEC_PER_SEC };
        bool no_color = false, list_names = false;
        const Verb *verb = NULL;
        char **args;
        size_t n_args;
        int c, r, status;

        setlocale(LC_CTYPE, "");

        /* GNU getopt permutes: options may also follow the command ("wait mlx5_0 1 ACTIVE --timeout=5").
         * The leading ':' has it tell a missing value (':') from an unknown option ('?'). */
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":hqj", long_options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return finish_output(EXIT_OK);
                case ARG_VERSION:
                        printf("rdmactl %s\n", RDMAD_VERSION);
                        return finish_output(EXIT_OK);
                case ARG_JSON:
                        /* A bare --json is --json=short, one document a line. */
                        if (!optarg)
                                o.json = JSON_SHORT;
                        else if (parse_json_mode(optarg, &o.json) < 0)
                                return usage_error("--json: '%s' is not one of pretty, short, off.", optarg);
                        break;
                case 'j': /* as `rdma -j`: --json */
                        o.json = JSON_SHORT;
                        break;
                case ARG_NO_LEGEND:
                        o.legend = false;
                        break;
                case ARG_NO_COLOR:
                        no_color = true;
                        break;
                case ARG_NO_PAGER:
                        break; /* rdmactl never pages; accepted as systemd's tools accept it */
                case ARG_TIMEOUT: {
                        char max[TIMESPAN_STRING_MAX];

                        r = parse_timespan(optarg, &o.timeout_usec);
                        if (r == -ERANGE)
                                return usage_error("--timeout: '%s' is too long; the maximum is %s "
                                                   "('infinity' waits for ever).",
                                                   optarg, format_timespan(TIMESPAN_MAX_USEC, max));
                        if (r < 0)
                                return usage_error("--timeout: '%s' is not a time span (e.g. 30s, 500ms, 2min; "
                                                   "a bare number is seconds).",
                                                   optarg);
                        o.timeout_set = true;
                        break;
                }
                case ARG_NO_ASK_PASSWORD:
                        o.ask_password = false;
                        break;
                case ARG_EXIT_ON_DISCONNECT:
                        o.exit_on_disconnect = true;
                        break;
                case ARG_STATE:
                        r = parse_port_state_arg(optarg, &o.wait_state);
                        if (r == -ERANGE)
                                return usage_error("--state: port state %s is out of range; the states are 0 "
                                                   "(NOP) to %d (ACTIVE_DEFER).",
                                                   optarg, PORT_STATE_MAX);
                        if (r < 0 && port_state_lookalike(optarg) == STATE_LOOKALIKE_PHYS)
                                return usage_error("--state: '%s' is a physical state; --state takes a port "
                                                   "state: " PORT_STATES_TEXT ".",
                                                   optarg);
                        if (r < 0)
                                return usage_error("--state: '%s' is not a port state (" PORT_STATES_TEXT ").", optarg);
                        break;
                case ARG_ANY:
                        o.wait_any = true;
                        break;
                case ARG_IGNORE:
                        if (!*optarg)
                                return usage_error("--ignore: needs a name or a pattern, as in '--ignore=mlx5_1'.");
                        if (strv_push_take(&o.ignore, &o.n_ignore, &o.allocated_ignore, strdup(optarg)) < 0)
                                return report_oom();
                        break;
                case 'q':
                        o.quiet = true;
                        break;
                case ARG_ALL:
                        o.all = true;
                        break;
                case ARG_WATCH:
                        o.watch = true;
                        if (!optarg)
                                break;
                        r = parse_timespan(optarg, &o.watch_usec);
                        /* Below 100 ms the samples would be the daemon's reads, not the link's. */
                        if (r < 0 || o.watch_usec < 100 * USEC_PER_MSEC || o.watch_usec == TIMESPAN_INFINITY)
                                return usage_error("--watch: '%s' is not a time span from 100ms to a year "
                                                   "(e.g. 1s, 500ms, 1min).",
                                                   optarg);
                        break;
                case ARG_LIST_DEVICES:
                        list_names = true;
                        o.list = NAMES_DEVICES;
                        break;
                case ARG_LIST:
                        if (parse_name_kind(optarg, &o.list) < 0)
                                return usage_error("--list: '%s' is not one of devices, sriov-devices, netdevs, "
                                                   "ports.",
                                                   optarg);
                        list_names = true;
                        break;
                case ':':
                case '?':
                        return option_error(c, argv[optind - 1]);
                default:
                        return usage_error("cannot parse the options.");
                }
        o.color = !no_color && colors_wanted(STDOUT_FILENO);

        if (list_names) {
                verb = &list_names_verb;
                args = argv + optind;
                n_args = 0;
        } else {
                status = verb_select(verbs, ELEMENTSOF(verbs), argv + optind, (size_t) (argc - optind), &o, &verb,
                                     &args, &n_args);
                if (status != EXIT_OK)
                        return status;
                if ((o.all || o.watch) && verb->run != verb_counters)
                        return usage_error("%s is for 'counters' only.", o.all ? "--all" : "--watch");
        }

        if (o.wait_state && verb->run != verb_wait && verb->run != verb_list)
                return usage_error("--state is for 'wait' and 'list' only.");
        if ((o.wait_any || o.n_ignore > 0 || o.quiet) && verb->run != verb_wait)
                return usage_error("--any, --ignore and --quiet are for 'wait' only.");

        if (!(verb->flags & VERB_NO_BUS)) {
                r = sd_bus_open_system(&bus);
                if (r < 0)
                        return report_bus_error("connecting", r, NULL);
        }
        return verb->run(bus, &o, args, n_args);
}
