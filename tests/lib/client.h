/* SPDX-License-Identifier: MIT */
#pragma once

/* The test's client connection: calls, their errors, properties, the
 * signals rdmad sent, waits. */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
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

/* Runs the client connection until pred(h, data) is true or timeout_ms
 * passes; returns pred's final value. */
bool harness_wait(Harness *h, bool (*pred)(Harness *h, const void *data), const void *data, int timeout_ms);
/* Until a property reads value (formatted as harness_get_property() gives
 * it), or a failure after timeout_ms: devices are read on rdmad's reader
 * threads, each in its own time. */
void harness_wait_property(Harness *h, const char *path, const char *interface, const char *name, const char *value,
                           int timeout_ms);

/* Processes everything queued on the client connection for a while. */
void harness_settle(Harness *h, int ms);

/* Calls a method of rdmad; returns the D-Bus error name (caller frees), or
 * NULL if the call succeeded. */
char *harness_call_error(Harness *h, const char *path, const char *interface, const char *member, const char *types,
                         ...);
char *harness_call_errorv(Harness *h, const char *path, const char *interface, const char *member, const char *types,
                          va_list ap);

/* Runs the client connection until `count` signals `member` on `path` (any
 * path if NULL) have arrived since the start; fails the test after 20 s. */
void harness_wait_signals(Harness *h, const char *path, const char *member, size_t count);

/* Runs a Python check (`python3 -c script FILE`) over `text`, written to
 * FILE in the harness's directory; fails the test if the script fails.
 * Returns the first line it printed (caller frees). */
char *harness_python_check(Harness *h, const char *text, const char *script);

/* The reply to an asynchronous call: pass harness_on_reply and an
 * AsyncReply to sd_bus_call_method_async(), then harness_wait() with
 * harness_reply_done. A second reply fails the test. */
typedef struct AsyncReply {
        bool done;
        char *error_name;    /* the D-Bus error, or NULL */
        char *error_message; /* and its message */
        char *value;         /* the first value of a successful reply, formatted */
} AsyncReply;
int harness_on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);
bool harness_reply_done(Harness *h, const void *data);
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
