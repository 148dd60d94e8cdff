/* SPDX-License-Identifier: MIT */
#include "verb-util.h"

#include <errno.h>
#include <stdio.h>

#include "basic/util.h"

int finish_output(int status) {
        if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "rdmactl: cannot write the output: %m\n");
                return status == EXIT_OK ? EXIT_FAILURE_GENERIC : status;
        }
        return status;
}

int load_inventory(sd_bus *bus, const Options *o, Inventory **ret) {
        _cleanup_(inventory_freep) Inventory *inv = inventory_new();
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        if (!inv)
                return report_oom();
        r = inventory_load(inv, bus, &error);
        if (r < 0) {
                int status = report_bus_error("GetManagedObjects", r, &error);
                sd_bus_error_free(&error);
                return status;
        }
        if (!o->json)
                inventory_make_printable(inv);
        *ret = TAKE_PTR(inv);
        return EXIT_OK;
}

const char *port_device_name(const Inventory *inv, const RdmaPort *p) {
        return inventory_device_name(inv, p->device) ?: "";
}

const char *port_transport(const Inventory *inv, const RdmaPort *p) {
        const RdmaDevice *d = inventory_find_device(inv, p->device);

        if (*p->transport)
                return p->transport;
        return d ? d->transport : "";
}

const char *port_health(const Inventory *inv, const RdmaPort *p) {
        const RdmaDevice *d = inventory_find_device(inv, p->device);

        return d && d->health && *d->health ? d->health : NULL;
}
