/* SPDX-License-Identifier: MIT */
#include "bus-util.h"

#include <errno.h>
#include <stdio.h>

#include "parse.h"
#include "util.h"

const sd_bus_error_map rdmad_error_map[] = {
        SD_BUS_ERROR_MAP(RDMAD_ERROR_INVALID_ARGUMENT, EINVAL),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_NO_SUCH_DEVICE, ENODEV),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_BUSY, EBUSY),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_FAILED, EIO),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_NOT_SUPPORTED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP(RDMAD_ERROR_TIMEOUT, ETIMEDOUT),
        SD_BUS_ERROR_MAP_END,
};

int device_object_path(const char *device_name, char **ret) {
        return sd_bus_path_encode(RDMAD_DEVICE_PREFIX, device_name, ret);
}

static int device_child_path(const char *device_name, const char *suffix, char **ret) {
        _cleanup_free_ char *dev = NULL;
        int r;

        r = device_object_path(device_name, &dev);
        if (r < 0)
                return r;
        return asprintf(ret, "%s/%s", dev, suffix) < 0 ? -ENOMEM : 0;
}

int port_object_path(const char *device_name, uint32_t number, char **ret) {
        char suffix[32];

        snprintf(suffix, sizeof(suffix), "port/%u", number);
        return device_child_path(device_name, suffix, ret);
}

int netdev_object_path(const char *device_name, const char *ifname, char **ret) {
        _cleanup_free_ char *prefix = NULL;
        int r;

        r = device_child_path(device_name, "netdev", &prefix);
        if (r < 0)
                return r;
        return sd_bus_path_encode(prefix, ifname, ret);
}

int sriov_object_path(const char *device_name, char **ret) {
        return device_child_path(device_name, "sriov", ret);
}

int object_path_parse(const char *path, ObjectKind *ret_kind, char **ret_device, uint32_t *ret_port,
                      char **ret_ifname) {
        _cleanup_free_ char *device = NULL, *sub = NULL, *canonical = NULL;
        const char *rest, *slash;
        ObjectKind kind;
        uint32_t port = 0;
        size_t len = strlen(RDMAD_DEVICE_PREFIX);
        int r;

        if (strncmp(path, RDMAD_DEVICE_PREFIX "/", len + 1) != 0)
                return 0;

        /* Decode the device label, then look at what follows it. */
        rest = path + len + 1;
        slash = strchr(rest, '/');
        if (!slash) {
                kind = OBJECT_DEVICE;
                r = sd_bus_path_decode(path, RDMAD_DEVICE_PREFIX, &device);
        } else {
                _cleanup_free_ char *dev_path = strndup(path, (size_t) (slash - path));
                if (!dev_path)
                        return -ENOMEM;
                r = sd_bus_path_decode(dev_path, RDMAD_DEVICE_PREFIX, &device);
                if (r <= 0)
                        return r;
                if (streq(slash, "/sriov"))
                        kind = OBJECT_SRIOV;
                else if (strncmp(slash, "/port/", 6) == 0) {
                        kind = OBJECT_PORT;
                        if (parse_decimal_u32(slash + 6, &port) < 0)
                                return 0;
                } else if (strncmp(slash, "/netdev/", 8) == 0 && !strchr(slash + 8, '/')) {
                        _cleanup_free_ char *prefix = strndup(path, (size_t) (slash - path) + 7);
                        if (!prefix)
                                return -ENOMEM;
                        kind = OBJECT_NETDEV;
                        r = sd_bus_path_decode(path, prefix, &sub);
                } else
                        return 0;
        }
        if (r <= 0 || !device || !*device)
                return r;

        /* Only the spelling we publish: no second name for the same object. */
        switch (kind) {
        case OBJECT_DEVICE:
                r = device_object_path(device, &canonical);
                break;
        case OBJECT_PORT:
                r = port_object_path(device, port, &canonical);
                break;
        case OBJECT_NETDEV:
                if (!sub || !*sub)
                        return 0;
                r = netdev_object_path(device, sub, &canonical);
                break;
        case OBJECT_SRIOV:
                r = sriov_object_path(device, &canonical);
                break;
        }
        if (r < 0)
                return r;
        if (!streq(canonical, path))
                return 0;

        *ret_kind = kind;
        if (ret_device)
                *ret_device = TAKE_PTR(device);
        if (ret_port)
                *ret_port = port;
        if (ret_ifname)
                *ret_ifname = TAKE_PTR(sub);
        return 1;
}

int bus_append_attr_list(sd_bus_message *m, const AttrList *l) {
        int r;

        r = sd_bus_message_open_container(m, 'a', "{ss}");
        if (r < 0)
                return r;
        for (size_t i = 0; i < l->n; i++) {
                r = sd_bus_message_append(m, "{ss}", l->items[i].name, l->items[i].value);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}

int bus_append_object_paths(sd_bus_message *m, const void *object, size_t n, ObjectPathAt path_at) {
        int r;

        r = sd_bus_message_open_container(m, 'a', "o");
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *p = NULL;

                r = path_at(object, i, &p);
                if (r < 0)
                        return r;
                r = sd_bus_message_append(m, "o", p);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}

int bus_property_get_attr_list(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return bus_append_attr_list(reply, userdata);
}
