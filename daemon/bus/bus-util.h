/* SPDX-License-Identifier: MIT */
#pragma once

#include <systemd/sd-bus.h>

#include "api/rdmad-api.h"
#include "properties.h"
#include "sysfs.h"

extern const sd_bus_error_map rdmad_error_map[];

int bus_append_attr_list(sd_bus_message *m, const AttrList *l);

/* Property getter for an AttrList field: use with offsetof() in the vtable
 * (sd-bus passes the object plus the offset as userdata). */
int bus_property_get_attr_list(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error);

/* Appends an "ao" of n object paths, the i-th built by path_at(object, i). */
typedef int (*ObjectPathAt)(const void *object, size_t i, char **ret);
int bus_append_object_paths(sd_bus_message *m, const void *object, size_t n, ObjectPathAt path_at);

/* One PropertiesChanged naming `names` (nothing when empty); a failure is
 * logged, with the path, and returned. */
int bus_emit_properties_changed(sd_bus *bus, const char *path, const char *interface, const PropertyNames *names);
