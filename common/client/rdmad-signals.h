/* SPDX-License-Identifier: MIT */
#pragma once

/* The signals a client follows rdmad by (rdmactl monitor and wait,
 * rdmad-exporter): the ones that keep an inventory current, and org.rdmad1
 * coming and going on the bus (a restart, an activation). Subscribe first,
 * then read the objects: nothing falls between the two.
 *
 * Only believed signals reach the handlers (bus-signal.h): rdmad's from the
 * current unique owner of org.rdmad1, broadcast; NameOwnerChanged from the
 * bus driver, broadcast. The owner is asked for (GetNameOwner) when the
 * matches are in place and followed by the driver's NameOwnerChanged. */

#include <stdbool.h>
#include <systemd/sd-bus.h>

typedef struct RdmadSignalHandlers {
        sd_bus_message_handler_t interfaces_added;   /* ObjectManager.InterfacesAdded */
        sd_bus_message_handler_t interfaces_removed; /* ObjectManager.InterfacesRemoved */
        sd_bus_message_handler_t properties_changed; /* on any of rdmad's objects */
        sd_bus_message_handler_t name_owner_changed; /* of org.rdmad1 only */
        sd_bus_message_handler_t disconnected;       /* the connection is gone; NULL: not followed */
} RdmadSignalHandlers;

typedef struct RdmadSignals RdmadSignals;

/* Adds the matches, each with userdata, then asks who owns org.rdmad1.
 * async: the bus is not waited for (sd_bus_match_signal_async, an
 * asynchronous GetNameOwner), for a loop that must never block; until that
 * answer, rdmad's signals are dropped (the objects read next cover them). */
int rdmad_signals_new(sd_bus *bus, bool async, const RdmadSignalHandlers *handlers, void *userdata, RdmadSignals **ret);
RdmadSignals *rdmad_signals_free(RdmadSignals *s);
static inline void rdmad_signals_freep(RdmadSignals **s) {
        rdmad_signals_free(*s);
}

/* The unique name whose signals are believed; NULL: none (rdmad is not on
 * the bus, or the bus has not said yet). */
const char *rdmad_signals_owner(const RdmadSignals *s);

typedef enum RdmadOwner {
        RDMAD_OWNER_LEFT,     /* org.rdmad1 has no owner any more */
        RDMAD_OWNER_APPEARED, /* it has one, where it had none */
        RDMAD_OWNER_REPLACED, /* another owner without a gap */
} RdmadOwner;

/* Reads a NameOwnerChanged body; -EINVAL when it is not about org.rdmad1.
 * ret_new_owner (may be NULL): the new unique name, "" when it left; valid
 * as long as the message. */
int rdmad_read_owner_change(sd_bus_message *message, RdmadOwner *ret, const char **ret_new_owner);
