/* SPDX-License-Identifier: MIT */
#pragma once

/* The attacker of the floods (test-floods, test-departures): user `uid`'s child
 * processes, each keeping connections x in_flight calls in flight (a new
 * call for each answer) or connecting, calling and closing again, on the
 * simulated host of host.h, until attacker_stop(). */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define MAX_PROCESSES 16

typedef enum AttackKind {
        ATTACK_ALL_COUNTERS,
        ATTACK_PORT_COUNTERS,
        ATTACK_INTROSPECT,
        ATTACK_WAIT_FOR_STATE, /* timeout 60 s */
        ATTACK_SET_NUM_VFS,
        ATTACK_MANAGED_OBJECTS,
        ATTACK_GET_ALL, /* bus load */
        ATTACK_RESCAN,  /* root's alone: refused */
} AttackKind;

typedef struct Attack {
        AttackKind kind;
        unsigned processes;
        unsigned connections; /* per process */
        unsigned in_flight;   /* per connection; kept there: a new call for each answer */
        bool hit_and_run;     /* connect, call, close, again; `connections` and `in_flight` unused */
        unsigned pause_ms;    /* hit-and-run: between two */
        bool no_reply;        /* in flight: NO_REPLY_EXPECTED calls, as many as the bus takes (in_flight per round) */
} Attack;

typedef struct Attacker {
        unsigned n;
        pid_t pids[MAX_PROCESSES];
        int reports[MAX_PROCESSES], controls[MAX_PROCESSES];
} Attacker;

/* The simulated host's device count (host.h's write_host()), and the path
 * of a port of device mlx5_<device> on it. */
extern unsigned attack_n_devices;
void attack_port_path(unsigned device, unsigned port, char *buf, size_t size);

/* Forks a.processes attackers as uid; returns once each has connected and
 * sent its first calls. */
void attacker_start(Attacker *at, const Attack *a, uid_t uid);
/* Stops the processes; returns how many calls they had answered (hit-and-run: made). */
unsigned long attacker_stop(Attacker *at, unsigned long *ret_errors);

/* For a test's own child: drops to uid (its group, no supplementary
 * groups), closes the parent's ends of every attacker's pipes, and tells
 * when the parent closed `control`. */
void attack_drop_to(uid_t uid);
void attack_close_parent_fds(void);
bool attack_parent_gone(int control);
