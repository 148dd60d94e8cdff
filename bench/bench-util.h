/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host.h"
#include "stats.h"

/* ---------- a process ---------- */

/* A "Key:" line of /proc/<pid>/status, as a number (kB for Vm*). */
unsigned long proc_status_value(pid_t pid, const char *key);

/* The CPU time the process has had, in ns (/proc/<pid>/schedstat). */
uint64_t proc_cpu_ns(pid_t pid);

/* What a process did while the caller slept `seconds`: its CPU, in % of one
 * core, and its wakeups (context switches, voluntary or not). */
typedef struct ProcWindow {
        double cpu;
        unsigned long wakeups;
} ProcWindow;
ProcWindow proc_window(pid_t pid, unsigned seconds);

/* ---------- arguments ---------- */

/* [--quick] [--idle-only] [N...] (--idle-only only where idle_only is
 * given): the host sizes, 64 512 2048 by default; returns how many. */
unsigned bench_parse_sizes(int argc, char *argv[], unsigned sizes[static 8], bool *quick, bool *idle_only);
