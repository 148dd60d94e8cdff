/* SPDX-License-Identifier: MIT */
/* rdmactl route ADDRESS: Manager.ResolveAddress, and the port's State:
 *   192.168.1.20 via ens1f0np0 from 192.168.1.10: mlx5_0/1 gid 3 0000:...:c0a8:010a RoCE v2 (ACTIVE)
 * or the same as one JSON object. NoRoute, NotRdma and NoGid exit 7, 8
 * and 9 with rdmad's sentence, which names what it found. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/bus-path.h"
#include "basic/util.h"
#include "format.h"
#include "rdmactl.h"
#include "verb-util.h"

typedef struct Route {
        const char *address;
        const char *port_path;
        uint32_t gid_index;
        const char *gid, *gid_type, *netdev, *source;
        BusPath port;
        char *state; /* the port's StateName, NULL when it could not be read */
} Route;

static void route_print_json(const Route *r, const Options *o, JsonWriter *w) {
        json_writer_init(w, stdout, o->json == JSON_PRETTY);
        json_writer_begin_object(w);
        json_writer_field_string(w, "address", r->address);
        json_writer_field_string(w, "device", r->port.device);
        json_writer_field_uint(w, "port", r->port.port);
        json_writer_field_uint(w, "gid_index", r->gid_index);
        json_writer_field_string(w, "gid", r->gid);
        /* InfiniBand (IPoIB) GIDs have no type: null, not "". */
        json_writer_field_string(w, "gid_type", *r->gid_type ? r->gid_type : NULL);
        json_writer_field_string(w, "netdev", r->netdev);
        json_writer_field_string(w, "source", r->source);
        json_writer_field_string(w, "state", r->state);
        json_writer_field_string(w, "object", r->port_path);
        json_writer_end_object(w);
}

static void route_print_text(const Route *r, const Options *o) {
        printf("%s via %s from %s: %s/%" PRIu32 " gid %" PRIu32 " %s", r->address, r->netdev, r->source, r->port.device,
               r->port.port, r->gid_index, r->gid);
        if (*r->gid_type)
                printf(" %s", r->gid_type);
        if (r->state) {
                fputs(" (", stdout);
                print_colored(o->color, r->state, state_color(r->state));
                fputc(')', stdout);
        }
        fputc('\n', stdout);
}

int verb_route(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Route route = { .address = args[0] };
        int r;

        r = sd_bus_call_method(bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, "ResolveAddress", &error,
                               &reply, "s", route.address);
        if (r < 0)
                return report_bus_error("ResolveAddress", r, &error);
        r = sd_bus_message_read(reply, "oussss", &route.port_path, &route.gid_index, &route.gid, &route.gid_type,
                                &route.netdev, &route.source);
        if (r < 0)
                return report_bus_error("ResolveAddress", r, NULL);
        if (bus_path_parse(route.port_path, &route.port) <= 0 || route.port.kind != BUS_PATH_PORT) {
                fprintf(stderr, "rdmactl: rdmad answered '%s', which is no port object.\n", route.port_path);
                return EXIT_FAILURE_GENERIC;
        }
        /* The state is for the reader; a port gone meanwhile still has its answer. */
        sd_bus_error_free(&error);
        if (sd_bus_get_property_string(bus, RDMAD_BUS_NAME, route.port_path, RDMAD_PORT_INTERFACE, "StateName", &error,
                                       &route.state) < 0)
                route.state = NULL;

        if (o->json) {
                JsonWriter w;

                route_print_json(&route, o, &w);
                free(route.state);
                if (json_writer_finish(&w) < 0)
                        return report_bus_error("JSON output", -EINVAL, NULL);
                fputc('\n', stdout);
                return finish_output(EXIT_OK);
        }
        route_print_text(&route, o);
        free(route.state);
        return finish_output(EXIT_OK);
}
