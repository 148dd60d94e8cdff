/* SPDX-License-Identifier: MIT */
#pragma once

/* What a command line names, the ways people name it: a device ("mlx5_0"),
 * one of its ports ("mlx5_0 1", or the `rdma` tool's "mlx5_0/1"), or a
 * network interface, which stands for its port ("ib0", "ens1f0np0"). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "client/inventory.h"

typedef struct Target {
        const RdmaDevice *device;
        uint32_t port; /* 0: the whole device */
} Target;

typedef enum TargetFlags {
        TARGET_PORT_NUMBER = 1 << 0, /* "DEVICE PORT": a number may follow a device name */
} TargetFlags;

/* Reads the target that args[0] (and, with TARGET_PORT_NUMBER, args[1])
 * name; *ret_consumed says how many arguments it took. A name the inventory
 * does not know is asked of rdmad (GetDeviceByName knows escaped names).
 * Prints the error and returns the exit status on failure: 4 for no such
 * device, port or netdev, 2 for a malformed port. */
int target_parse(sd_bus *bus, const Inventory *inv, char **args, size_t n_args, TargetFlags flags, Target *ret,
                 size_t *ret_consumed);

/* Reads the targets args name, each a device or a port (TARGET_PORT_NUMBER);
 * every device for none. Like systemctl status, a name that fails does not
 * stop the others: the exit status of the first that fails is in *worst
 * (which starts as EXIT_OK); returns it at once only when rdmad is not
 * running, and 0 (EXIT_OK) otherwise. */
int targets_parse(sd_bus *bus, const Inventory *inv, char **args, size_t n_args, Target **ret, size_t *ret_n,
                  int *worst);
