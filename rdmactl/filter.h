/* SPDX-License-Identifier: MIT */
#pragma once

/* What `list PATTERN...` and `monitor PATTERN...` keep, as `networkctl
 * list PATTERN` does: a pattern is a device name, DEVICE/PORT, or a network
 * interface name, each a shell glob (fnmatch(3): "mlx5_*", "mlx5_0/[12]");
 * "DEVICE PORT" (a number after a name) is DEVICE/PORT. Pure. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/inventory.h"

typedef struct PortFilter {
        char **patterns; /* none: everything */
        size_t n_patterns;
        const char *state; /* list --state: the kernel's name; NULL: any */
} PortFilter;

/* The positional arguments as patterns; -EINVAL with *ret_bad for a port
 * number with no name before it, -ENOMEM. */
int port_filter_parse(PortFilter *f, char *const *args, size_t n_args, const char **ret_bad);
void port_filter_done(PortFilter *f);

/* A port by its device's name, number and netdev's name (NULL for none):
 * whether a pattern matches one of the three (any port, without patterns).
 * The state is not looked at. */
bool port_filter_names_port(const PortFilter *f, const char *device, uint32_t port, const char *netdev);

/* A device-wide event (added, removed, renamed, SR-IOV, health): whether a
 * pattern matches the device's name, or the device part of a DEVICE/PORT
 * pattern does. */
bool port_filter_names_device(const PortFilter *f, const char *device);

/* The port in inv, by the names and the state. */
bool port_filter_keeps(const PortFilter *f, const Inventory *inv, const RdmaPort *p);

/* The first pattern that matches no port, device or netdev of inv; NULL when each matches something. */
const char *port_filter_unmatched(const PortFilter *f, const Inventory *inv);
