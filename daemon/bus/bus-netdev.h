/* SPDX-License-Identifier: MIT */
#pragma once

#include "api/rdmad-api.h"

#include <stddef.h>
#include <systemd/sd-bus.h>

#include "forward.h"

/* org.rdmad1.NetDev, a fallback under RDMAD_DEVICE_PREFIX. */

extern const sd_bus_vtable netdev_vtable[];

/* At least what the vtable's getters marshal for a netdev at a path of
 * path_len (BusObjectType). */
size_t netdev_getters_size_max(const void *object, size_t path_len);

/* userdata: the BusServer. */
int netdev_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                       sd_bus_error *error);

int netdev_bus_path(const NetDev *n, char **ret);
