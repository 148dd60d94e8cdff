/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---------- simulated hosts ---------- */

void mkdir_p(const char *path);
void put(const char *dir, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void link_at(const char *dir, const char *name, const char *target);

/* The sysfs path of device i's PCI function, relative to /sys. */
void host_pci_path(unsigned i, char *buf, size_t size);

/* N dual-port ConnectX-5-like PFs under root/sys, with counters (see
 * bench-util.c). */
void write_host(const char *root, unsigned n);

/* ---------- statistics ---------- */

typedef struct Stats {
        double median, p99;
} Stats;

/* Sorts v. */
Stats stats(uint64_t *v, size_t n);
const char *fmt_usec(double usec, char *buf, size_t size);

/* ---------- a process ---------- */

/* A "Key:" line of /proc/<pid>/status, as a number (kB for Vm*). */
unsigned long proc_status_value(pid_t pid, const char *key);

/* ---------- arguments ---------- */

/* [--quick] [--idle-only] [N...] (--idle-only only where idle_only is
 * given): the host sizes, 64 512 2048 by default; returns how many. */
unsigned bench_parse_sizes(int argc, char *argv[], unsigned sizes[static 8], bool *quick, bool *idle_only);
