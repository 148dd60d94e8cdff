/* SPDX-License-Identifier: MIT */
#pragma once

#include "api/rdmad-api.h"

/* Integration harness: a private system bus (RDMAD_TEST_BUS=dbus-daemon, the
 * default, or dbus-broker; see "The bus" below), a umockdev testbed loaded from
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
        int notify_fd;
        char notify_path[108];
        char *address;
        sd_bus *bus; /* the test's client connection */

        Signal *signals; /* every signal rdmad sent since the start */
        size_t n_signals;

        uint64_t spawn_usec, ready_usec; /* CLOCK_MONOTONIC: daemon started, READY=1 received */
} Harness;

uint64_t now_usec(void);

/* fixtures: NULL-terminated names of tests/data/<name>.umockdev;
 * args: NULL-terminated extra daemon arguments, or NULL. Fails the test if
 * the daemon does not report READY=1 within 20 s. */
/* Moves the test (and so everything it starts) into a network namespace of
 * its own, where the unix datagram queue is long enough for a uevent storm
 * through umockdev and where rtnetlink sees only the test's interfaces.
 * Needs root; false (with a message) otherwise. */
bool harness_private_network(void);

Harness *harness_start(const char *const *fixtures, const char *const *args);

/* Stops the daemon (it must exit with 0) and starts it again on the same
 * testbed and bus, waiting for READY=1 (the benchmark's start-up runs). */
void harness_restart_daemon(Harness *h, const char *const *args);

/* The two halves of a restart, for a test that changes the testbed while
 * no daemon runs: stop (SIGTERM; it must exit with 0), then start it again
 * on the same testbed and bus, waiting for READY=1. */
void harness_stop_daemon(Harness *h);
void harness_start_daemon(Harness *h, const char *const *args);

/* A helper program (rdmad-exporter, node_exporter, prometheus) in its own
 * process group, without umockdev's preload, killed if the test dies;
 * harness_stop_process(): SIGTERM, then SIGKILL to its group after
 * timeout_ms; returns the wait status. */
pid_t harness_spawn(char *const argv[]);
int harness_stop_process(pid_t pid, int timeout_ms);

/* Starts the real polkitd on the private bus, inside its own mount
 * namespace with the project's policy bind-mounted over
 * /usr/share/polkit-1/actions. Returns false (with a message) when that is
 * not possible here: not root, or no polkitd. */
bool harness_start_polkit(Harness *h);
void harness_stop_polkit(Harness *h);

/* Calls a method as another user (a forked child drops to uid/gid); returns
 * the D-Bus error name, or NULL if the call succeeded. */
char *harness_call_as(Harness *h, uid_t uid, gid_t gid, const char *destination, const char *path,
                      const char *interface, const char *member, const char *types, ...);

/* As root the daemon runs as the system user rdmad (systemd/rdmad-sysusers.conf,
 * created in the test's own mount namespace), unprivileged: it can write
 * only the sriov_numvfs files harness_grant_sriov() gives it. */

/* What 90-rdmad.rules does on a host: every sriov_numvfs of a PCI function
 * that carries an RDMA device becomes writable by the daemon's group. Done
 * by harness_start() and harness_add_device(); call it after replacing such
 * a file. Nothing to do when the daemon runs as the tests do. */
void harness_grant_sriov(Harness *h);

/* When the tests run as root, a copy of the file at path in the harness's
 * directory, which every user can reach (the checkout may sit under a
 * directory of mode 0700); path itself otherwise. Caller frees. */
char *harness_copy_for_all_users(Harness *h, const char *path);

/* Makes a file the test created the daemon's, so that it may remove it
 * from /tmp (a trigger of the fault injector). */
void harness_give_to_daemon(const char *path);

/* prlimit(2) on the daemon, whichever user it runs as. */
struct rlimit;
void harness_daemon_prlimit(Harness *h, int resource, const struct rlimit *new_limit, struct rlimit *old_limit);

/* When set before harness_start() or harness_restart_daemon(): a library
 * preloaded into the daemon in front of umockdev's (the fault injector). */
extern const char *harness_daemon_preload;

/* When set: called by harness_start() once the fixtures are in the testbed,
 * before the daemon starts (to write what umockdev cannot describe). */
extern void (*harness_prepare)(Harness *h);

/* When set before harness_start(): the daemon's stderr goes to a file
 * instead of the test's, and harness_daemon_log() returns it so far. */
