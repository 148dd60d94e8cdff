/* SPDX-License-Identifier: MIT */
#pragma once

#include "api/rdmad-api.h"

#include <systemd/sd-bus.h>

#include "api/bus-path.h"
#include "forward.h"

/* org.rdmad1.Device, a fallback under RDMAD_DEVICE_PREFIX. */

extern const sd_bus_vtable device_vtable[];

/* userdata: the BusServer. */
int device_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                       sd_bus_error *error);

/* The device a device-level path of this kind (the device itself, its sriov) names. */
Device *device_bus_lookup(Manager *m, const char *path, BusPathKind kind);

int device_bus_path(const Device *d, char **ret);

/* Property getter for the path of the Device a field points to: use with
 * offsetof(Port, device) or offsetof(NetDev, device) in the vtable. */
int bus_property_get_device_of(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error);
