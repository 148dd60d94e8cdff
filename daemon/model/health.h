/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

#include "forward.h"
#include "reader-pool.h"

/* A device's health: whether its files answer (rdmad(8), SICK ADAPTERS),
 * from how its reads go. Each transition is logged and reported. */

typedef enum DeviceHealth {
        DEVICE_HEALTH_OK,
        DEVICE_HEALTH_ERRORS,
        DEVICE_HEALTH_UNRESPONSIVE,
        _DEVICE_HEALTH_MAX,
} DeviceHealth;

const char *device_health_to_string(DeviceHealth h);

/* What of a device a read covered: only a full one (a load) says how the
 * whole device answers. */
typedef enum ReadExtent {
        READ_PARTIAL,
        READ_FULL,
} ReadExtent;

void device_set_health(Device *d, DeviceHealth health, const char *reason);
/* How a read went: an I/O error sets errors, a clean full read clears
 * them. Unresponsive ends only by a full read. */
void device_read_health(Device *d, const ReaderResult *res, ReadExtent extent);
/* Whether a device may be read now: not unresponsive, not waiting for its
 * first read, no read of it stuck. */
bool device_readable(const Device *d);
