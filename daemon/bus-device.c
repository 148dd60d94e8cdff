/* SPDX-License-Identifier: MIT */
/* org.rdmad1.Device */
#include <stddef.h>

#include "bus-counters.h"
#include "bus-objects.h"
#include "bus-util.h"
#include "manager.h"
#include "util.h"

Device *device_object_lookup(Manager *m, const char *path, ObjectKind kind) {
        _cleanup_free_ char *name = NULL;
        ObjectKind found_kind;

        if (object_path_parse(path, &found_kind, &name, NULL, NULL) <= 0 || found_kind != kind)
                return NULL;
        return manager_find_device(m, name);
}

int device_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                       sd_bus_error *error) {
        Device *d = device_object_lookup(userdata, path, OBJECT_DEVICE);

        if (!d)
                return 0;
        *found = d;
        return 1;
}

static int port_path_at(const void *object, size_t i, char **ret) {
        const Device *d = object;
        return port_object_path(d->name, d->ports[i].number, ret);
}

static int netdev_path_at(const void *object, size_t i, char **ret) {
        const Device *d = object;
        return netdev_object_path(d->name, d->netdevs[i].name, ret);
}

static int property_get_ports(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        return bus_append_object_paths(reply, d, d->n_ports, port_path_at);
}

static int property_get_port_numbers(sd_bus *bus, const char *path, const char *interface, const char *property,
                                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "u");
        if (r < 0)
                return r;
        for (size_t i = 0; i < d->n_ports; i++) {
                r = sd_bus_message_append(reply, "u", d->ports[i].number);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int property_get_netdevs(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        return bus_append_object_paths(reply, d, d->n_netdevs, netdev_path_at);
}

static int property_get_sriov_capable(sd_bus *bus, const char *path, const char *interface, const char *property,
                                      sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        return sd_bus_message_append(reply, "b", (int) d->sriov_capable);
}

static int property_get_sriov(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *p = NULL;
        Device *d = userdata;
        int r;

        if (!d->sriov_capable)
                return sd_bus_message_append(reply, "o", "/");
        r = sriov_object_path(d->name, &p);
        if (r < 0)
                return r;
        return sd_bus_message_append(reply, "o", p);
}

/* What identifies the hardware is constant for the object's lifetime: a
 * change there re-announces the device (removed, then added). */
#define CONST SD_BUS_VTABLE_PROPERTY_CONST
#define CHANGE SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE

const sd_bus_vtable device_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Name", "s", NULL, offsetof(Device, name), CONST),
        SD_BUS_PROPERTY("SysfsPath", "s", NULL, offsetof(Device, sysfs_path), CONST),
        SD_BUS_PROPERTY("DevicePath", "s", NULL, offsetof(Device, device_path), CONST),
        SD_BUS_PROPERTY("Driver", "s", NULL, offsetof(Device, driver), CONST),
        SD_BUS_PROPERTY("NodeType", "s", NULL, offsetof(Device, node_type), CONST),
        SD_BUS_PROPERTY("Transport", "s", NULL, offsetof(Device, transport), CONST),
        SD_BUS_PROPERTY("NodeGuid", "s", NULL, offsetof(Device, node_guid), CONST),
        SD_BUS_PROPERTY("SysImageGuid", "s", NULL, offsetof(Device, sys_image_guid), CONST),
        SD_BUS_PROPERTY("FirmwareVersion", "s", NULL, offsetof(Device, fw_ver), CONST),
        SD_BUS_PROPERTY("HcaType", "s", NULL, offsetof(Device, hca_type), CONST),
        SD_BUS_PROPERTY("HwRev", "s", NULL, offsetof(Device, hw_rev), CONST),
        SD_BUS_PROPERTY("BoardId", "s", NULL, offsetof(Device, board_id), CONST),
        SD_BUS_PROPERTY("NodeDescription", "s", NULL, offsetof(Device, node_desc), CHANGE),
        SD_BUS_PROPERTY("Ports", "ao", property_get_ports, 0, CONST),
        SD_BUS_PROPERTY("PortNumbers", "au", property_get_port_numbers, 0, CONST),
        SD_BUS_PROPERTY("NetDevs", "ao", property_get_netdevs, 0, CHANGE),
        SD_BUS_PROPERTY("SriovCapable", "b", property_get_sriov_capable, 0, CONST),
        SD_BUS_PROPERTY("Sriov", "o", property_get_sriov, 0, CONST),
        SD_BUS_PROPERTY("Attributes", "a{ss}", bus_property_get_attr_list, offsetof(Device, attributes), CHANGE),
        SD_BUS_PROPERTY("PowerAttributes", "a{ss}", bus_property_get_attr_list, offsetof(Device, power_attributes), CHANGE),
        BUS_DEVICE_GET_COUNTERS_METHOD,
        SD_BUS_VTABLE_END,
};
