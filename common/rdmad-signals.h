/* SPDX-License-Identifier: MIT */
#pragma once

/* The signals a client follows rdmad by (rdmactl monitor and wait,
 * rdmad-exporter): the ones that keep an inventory current, and org.rdmad1
 * coming and going on the bus (a restart, an activation). Subscribe first,
 * then read the objects: nothing falls between the two. */

#include <stdbool.h>
#include <systemd/sd-bus.h>

typedef struct RdmadSignalHandlers {
        sd_bus_message_handler_t interfaces_added;   /* ObjectManager.InterfacesAdded */
        sd_bus_message_handler_t interfaces_removed; /* ObjectManager.InterfacesRemoved */
        sd_bus_message_handler_t properties_changed; /* on any of rdmad's objects */
        sd_bus_message_handler_t name_owner_changed; /* of org.rdmad1 only */
        sd_bus_message_handler_t disconnected;       /* the connection is gone; NULL: not followed */
} RdmadSignalHandlers;

#define RDMAD_SIGNAL_MATCHES 5

/* Adds the matches, each with userdata. async: the bus is not waited for
 * (sd_bus_match_signal_async), for a loop that must never block. slots:
 * NULL for matches that last as long as the connection, or an array of
 * RDMAD_SIGNAL_MATCHES that the caller unrefs (unused entries stay NULL). */
int rdmad_signals_subscribe(sd_bus *bus, bool async, const RdmadSignalHandlers *handlers, void *userdata,
                            sd_bus_slot **slots);

typedef enum RdmadOwner {
        RDMAD_OWNER_LEFT,     /* org.rdmad1 has no owner any more */
        RDMAD_OWNER_APPEARED, /* it has one, where it had none */
        RDMAD_OWNER_REPLACED, /* another owner without a gap */
} RdmadOwner;

/* Reads a NameOwnerChanged body; -EINVAL when it is not about org.rdmad1.
 * ret_new_owner (may be NULL): the new unique name, "" when it left; valid
 * as long as the message. */
int rdmad_read_owner_change(sd_bus_message *message, RdmadOwner *ret, const char **ret_new_owner);
