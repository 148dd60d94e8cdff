/* SPDX-License-Identifier: MIT */
#pragma once

#include <systemd/sd-bus.h>

#include "rdmactl.h"

typedef enum BusFailure {
        BUS_FAILURE_OTHER,
        BUS_FAILURE_UNREACHABLE,      /* no system bus */
        BUS_FAILURE_NOT_RUNNING,      /* no org.rdmad1 on it */
        BUS_FAILURE_WENT_AWAY,        /* rdmad left while we waited */
        BUS_FAILURE_NO_SUCH_DEVICE,   /* NoSuchDevice, or an unknown object path */
        BUS_FAILURE_TIMEOUT,          /* org.rdmad1.Error.Timeout */
        BUS_FAILURE_PERMISSION,       /* AccessDenied, InteractiveAuthorizationRequired */
        BUS_FAILURE_INVALID_ARGUMENT, /* org.rdmad1.Error.InvalidArgument */
        BUS_FAILURE_NO_ROUTE,         /* ResolveAddress: org.rdmad1.Error.NoRoute */
        BUS_FAILURE_NOT_RDMA,         /* ... NotRdma */
        BUS_FAILURE_NO_GID,           /* ... NoGid */
} BusFailure;

/* Pure: what kind of failure a call's return value and error describe. */
BusFailure classify_bus_error(int r, const sd_bus_error *error);
int exit_status_for(BusFailure f);

/* A message with each of rdmad's object paths in it as people name the
 * object: "No object /org/rdmad1/device/mlx5_5f0/port/3" → "No object
 * mlx5_0/3". NULL for no memory (or no message). */
char *message_unescape_paths(const char *message);
