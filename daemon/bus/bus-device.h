/* SPDX-License-Identifier: MIT */
#pragma once

#include "bus-objects.h"
#include "forward.h"

/* org.rdmad1.Device, a fallback under RDMAD_DEVICE_PREFIX. */
extern const BusObjectType device_object;

int device_bus_path(const Device *d, char **ret);
