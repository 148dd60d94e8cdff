/* SPDX-License-Identifier: MIT */
/* rdmactl wait, in two forms:
 *   wait [NAME...] [--state=STATE] [--any] [--ignore=GLOB]: for boot, where
 *     what is named may not exist yet and rdmad may not run yet
 *     (wait-online.c follows the signals);
 *   wait PORT STATE: the port must exist now, and rdmad run; WaitForState
 *     (rdmad answers when the state is reached or the call's time is up).
 * The first is chosen by its options or by no argument at all, so that a
 * script's `wait PORT STATE` keeps its exit statuses. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "bus-errors.h"
#include "inventory.h"
#include "rdmactl.h"
#include "target.h"
#include "util.h"
#include "verb-util.h"
#include "verbs.h"
#include "wait-check.h"
#include "wait-online.h"

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

/* Default for the boot-time form, as systemd-networkd-wait-online's: long
 * enough for a subnet manager to bring a port up, short enough for a boot. */
#define WAIT_ONLINE_DEFAULT_TIMEOUT_USEC (2 * USEC_PER_MINUTE)

static int verb_wait_online(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_strv_free_ char **names = NULL;
        const char *bad = NULL;
        uint64_t timeout = WAIT_ONLINE_DEFAULT_TIMEOUT_USEC;
        WaitSpec spec = {
                .state = o->wait_state ?: "ACTIVE",
                .any = o->wait_any,
                .ignore = o->ignore,
                .n_ignore = o->n_ignore,
        };
        int r;

        /* "wait PORT STATE --state=...": a state among the names is a mistake, not a device to wait for. */
        for (size_t i = 0; i < n_args; i++) {
                const char *ignored;

                if (!strchr(args[i], '/') && strspn(args[i], "0123456789") != strlen(args[i]) &&
                    parse_port_state_arg(args[i], &ignored) >= 0)
                        return usage_error("'%s' is a state: with --state, --any or --ignore, name only devices, "
                                           "ports and network interfaces.",
                                           args[i]);
        }
        r = wait_names_from_args(args, n_args, &names, &spec.n_names, &bad);
        if (r == -ENOMEM)
                return report_bus_error("parsing", r, NULL);
        if (r < 0)
                return usage_error("'%s' is not a device, a port (DEVICE PORT, DEVICE/PORT) or a network "
                                   "interface.",
                                   bad);
        spec.names = names;
        if (o->timeout_set) /* 0 as systemd-networkd-wait-online takes it: no timeout */
                timeout = o->timeout_usec == 0 ? UINT64_MAX : o->timeout_usec;
        return wait_online(bus, o, &spec, timeout);
}

/* What a mistaken `wait PORT STATE` may have meant instead. */
#define WAIT_ONLINE_HINT                                                                                               \
        "\nrdmactl: for names that may not be there yet, or every port: "                                              \
        "'rdmactl wait [NAME...] --state=STATE'."

/* wait DEVICE PORT STATE, wait DEVICE/PORT STATE, wait NETDEV STATE */
int verb_wait(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_free_ char *path = NULL;
        uint64_t remaining = o->timeout_set ? o->timeout_usec : UINT64_MAX;
        const char *state, *state_arg;
        size_t consumed;
        Target t;
        int status, r;

        if (o->wait_state || o->wait_any || o->n_ignore > 0 || n_args == 0)
                return verb_wait_online(bus, o, args, n_args);
        if (n_args < 2)
                return usage_error("'wait' needs PORT STATE." WAIT_ONLINE_HINT);
        if (n_args > 3)
                return usage_error("'wait' takes only PORT STATE." WAIT_ONLINE_HINT);

        state_arg = args[n_args - 1];
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
