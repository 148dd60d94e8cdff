/* SPDX-License-Identifier: MIT */
#pragma once

/* The test's client connection: calls, their errors, properties, the
 * signals rdmad sent, waits. */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <systemd/sd-bus.h>

#include "message.h"

typedef struct Harness Harness;
typedef struct Signal Signal;

/* Properties.Get, the value formatted by format_next_value(); NULL on error
 * (and the D-Bus error name in *ret_error_name, if given). */
char *harness_get_property(Harness *h, const char *path, const char *interface, const char *name,
                           char **ret_error_name);
void harness_assert_property(Harness *h, const char *path, const char *interface, const char *name,
                             const char *expected);

/* The one way a test waits. check(h, data, seen) tells whether what the
 * test waits for holds, and prints what it observed to `seen` (emptied
 * before each call). The wait runs the client connection (signals arrive,
 * replies complete) between checks, every 10 ms at most, until the check
 * holds or the deadline passes; then it fails the test with
 * "waited N s for <what>; last seen: <what the last check printed>".
 * timeout_ms is a bound on a plain build (0: HARNESS_WAIT_MS), scaled by
 * harness_time_bound() under valgrind and the sanitizers;
 * harness_wait_for_bound() takes a bound the caller scaled itself. */
typedef bool (*HarnessCheck)(Harness *h, const void *data, FILE *seen);
#define HARNESS_WAIT_MS 20000 /* well under the integration tests' meson timeouts (120 s and more) */
void harness_wait_for(Harness *h, HarnessCheck check, const void *data, int timeout_ms, const char *what_fmt, ...)
        __attribute__((format(printf, 5, 6)));
void harness_wait_for_bound(Harness *h, HarnessCheck check, const void *data, uint64_t bound_ms, const char *what_fmt,
                            ...) __attribute__((format(printf, 5, 6)));

/* A negative assertion's observation window, for where no ordering barrier
 * exists (a later change, a round trip) that proves an earlier message was
 * processed: runs the client connection for ms and fails the test as soon
 * as check holds, with "within N s: <what>; seen: <...>". Not scaled: such
 * a window is measured against the daemon's own timers (a poll period). */
void harness_assert_never(Harness *h, HarnessCheck check, const void *data, int ms, const char *what_fmt, ...)
        __attribute__((format(printf, 5, 6)));

/* A named window of time that ends no wait: runs the client connection for
 * ms (not scaled); `why` names it. For what has no condition to wait
 * for: a benchmark's measured idle period, a poll interval that must pass
 * so that a negative assertion means something. Never to let something
 * happen: wait for it. */
void harness_observe(Harness *h, int ms, const char *why);

/* An ordering barrier: a Peer.Ping round trip to rdmad, then everything
 * queued on the client connection processed. rdmad dispatches a
 * connection's messages in order and the bus keeps the order of what it
 * sends, so on return every message this connection sent before has been
 * dispatched, and every signal rdmad emitted before answering is in
 * h->signals. */
void harness_ping(Harness *h);

/* An ordering barrier on the bus: a round trip from `bus` to the bus
 * driver (GetId). On return the bus has routed everything sent before on
 * that connection: to rdmad's queue even while rdmad is stopped, to every
 * receiver of a forgery before what anyone sends next. A harness_ping()
 * after it: rdmad (one connection, read in order) has dispatched them. */
void harness_bus_barrier(sd_bus *bus);

/* Until a property reads value (formatted as harness_get_property() gives
 * it), or a failure after timeout_ms (scaled as harness_wait_for()'s):
 * devices are read on rdmad's reader threads, each in its own time. */
void harness_wait_property(Harness *h, const char *path, const char *interface, const char *name, const char *value,
                           int timeout_ms);

/* Calls a method of rdmad; returns the D-Bus error name (caller frees), or
 * NULL if the call succeeded. */
char *harness_call_error(Harness *h, const char *path, const char *interface, const char *member, const char *types,
                         ...);
char *harness_call_errorv(Harness *h, const char *path, const char *interface, const char *member, const char *types,
                          va_list ap);

/* Runs the client connection until `count` signals `member` on `path` (any
 * path if NULL) have arrived since the start; fails the test after
 * HARNESS_WAIT_MS (scaled). */
void harness_wait_signals(Harness *h, const char *path, const char *member, size_t count);

/* Runs a Python check (`python3 -c script FILE`) over `text`, written to
 * FILE in the harness's directory; fails the test if the script fails.
 * Returns the first line it printed (caller frees). */
char *harness_python_check(Harness *h, const char *text, const char *script);

/* The reply to an asynchronous call: pass harness_on_reply and an
 * AsyncReply to sd_bus_call_method_async(), then harness_wait_reply()
 * (timeout_ms as harness_wait_for()'s; `what`: the call). A second reply
 * fails the test. */
typedef struct AsyncReply {
        bool done;
        char *error_name;    /* the D-Bus error, or NULL */
        char *error_message; /* and its message */
        char *value;         /* the first value of a successful reply, formatted */
} AsyncReply;
int harness_on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);
bool harness_reply_done(Harness *h, const void *data, FILE *seen);
void harness_wait_reply(Harness *h, AsyncReply *a, int timeout_ms, const char *what);
void async_reply_clear(AsyncReply *a);

/* The replies of many asynchronous calls, counted by error name: pass
 * replies_on_reply and a Replies. replies_print(): "ok=N name=N ...". */
typedef struct Replies {
        unsigned n, ok;
        unsigned n_names;
        char *names[8];
        unsigned counts[8];
        char *busy_message; /* the first Busy's message */
} Replies;
int replies_on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);
void replies_print(FILE *f, const Replies *r);
void replies_clear(Replies *r);

/* Fails the test unless the call fails with the D-Bus error `expected`. */
void harness_assert_call_error(Harness *h, const char *expected, const char *path, const char *interface,
                               const char *member, const char *types, ...);
/* The daemon still runs and answers a Ping. */
void harness_assert_daemon_answers(Harness *h);

void harness_clear_signals(Harness *h);
size_t harness_count_signals(Harness *h, const char *path, const char *member);
const Signal *harness_find_signal(Harness *h, const char *path, const char *member);

/* Runs a command with the private bus in its environment; returns its
 * stdout+stderr (caller frees) and sets *ret_status to the exit status. */
char *harness_run_command(Harness *h, const char *command, int *ret_status);

Objects *get_managed_objects(Harness *h);
/* GetManagedObjects on `bus`, the whole reply decoded (format_message_body);
 * NULL on an error, its name in *ret_error (caller frees) when asked. */
char *managed_objects_dump(sd_bus *bus, char **ret_error);
