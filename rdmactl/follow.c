/* SPDX-License-Identifier: MIT */
#include "follow.h"

#include <errno.h>

#include "rdmad-api.h"
#include "util.h"

int follow_subscribe(sd_bus *bus, const FollowHandlers *h, void *userdata) {
        int r;

        r = sd_bus_match_signal(bus, NULL, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE,
                                "InterfacesAdded", h->interfaces_added, userdata);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE,
                                        "InterfacesRemoved", h->interfaces_removed, userdata);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, RDMAD_BUS_NAME, NULL, DBUS_PROPERTIES_INTERFACE, "PropertiesChanged",
                                        h->properties_changed, userdata);
        /* arg0 in the match: the bus sends only org.rdmad1's changes, not every client's. */
        if (r >= 0)
                r = sd_bus_add_match(bus, NULL, RDMAD_NAME_OWNER_MATCH, h->name_owner_changed, userdata);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, NULL, DBUS_LOCAL_PATH, DBUS_LOCAL_INTERFACE, "Disconnected",
                                        h->disconnected, userdata);
        return r;
}

int follow_read_owner_change(sd_bus_message *message, FollowOwner *ret) {
        const char *name, *old_owner, *new_owner;

        if (sd_bus_message_read(message, "sss", &name, &old_owner, &new_owner) < 0 || !streq(name, RDMAD_BUS_NAME))
                return -EINVAL;
        if (!*new_owner)
                *ret = FOLLOW_OWNER_LEFT;
        else
                *ret = *old_owner ? FOLLOW_OWNER_REPLACED : FOLLOW_OWNER_APPEARED;
        return 0;
}
