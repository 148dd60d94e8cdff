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
#include "field-tree.h"
#include "format.h"
#include "rdmactl.h"
#include "verb-util.h"

typedef struct Route {
        const char *address;
        const char *port_path;
        uint32_t gid_index;
        const char *gid, *gid_type, *netdev, *source;
        BusPath port;
        const char *state; /* the port's StateName, NULL when it could not be read */
} Route;

/* One line and one JSON object from the same fields. The JSON names the
 * port before the netdev and the source; the line says them first ("via",
 * "from"): text-only copies there, JSON-only fields in their place. */
static Field *route_fields(const Route *r) {
        Field *line = field_tree_new_object();

        field_empty(field_affix(field_string(line, "address", r->address), NULL, " via "), "");
        field_flags(field_empty(field_affix(field_string(line, "netdev", r->netdev), NULL, " from "), ""),
                    FIELD_TEXT_ONLY);
        field_flags(field_empty(field_affix(field_string(line, "source", r->source), NULL, ": "), ""), FIELD_TEXT_ONLY);
        field_empty(field_affix(field_string(line, "device", r->port.device), NULL, "/"), "");
        field_affix(field_uint(line, "port", r->port.port), NULL, " gid ");
        field_affix(field_uint(line, "gid_index", r->gid_index), NULL, " ");
        field_empty(field_string(line, "gid", r->gid), "");
        /* InfiniBand (IPoIB) GIDs have no type: null, not "". */
        field_affix(field_string(line, "gid_type", *r->gid_type ? r->gid_type : NULL), " ", NULL);
        field_flags(field_string(line, "netdev", r->netdev), FIELD_JSON_ONLY);
        field_flags(field_string(line, "source", r->source), FIELD_JSON_ONLY);
        /* null when it could not be read: nothing in the text then */
        field_empty(field_color(field_affix(field_string(line, "state", r->state), " (", ")"), state_color(r->state)),
                    r->state ? "" : NULL);
        field_flags(field_string(line, "object", r->port_path), FIELD_JSON_ONLY);
        return line;
}

int verb_route(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(field_tree_freep) Field *line = NULL;
        _cleanup_free_ char *state = NULL;
        Route route = { .address = args[0] };
        int r;

        r = sd_bus_call_method(bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                               RDMAD_METHOD_RESOLVE_ADDRESS, &error, &reply, "s", route.address);
        if (r < 0)
                return report_bus_error(RDMAD_METHOD_RESOLVE_ADDRESS, r, &error);
        r = sd_bus_message_read(reply, "oussss", &route.port_path, &route.gid_index, &route.gid, &route.gid_type,
                                &route.netdev, &route.source);
        if (r < 0)
                return report_bus_error(RDMAD_METHOD_RESOLVE_ADDRESS, r, NULL);
        if (bus_path_parse(route.port_path, &route.port) <= 0 || route.port.kind != BUS_PATH_PORT) {
                fprintf(stderr, "rdmactl: rdmad answered '%s', which is no port object.\n", route.port_path);
                return EXIT_FAILURE_GENERIC;
        }
        /* The state is for the reader; a port gone meanwhile still has its answer. */
        sd_bus_error_free(&error);
        if (sd_bus_get_property_string(bus, RDMAD_BUS_NAME, route.port_path, RDMAD_PORT_INTERFACE,
                                       RDMAD_PORT_PROPERTY_STATE_NAME, &error, &state) < 0)
                state = mfree(state);
        route.state = state;

        line = route_fields(&route);
        if (field_tree_check(line) < 0)
                return report_oom();
        if (o->json) {
                JsonWriter w;

                json_writer_init(&w, stdout, o->json == JSON_PRETTY);
                field_tree_json(line, &w);
                fputc('\n', stdout); /* a blank line after the document, as route always wrote it */
                return finish_json_output(&w, EXIT_OK);
        }
        field_tree_line(line, stdout, o->color);
        fputc('\n', stdout);
        return finish_output(EXIT_OK);
}
