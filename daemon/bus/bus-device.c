/* SPDX-License-Identifier: MIT */
/* org.rdmad1.Device */
#include "bus-device.h"

#include <stddef.h>
#include <string.h>

#include "bus-port.h"
#include "bus-netdev.h"
#include "bus-counters.h"
#include "bus-util.h"
#include "manager.h"
#include "pci-function.h"
#include "properties.h"
#include "basic/util.h"

int device_bus_path(const Device *d, char **ret) {
        assert(d);
        return bus_path_device(d->name, ret);
}

static int port_path_at(const void *object, size_t i, char **ret) {
        const Device *d = object;
        return port_bus_path(&d->ports[i], ret);
}

static int netdev_path_at(const void *object, size_t i, char **ret) {
        const Device *d = object;
        return netdev_bus_path(d->netdevs[i], ret);
}

static BUS_DEFINE_PROPERTY_GET_PATHS(bus_property_get_ports, Device, n_ports, port_path_at);

static int bus_property_get_port_numbers(sd_bus *bus, const char *path, const char *interface, const char *property,
                                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "u");
        for (size_t i = 0; r >= 0 && i < d->n_ports; i++)
                r = sd_bus_message_append(reply, "u", d->ports[i].number);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static BUS_DEFINE_PROPERTY_GET_PATHS(bus_property_get_netdevs, Device, n_netdevs, netdev_path_at);

static int bus_property_get_sriov_capable(sd_bus *bus, const char *path, const char *interface, const char *property,
                                          sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        return sd_bus_message_append(reply, "b", (int) d->sriov_capable);
}

static int device_sriov_path(const Device *d, char **ret) {
        return d->sriov_capable ? bus_path_sriov(d->name, ret) : 0;
}

static BUS_DEFINE_PROPERTY_GET_PATH(bus_property_get_sriov, device_sriov_path);

static int device_physical_function_path(const Device *d, char **ret) {
        return d->physical_function ? device_bus_path(d->physical_function, ret) : 0;
}

static BUS_DEFINE_PROPERTY_GET_PATH(bus_property_get_physical_function, device_physical_function_path);

static int bus_property_get_virtual_functions(sd_bus *bus, const char *path, const char *interface,
                                              const char *property, sd_bus_message *reply, void *userdata,
                                              sd_bus_error *error) {
        Device *d = userdata, *vf;
        size_t i = 0;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "o");
        while (r >= 0 && (vf = pci_function_next_vf(d->manager, d, &i))) {
                _cleanup_free_ char *p = NULL;

                r = device_bus_path(vf, &p);
                if (r >= 0)
                        r = sd_bus_message_append(reply, "o", p);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int bus_property_get_health(sd_bus *bus, const char *path, const char *interface, const char *property,
                                   sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const Device *d = userdata;

        return sd_bus_message_append(reply, "s", device_health_to_string(d->health));
}

/* ---------- what the getters marshal, at most ---------- */

/* Another device's path: its name escaped takes at most 3 bytes a byte. */
static size_t device_path_size_max(const Device *d) {
        return BUS_STRING_SIZE_MAX(strlen(RDMAD_DEVICE_PREFIX) + 1 + 3 * strlen(d->name));
}

static size_t bus_property_size_physical_function(const void *object, size_t path_len) {
        const Device *d = object, *pf = d->physical_function;

        return pf ? device_path_size_max(pf) : BUS_STRING_SIZE_MAX(1);
}

static size_t bus_property_size_virtual_functions(const void *object, size_t path_len) {
        const Device *d = object, *vf;
        size_t size = BUS_ARRAY_SIZE_MAX, i = 0;

        while ((vf = pci_function_next_vf(d->manager, d, &i)))
                size += device_path_size_max(vf);
        return size;
}

static size_t bus_property_size_health(const void *object, size_t path_len) {
        const Device *d = object;

        return BUS_STRING_SIZE_MAX(strlen(device_health_to_string(d->health)));
}

static size_t bus_property_size_ports(const void *object, size_t path_len) {
        const Device *d = object;

        return BUS_ARRAY_SIZE_MAX + d->n_ports * BUS_PATH_SIZE_MAX(path_len);
}

static size_t bus_property_size_port_numbers(const void *object, size_t path_len) {
        const Device *d = object;

        return BUS_ARRAY_SIZE_MAX + d->n_ports * 4;
}

static size_t bus_property_size_netdevs(const void *object, size_t path_len) {
        const Device *d = object;

        return BUS_ARRAY_SIZE_MAX + d->n_netdevs * BUS_PATH_SIZE_MAX(path_len);
}

static size_t bus_property_size_sriov_capable(const void *object, size_t path_len) {
        return 8;
}

static BUS_DEFINE_PROPERTY_SIZE_PATH(bus_property_size_sriov);

static size_t device_getters_size_max(const void *object, size_t path_len) {
        return 0 DEVICE_PROPERTIES(BUS_PROPERTY_SIZE);
}

#define BUS_DEVICE_PROPERTY(...) BUS_PROPERTY(Device, RDMAD_DEVICE_PROPERTY_, __VA_ARGS__)

static const sd_bus_vtable device_vtable[] = {
        SD_BUS_VTABLE_START(0),
        DEVICE_PROPERTIES(BUS_DEVICE_PROPERTY)
        /* Methods. */
        BUS_DEVICE_GET_COUNTERS_METHOD,
        SD_BUS_VTABLE_END,
};

const BusObjectType device_object = {
        RDMAD_DEVICE_PREFIX, RDMAD_DEVICE_INTERFACE, device_vtable, bus_object_find, device_getters_size_max,
};