extern bool harness_capture_daemon_log;
/* With harness_capture_daemon_log: $JOURNAL_STREAM names that file, as
 * systemd names the journal's stream, so the daemon logs to the journal
 * socket (a test binds its own in a mount namespace). */
extern bool harness_daemon_log_is_journal;
char *harness_daemon_log(Harness *h);

/* The daemon's resident memory, from /proc. */
uint64_t harness_daemon_rss_kib(Harness *h);

/* The same once the daemon has given back the heap freed by a burst (it
 * trims at most every 5 s): settles, pings, then reads. */
uint64_t harness_settled_rss_kib(Harness *h);
/* The daemon runs under $RDMAD_TEST_WRAPPER (valgrind): ~30 times slower,
 * its RSS mostly the wrapper's own; tests scale their loads and bounds. */
bool harness_daemon_wrapped(void);

/* A slow driver, played by the test: sriov_numvfs of the PF at devpath
 * ("/sys/devices/...") becomes a FIFO, so each read or write of the daemon's
 * worker waits until the test serves it. Returns the FIFO's path (caller frees). */
char *harness_fifo_numvfs(Harness *h, const char *devpath);
/* Serves one read of the worker: `value`. */
void harness_fifo_serve_read(const char *fifo, const char *value);
/* Takes what the worker writes, in order, over one or several opens of the
 * FIFO, and checks it is `expected`. */
void harness_fifo_expect_writes(const char *fifo, const char *expected);

/* The bus. Both kinds read one configuration, <tmpdir>/bus/system.conf, of
 * the shape of Debian's /usr/share/dbus-1/system.conf: everything denied by
 * default, holes punched by system.d/, which holds what a host has there:
 * systemd/org.rdmad1.conf (the project's policy, as installed) and polkitd's
 * org.freedesktop.PolicyKit1.conf. dbus-daemon is started with it directly;
 * dbus-broker through dbus-broker-launch, as systemd would: the harness binds
 * the listening socket and passes it (LISTEN_FDS=1, fd 3), and where there is
 * no journald gives the launcher a stand-in journal socket in the test's
 * private mount namespace (its lines in <tmpdir>/bus/journal.log).
 *
 * When set before harness_start(): one more policy file, a test's own named
 * minimal policy, installed as system.d/test-<name>: a path, or a bare name
 * of tests/integration/policies/. Reset by harness_teardown_clean(). */
extern const char *harness_bus_policy;

/* "dbus-daemon" or "dbus-broker", from RDMAD_TEST_BUS (default dbus-daemon);
 * fails the test on any other value. */
const char *harness_bus_name(void);
bool harness_bus_is_broker(void);

/* Counts sd_notify messages containing `needle` for `ms` milliseconds. */
unsigned harness_count_notify(Harness *h, const char *needle, int ms);

/* cmocka teardown: harness_stop(), and a failure unless the daemon exited
 * with 0 on SIGTERM (a sanitizer or valgrind report makes it exit non-zero). */
int harness_teardown_clean(void **state);

/* Properties.Get, the value formatted by format_next_value(); NULL on error
 * (and the D-Bus error name in *ret_error_name, if given). */
char *harness_get_property(Harness *h, const char *path, const char *interface, const char *name,
                           char **ret_error_name);
void harness_assert_property(Harness *h, const char *path, const char *interface, const char *name,
                             const char *expected);

/* Stops everything; returns the daemon's wait status (0 = exited with 0). */
int harness_stop(Harness *h);

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

/* SIGSTOP / SIGCONT the daemon: changes made in between reach it together. */
void harness_pause(Harness *h);
void harness_resume(Harness *h);

/* Writes a file of the testbed: devpath "/sys/devices/...", name relative to it. */
void harness_write(Harness *h, const char *devpath, const char *name, const char *value);

/* Calls a method of rdmad; returns the D-Bus error name (caller frees), or
 * NULL if the call succeeded. */
char *harness_call_error(Harness *h, const char *path, const char *interface, const char *member, const char *types,
                         ...);
char *harness_call_errorv(Harness *h, const char *path, const char *interface, const char *member, const char *types,
                          va_list ap);

/* Reads a file of the testbed: devpath "/sys/devices/...", name relative to it (caller frees). */
char *harness_read(Harness *h, const char *devpath, const char *name);

/* Removes a file or directory tree of the testbed ("/sys/..."), without any uevent:
 * what the kernel has already done when its event is still on the way. */
void harness_remove(Harness *h, const char *path);

