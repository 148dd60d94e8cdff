/* SPDX-License-Identifier: MIT */
/* Manager.ResolveAddress (bus-resolve.h). */
#include "bus-resolve.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/rdmad-api.h"
#include "arg-quote.h"
#include "basic/util.h"
#include "bus-port.h"
#include "bus-server.h"
#include "gid-resolve.h"
#include "route-query.h"

static bool address_is_zero(const uint8_t a[16]) {
        static const uint8_t zero[16];
        return memcmp(a, zero, sizeof(zero)) == 0;
}

int bus_manager_resolve_address(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        char target_text[INET6_ADDRSTRLEN + IF_NAMESIZE + 1], source[INET6_ADDRSTRLEN], quoted[ARG_QUOTE_SIZE];
        char route[256];
        _cleanup_free_ char *path = NULL;
        BusServer *s = userdata;
        const char *text;
        RouteTarget t;
        RouteAnswer a;
        GidMatch g;
        int r;

        r = sd_bus_message_read(message, "s", &text);
        if (r < 0)
                return r;

        r = route_target_parse(text, &t);
        if (r == -ENODEV)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "'%s': the scope names no network interface.", arg_quote(text, quoted));
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "'%s' is not an IPv4 or IPv6 address (a link-local IPv6 address may carry "
                                         "a %%ifname scope).",
                                         arg_quote(text, quoted));
        route_target_format(&t, target_text);

        r = route_query(&t, &a);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Cannot ask the kernel for the route to %s: %m.", target_text);
        if (a.no_route_errno > 0)
                return sd_bus_error_setf(error, RDMAD_ERROR_NO_ROUTE, "No route to %s: %s.", target_text,
                                         strerror(a.no_route_errno));
        if (a.no_route_type)
                return sd_bus_error_setf(error, RDMAD_ERROR_NO_ROUTE, "No route to %s: the route is %s.", target_text,
                                         a.no_route_type);
        if (!inet_ntop(a.family, a.source, source, sizeof(source)))
                return -EAFNOSUPPORT;
        if (address_is_zero(a.source))
                strcpy(source, "no source address");

        snprintf(route, sizeof(route), "%s %s %s (source %s)", target_text, a.local ? "is held by" : "goes out of",
                 a.ifname, source);
        switch (gid_resolve(s->manager, a.ifname, a.family, a.source, &g)) {
        case GID_RESOLVE_NOT_RDMA:
                return sd_bus_error_setf(error, RDMAD_ERROR_NOT_RDMA, "%s, which carries no RDMA port.", route);
        case GID_RESOLVE_NO_GID:
                if (!g.port)
                        return sd_bus_error_setf(error, RDMAD_ERROR_NO_GID,
                                                 "%s, an RDMA netdev, but no port GID is %s.", route, g.wanted);
                return sd_bus_error_setf(error, RDMAD_ERROR_NO_GID, "%s, %s/%u's netdev, but no GID of %s/%u is %s.",
                                         route, g.port->device->name, g.port->number, g.port->device->name,
                                         g.port->number, g.wanted);
        case GID_RESOLVE_FOUND:
                break;
        }

        r = port_bus_path(g.port, &path);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(message, "oussss", path, g.gid->index, g.gid->gid, g.gid->type, a.ifname,
                                          source);
}
