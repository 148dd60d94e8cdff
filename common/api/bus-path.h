/* SPDX-License-Identifier: MIT */
#pragma once

#include <limits.h>
#include <stdint.h>

/* The object path grammar, both ways, from names alone (no Manager):
 *   /org/rdmad1/device/<dev>                  a device
 *   /org/rdmad1/device/<dev>/port/<n>         a port
 *   /org/rdmad1/device/<dev>/netdev/<ifname>  a netdev
 *   /org/rdmad1/device/<dev>/sriov            SR-IOV of a PF
 * Names are label-escaped (mlx5_0 → mlx5_5f0), port numbers decimal. The
 * bus-<kind>.h headers build paths from objects with these. */

#include "api/rdmad-api.h"

int bus_path_device(const char *device_name, char **ret);
int bus_path_port(const char *device_name, uint32_t number, char **ret);
int bus_path_netdev(const char *device_name, const char *ifname, char **ret);
int bus_path_sriov(const char *device_name, char **ret);

typedef enum BusPathKind {
        BUS_PATH_DEVICE,
        BUS_PATH_PORT,
        BUS_PATH_NETDEV,
        BUS_PATH_SRIOV,
} BusPathKind;

typedef struct BusPath {
        BusPathKind kind;
        char device[NAME_MAX + 1]; /* decoded */
        uint32_t port;             /* BUS_PATH_PORT, else 0 */
        char ifname[NAME_MAX + 1]; /* BUS_PATH_NETDEV, else "" */
} BusPath;

/* Splits one of the paths above into its parts. Only the canonical spelling
 * is accepted ("/port/1", not "/port/01"; "mlx5_5f0", not "mlx5_5F0"): 1 if
 * path is one of ours, 0 if not. */
int bus_path_parse(const char *path, BusPath *ret);
