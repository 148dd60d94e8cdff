/* SPDX-License-Identifier: MIT */
#pragma once

#include "api/rdmad-api.h"

#include <stddef.h>
#include <systemd/sd-bus.h>

#include "api/bus-path.h"
#include "forward.h"

/* org.rdmad1.Device, a fallback under RDMAD_DEVICE_PREFIX. */

extern const sd_bus_vtable device_vtable[];

/* At least what the vtable's getters marshal for a device at a path of
 * path_len (BusObjectType). */
size_t device_getters_size_max(const void *object, size_t path_len);

/* userdata: the BusServer. */
int device_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                       sd_bus_error *error);

int device_bus_path(const Device *d, char **ret);
