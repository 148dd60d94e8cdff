/* SPDX-License-Identifier: MIT */
/* org.rdmad1.Port */
#include "bus-port.h"

#include <stddef.h>
#include <string.h>

#include "arg-quote.h"
#include "caller.h"
#include "api/bus-path.h"
#include "bus-counters.h"
#include "bus-server.h"
#include "bus-util.h"
#include "link-history.h"
#include "basic/parse.h"
#include "port-wait.h"
#include "basic/util.h"
#include "port.h"
#include "device.h"
#include "port-gids.h"

int port_bus_path(const Port *p, char **ret) {
        assert(p);
        return bus_path_port(p->device->name, p->number, ret);
}

static int port_netdev_path(const Port *p, char **ret) {
        return *p->netdev ? bus_path_netdev(p->device->name, p->netdev, ret) : 0;
}

static BUS_DEFINE_PROPERTY_GET_PATH(bus_property_get_netdev, port_netdev_path);

static BUS_DEFINE_PROPERTY_SIZE_PATH(bus_property_size_netdev);

static int bus_property_get_gids(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Port *port = userdata;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(usss)");
        for (size_t i = 0; r >= 0 && i < port->n_gids; i++)
                r = sd_bus_message_append(reply, "(usss)", port->gids[i].index, port->gids[i].gid, port->gids[i].type,
                                          port->gids[i].ndev);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* Each element is a (usss): up to 7 bytes to align the struct to 8, the u,
 * then each string's length, bytes and NUL; the first length follows the u
 * aligned, the other two after up to 3 bytes to align them to 4. */
static size_t bus_property_size_gids(const void *object, size_t path_len) {
        const Port *p = object;
        size_t size = BUS_ARRAY_SIZE_MAX;

        for (size_t i = 0; i < p->n_gids; i++)
                size += 7 + 4 + 4 + strlen(strempty(p->gids[i].gid)) + 1 + 3 + 4 + strlen(strempty(p->gids[i].type)) +
                        1 + 3 + 4 + strlen(strempty(p->gids[i].ndev)) + 1;
        return size;
}

static int bus_property_get_port_guid(sd_bus *bus, const char *path, const char *interface, const char *property,
                                      sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        char guid[PORT_GUID_MAX];

        return sd_bus_message_append(reply, "s", port_guid(userdata, guid));
}

static size_t bus_property_size_port_guid(const void *object, size_t path_len) {
        return BUS_STRING_SIZE_MAX(PORT_GUID_MAX);
}

/* Oldest first, as kept. */
static int bus_property_get_link_history(sd_bus *bus, const char *path, const char *interface, const char *property,
                                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const Port *port = userdata;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(tss)");
        for (size_t i = 0; r >= 0 && port->history && i < port->history->n; i++) {
                const LinkChange *c = &port->history->changes[i];

                r = sd_bus_message_append(reply, "(tss)", c->usec, c->old_state, c->new_state);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* Each element: up to 7 bytes to align the struct, the t, two names. */
static size_t bus_property_size_link_history(const void *object, size_t path_len) {
        const Port *p = object;

        return BUS_ARRAY_SIZE_MAX +
               (p->history ? p->history->n : 0) * (7 + 8 + 2 * BUS_STRING_SIZE_MAX(LINK_STATE_NAME_MAX));
}

static int method_wait_for_state(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Port *p = userdata;
        BusServer *s = bus_server_current(message);
        const char *state, *wanted;
        char quoted[ARG_QUOTE_SIZE];
        uint32_t timeout_ms;
        uid_t uid;
        int r;

        r = sd_bus_message_read(message, "su", &state, &timeout_ms);
        if (r < 0)
                return r;

        /* Bounded by us, not by the caller: a state name is short, and the
         * error quotes a short, escaped prefix of what came. */
        wanted = strlen(state) <= ARG_NAME_MAX ? port_state_from_name(state) : NULL;
        if (!wanted)
                return sd_bus_error_setf(error, RDMAD_ERROR_INVALID_ARGUMENT,
                                         "Unknown port state '%s': expected NOP, DOWN, INIT, ARMED, ACTIVE or "
                                         "ACTIVE_DEFER.",
                                         arg_quote(state, quoted));

        if (streq(p->state_name, wanted))
                return sd_bus_reply_method_return(message, "s", p->state_name);
        if (timeout_ms == 0)
                return sd_bus_error_setf(error, RDMAD_ERROR_TIMEOUT, "Port %u of %s is %s, not %s.", p->number,
                                         p->device->name, p->state_name, wanted);
        /* Nobody to answer: nothing is held, nobody is asked who called. */
        if (!sd_bus_message_get_expect_reply(message))
                return sd_bus_error_set(error, RDMAD_ERROR_INVALID_ARGUMENT,
                                        "WaitForState without a reply expected: there is nothing to wait for.");

        if (s->stopping)
                return sd_bus_error_set(error, RDMAD_ERROR_FAILED, "rdmad is stopping.");
        r = caller_resolve_uid(&s->callers, message, &uid, error);
        if (r <= 0)
                return r < 0 ? r : 1; /* 0: runs again once the caller is known */
        r = port_wait_add(&s->port_waits, message, uid, p, wanted, timeout_ms, error);
        return r < 0 ? r : 1; /* 1: answered later */
}

#define BUS_PORT_PROPERTY(...) BUS_PROPERTY(Port, RDMAD_PORT_PROPERTY_, __VA_ARGS__)

static const sd_bus_vtable port_vtable[] = {
        SD_BUS_VTABLE_START(0),
        PORT_PROPERTIES(BUS_PORT_PROPERTY)
        /* Methods. */
        BUS_PORT_GET_COUNTERS_METHOD,
        SD_BUS_METHOD_WITH_NAMES(RDMAD_METHOD_WAIT_FOR_STATE, "su", SD_BUS_PARAM(state) SD_BUS_PARAM(timeout_ms), "s",
                                 SD_BUS_PARAM(state), method_wait_for_state, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static size_t port_getters_size_max(const void *object, size_t path_len) {
        return 0 PORT_PROPERTIES(BUS_PROPERTY_SIZE);
}

const BusObjectType port_object = {
        RDMAD_DEVICE_PREFIX, RDMAD_PORT_INTERFACE, port_vtable, bus_object_find, port_getters_size_max,
};
