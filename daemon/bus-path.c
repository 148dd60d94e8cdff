/* SPDX-License-Identifier: MIT */
#include "bus-path.h"

#include <stdio.h>
#include <systemd/sd-bus.h>

#include "parse.h"
#include "util.h"

int bus_path_device(const char *device_name, char **ret) {
        return sd_bus_path_encode(RDMAD_DEVICE_PREFIX, device_name, ret);
}

static int device_child_path(const char *device_name, const char *suffix, char **ret) {
        _cleanup_free_ char *dev = NULL;
        int r;

        r = bus_path_device(device_name, &dev);
        if (r < 0)
                return r;
        return asprintf(ret, "%s/%s", dev, suffix) < 0 ? -ENOMEM : 0;
}

int bus_path_port(const char *device_name, uint32_t number, char **ret) {
        char suffix[32];

        snprintf(suffix, sizeof(suffix), "port/%u", number);
        return device_child_path(device_name, suffix, ret);
}

int bus_path_netdev(const char *device_name, const char *ifname, char **ret) {
        _cleanup_free_ char *prefix = NULL;
        int r;

        r = device_child_path(device_name, "netdev", &prefix);
        if (r < 0)
                return r;
        return sd_bus_path_encode(prefix, ifname, ret);
}

int bus_path_sriov(const char *device_name, char **ret) {
        return device_child_path(device_name, "sriov", ret);
}

int bus_path_parse(const char *path, BusPathKind *ret_kind, char **ret_device, uint32_t *ret_port,
                   char **ret_ifname) {
        _cleanup_free_ char *device = NULL, *sub = NULL, *canonical = NULL;
        const char *rest, *slash;
        BusPathKind kind;
        uint32_t port = 0;
        size_t len = strlen(RDMAD_DEVICE_PREFIX);
        int r;

        assert(path);
        assert(ret_kind);

        if (strncmp(path, RDMAD_DEVICE_PREFIX "/", len + 1) != 0)
                return 0;

        /* Decode the device label, then look at what follows it. */
        rest = path + len + 1;
        slash = strchr(rest, '/');
        if (!slash) {
                kind = BUS_PATH_DEVICE;
                r = sd_bus_path_decode(path, RDMAD_DEVICE_PREFIX, &device);
        } else {
                _cleanup_free_ char *dev_path = strndup(path, (size_t) (slash - path));
                if (!dev_path)
                        return -ENOMEM;
                r = sd_bus_path_decode(dev_path, RDMAD_DEVICE_PREFIX, &device);
                if (r <= 0)
                        return r;
                if (streq(slash, "/sriov"))
                        kind = BUS_PATH_SRIOV;
                else if (strncmp(slash, "/port/", 6) == 0) {
                        kind = BUS_PATH_PORT;
                        if (parse_decimal_u32(slash + 6, &port) < 0)
                                return 0;
                } else if (strncmp(slash, "/netdev/", 8) == 0 && !strchr(slash + 8, '/')) {
                        _cleanup_free_ char *prefix = strndup(path, (size_t) (slash - path) + 7);
                        if (!prefix)
                                return -ENOMEM;
                        kind = BUS_PATH_NETDEV;
                        r = sd_bus_path_decode(path, prefix, &sub);
                } else
                        return 0;
        }
        if (r <= 0 || !device || !*device)
                return r;

        /* Only the spelling we publish: no second name for the same object. */
        switch (kind) {
        case BUS_PATH_DEVICE:
                r = bus_path_device(device, &canonical);
                break;
        case BUS_PATH_PORT:
                r = bus_path_port(device, port, &canonical);
                break;
        case BUS_PATH_NETDEV:
                if (!sub || !*sub)
                        return 0;
                r = bus_path_netdev(device, sub, &canonical);
                break;
        case BUS_PATH_SRIOV:
                r = bus_path_sriov(device, &canonical);
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
