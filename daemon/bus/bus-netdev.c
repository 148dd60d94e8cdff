/* SPDX-License-Identifier: MIT */
/* org.rdmad1.NetDev: a network interface associated with an RDMA device. */
#include "bus-netdev.h"

#include <stddef.h>

#include "api/bus-path.h"
#include "basic/util.h"
#include "bus-util.h"
#include "properties.h"
#include "netdev.h"

int netdev_bus_path(const NetDev *n, char **ret) {
        assert(n);
        return bus_path_netdev(n->device->name, n->name, ret);
}

static int netdev_port_path(const NetDev *n, char **ret) {
        return n->port != 0 ? bus_path_port(n->device->name, n->port, ret) : 0;
}

static BUS_DEFINE_PROPERTY_GET_PATH(bus_property_get_port, netdev_port_path);

static BUS_DEFINE_PROPERTY_SIZE_PATH(bus_property_size_port);

#define BUS_NETDEV_PROPERTY(...) BUS_PROPERTY(NetDev, RDMAD_NETDEV_PROPERTY_, __VA_ARGS__)

static const sd_bus_vtable netdev_vtable[] = {
        SD_BUS_VTABLE_START(0),
        NETDEV_PROPERTIES(BUS_NETDEV_PROPERTY)
        /* No methods. */
        SD_BUS_VTABLE_END,
};

static size_t netdev_getters_size_max(const void *object, size_t path_len) {
        return 0 NETDEV_PROPERTIES(BUS_PROPERTY_SIZE);
}

const BusObjectType netdev_object = {
        RDMAD_DEVICE_PREFIX, RDMAD_NETDEV_INTERFACE, netdev_vtable, bus_object_find, netdev_getters_size_max,
};
