/* SPDX-License-Identifier: MIT */
#include "rdmad-signals.h"

#include <errno.h>

#include "rdmad-api.h"
#include "util.h"

static int match_signal(sd_bus *bus, bool async, sd_bus_slot **slot, const char *sender, const char *path,
                        const char *interface, const char *member, sd_bus_message_handler_t handler, void *userdata) {
        if (async)
                return sd_bus_match_signal_async(bus, slot, sender, path, interface, member, handler, NULL, userdata);
        return sd_bus_match_signal(bus, slot, sender, path, interface, member, handler, userdata);
}

int rdmad_signals_subscribe(sd_bus *bus, bool async, const RdmadSignalHandlers *h, void *userdata,
                            sd_bus_slot **slots) {
#define SLOT(i) (slots ? &slots[i] : NULL) /* NULL: sd-bus floats the match on the connection */
        int r;

        r = match_signal(bus, async, SLOT(0), RDMAD_BUS_NAME, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE,
                         "InterfacesAdded", h->interfaces_added, userdata);
        if (r >= 0)
                r = match_signal(bus, async, SLOT(1), RDMAD_BUS_NAME, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE,
                                 "InterfacesRemoved", h->interfaces_removed, userdata);
        if (r >= 0)
                r = match_signal(bus, async, SLOT(2), RDMAD_BUS_NAME, NULL, DBUS_PROPERTIES_INTERFACE,
                                 "PropertiesChanged", h->properties_changed, userdata);
        /* arg0 in the match: the bus sends only org.rdmad1's changes, not every client's. */
        if (r >= 0)
                r = async ? sd_bus_add_match_async(bus, SLOT(3), RDMAD_NAME_OWNER_MATCH, h->name_owner_changed, NULL,
                                                   userdata)
                          : sd_bus_add_match(bus, SLOT(3), RDMAD_NAME_OWNER_MATCH, h->name_owner_changed, userdata);
        if (r >= 0 && h->disconnected)
                r = match_signal(bus, async, SLOT(4), NULL, DBUS_LOCAL_PATH, DBUS_LOCAL_INTERFACE, "Disconnected",
                                 h->disconnected, userdata);
        return r;
#undef SLOT
}

int rdmad_read_owner_change(sd_bus_message *message, RdmadOwner *ret, const char **ret_new_owner) {
        const char *name, *old_owner, *new_owner;

        if (sd_bus_message_read(message, "sss", &name, &old_owner, &new_owner) < 0 || !streq(name, RDMAD_BUS_NAME))
                return -EINVAL;
        if (!*new_owner)
                *ret = RDMAD_OWNER_LEFT;
        else
                *ret = *old_owner ? RDMAD_OWNER_REPLACED : RDMAD_OWNER_APPEARED;
        if (ret_new_owner)
                *ret_new_owner = new_owner;
        return 0;
}
