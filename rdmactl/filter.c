/* SPDX-License-Identifier: MIT */
#include "filter.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/util.h"

static bool is_number(const char *s) {
        return *s && strspn(s, "0123456789") == strlen(s);
}

int port_filter_parse(PortFilter *f, char *const *args, size_t n_args, const char **ret_bad) {
        size_t allocated = 0;
        int r;

        for (size_t i = 0; i < n_args; i++) {
                char *joined;

                if (!is_number(args[i])) {
                        r = strv_push_take(&f->patterns, &f->n_patterns, &allocated, strdup(args[i]));
                        if (r < 0)
                                return r;
                        continue;
                }
                /* "DEVICE PORT": the number belongs to the name before it. */
                if (f->n_patterns == 0 || strchr(f->patterns[f->n_patterns - 1], '/')) {
                        *ret_bad = args[i];
                        return -EINVAL;
                }
                if (asprintf(&joined, "%s/%s", f->patterns[f->n_patterns - 1], args[i]) < 0)
                        return -ENOMEM;
                free(f->patterns[f->n_patterns - 1]);
                f->patterns[f->n_patterns - 1] = joined;
        }
        return 0;
}

void port_filter_done(PortFilter *f) {
        strv_free(f->patterns);
        f->patterns = NULL;
        f->n_patterns = 0;
}

static bool glob(const char *pattern, const char *name) {
        return name && *name && fnmatch(pattern, name, 0) == 0;
}

static bool pattern_names_port(const char *pattern, const char *device, uint32_t port, const char *netdev) {
        char port_name[NAME_MAX + 16];

        snprintf(port_name, sizeof(port_name), "%s/%" PRIu32, strempty(device), port);
        return glob(pattern, device) || glob(pattern, port_name) || glob(pattern, netdev);
}

bool port_filter_names_port(const PortFilter *f, const char *device, uint32_t port, const char *netdev) {
        if (f->n_patterns == 0)
                return true;
        for (size_t i = 0; i < f->n_patterns; i++)
                if (pattern_names_port(f->patterns[i], device, port, netdev))
                        return true;
        return false;
}

static bool pattern_names_device(const char *pattern, const char *device) {
        const char *slash = strrchr(pattern, '/');
        char device_part[NAME_MAX + 1];

        if (glob(pattern, device))
                return true;
        if (!slash || (size_t) (slash - pattern) >= sizeof(device_part))
                return false;
        memcpy(device_part, pattern, (size_t) (slash - pattern));
        device_part[slash - pattern] = '\0';
        return glob(device_part, device);
}

bool port_filter_names_device(const PortFilter *f, const char *device) {
        if (f->n_patterns == 0)
                return true;
        for (size_t i = 0; i < f->n_patterns; i++)
                if (pattern_names_device(f->patterns[i], device))
                        return true;
        return false;
}

bool port_filter_keeps(const PortFilter *f, const Inventory *inv, const RdmaPort *p) {
        if (f->state && !streq(p->state_name, f->state))
                return false;
        return port_filter_names_port(f, inventory_device_name(inv, p->device), p->number,
                                      inventory_netdev_name(inv, p->netdev));
}

const char *port_filter_unmatched(const PortFilter *f, const Inventory *inv) {
        for (size_t i = 0; i < f->n_patterns; i++) {
                const char *pattern = f->patterns[i];
                bool found = false;

                for (size_t k = 0; !found && k < inv->n_ports; k++) {
                        const RdmaPort *p = inv->ports[k];

                        found = pattern_names_port(pattern, inventory_device_name(inv, p->device), p->number,
                                                   inventory_netdev_name(inv, p->netdev));
                }
                for (size_t k = 0; !found && k < inv->n_devices; k++)
                        found = glob(pattern, inv->devices[k]->name);
                for (size_t k = 0; !found && k < inv->n_netdevs; k++)
                        found = glob(pattern, inv->netdevs[k]->name);
                if (!found)
                        return pattern;
        }
        return NULL;
}
