/* SPDX-License-Identifier: MIT */
#pragma once

/* What the harness's own files share among themselves, and no test uses:
 * the daemon's identity, child processes, the start-up steps. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

typedef struct Harness Harness;

/* users.c: who the daemon runs as (see setup_daemon_user()). */
#define DAEMON_USER "rdmad"
extern bool daemon_unprivileged;
extern uid_t daemon_uid;
extern gid_t daemon_gid;
void setup_daemon_user(void);
int become(uid_t uid, gid_t gid);
void share_lsan_suppressions(Harness *h);
void restore_lsan_options(void);

/* process.c */
uint64_t now_ms(void);
pid_t spawn_full(char *const argv[], int stdout_fd, int stderr_fd, bool as_daemon_user);
pid_t spawn(char *const argv[], int stdout_fd);
int stop_process(pid_t pid, int timeout_ms);
char *read_all(FILE *f);

/* bus.c */
void start_bus(Harness *h);

/* notify.c: the socket and its reading thread */
void open_notify_socket(Harness *h);
void close_notify_socket(Harness *h);

/* daemon.c */
void start_daemon(Harness *h, const char *const *args);
void daemon_continue(Harness *h);

/* client.c */
int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error);
