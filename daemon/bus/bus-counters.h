/* SPDX-License-Identifier: MIT */
#pragma once

#include <systemd/sd-bus.h>

/* Port.GetCounters, Device.GetCounters, Manager.GetAllCounters: each builds
 * a snapshot of the directories to read from the model and hands it to the
 * counter reader (counters-worker.h), which answers when the read is done. */

int bus_port_get_counters(sd_bus_message *message, void *userdata, sd_bus_error *error);
int bus_device_get_counters(sd_bus_message *message, void *userdata, sd_bus_error *error);
int bus_manager_get_all_counters(sd_bus_message *message, void *userdata, sd_bus_error *error);

#define BUS_PORT_GET_COUNTERS_METHOD                                                                                   \
        SD_BUS_METHOD_WITH_NAMES(RDMAD_METHOD_GET_COUNTERS, "", "", "a{st}", SD_BUS_PARAM(counters),                   \
                                 bus_port_get_counters, SD_BUS_VTABLE_UNPRIVILEGED)
#define BUS_DEVICE_GET_COUNTERS_METHOD                                                                                 \
        SD_BUS_METHOD_WITH_NAMES(RDMAD_METHOD_GET_COUNTERS, "", "", "a{st}", SD_BUS_PARAM(counters),                   \
                                 bus_device_get_counters, SD_BUS_VTABLE_UNPRIVILEGED)
#define BUS_MANAGER_GET_ALL_COUNTERS_METHOD                                                                            \
        SD_BUS_METHOD_WITH_NAMES(RDMAD_METHOD_GET_ALL_COUNTERS, "", "", "a(sua{st})", SD_BUS_PARAM(counters),          \
                                 bus_manager_get_all_counters, SD_BUS_VTABLE_UNPRIVILEGED)
