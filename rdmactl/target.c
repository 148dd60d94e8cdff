/* SPDX-License-Identifier: MIT */
#include "target.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "basic/util.h"
#include "bus-errors.h"
#include "rdmactl.h"
#include "verbs.h"

/* A device by its name: from the inventory, else as rdmad resolves it. */
static int device_by_name(sd_bus *bus, const Inventory *inv, const char *name, bool netdev_too,
                          const RdmaDevice **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const RdmaDevice *d;
        const char *path;
        int r;

        d = inventory_find_device_by_name(inv, name);
        if (d) {
                *ret = d;
                return EXIT_OK;
        }
        r = sd_bus_call_method(bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, "GetDeviceByName", &error,
                               &reply, "s", name);
        if (r < 0 && classify_bus_error(r, &error) == BUS_FAILURE_NO_SUCH_DEVICE) {
                fprintf(stderr, "rdmactl: No RDMA device%s '%s'.\n", netdev_too ? " or network interface" : "", name);
                sd_bus_error_free(&error);
                return EXIT_NO_SUCH_DEVICE;
        }
        if (r < 0) {
                int status = report_bus_error("GetDeviceByName", r, &error);
                sd_bus_error_free(&error);
                return status;
        }
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return report_bus_error("GetDeviceByName", r, NULL);
        d = inventory_find_device(inv, path);
        if (!d) { /* appeared after GetManagedObjects */
                fprintf(stderr, "rdmactl: %s appeared while reading; try again.\n", name);
                return EXIT_FAILURE_GENERIC;
        }
        *ret = d;
        return EXIT_OK;
}

static int check_port(const Inventory *inv, const RdmaDevice *d, uint32_t port) {
        if (inventory_find_port_by_number(inv, d->path, port))
                return EXIT_OK;
        fprintf(stderr, "rdmactl: %s has no port %" PRIu32 ".\n", d->name, port);
        return EXIT_NO_SUCH_DEVICE;
}

static int port_number_arg(const char *s, uint32_t *ret) {
        int r = parse_number_arg(s, UINT32_MAX, ret);

        if (r == -ERANGE)
                return usage_error("port '%s' is out of range; the maximum is %" PRIu32 ".", s, UINT32_MAX);
        if (r < 0)
                return usage_error("'%s' is not a port number.", s);
        if (*ret == 0)
                return usage_error("'0' is not a port number; ports count from 1.");
        return EXIT_OK;
}

int target_parse(sd_bus *bus, const Inventory *inv, char **args, size_t n_args, TargetFlags flags, Target *ret,
                 size_t *ret_consumed) {
        _cleanup_free_ char *device_name = NULL;
        const RdmaNetDev *n;
        Target t = {};
        uint32_t port;
        size_t consumed = 1;
        int r, status;

        assert(inv);
        assert(args);
        assert(n_args > 0);
        assert(ret);

        /* What a failure consumed too: "mlx5_0 3" is one wrong name, not two. */
        if (ret_consumed)
                *ret_consumed = (flags & TARGET_PORT_NUMBER) && n_args > 1 && args[1][0] >= '0' && args[1][0] <= '9' &&
                                                !strchr(args[0], '/')
                                        ? 2
                                        : 1;

        /* DEVICE/PORT */
        r = parse_device_slash_port(args[0], &device_name, &port);
        if (r == -ENOMEM)
                return report_oom();
        if (r == -ERANGE || r == -EINVAL) {
                const char *slash = strrchr(args[0], '/');

                if (slash == args[0])
                        return usage_error("'%s' names no device before the '/'.", args[0]);
                return port_number_arg(slash + 1, &port); /* fails, and says why */
        }
        if (r >= 0) {
                status = device_by_name(bus, inv, device_name, false, &t.device);
                if (status == EXIT_OK)
                        status = check_port(inv, t.device, port);
                if (status != EXIT_OK)
                        return status;
                t.port = port;
                goto done;
        }

        /* A netdev stands for its port, unless a device has that name. */
        n = inventory_find_device_by_name(inv, args[0]) ? NULL : inventory_find_netdev_by_name(inv, args[0]);
        if (n) {
                const RdmaPort *p = inventory_find_port(inv, n->port);

                t.device = inventory_find_device(inv, n->device);
                if (!t.device) {
                        fprintf(stderr, "rdmactl: %s appeared while reading; try again.\n", args[0]);
                        return EXIT_FAILURE_GENERIC;
                }
                t.port = p ? p->number : 0; /* 0: a netdev of the device, of no port */
                goto done;
        }

        /* DEVICE, or DEVICE PORT */
        status = device_by_name(bus, inv, args[0], true, &t.device);
        if (status != EXIT_OK)
                return status;
        if ((flags & TARGET_PORT_NUMBER) && n_args > 1 && args[1][0] >= '0' && args[1][0] <= '9') {
                status = port_number_arg(args[1], &port);
                if (status == EXIT_OK)
                        status = check_port(inv, t.device, port);
                if (status != EXIT_OK)
                        return status;
                t.port = port;
                consumed = 2;
        }

done:
        *ret = t;
        if (ret_consumed)
                *ret_consumed = consumed;
        return EXIT_OK;
}

int targets_parse(sd_bus *bus, const Inventory *inv, char **args, size_t n_args, Target **ret, size_t *ret_n,
                  int *worst) {
        _cleanup_free_ Target *targets = calloc(n_args > 0 ? n_args : inv->n_devices + 1, sizeof(Target));
        size_t n = 0;

        if (!targets)
                return report_oom();
        if (n_args == 0)
                for (size_t i = 0; i < inv->n_devices; i++)
                        targets[n++] = (Target){ .device = inv->devices[i] };
        for (size_t i = 0; i < n_args;) {
                size_t consumed = 1;
                int status = target_parse(bus, inv, args + i, n_args - i, TARGET_PORT_NUMBER, &targets[n], &consumed);

                i += consumed;
                if (status == EXIT_OK) {
                        n++;
                        continue;
                }
                /* Like systemctl status: the others are still shown. */
                if (*worst == EXIT_OK)
                        *worst = status;
                if (status == EXIT_NOT_RUNNING)
                        return status;
        }
        *ret = TAKE_PTR(targets);
        *ret_n = n;
        return EXIT_OK;
}
