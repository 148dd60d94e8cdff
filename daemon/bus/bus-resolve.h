/* SPDX-License-Identifier: MIT */
#pragma once

#include <systemd/sd-bus.h>

/* Manager.ResolveAddress(s address) → (o port, u gid_index, s gid,
 * s gid_type, s netdev, s source): the kernel's route to the address
 * (route-query.h), then the port GID that carries its source on the
 * egress netdev (gid-resolve.h). Answered at once, from the model: open to
 * every caller (rationed as the other reads, bus-ration.h). */

int bus_manager_resolve_address(sd_bus_message *message, void *userdata, sd_bus_error *error);

#define BUS_MANAGER_RESOLVE_ADDRESS_METHOD                                                                             \
        SD_BUS_METHOD_WITH_NAMES(RDMAD_METHOD_RESOLVE_ADDRESS, "s", SD_BUS_PARAM(address), "oussss",                   \
                                 SD_BUS_PARAM(port) SD_BUS_PARAM(gid_index) SD_BUS_PARAM(gid) SD_BUS_PARAM(gid_type)   \
                                         SD_BUS_PARAM(netdev) SD_BUS_PARAM(source),                                    \
                                 bus_manager_resolve_address, SD_BUS_VTABLE_UNPRIVILEGED)
