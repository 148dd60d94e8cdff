/* SPDX-License-Identifier: MIT */
#pragma once

#include <systemd/sd-bus.h>

#include "bus-util.h"
#include "model.h"

/* One vtable per interface; the device, port, netdev and sriov objects are
 * served by fallback vtables whose find callbacks look the path up in the
 * manager's table (userdata of the find callbacks is the Manager). */

extern const sd_bus_vtable manager_vtable[];
extern const sd_bus_vtable device_vtable[];
extern const sd_bus_vtable port_vtable[];
extern const sd_bus_vtable netdev_vtable[];
extern const sd_bus_vtable sriov_vtable[];

typedef struct Manager Manager;

/* The device a device-level path (the device itself, its sriov) names. */
Device *device_object_lookup(Manager *m, const char *path, ObjectKind kind);

int device_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                       sd_bus_error *error);
int port_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                     sd_bus_error *error);
int netdev_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                       sd_bus_error *error);
int sriov_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                      sd_bus_error *error);

/* Lists every device, port, netdev and sriov object path. */
int manager_node_enumerator(sd_bus *bus, const char *path, void *userdata, char ***nodes, sd_bus_error *error);
