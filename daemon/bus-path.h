/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/* The object path grammar, both ways, from names alone (no Manager):
 *   /org/rdmad1/device/<dev>                  a device
 *   /org/rdmad1/device/<dev>/port/<n>         a port
 *   /org/rdmad1/device/<dev>/netdev/<ifname>  a netdev
 *   /org/rdmad1/device/<dev>/sriov            SR-IOV of a PF
 * Names are label-escaped (mlx5_0 → mlx5_5f0), port numbers decimal. The
 * bus-<kind>.h headers build paths from objects with these. */

#define RDMAD_ROOT_PATH "/org/rdmad1"
#define RDMAD_DEVICE_PREFIX "/org/rdmad1/device"

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

/* Splits one of the paths above into its parts. Only the canonical spelling
 * is accepted ("/port/1", not "/port/_31"). 0 if path is none of ours. */
int bus_path_parse(const char *path, BusPathKind *ret_kind, char **ret_device, uint32_t *ret_port,
                   char **ret_ifname);
