/* SPDX-License-Identifier: MIT */
/* rdmactl wait PORT STATE: until the port is in STATE, with WaitForState
 * (rdmad answers when the state is reached or the call's time is up). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "bus-errors.h"
#include "inventory.h"
#include "rdmactl.h"
#include "target.h"
#include "util.h"
#include "verb-util.h"
#include "verbs.h"

/* WaitForState: rdmad holds a call at most this long (org.rdmad1(5)); longer
 * waits are done in rounds. */
#define WAIT_ROUND_MAX_MS (24ULL * 60 * 60 * 1000)
/* WaitForState: the call outlives the daemon's own timeout by this much. */
#define WAIT_CALL_MARGIN_USEC (10ULL * 1000000ULL)

static int port_path(const char *device_path, uint32_t number, char **ret) {
        return asprintf(ret, "%s/port/%" PRIu32, device_path, number) < 0 ? -ENOMEM : 0;
}

/* The port's state now, for a message; "" when it cannot be read. */
static char *port_state_now(sd_bus *bus, const char *path) {
        char *state = NULL;

        if (sd_bus_get_property_string(bus, RDMAD_BUS_NAME, path, RDMAD_PORT_INTERFACE, "StateName", NULL, &state) < 0)
                return NULL;
        make_printable(state);
        return state;
}

/* rdmad's Timeout error says the span in its own milliseconds; this says it
 * as it was typed, in the units of --timeout. */
static int report_wait_timeout(sd_bus *bus, const Options *o, const char *path, const char *device, uint32_t port,
                               const char *state) {
        _cleanup_free_ char *now = port_state_now(bus, path);
        char span[TIMESPAN_STRING_MAX];

        if (o->timeout_usec == 0)
                fprintf(stderr, "rdmactl: Port %" PRIu32 " of %s is %s, not %s.\n", port, device, now ?: "?", state);
        else
                fprintf(stderr, "rdmactl: Port %" PRIu32 " of %s did not reach %s within %s%s%s.\n", port, device,
                        state, format_timespan(o->timeout_usec, span), now ? "; it is " : "", now ?: "");
        return EXIT_TIMEOUT;
}

/* wait DEVICE PORT STATE, wait DEVICE/PORT STATE, wait NETDEV STATE */
int verb_wait(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_free_ char *path = NULL;
        uint64_t remaining = o->timeout_set ? o->timeout_usec : UINT64_MAX;
        const char *state, *state_arg = args[n_args - 1];
        size_t consumed;
        Target t;
        int status, r;

        r = parse_port_state_arg(state_arg, &state);
        if (r == -ERANGE)
                return usage_error("port state %s is out of range; the states are 0 (NOP) to %d (ACTIVE_DEFER).",
                                   state_arg, PORT_STATE_MAX);
        if (r < 0)
                return usage_error("'%s' is not a port state (ACTIVE, DOWN, INIT, ARMED, ACTIVE_DEFER, NOP, "
                                   "or their numbers 0-5).",
                                   state_arg);

        status = load_inventory(bus, o, &inv);
        if (status != EXIT_OK)
                return status;
        if (n_args == 3 && !(args[1][0] >= '0' && args[1][0] <= '9'))
                return usage_error("'%s' is not a port number.", args[1]);
        status = target_parse(bus, inv, args, n_args - 1, TARGET_PORT_NUMBER, &t, &consumed);
        if (status != EXIT_OK)
                return status;
        if (consumed != n_args - 1) /* "ib0 1": a netdev already names its port */
                return usage_error("'%s' names a port already; 'wait' takes it and a STATE.", args[0]);
        if (t.port == 0)
                return usage_error("'wait' needs a port: DEVICE PORT, DEVICE/PORT or the network interface of "
                                   "a port, then the STATE.");
        if (port_path(t.device->path, t.port, &path) < 0)
                return report_bus_error("WaitForState", -ENOMEM, NULL);

        for (;;) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL, *reply = NULL;
                sd_bus_error error = SD_BUS_ERROR_NULL;
                /* The daemon holds a call for a day at most: longer waits are done in rounds. */
                uint64_t ms = remaining == UINT64_MAX ? WAIT_ROUND_MAX_MS : (remaining + 999) / 1000;
                bool last_round = ms <= WAIT_ROUND_MAX_MS;

                if (!last_round)
                        ms = WAIT_ROUND_MAX_MS;
                r = sd_bus_message_new_method_call(bus, &call, RDMAD_BUS_NAME, path, RDMAD_PORT_INTERFACE,
                                                   "WaitForState");
                if (r >= 0)
                        r = sd_bus_message_append(call, "su", state, (uint32_t) ms);
                if (r < 0)
                        return report_bus_error("WaitForState", r, NULL);
                r = sd_bus_call(bus, call, ms * 1000 + WAIT_CALL_MARGIN_USEC, &error, &reply);
                if (r >= 0)
                        return EXIT_OK;

                if (classify_bus_error(r, &error) == BUS_FAILURE_TIMEOUT && remaining == UINT64_MAX) {
                        sd_bus_error_free(&error);
                        continue; /* no --timeout: forever */
                }
                if (classify_bus_error(r, &error) == BUS_FAILURE_TIMEOUT && !last_round) {
                        remaining -= ms * 1000;
                        sd_bus_error_free(&error);
                        continue;
                }
                if (sd_bus_error_has_name(&error, RDMAD_ERROR_TIMEOUT)) {
                        sd_bus_error_free(&error);
                        return report_wait_timeout(bus, o, path, t.device->name, t.port, state);
                }
                if (sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_OBJECT)) {
                        fprintf(stderr, "rdmactl: %s has no port %" PRIu32 ".\n", t.device->name, t.port);
                        sd_bus_error_free(&error);
                        return EXIT_NO_SUCH_DEVICE;
                }
                status = report_bus_error("WaitForState", r, &error);
                sd_bus_error_free(&error);
                return status;
        }
}
