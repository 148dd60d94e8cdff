/* SPDX-License-Identifier: MIT */
#pragma once

/* Following rdmad over time, for the verbs that do (monitor, wait): the
 * signals that keep a client's inventory current, and org.rdmad1 coming
 * and going on the bus (a restart, an activation). Subscribe first, then
 * read the objects: nothing falls between the two. */

#include <stdbool.h>
#include <systemd/sd-bus.h>

typedef struct FollowHandlers {
        sd_bus_message_handler_t interfaces_added;   /* ObjectManager.InterfacesAdded */
        sd_bus_message_handler_t interfaces_removed; /* ObjectManager.InterfacesRemoved */
        sd_bus_message_handler_t properties_changed; /* on any of rdmad's objects */
        sd_bus_message_handler_t name_owner_changed; /* of org.rdmad1 only */
        sd_bus_message_handler_t disconnected;       /* the bus connection is gone */
} FollowHandlers;

/* Adds the matches, each with userdata, for the life of the connection. */
int follow_subscribe(sd_bus *bus, const FollowHandlers *handlers, void *userdata);

typedef enum FollowOwner {
        FOLLOW_OWNER_LEFT,     /* org.rdmad1 has no owner any more */
        FOLLOW_OWNER_APPEARED, /* it has one, where it had none */
        FOLLOW_OWNER_REPLACED, /* another owner without a gap */
} FollowOwner;

/* Reads a NameOwnerChanged body; -EINVAL when it is not about org.rdmad1. */
int follow_read_owner_change(sd_bus_message *message, FollowOwner *ret);
