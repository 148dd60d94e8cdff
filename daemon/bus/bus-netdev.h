/* SPDX-License-Identifier: MIT */
#pragma once

#include "bus-objects.h"
#include "forward.h"

/* org.rdmad1.NetDev, a fallback under RDMAD_DEVICE_PREFIX. */
extern const BusObjectType netdev_object;

int netdev_bus_path(const NetDev *n, char **ret);
