/* SPDX-License-Identifier: MIT */
/* org.rdmad1.NetDev: a network interface associated with an RDMA device. */
#include "bus-netdev.h"

#include <stddef.h>

#include "api/bus-path.h"
#include "basic/util.h"
#include "bus-device.h"
#include "bus-server.h"
#include "bus-util.h"
#include "manager.h"
#include "properties.h"

int netdev_bus_path(const NetDev *n, char **ret) {
        assert(n);
        return bus_path_netdev(n->device->name, n->name, ret);
}

int netdev_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                       sd_bus_error *error) {
        BusPath parsed;
        const NetDev *n;
        Device *d;

        if (bus_path_parse(path, &parsed) <= 0 || parsed.kind != BUS_PATH_NETDEV)
                return 0;
        d = manager_find_device(((BusServer *) userdata)->manager, parsed.device);
        if (!d)
                return 0;
        n = device_find_netdev(d, parsed.ifname);
        if (!n)
                return 0;
        *found = (NetDev *) n;
        return 1;
}

static int property_get_port(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *p = NULL;
        NetDev *n = userdata;
        int r;

        if (n->port == 0)
                return sd_bus_message_append(reply, "o", "/");
        r = bus_path_port(n->device->name, n->port, &p);
        if (r < 0)
                return r;
        return sd_bus_message_append(reply, "o", p);
}

#define CONST  SD_BUS_VTABLE_PROPERTY_CONST
#define CHANGE SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE

const sd_bus_vtable netdev_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Name", "s", NULL, offsetof(NetDev, name), CONST),
        SD_BUS_PROPERTY("Device", "o", bus_property_get_device_of, offsetof(NetDev, device), CONST),
        SD_BUS_PROPERTY("DevPort", "u", NULL, offsetof(NetDev, dev_port), CHANGE),
        SD_BUS_PROPERTY("Port", "o", property_get_port, 0, CHANGE),
        SD_BUS_PROPERTY("OperState", "s", NULL, offsetof(NetDev, operstate), CHANGE),
        SD_BUS_PROPERTY("Address", "s", NULL, offsetof(NetDev, address), CHANGE),
        SD_BUS_PROPERTY("Mtu", "u", NULL, offsetof(NetDev, mtu), CHANGE),
        SD_BUS_PROPERTY("Attributes", "a{ss}", bus_property_get_attr_list, offsetof(NetDev, attributes), CHANGE),
        SD_BUS_VTABLE_END,
};
