/* SPDX-License-Identifier: MIT */
#pragma once

#include <systemd/sd-bus.h>

#include "model.h"

#define RDMAD_BUS_NAME "org.rdmad1"
#define RDMAD_ROOT_PATH "/org/rdmad1"
#define RDMAD_DEVICE_PREFIX "/org/rdmad1/device"

#define RDMAD_ERROR_INVALID_ARGUMENT "org.rdmad1.Error.InvalidArgument"
#define RDMAD_ERROR_NO_SUCH_DEVICE "org.rdmad1.Error.NoSuchDevice"
#define RDMAD_ERROR_BUSY "org.rdmad1.Error.Busy"
#define RDMAD_ERROR_FAILED "org.rdmad1.Error.Failed"
#define RDMAD_ERROR_NOT_SUPPORTED "org.rdmad1.Error.NotSupported"
#define RDMAD_ERROR_TIMEOUT "org.rdmad1.Error.Timeout"

extern const sd_bus_error_map rdmad_error_map[];

/* Object paths: names label-escaped (mlx5_0 → mlx5_5f0), port numbers decimal. */
int device_object_path(const char *device_name, char **ret);
int port_object_path(const char *device_name, uint32_t number, char **ret);
int netdev_object_path(const char *device_name, const char *ifname, char **ret);
int sriov_object_path(const char *device_name, char **ret);

typedef enum ObjectKind {
        OBJECT_DEVICE,
        OBJECT_PORT,
        OBJECT_NETDEV,
        OBJECT_SRIOV,
} ObjectKind;

/* Splits one of the paths above into its parts. Only the canonical spelling
 * is accepted ("/port/1", not "/port/_31"). 0 if path is none of ours. */
int object_path_parse(const char *path, ObjectKind *ret_kind, char **ret_device, uint32_t *ret_port,
                      char **ret_ifname);

int bus_append_attr_list(sd_bus_message *m, const AttrList *l);

/* Property getter for an AttrList field: use with offsetof() in the vtable
 * (sd-bus passes the object plus the offset as userdata). */
int bus_property_get_attr_list(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error);

/* Appends an "ao" of n object paths, the i-th built by path_at(object, i). */
typedef int (*ObjectPathAt)(const void *object, size_t i, char **ret);
int bus_append_object_paths(sd_bus_message *m, const void *object, size_t n, ObjectPathAt path_at);

static inline void sd_bus_message_unrefp_(sd_bus_message **m) {
        sd_bus_message_unref(*m);
}

static inline void sd_bus_creds_unrefp_(sd_bus_creds **c) {
        sd_bus_creds_unref(*c);
}
