/* SPDX-License-Identifier: MIT */
#pragma once

/* What `rdmactl wait` waits for, and whether the inventory has it yet:
 * pure, so that every rule can be tried on a made-up inventory. */

#include <stdbool.h>
#include <stddef.h>

#include "client/inventory.h"

typedef struct WaitSpec {
        char *const *names; /* DEVICE, DEVICE/PORT or NETDEV; none: every port with a link */
        size_t n_names;
        const char *state;   /* the kernel's name, "ACTIVE" */
        bool any;            /* one port in the state suffices */
        char *const *ignore; /* fnmatch(3) patterns against a device, DEVICE/PORT or netdev name */
        size_t n_ignore;
} WaitSpec;

/* The positional arguments as names: "mlx5_0 1" becomes "mlx5_0/1".
 * -EINVAL for a port number with no device before it, or a DEVICE/PORT
 * whose port is not a number (*ret_bad: the argument); -ENOMEM. */
int wait_names_from_args(char *const *args, size_t n_args, char ***ret_names, size_t *ret_n_names,
                         const char **ret_bad);

/* A link on the wire: LinkUp, PortConfigurationTraining, LinkErrorRecovery. */
bool port_has_physical_link(const RdmaPort *p);

typedef struct WaitCheck {
        bool done;
        char **pending; /* a line for each thing not there yet: "mlx5_0/1: INIT (LinkUp), waiting for ACTIVE" */
        size_t n_pending, allocated_pending;
} WaitCheck;

/* Whether inv has what spec waits for; *ret is filled either way (free it
 * with wait_check_done()). -ENOMEM only. */
int wait_check(const WaitSpec *spec, const Inventory *inv, WaitCheck *ret);
void wait_check_done(WaitCheck *c);
