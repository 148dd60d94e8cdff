/* SPDX-License-Identifier: MIT */
#include "bus-util.h"

#include <errno.h>

#include "api/bus-path.h"
#include "basic/util.h"
#include "bus-server.h"
#include "device.h"
#include "manager.h"
#include "model.h"
#include "netdev.h"

const sd_bus_error_map rdmad_error_map[] = {
        SD_BUS_ERROR_MAP(RDMAD_ERROR_INVALID_ARGUMENT, EINVAL),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_NO_SUCH_DEVICE, ENODEV),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_BUSY, EBUSY),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_FAILED, EIO),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_NOT_SUPPORTED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_TIMEOUT, ETIMEDOUT),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_UNRESPONSIVE, EHOSTDOWN),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_NO_ROUTE, ENETUNREACH),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_NOT_RDMA, ENXIO),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_NO_GID, EADDRNOTAVAIL),
        SD_BUS_ERROR_MAP_END,
};

int bus_error_unresponsive(const Device *d, sd_bus_error *error) {
        return sd_bus_error_setf(error, RDMAD_ERROR_UNRESPONSIVE, "%s does not answer: %s.", d->name,
                                 *strempty(d->health_reason) ? d->health_reason : "its first read has not returned");
}

int bus_property_get_attr_list(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const AttrList *l = userdata;
        int r;

        r = sd_bus_message_open_container(m, 'a', "{ss}");
        /* The basic calls, not sd_bus_message_append(): the attribute maps
         * are most of a GetManagedObjects reply, and no format string need
         * be parsed for each entry. */
        for (size_t i = 0; r >= 0 && i < l->n; i++) {
                r = sd_bus_message_open_container(m, 'e', "ss");
                if (r >= 0)
                        r = sd_bus_message_append_basic(m, 's', l->items[i].name);
                if (r >= 0)
                        r = sd_bus_message_append_basic(m, 's', l->items[i].value);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
        }
        return r < 0 ? r : sd_bus_message_close_container(m);
}

int held_calls_add(HeldCalls *h, sd_bus_message *call) {
        if (ARRAY_RESERVE(h->calls, h->allocated, h->n + 1) < 0)
                return -ENOMEM;
        h->calls[h->n++] = sd_bus_message_ref(call);
        return 0;
}

bool held_calls_remove(HeldCalls *h, sd_bus_message *call) {
        for (size_t i = 0; i < h->n; i++)
                if (h->calls[i] == call) {
                        sd_bus_message_unref(call);
                        h->calls[i] = h->calls[--h->n];
                        return true;
                }
        return false;
}

void held_calls_clear(HeldCalls *h) {
        for (size_t i = 0; i < h->n; i++)
                sd_bus_message_unref(h->calls[i]);
        h->calls = mfree(h->calls);
        h->n = h->allocated = 0;
}

void bus_call_unref(void *call) {
        sd_bus_message_unref(call);
}

int bus_append_object_paths(sd_bus_message *m, const void *object, size_t n, ObjectPathAt path_at) {
        int r;

        r = sd_bus_message_open_container(m, 'a', "o");
        for (size_t i = 0; r >= 0 && i < n; i++) {
                _cleanup_free_ char *p = NULL;

                r = path_at(object, i, &p);
                if (r >= 0)
                        r = sd_bus_message_append(m, "o", p);
        }
        return r < 0 ? r : sd_bus_message_close_container(m);
}

static int device_of_path(Device *const *d, char **ret) {
        return bus_path_device((*d)->name, ret);
}

BUS_DEFINE_PROPERTY_GET_PATH(bus_property_get_device_of, device_of_path);

BUS_DEFINE_PROPERTY_SIZE_PATH(bus_property_size_device_of);

static void *path_lookup(Manager *m, const BusPath *parsed) {
        Device *d = manager_find_device(m, parsed->device);
        size_t i;

        if (!d)
                return NULL;
        switch (parsed->kind) {
        case BUS_PATH_DEVICE:
                return d;
        case BUS_PATH_PORT:
                i = device_port_index(d, parsed->port);
                return i < d->n_ports ? &d->ports[i] : NULL;
        case BUS_PATH_NETDEV:
                return (NetDev *) device_find_netdev(d, parsed->ifname);
        case BUS_PATH_SRIOV:
                return d->sriov_capable ? d : NULL;
        }
        return NULL;
}

bool bus_path_is_object(Manager *m, const char *path) {
        BusPath parsed;

        return bus_path_parse(path, &parsed) > 0 && path_lookup(m, &parsed);
}

int bus_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                    sd_bus_error *error) {
        static const char *const kind_interface[] = {
                [BUS_PATH_DEVICE] = RDMAD_DEVICE_INTERFACE,
                [BUS_PATH_PORT] = RDMAD_PORT_INTERFACE,
                [BUS_PATH_NETDEV] = RDMAD_NETDEV_INTERFACE,
                [BUS_PATH_SRIOV] = RDMAD_SRIOV_INTERFACE,
        };
        BusServer *s = userdata;
        BusPath parsed;
        void *object;

        assert(path);
        assert(interface);
        assert(found);

        if (bus_path_parse(path, &parsed) <= 0 || !streq(interface, kind_interface[parsed.kind]))
                return 0;
        object = path_lookup(s->manager, &parsed);
        if (!object)
                return 0;
        *found = object;
        return 1;
}
