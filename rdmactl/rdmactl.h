/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "args.h"
#include "client/counter-table.h"
#include "client/inventory.h"

/* Exit statuses scripts may rely on; documented in rdmactl(1) and --help. */
enum {
        EXIT_OK = 0,
        EXIT_FAILURE_GENERIC = 1, /* an error from the daemon or the system */
        EXIT_USAGE = 2,           /* bad arguments, also when the daemon calls them invalid */
        EXIT_NOT_RUNNING = 3,     /* rdmad not on the bus, or the bus not reachable */
        EXIT_NO_SUCH_DEVICE = 4,  /* no such device or port */
        EXIT_TIMEOUT = 5,         /* `wait` gave up */
        EXIT_PERMISSION = 6,      /* polkit (or the bus policy) refused */
        EXIT_NO_ROUTE = 7,        /* `route`: no route to the address */
        EXIT_NOT_RDMA = 8,        /* `route`: its netdev carries no RDMA port */
        EXIT_NO_GID = 9,          /* `route`: the port has no GID for the source address */
};

typedef struct Options {
        JsonMode json;
        bool legend;
        bool color;
        bool ask_password;
        bool timeout_set;
        uint64_t timeout_usec; /* `wait`: UINT64_MAX for none */
        NameKind list;
        bool exit_on_disconnect; /* `monitor`: exit 3 when rdmad leaves instead of waiting for it */
        /* `wait` in its boot-time form (wait-online.c) */
        const char *wait_state; /* --state=, the kernel's name; NULL: not given */
        bool wait_any;          /* --any */
        char **ignore;          /* --ignore=, fnmatch(3) patterns */
        size_t n_ignore, allocated_ignore;
        bool quiet; /* -q: no progress lines */
        bool all;   /* `counters`: every counter, not the summary */
        bool watch; /* `counters`: sample every watch_usec and show rates */
        uint64_t watch_usec;
} Options;

/* Prints "rdmactl: ..." for a failed bus call on stderr and returns the
 * exit status for it. `what` names the call for messages that need it. */
int report_bus_error(const char *what, int r, const sd_bus_error *error);

/* "rdmactl: out of memory." on stderr; returns EXIT_FAILURE_GENERIC. Not a
 * bus error, so not through report_bus_error(): as systemd's log_oom(). */
int report_oom(void);

/* The verbs, one file each; the table in rdmactl.c names them. */
int verb_list(sd_bus *bus, const Options *o, char **args, size_t n_args);       /* list.c */
int verb_list_names(sd_bus *bus, const Options *o, char **args, size_t n_args); /* list.c: --list=KIND */
int verb_status(sd_bus *bus, const Options *o, char **args, size_t n_args);     /* status.c */
int verb_monitor(sd_bus *bus, const Options *o, char **args, size_t n_args);    /* monitor.c */
int verb_wait(sd_bus *bus, const Options *o, char **args, size_t n_args);       /* wait.c */
int verb_set_vfs(sd_bus *bus, const Options *o, char **args, size_t n_args);    /* set-vfs.c */
int verb_counters(sd_bus *bus, const Options *o, char **args, size_t n_args);   /* counters.c */
int verb_gids(sd_bus *bus, const Options *o, char **args, size_t n_args);       /* gids.c */
int verb_route(sd_bus *bus, const Options *o, char **args, size_t n_args);      /* route.c */

typedef enum CountersFetchFlags {
        COUNTERS_FETCH_EVERY_PORT = 1 << 0, /* the whole host is shown: one GetAllCounters */
        COUNTERS_FETCH_QUIET = 1 << 1,      /* a failure is the exit status alone, not printed */
} CountersFetchFlags;

/* counters.c, for `status` too: the counters of these ports into t (empty
 * on entry), in one GetAllCounters with COUNTERS_FETCH_EVERY_PORT or one
 * Port.GetCounters each. Returns an exit status; prints the error unless
 * COUNTERS_FETCH_QUIET. */
int counters_fetch(sd_bus *bus, const Inventory *inv, const RdmaPort *const *ports, size_t n_ports,
                   CountersFetchFlags flags, CounterTable *t);
