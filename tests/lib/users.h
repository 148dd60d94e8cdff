/* SPDX-License-Identifier: MIT */
#pragma once

/* Users and namespaces: the daemon's system user (created in a mount
 * namespace of the test's own), calls and connections as another user,
 * a private network namespace. */

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

typedef struct Harness Harness;

/* Moves the test (and so everything it starts) into a network namespace of
 * its own, where the unix datagram queue is long enough for a uevent storm
 * through umockdev and where rtnetlink sees only the test's interfaces.
 * Needs root; false (with a message) otherwise. */
bool harness_private_network(void);

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

/* A connection the bus attributes to `uid`: the bus takes the peer's
 * credentials when the socket connects, so the effective uid is switched
 * for the connect and the handshake only. Needs root. */
sd_bus *harness_open_bus_as(uid_t uid);

/* RequestName(name) as uid/gid; the D-Bus error name (caller frees), or NULL
 * if the bus granted it. */
char *harness_request_name_as(Harness *h, uid_t uid, gid_t gid, const char *name);

/* A caller of another user in a process of its own, on its own connection
 * to the system bus: body(bus, report, control, data) runs there, writes
 * what it saw to `report` (one line each; user_caller_read_line() reads
 * them), and may block in user_caller_wait_for_parent(control) until the
 * test lets it go. user_caller_finish(): lets it go, and it must exit with
 * 0 (it closes its connection); user_caller_kill(): SIGKILL. */
typedef struct UserCaller {
        pid_t pid;
        int report;  /* what the child tells */
        int control; /* closed by the parent: the child disconnects and exits */
} UserCaller;
typedef void (*UserCallerBody)(sd_bus *bus, FILE *report, int control, const void *data);
void user_caller_start(UserCaller *c, uid_t uid, UserCallerBody body, const void *data);
char *user_caller_read_line(UserCaller *c);
void user_caller_finish(UserCaller *c);
void user_caller_kill(UserCaller *c);
void user_caller_wait_for_parent(int control);
