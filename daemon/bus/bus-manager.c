/* SPDX-License-Identifier: MIT */
/* org.rdmad1.Manager on /org/rdmad1. */
#include "bus-manager.h"

#include <stddef.h>

#include "bus-device.h"
#include "bus-counters.h"
#include "bus-resolve.h"
#include "bus-server.h"
#include "bus-util.h"
#include "basic/log.h"
#include "manager.h"
#include "reader-pool.h"
#include "basic/util.h"

int bus_manager_send_changed(BusServer *s) {
        int r;

        assert(s);
        r = sd_bus_emit_properties_changed(s->bus, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                           RDMAD_MANAGER_PROPERTY_DEVICES, NULL);
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
        const BusServer *s = object;
        return device_bus_path(s->manager->devices[i], ret);
}

static BUS_DEFINE_PROPERTY_GET_PATHS(property_get_devices, BusServer, manager->n_devices, device_path_at);

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
        RescanCalls *c = &s->rescans;
        uint64_t timeout = s->manager->read_timeout_usec ?: READ_TIMEOUT_USEC_DEFAULT;
        uid_t uid;
        int r;

        /* Root's alone, who calls asked of the bus without waiting (manager_vtable). */
        r = caller_resolve_uid(&s->callers, message, &uid, error);
        if (r <= 0)
                return r < 0 ? r : 1; /* 0: runs again once the caller is known */
        if (uid != 0)
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED, "Rescan is for root only.");

        log_info("Rescan requested by %s.", strempty(sd_bus_message_get_sender(message)));
        r = rescan_calls_hold(c, s->event, message, timeout, error);
        if (r < 0 || sd_bus_error_is_set(error))
                return r;

        /* Answered by the model's rescanned event, at once when nothing is read on threads. */
        r = manager_rescan(s->manager);
        if (r < 0) {
                rescan_calls_release(c, message);
                return sd_bus_error_set_errnof(error, r, "Rescan failed: %m");
        }
        return 1;
}

/* Reading is for everyone; Rescan makes the daemon re-read all of sysfs, so
 * it is root's: checked by the handler through the caller registry, never
 * by sd-bus's synchronous default check (every entry is UNPRIVILEGED;
 * tools/check-layout refuses one that is not). */
static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY(RDMAD_MANAGER_PROPERTY_VERSION, "s", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY(RDMAD_MANAGER_PROPERTY_DEVICES, "ao", property_get_devices, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(RDMAD_MANAGER_PROPERTY_POLL_INTERVAL_MS, "u", property_get_poll_interval_ms, 0,
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_METHOD_WITH_NAMES(RDMAD_METHOD_GET_DEVICE_BY_NAME, "s", SD_BUS_PARAM(name), "o", SD_BUS_PARAM(device),
                                 method_get_device_by_name, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD(RDMAD_METHOD_RESCAN, NULL, NULL, method_rescan, SD_BUS_VTABLE_UNPRIVILEGED),
        BUS_MANAGER_GET_ALL_COUNTERS_METHOD,
        BUS_MANAGER_RESOLVE_ADDRESS_METHOD,
        SD_BUS_VTABLE_END,
};

const BusObjectType manager_object = { RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, manager_vtable, NULL, NULL };
