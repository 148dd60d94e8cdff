/* SPDX-License-Identifier: MIT */
#include "api/bus-path.h"

#include <stdio.h>
#include <systemd/sd-bus.h>

#include "basic/parse.h"
#include "basic/util.h"

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

/* What sd_bus_path_encode() escapes: all but letters, and digits but a first one. */
static bool label_escapes(char c, bool first) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
                return false;
        return first || c < '0' || c > '9';
}

/* Decodes label[0..len) into buf, accepting only what sd_bus_path_encode()
 * writes for a non-empty name: letters and digits as they are, any other
 * byte but NUL (and a first digit) as _xx in lowercase hex. Any other
 * spelling (_61 for "a", _5F, a bare _) names no object of ours. */
static bool label_decode(const char *label, size_t len, char *buf, size_t size) {
        size_t n = 0;

        for (size_t i = 0; i < len; i++) {
                char c = label[i];

                if (c == '_') {
                        int hi, lo;

                        if (len - i < 3 || (hi = unhexchar_lower(label[i + 1])) < 0 ||
                            (lo = unhexchar_lower(label[i + 2])) < 0)
                                return false;
                        c = (char) (hi << 4 | lo);
                        if (c == '\0' || !label_escapes(c, n == 0))
                                return false;
                        i += 2;
                } else if (label_escapes(c, n == 0))
                        return false;
                if (n + 1 >= size)
                        return false;
                buf[n++] = c;
        }
        buf[n] = '\0';
        return n > 0;
}

/* Allocates nothing: sd-bus calls a find callback per interface and message. */
int bus_path_parse(const char *path, BusPath *ret) {
        const char *rest, *slash;
        size_t len = strlen(RDMAD_DEVICE_PREFIX);

        assert(path);
        assert(ret);

        if (strncmp(path, RDMAD_DEVICE_PREFIX "/", len + 1) != 0)
                return 0;

        /* The device label, then what follows it. */
        rest = path + len + 1;
        slash = strchr(rest, '/');
        if (!label_decode(rest, slash ? (size_t) (slash - rest) : strlen(rest), ret->device, sizeof(ret->device)))
                return 0;
        ret->port = 0;
        ret->ifname[0] = '\0';

        if (!slash)
                ret->kind = BUS_PATH_DEVICE;
        else if (streq(slash, "/sriov"))
                ret->kind = BUS_PATH_SRIOV;
        else if (strncmp(slash, "/port/", 6) == 0) {
                /* Decimal as %u writes it: no sign, no leading zero. */
                if (parse_decimal_u32(slash + 6, &ret->port) < 0)
                        return 0;
                ret->kind = BUS_PATH_PORT;
        } else if (strncmp(slash, "/netdev/", 8) == 0) {
                const char *label = slash + 8;

                if (strchr(label, '/') || !label_decode(label, strlen(label), ret->ifname, sizeof(ret->ifname)))
                        return 0;
                ret->kind = BUS_PATH_NETDEV;
        } else
                return 0;
        return 1;
}