/* In a test that needs polkitd: skips it, saying why, where polkitd could not start. */
#define HARNESS_REQUIRE_POLKIT(have_polkit)                                                                            \
        do {                                                                                                           \
                if (!(have_polkit)) {                                                                                  \
                        fprintf(stderr, "skipping: needs root to run polkitd in its own mount namespace\n");           \
                        skip();                                                                                        \
                }                                                                                                      \
        } while (0)

/* Adds a device record (umockdev format) to the testbed; umockdev sends its
 * "add" uevent. Fails the test with umockdev's message on error. */
void harness_add_device(Harness *h, const char *record);

/* Runs the client connection until `count` signals `member` on `path` (any
 * path if NULL) have arrived since the start; fails the test after 20 s. */
void harness_wait_signals(Harness *h, const char *path, const char *member, size_t count);

/* "rdma dev set OLD name NEW": the device directory and its class link are
 * renamed and only "move" is sent (DEVPATH_OLD set), all while the daemon
 * is paused, as the kernel does it in one step. syspath: "/sys/devices/.../OLD". */
void harness_rename_device(Harness *h, const char *syspath, const char *new_name);

/* "ip link set OLD name NEW": the same for a network interface (its link in
 * /sys/class/net, INTERFACE). syspath: "/sys/devices/.../net/OLD". */
void harness_rename_netdev(Harness *h, const char *syspath, const char *new_name);

/* Hot-adds rxe5, a soft-RoCE device as `rdma link add` makes one: port 1
 * ACTIVE (LinkUp), Ethernet. */
void harness_add_rxe5(Harness *h);

/* A connection the bus attributes to `uid`: the bus takes the peer's
 * credentials when the socket connects, so the effective uid is switched
 * for the connect and the handshake only. Needs root. */
sd_bus *harness_open_bus_as(uid_t uid);

/* The uid of the connection that owns the bus name `name`. */
uid_t harness_name_owner_uid(Harness *h, const char *name);

/* RequestName(name) as uid/gid; the D-Bus error name (caller frees), or NULL
 * if the bus granted it. */
char *harness_request_name_as(Harness *h, uid_t uid, gid_t gid, const char *name);

/* Runs a Python check (`python3 -c script FILE`) over `text`, written to
 * FILE in the harness's directory; fails the test if the script fails.
 * Returns the first line it printed (caller frees). */
char *harness_python_check(Harness *h, const char *text, const char *script);

/* The reply to an asynchronous call: pass harness_on_reply and an
 * AsyncReply to sd_bus_call_method_async(), then harness_wait() with
 * harness_reply_done. A second reply fails the test. */
typedef struct AsyncReply {
        bool done;
        char *error_name; /* the D-Bus error, or NULL */
        char *value;      /* the first value of a successful reply, formatted */
} AsyncReply;
int harness_on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);
bool harness_reply_done(Harness *h, const void *data);
void async_reply_clear(AsyncReply *a);

void harness_clear_signals(Harness *h);
size_t harness_count_signals(Harness *h, const char *path, const char *member);
const Signal *harness_find_signal(Harness *h, const char *path, const char *member);

/* Runs a command with the private bus in its environment; returns its
 * stdout+stderr (caller frees) and sets *ret_status to the exit status. */
char *harness_run_command(Harness *h, const char *command, int *ret_status);

/* Formats the rest of a message like "[1, 2]", "(0, \"fe80::\", \"\")",
 * "{\"k\": \"v\"}"; top-level strings unquoted. */
char *format_message_body(sd_bus_message *m);

/* Formats the next value of m (strings unquoted at the top level). */
char *format_next_value(sd_bus_message *m);

/* A flat view of GetManagedObjects: one entry per (path, interface,
 * property), plus one with name NULL per (path, interface). */
typedef struct ObjectEntry {
        char *path, *interface, *name, *value;
} ObjectEntry;

typedef struct Objects {
        ObjectEntry *entries;
        size_t n;
} Objects;

Objects *get_managed_objects(Harness *h);
/* The size of m's body as D-Bus marshals it (sd-bus tells no size). */
size_t message_body_size(sd_bus_message *m);

/* The same view of a GetManagedObjects reply already received. */
Objects *objects_from_reply(sd_bus_message *reply);
void objects_free(Objects *o);
const char *objects_get(const Objects *o, const char *path, const char *interface, const char *name);
/* Sorted, newline-separated "path interface" lines. */
char *objects_interfaces(const Objects *o);

#define HARNESS_FIXTURES(...) ((const char *const[]){ __VA_ARGS__, NULL })
