/* SPDX-License-Identifier: MIT */
#include "verb-util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "basic/util.h"

/* "rdmactl: Failed to write JSON output: No space left on device"; the status a failed write turns status into. */
static int output_failed(const char *what, int error, int status) {
        fprintf(stderr, "rdmactl: Failed to write %s: %s\n", what, strerror(error));
        return status == EXIT_OK ? EXIT_FAILURE_GENERIC : status;
}

int flush_output(bool json, int status) {
        const char *what = json ? "JSON output" : "the output";

        errno = 0;
        if (fflush(stdout) == 0 && !ferror(stdout))
                return status;
        /* Without errno, an earlier write failed and fflush had nothing left to say why. */
        return output_failed(what, errno ?: EIO, status);
}

int finish_output(int status) {
        return flush_output(false, status);
}

int finish_json_output(const JsonWriter *w, int status) {
        int r = json_writer_finish(w);

        if (r < 0) /* a document left open or nested too deep: rdmactl's own mistake, said as it is */
                return output_failed("JSON output", -r, status);
        return flush_output(true, status);
}

int print_fields_json(const Field *root, const Options *o, int status) {
        JsonWriter w;

        json_writer_init(&w, stdout, o->json == JSON_PRETTY);
        field_tree_json(root, &w);
        return finish_json_output(&w, status);
}

int print_table_json(const Table *t, const Options *o, int status) {
        JsonWriter w;

        json_writer_init(&w, stdout, o->json == JSON_PRETTY);
        table_json(t, &w);
        return finish_json_output(&w, status);
}

int follow_and_run(InventoryFollow *f, sd_bus *bus, sd_event *event, const char *verb) {
        int r;

        r = inventory_follow_start(f, bus);
        if (r < 0)
                return report_bus_error("subscribing", r, NULL);
        r = sd_event_loop(event);
        return r < 0 ? report_bus_error(verb, r, NULL) : r;
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

const char *port_health(const Inventory *inv, const RdmaPort *p) {
        const RdmaDevice *d = inventory_find_device(inv, p->device);

        return d && d->health && *d->health ? d->health : NULL;
}
