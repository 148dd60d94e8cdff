/* SPDX-License-Identifier: MIT */
#pragma once

#include "bus-objects.h"
#include "forward.h"

/* org.rdmad1.Port, a fallback under RDMAD_DEVICE_PREFIX. */
extern const BusObjectType port_object;

int port_bus_path(const Port *p, char **ret);
