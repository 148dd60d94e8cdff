/* SPDX-License-Identifier: MIT */
/* rdmactl wait [NAME...] [STATE] [--state=STATE] [--any] [--ignore=GLOB]:
 * one grammar for every form (org.rdmad1(5), "Waiting for links"). Names
 * are DEV, DEV/PORT or DEV PORT (a number right after a device is its
 * port) or a netdev; a last word that is a state is the state, else
 * --state=, else ACTIVE. What is named may not exist yet and rdmad may not
 * run yet: wait-online.c follows the signals until the timeout. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "basic/util.h"
#include "bus-errors.h"
#include "rdmactl.h"
#include "verbs.h"
#include "wait-check.h"
#include "wait-online.h"

/* Default, as systemd-networkd-wait-online's: long enough for a subnet
 * manager to bring a port up, short enough for a boot. */
#define WAIT_DEFAULT_TIMEOUT_USEC (2 * USEC_PER_MINUTE)

static bool all_digits(const char *s) {
        return *s && strspn(s, "0123456789") == strlen(s);
}

/* Whether the last word is the state: a state's name ("ACTIVE", sysfs's
 * "4: ACTIVE"), or a bare number after a port ("mlx4_0 1 4", "mlx4_0/1 4"),
 * where it cannot be a port. */
static bool last_word_is_state(char **args, size_t n_args) {
        const char *last = args[n_args - 1], *state;

        if (strchr(last, '/'))
                return false;
        if (!all_digits(last))
                return parse_port_state_arg(last, &state) != -EINVAL;
        if (n_args < 2)
                return false;
        if (strchr(args[n_args - 2], '/'))
                return true;
        /* DEV PORT NUMBER: the port is the word before. */
        return n_args >= 3 && all_digits(args[n_args - 2]) && !all_digits(args[n_args - 3]);
}

static int state_error(const char *arg, int r) {
        if (r == -ERANGE)
                return usage_error("port state %s is out of range; the states are 0 (NOP) to %d (ACTIVE_DEFER).", arg,
                                   PORT_STATE_MAX);
        return usage_error("'%s' is not a port state (" PORT_STATES_TEXT ").", arg);
}

/* Whether rdmad (inv, NULL when it did not answer) or the kernel knows word
 * as a device or a network interface. */
static bool names_something(const Inventory *inv, const char *word) {
        if (inv && (inventory_find_device_by_name(inv, word) || inventory_find_netdev_by_name(inv, word)))
                return true;
        return if_nametoindex(word) > 0;
}

/* A word that looks meant as a state ("UP", "LinkUp", "ACTIV") and names
 * nothing would be waited for until the timeout, and the exit status 5
 * would read as a link fault: refused at once instead. Only then is rdmad
 * asked, once; a name it does not know yet in lower case is still waited for. */
static int refuse_state_lookalikes(sd_bus *bus, char **args, size_t n_args) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        bool asked = false;

        for (size_t i = 0; i < n_args; i++) {
                StateLookalike kind = port_state_lookalike(args[i]);

                if (kind == STATE_LOOKALIKE_NONE)
                        continue;
                if (!asked) {
                        sd_bus_error error = SD_BUS_ERROR_NULL;

                        asked = true;
                        inv = inventory_new();
                        if (!inv)
                                return report_oom();
                        /* Not running: nothing is known by that name yet, and the word is still no state. */
                        if (inventory_load(inv, bus, &error) < 0)
                                inv = inventory_free(inv);
                        sd_bus_error_free(&error);
                }
                if (names_something(inv, args[i]))
                        continue;
                if (kind == STATE_LOOKALIKE_PHYS)
                        return usage_error("'%s' is a physical state; wait takes a port state: " PORT_STATES_TEXT ".",
                                           args[i]);
                return usage_error("'%s' is not a port state, and no device or network interface has that name; the "
                                   "states are " PORT_STATES_TEXT ".",
                                   args[i]);
        }
        return EXIT_OK;
}

int verb_wait(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_strv_free_ char **names = NULL;
        const char *bad = NULL, *state = o->wait_state;
        uint64_t timeout = WAIT_DEFAULT_TIMEOUT_USEC;
        WaitSpec spec = {
                .any = o->wait_any,
                .ignore = o->ignore,
                .n_ignore = o->n_ignore,
        };
        int r;

        if (n_args > 0 && last_word_is_state(args, n_args)) {
                const char *word = args[--n_args];

                r = parse_port_state_arg(word, &state);
                if (r < 0)
                        return state_error(word, r);
                if (o->wait_state && !streq(o->wait_state, state))
                        return usage_error("'%s' and --state=%s: give the state once.", word, o->wait_state);
        }
        /* A state anywhere else is a mistake, not a device to wait for. */
        for (size_t i = 0; i < n_args; i++) {
                const char *ignored;

                if (!strchr(args[i], '/') && !all_digits(args[i]) && parse_port_state_arg(args[i], &ignored) >= 0)
                        return usage_error("'%s' is a state: name the devices, ports and network interfaces first, "
                                           "then one STATE.",
                                           args[i]);
        }
        r = refuse_state_lookalikes(bus, args, n_args);
        if (r != EXIT_OK)
                return r;
        r = wait_names_from_args(args, n_args, &names, &spec.n_names, &bad);
        if (r == -ENOMEM)
                return report_oom();
        if (r < 0)
                return usage_error("'%s' is not a device, a port (DEVICE PORT, DEVICE/PORT) or a network "
                                   "interface.",
                                   bad);
        spec.names = names;
        spec.state = state ?: "ACTIVE";
        if (o->timeout_set) /* 0 as systemd-networkd-wait-online takes it: no timeout */
                timeout = o->timeout_usec == 0 ? UINT64_MAX : o->timeout_usec;
        return wait_online(bus, o, &spec, timeout);
}
