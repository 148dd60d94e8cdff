/* SPDX-License-Identifier: MIT */
#pragma once

#include "bus-objects.h"
#include "forward.h"

/* org.rdmad1.Sriov, a fallback under RDMAD_DEVICE_PREFIX; its object is the
 * Device of an SR-IOV capable PF. */
extern const BusObjectType sriov_object;

/* -ENODEV for a device without SR-IOV. */
int sriov_bus_path(const Device *d, char **ret);
