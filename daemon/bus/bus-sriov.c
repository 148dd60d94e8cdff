/* SPDX-License-Identifier: MIT */
/* org.rdmad1.Sriov: the SR-IOV control of a device's PCI physical function. */
#include "bus-sriov.h"

#include <stddef.h>
#include <stdio.h>

#include "api/bus-path.h"
#include "basic/util.h"
#include "bus-device.h"
#include "bus-server.h"
#include "bus-util.h"
#include "caller.h"
#include "manager.h"
#include "properties.h"
#include "sriov-worker.h"

int sriov_bus_path(const Device *d, char **ret) {
        assert(d);
        if (!d->sriov_capable)
                return -ENODEV;
        return bus_path_sriov(d->name, ret);
}

static BUS_DEFINE_PROPERTY_GET_PATH(bus_property_get_device, device_bus_path);

static BUS_DEFINE_PROPERTY_SIZE_PATH(bus_property_size_device);

static int method_set_num_vfs(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        BusServer *s = bus_server_current(message);
        char count_str[16];
        uint32_t count;
        uid_t uid;
        int r;

        r = sd_bus_message_read(message, "u", &count);
        if (r < 0)
                return r;

        /* Validation before authorization: a bad request never reaches polkit. */
        if (count > d->total_vfs)
                return sd_bus_error_setf(error, RDMAD_ERROR_INVALID_ARGUMENT,
                                         "%s supports at most %u VFs; %u requested.", d->name, d->total_vfs, count);
        if (sriov_job_running(&s->sriov_jobs, d->device_path))
                return sd_bus_error_setf(error, RDMAD_ERROR_BUSY, "A VF change on %s is already running.", d->name);
        /* A write behind a stuck read would hang too: refused, also after
         * polkit (this handler runs again then). Health is public anyway. */
        if (!device_readable(d))
                return bus_error_unresponsive(d, error);

        if (s->stopping)
                return sd_bus_error_set(error, RDMAD_ERROR_FAILED, "rdmad is stopping.");

        r = caller_resolve_uid(&s->callers, message, &uid, error);
        if (r <= 0)
                return r < 0 ? r : 1; /* 0: runs again once the caller is known */
        snprintf(count_str, sizeof(count_str), "%u", count);
        r = polkit_check_async(&s->polkit, message, uid, RDMAD_POLKIT_ACTION_SET_NUM_VFS, d->name,
                               (const char *const[]){ "device", d->name, "count", count_str, NULL }, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1; /* polkit answers later; this handler runs again then */

        _cleanup_free_ char *caller = caller_describe(&s->callers, sd_bus_message_get_sender(message));
        r = sriov_job_start(&s->sriov_jobs, message, caller, d->name, d->device_path, count);
        if (r == -EBUSY)
                return sd_bus_error_setf(error, RDMAD_ERROR_BUSY, "A VF change on %s is already running.", d->name);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Cannot start the VF change: %m");
        return 1; /* answered when the writes are done */
}

#define BUS_SRIOV_PROPERTY(...) BUS_PROPERTY(Device, RDMAD_SRIOV_PROPERTY_, __VA_ARGS__)

static const sd_bus_vtable sriov_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SRIOV_PROPERTIES(BUS_SRIOV_PROPERTY)
        /* Unprivileged for sd-bus, so that the call reaches polkit, which decides. */
        SD_BUS_METHOD_WITH_ARGS(RDMAD_METHOD_SET_NUM_VFS, SD_BUS_ARGS("u", count), SD_BUS_NO_RESULT, method_set_num_vfs,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static size_t sriov_getters_size_max(const void *object, size_t path_len) {
        return 0 SRIOV_PROPERTIES(BUS_PROPERTY_SIZE);
}

const BusObjectType sriov_object = {
        RDMAD_DEVICE_PREFIX, RDMAD_SRIOV_INTERFACE, sriov_vtable, bus_object_find, sriov_getters_size_max,
};
