/* SPDX-License-Identifier: MIT */
/* org.rdmad1.Sriov: the SR-IOV control of a device's PCI physical function. */
#include <stddef.h>

#include "bus-objects.h"
#include "bus-util.h"
#include "manager.h"
#include "util.h"

int sriov_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                      sd_bus_error *error) {
        _cleanup_free_ char *name = NULL;
        Manager *m = userdata;
        ObjectKind kind;
        Device *d;
        int r;

        r = object_path_parse(path, &kind, &name, NULL, NULL);
        if (r <= 0)
                return r;
        if (kind != OBJECT_SRIOV)
                return 0;
        d = manager_find_device(m, name);
        if (!d || !d->sriov_capable)
                return 0;
        *found = d;
        return 1;
}

static int property_get_device(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *p = NULL;
        Device *d = userdata;
        int r;

        r = device_object_path(d->name, &p);
        if (r < 0)
                return r;
        return sd_bus_message_append(reply, "o", p);
}

const sd_bus_vtable sriov_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Device", "o", property_get_device, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("DevicePath", "s", NULL, offsetof(Device, device_path), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("NumVfs", "u", NULL, offsetof(Device, num_vfs), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("TotalVfs", "u", NULL, offsetof(Device, total_vfs), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END,
};
