/* SPDX-License-Identifier: MIT */
/* org.rdmad1.Manager on /org/rdmad1. */
#include "bus-manager.h"

#include <stddef.h>

#include "bus-device.h"
#include "bus-path.h"
#include "bus-counters.h"
#include "bus-server.h"
#include "bus-util.h"
#include "log.h"
#include "manager.h"
#include "util.h"

int bus_manager_send_changed(BusServer *s) {
        int r;

        assert(s);
        r = sd_bus_emit_properties_changed(s->bus, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, "Devices", NULL);
        if (r < 0)
                return log_warning_errno(r, "Failed to announce changes of %s: %m", RDMAD_ROOT_PATH);
        return 0;
}

static int property_get_version(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", RDMAD_VERSION);
}

static int property_get_poll_interval_ms(sd_bus *bus, const char *path, const char *interface, const char *property,
                                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        BusServer *s = userdata;
        return sd_bus_message_append(reply, "u", s->manager->poll_interval_ms);
}

static int device_path_at(const void *object, size_t i, char **ret) {
        const Manager *m = object;
        return device_bus_path(m->devices[i], ret);
}

static int property_get_devices(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        BusServer *s = userdata;
        return bus_append_object_paths(reply, s->manager, s->manager->n_devices, device_path_at);
}

static int method_get_device_by_name(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *p = NULL;
        BusServer *s = userdata;
        const char *name;
        Device *d;
        int r;

        r = sd_bus_message_read(message, "s", &name);
        if (r < 0)
                return r;

        d = manager_find_device(s->manager, name);
        if (!d)
                return sd_bus_error_setf(error, RDMAD_ERROR_NO_SUCH_DEVICE, "No RDMA device '%s'.", name);

        r = device_bus_path(d, &p);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(message, "o", p);
}

static int method_rescan(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        BusServer *s = userdata;
        int r;

        log_info("Rescan requested by %s.", strempty(sd_bus_message_get_sender(message)));
        r = manager_rescan(s->manager);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Rescan failed: %m");
        return sd_bus_reply_method_return(message, NULL);
}

/* Reading is for everyone; Rescan makes the daemon re-read all of sysfs, so
 * it is left to sd-bus's default check (root or CAP_SYS_ADMIN). */
const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Devices", "ao", property_get_devices, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("PollIntervalMs", "u", property_get_poll_interval_ms, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_METHOD_WITH_NAMES("GetDeviceByName", "s", SD_BUS_PARAM(name), "o", SD_BUS_PARAM(device),
                                 method_get_device_by_name, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Rescan", NULL, NULL, method_rescan, 0),
        BUS_MANAGER_GET_ALL_COUNTERS_METHOD,
        SD_BUS_VTABLE_END,
};
