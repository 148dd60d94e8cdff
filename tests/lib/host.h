/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

/* The simulated host of the benchmark and the floods (host.c). */

void mkdir_p(const char *path);
void put(const char *dir, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void link_at(const char *dir, const char *name, const char *target);

/* The sysfs path of device i's PCI function, relative to /sys. */
void host_pci_path(unsigned i, char *buf, size_t size);

/* N dual-port ConnectX-5-like PFs under root/sys, with counters (see host.c). */
void write_host(const char *root, unsigned n);
