/* SPDX-License-Identifier: MIT */
#pragma once

#include "api/rdmad-api.h"

#include <stddef.h>
#include <systemd/sd-bus.h>

#include "forward.h"

/* org.rdmad1.Sriov, a fallback under RDMAD_DEVICE_PREFIX; its object is the
 * Device of an SR-IOV capable PF. */

extern const sd_bus_vtable sriov_vtable[];

/* At least what the vtable's getters marshal for an SR-IOV object at a path of
 * path_len (BusObjectType). */
size_t sriov_getters_size_max(const void *object, size_t path_len);

/* userdata: the BusServer. */
int sriov_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                      sd_bus_error *error);

/* -ENODEV for a device without SR-IOV. */
int sriov_bus_path(const Device *d, char **ret);
