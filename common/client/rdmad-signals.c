/* SPDX-License-Identifier: MIT */
#include "client/rdmad-signals.h"

#include <errno.h>
#include <stdlib.h>

#include "api/bus-signal.h"
#include "api/rdmad-api.h"
#include "basic/util.h"

enum {
        MATCH_INTERFACES_ADDED,
        MATCH_INTERFACES_REMOVED,
        MATCH_PROPERTIES_CHANGED,
        MATCH_NAME_OWNER_CHANGED,
        MATCH_DISCONNECTED,
        _MATCH_MAX,
};

struct RdmadSignals {
        RdmadSignalHandlers handlers;
        void *userdata;
        sd_bus_slot *matches[_MATCH_MAX];
        sd_bus_slot *owner_call; /* GetNameOwner in flight */
        char *owner;             /* org.rdmad1's unique name; NULL: none known */
};

static int set_owner(RdmadSignals *s, const char *owner) {
        return free_and_strdup(&s->owner, owner && *owner ? owner : NULL);
}

/* rdmad's signals: from its owner, broadcast, or not at all. */
static int on_rdmad_signal(sd_bus_message *m, sd_bus_message_handler_t handler, RdmadSignals *s,
                           sd_bus_error *ret_error) {
        if (!bus_signal_is_from(m, s->owner))
                return 0;
        return handler(m, s->userdata, ret_error);
}

static int on_interfaces_added(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        RdmadSignals *s = userdata;
        return on_rdmad_signal(m, s->handlers.interfaces_added, s, ret_error);
}

static int on_interfaces_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        RdmadSignals *s = userdata;
        return on_rdmad_signal(m, s->handlers.interfaces_removed, s, ret_error);
}

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        RdmadSignals *s = userdata;
        return on_rdmad_signal(m, s->handlers.properties_changed, s, ret_error);
}

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        RdmadSignals *s = userdata;
        const char *new_owner;
        RdmadOwner change;
        int r;

        if (!bus_signal_is_from(m, DBUS_SERVICE_NAME))
                return 0;
        if (rdmad_read_owner_change(m, &change, &new_owner) < 0)
                return 0;
        /* The owner's signals are believed from now on, before the handler
         * asks it for its objects. */
        r = set_owner(s, new_owner);
        if (r < 0)
                return r;
        r = sd_bus_message_rewind(m, true);
        if (r < 0)
                return r;
        return s->handlers.name_owner_changed(m, s->userdata, ret_error);
}

/* Made by sd-bus itself: the bus refuses the Local path and interface from
 * any peer, so nothing else can look like it. */
static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        RdmadSignals *s = userdata;
        return s->handlers.disconnected(m, s->userdata, ret_error);
}

static int read_owner_reply(RdmadSignals *s, sd_bus_message *reply) {
        const char *owner;

        if (sd_bus_message_is_method_error(reply, NULL))
                return set_owner(s, NULL); /* NameHasNoOwner: the driver tells when it has one */
        if (sd_bus_message_read(reply, "s", &owner) < 0)
                return set_owner(s, NULL);
        return set_owner(s, owner);
}

/* The bus answers GetNameOwner before it passes on anything sent after it,
 * and a NameOwnerChanged that comes before this reply is older than it:
 * whichever arrives last is the truth. */
static int on_owner_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        RdmadSignals *s = userdata;

        s->owner_call = sd_bus_slot_unref(s->owner_call);
        return read_owner_reply(s, reply);
}

static int ask_owner(RdmadSignals *s, sd_bus *bus, bool async) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL, *reply = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &call, DBUS_SERVICE_NAME, DBUS_PATH, DBUS_INTERFACE, "GetNameOwner");
        if (r >= 0)
                r = sd_bus_message_append(call, "s", RDMAD_BUS_NAME);
        if (r < 0)
                return r;
        if (async)
                return sd_bus_call_async(bus, &s->owner_call, call, on_owner_reply, s, 0);
        r = sd_bus_call(bus, call, 0, NULL, &reply);
        if (r < 0)
                return set_owner(s, NULL);
        return read_owner_reply(s, reply);
}

static int match_signal(sd_bus *bus, bool async, sd_bus_slot **slot, const char *sender, const char *path,
                        const char *interface, const char *member, sd_bus_message_handler_t handler, void *userdata) {
        if (async)
                return sd_bus_match_signal_async(bus, slot, sender, path, interface, member, handler, NULL, userdata);
        return sd_bus_match_signal(bus, slot, sender, path, interface, member, handler, userdata);
}

int rdmad_signals_new(sd_bus *bus, bool async, const RdmadSignalHandlers *h, void *userdata, RdmadSignals **ret) {
        RdmadSignals *s = calloc(1, sizeof(RdmadSignals));
        int r;

        if (!s)
                return -ENOMEM;
        s->handlers = *h;
        s->userdata = userdata;

        /* sender= still spares us every other connection's broadcasts. */
        r = match_signal(bus, async, &s->matches[MATCH_INTERFACES_ADDED], RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                         DBUS_OBJECT_MANAGER_INTERFACE, "InterfacesAdded", on_interfaces_added, s);
        if (r >= 0)
                r = match_signal(bus, async, &s->matches[MATCH_INTERFACES_REMOVED], RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                 DBUS_OBJECT_MANAGER_INTERFACE, "InterfacesRemoved", on_interfaces_removed, s);
        if (r >= 0)
                r = match_signal(bus, async, &s->matches[MATCH_PROPERTIES_CHANGED], RDMAD_BUS_NAME, NULL,
                                 DBUS_PROPERTIES_INTERFACE, "PropertiesChanged", on_properties_changed, s);
        /* arg0 in the match: the bus sends only org.rdmad1's changes, not every client's. */
        if (r >= 0)
                r = async ? sd_bus_add_match_async(bus, &s->matches[MATCH_NAME_OWNER_CHANGED], RDMAD_NAME_OWNER_MATCH,
                                                   on_name_owner_changed, NULL, s)
                          : sd_bus_add_match(bus, &s->matches[MATCH_NAME_OWNER_CHANGED], RDMAD_NAME_OWNER_MATCH,
                                             on_name_owner_changed, s);
        if (r >= 0 && h->disconnected)
                r = match_signal(bus, async, &s->matches[MATCH_DISCONNECTED], NULL, DBUS_LOCAL_PATH,
                                 DBUS_LOCAL_INTERFACE, "Disconnected", on_disconnected, s);
        /* After the matches: an owner change from here on is seen. */
        if (r >= 0)
                r = ask_owner(s, bus, async);
        if (r < 0) {
                rdmad_signals_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

RdmadSignals *rdmad_signals_free(RdmadSignals *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < _MATCH_MAX; i++)
                sd_bus_slot_unref(s->matches[i]);
        sd_bus_slot_unref(s->owner_call);
        free(s->owner);
        free(s);
        return NULL;
}

const char *rdmad_signals_owner(const RdmadSignals *s) {
        return s ? s->owner : NULL;
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
