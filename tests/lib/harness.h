/* SPDX-License-Identifier: MIT */
#pragma once

#include "api/rdmad-api.h"

/* Integration harness: a private system bus (RDMAD_TEST_BUS=dbus-daemon, the
 * default, or dbus-broker; see bus.h), a umockdev testbed loaded from
 * tests/data fixtures, and the real rdmad under umockdev-wrapper, each in its
 * own process group and killed in harness_stop() even after a failed
 * assertion (and by PR_SET_PDEATHSIG if the test itself dies). */

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <umockdev.h>

/* The harness by role, each in tests/lib/<role>.c. */
#include "bus.h"
#include "client.h"
#include "daemon.h"
#include "message.h"
#include "notify.h"
#include "polkitd.h"
#include "process.h"
#include "testbed.h"
#include "users.h"

typedef struct Signal {
        char *path;
        char *interface;
        char *member;
        char *body;    /* the arguments, formatted by format_message_body() */
        uint64_t usec; /* CLOCK_MONOTONIC when the test received it */
} Signal;

typedef struct Harness {
        UMockdevTestbed *testbed;
        char tmpdir[64];
        pid_t bus_pid;        /* dbus-daemon, or dbus-broker-launch (its group holds dbus-broker) */
        pid_t bus_router_pid; /* the process that routes messages: dbus-daemon, or dbus-broker */
        pid_t journal_pid;    /* dbus-broker's journal stand-in, where there is no journald */
        char bus_socket[108]; /* the bus's socket: <tmpdir>/bus/system_bus_socket */
        pid_t daemon_pid;
        bool daemon_paused; /* between harness_pause() and harness_resume() */
        pid_t polkit_pid;
        NotifyReader *notify; /* the daemon's sd_notify socket (notify.h) */
        char notify_path[108];
        char *address;
        sd_bus *bus; /* the test's client connection */

        Signal *signals; /* every signal rdmad sent since the start */
        size_t n_signals;

        uint64_t spawn_usec, ready_usec; /* CLOCK_MONOTONIC: daemon started, READY=1 received */
} Harness;

/* fixtures: NULL-terminated names of tests/data/<name>.umockdev;
 * args: NULL-terminated extra daemon arguments, or NULL. Fails the test if
 * the daemon does not report READY=1 within 20 s. */
Harness *harness_start(const char *const *fixtures, const char *const *args);

/* cmocka teardown: harness_stop(), and a failure unless the daemon exited
 * with 0 on SIGTERM (a sanitizer or valgrind report makes it exit non-zero). */
int harness_teardown_clean(void **state);

/* Stops everything; returns the daemon's wait status (0 = exited with 0). */
int harness_stop(Harness *h);

#define HARNESS_FIXTURES(...) ((const char *const[]){ __VA_ARGS__, NULL })
