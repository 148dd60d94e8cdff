/* SPDX-License-Identifier: MIT */
/* org.rdmad1.Device */
#include "bus-device.h"

#include <stddef.h>

#include "bus-port.h"
#include "bus-netdev.h"
#include "bus-sriov.h"
#include "bus-counters.h"
#include "bus-server.h"
#include "bus-util.h"
#include "manager.h"
#include "properties.h"
#include "basic/util.h"

Device *device_bus_lookup(Manager *m, const char *path, BusPathKind kind) {
        BusPath parsed;

        assert(m);
        assert(path);

        if (bus_path_parse(path, &parsed) <= 0 || parsed.kind != kind)
                return NULL;
        return manager_find_device(m, parsed.device);
}

int device_bus_path(const Device *d, char **ret) {
        assert(d);
        return bus_path_device(d->name, ret);
}

int bus_property_get_device_of(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *p = NULL;
        Device *const *d = userdata;
        int r;

        r = device_bus_path(*d, &p);
        if (r < 0)
                return r;
        return sd_bus_message_append(reply, "o", p);
}

int device_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                       sd_bus_error *error) {
        Device *d = device_bus_lookup(((BusServer *) userdata)->manager, path, BUS_PATH_DEVICE);

        if (!d)
                return 0;
        *found = d;
        return 1;
}

static int port_path_at(const void *object, size_t i, char **ret) {
        const Device *d = object;
        return port_bus_path(&d->ports[i], ret);
}

static int netdev_path_at(const void *object, size_t i, char **ret) {
        const Device *d = object;
        return netdev_bus_path(&d->netdevs[i], ret);
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
        r = sriov_bus_path(d, &p);
        if (r < 0)
                return r;
        return sd_bus_message_append(reply, "o", p);
}

static int property_get_physical_function(sd_bus *bus, const char *path, const char *interface, const char *property,
                                          sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *p = NULL;
        Device *d = userdata, *pf;
        int r;

        pf = manager_find_physical_function(d->manager, d);
        if (!pf)
                return sd_bus_message_append(reply, "o", "/");
        r = device_bus_path(pf, &p);
        if (r < 0)
                return r;
        return sd_bus_message_append(reply, "o", p);
}

static int property_get_virtual_functions(sd_bus *bus, const char *path, const char *interface, const char *property,
                                          sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Device *d = userdata, *vf;
        size_t i = 0;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "o");
        if (r < 0)
                return r;
        while ((vf = manager_next_virtual_function(d->manager, d, &i))) {
                _cleanup_free_ char *p = NULL;

                r = device_bus_path(vf, &p);
                if (r < 0)
                        return r;
                r = sd_bus_message_append(reply, "o", p);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

/* What identifies the hardware is constant for the object's lifetime: a
 * change there re-announces the device (removed, then added). */
#define CONST  SD_BUS_VTABLE_PROPERTY_CONST
#define CHANGE SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE

static int property_get_health(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const Device *d = userdata;

        return sd_bus_message_append(reply, "s", device_health_to_string(d->health));
}

const sd_bus_vtable device_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Name", "s", NULL, offsetof(Device, name), CONST),
        SD_BUS_PROPERTY("SysfsPath", "s", NULL, offsetof(Device, sysfs_path), CONST),
        SD_BUS_PROPERTY("DevicePath", "s", NULL, offsetof(Device, device_path), CONST),
        SD_BUS_PROPERTY("Driver", "s", NULL, offsetof(Device, driver), CONST),
        SD_BUS_PROPERTY("NodeType", "s", NULL, offsetof(Device, node_type), CONST),
        SD_BUS_PROPERTY("Transport", "s", NULL, offsetof(Device, transport), CONST),
        SD_BUS_PROPERTY("PciAddress", "s", NULL, offsetof(Device, pci_address), CONST),
        SD_BUS_PROPERTY("NumaNode", "i", NULL, offsetof(Device, numa_node), CONST),
        SD_BUS_PROPERTY("PhysicalFunction", "o", property_get_physical_function, 0, CHANGE),
        SD_BUS_PROPERTY("VirtualFunctions", "ao", property_get_virtual_functions, 0, CHANGE),
        SD_BUS_PROPERTY("NodeGuid", "s", NULL, offsetof(Device, node_guid), CONST),
        SD_BUS_PROPERTY("SysImageGuid", "s", NULL, offsetof(Device, sys_image_guid), CONST),
        SD_BUS_PROPERTY("FirmwareVersion", "s", NULL, offsetof(Device, fw_ver), CONST),
        SD_BUS_PROPERTY("HcaType", "s", NULL, offsetof(Device, hca_type), CONST),
        SD_BUS_PROPERTY("HwRev", "s", NULL, offsetof(Device, hw_rev), CONST),
        SD_BUS_PROPERTY("BoardId", "s", NULL, offsetof(Device, board_id), CONST),
        SD_BUS_PROPERTY("NodeDescription", "s", NULL, offsetof(Device, node_desc), CHANGE),
        SD_BUS_PROPERTY("Health", "s", property_get_health, 0, CHANGE),
        SD_BUS_PROPERTY("HealthReason", "s", NULL, offsetof(Device, health_reason), CHANGE),
        SD_BUS_PROPERTY("Ports", "ao", property_get_ports, 0, CONST),
        SD_BUS_PROPERTY("PortNumbers", "au", property_get_port_numbers, 0, CONST),
        SD_BUS_PROPERTY("NetDevs", "ao", property_get_netdevs, 0, CHANGE),
        SD_BUS_PROPERTY("SriovCapable", "b", property_get_sriov_capable, 0, CONST),
        SD_BUS_PROPERTY("Sriov", "o", property_get_sriov, 0, CONST),
        SD_BUS_PROPERTY("Attributes", "a{ss}", bus_property_get_attr_list, offsetof(Device, attributes), CHANGE),
        SD_BUS_PROPERTY("PowerAttributes", "a{ss}", bus_property_get_attr_list, offsetof(Device, power_attributes),
                        CHANGE),
        BUS_DEVICE_GET_COUNTERS_METHOD,
        SD_BUS_VTABLE_END,
};
