/* SPDX-License-Identifier: MIT */
#include "client/inventory-follow.h"

#include <errno.h>
#include <stdlib.h>

#include "api/rdmad-api.h"
#include "basic/util.h"
#include "client/rdmad-signals.h"

struct InventoryFollow {
        InventoryFollowOptions options;
        InventoryFollowCallbacks callbacks;
        void *userdata;
        sd_bus *bus;
        RdmadSignals *signals;  /* the matches, and whose signals are believed */
        sd_bus_slot *load_slot; /* the GetManagedObjects in flight */
        Inventory *inv;
        Inventory *before; /* during a callback: what the step replaced */
        uint64_t load_calls;
};

static int on_loaded(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        InventoryFollow *f = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        int r;

        f->load_slot = sd_bus_slot_unref(f->load_slot);
        if (e)
                r = -sd_bus_error_get_errno(e);
        else {
                inv = inventory_new();
                r = inv ? inventory_read_managed_objects(inv, reply) : -ENOMEM;
        }
        if (r >= 0) {
                f->before = f->inv;
                f->inv = TAKE_PTR(inv);
        }
        if (f->callbacks.loaded)
                f->callbacks.loaded(f, r, e, f->userdata);
        f->before = inventory_free(f->before);
        return 0;
}

static int load(InventoryFollow *f) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        int r;

        /* A newer owner's objects replace an answer still in flight. */
        f->load_slot = sd_bus_slot_unref(f->load_slot);
        r = sd_bus_message_new_method_call(f->bus, &call, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                           DBUS_OBJECT_MANAGER_INTERFACE, "GetManagedObjects");
        if (r >= 0)
                r = sd_bus_message_set_auto_start(call, f->options.auto_start);
        if (r >= 0)
                r = sd_bus_call_async(f->bus, &f->load_slot, call, on_loaded, f, f->options.load_timeout_usec);
        if (r < 0)
                return r;
        f->load_calls++;
        return 0;
}

static void changed(InventoryFollow *f, InventoryChange change, const char *path, int r) {
        if (f->callbacks.changed)
                f->callbacks.changed(f, change, path, r, f->userdata);
        f->before = inventory_free(f->before);
}

/* The objects at path as they are, for inventory_follow_before(). */
static int keep_before(InventoryFollow *f, const char *path) {
        if (!f->options.keep_before || !path)
                return 0;
        inventory_free(f->before);
        f->before = inventory_new();
        if (!f->before)
                return -ENOMEM;
        return inventory_copy_objects_at(f->before, f->inv, path);
}

static int on_interfaces_added(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        InventoryFollow *f = userdata;
        const char *path = NULL;
        int r;

        if (!f->inv)
                return 0; /* the GetManagedObjects reply will have it */
        r = sd_bus_message_read(message, "o", &path);
        if (r >= 0)
                r = keep_before(f, path);
        if (r >= 0)
                r = inventory_add_object(f->inv, path, message);
        changed(f, INVENTORY_CHANGE_ADDED, path, r);
        return 0;
}

static int on_interfaces_removed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        InventoryFollow *f = userdata;
        _cleanup_strv_free_ char **interfaces = NULL;
        const char *path = NULL;
        int r;

        if (!f->inv)
                return 0;
        r = sd_bus_message_read(message, "o", &path);
        if (r >= 0)
                r = sd_bus_message_read_strv(message, &interfaces);
        if (r >= 0)
                r = keep_before(f, path);
        if (r >= 0)
                inventory_remove_object(f->inv, path, interfaces);
        changed(f, INVENTORY_CHANGE_REMOVED, path, r);
        return 0;
}

static int on_properties_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        InventoryFollow *f = userdata;
        const char *path = sd_bus_message_get_path(message);

        int r;

        if (!f->inv || !path)
                return 0;
        r = keep_before(f, path);
        if (r >= 0)
                r = inventory_apply_properties_changed(f->inv, message);
        changed(f, INVENTORY_CHANGE_PROPERTIES, path, r);
        return 0;
}

static void forget(InventoryFollow *f) {
        f->inv = inventory_free(f->inv);
        f->load_slot = sd_bus_slot_unref(f->load_slot);
}

static int on_name_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        InventoryFollow *f = userdata;
        const char *owner;
        RdmadOwner change;
        int r;

        if (rdmad_read_owner_change(message, &change, &owner) < 0)
                return 0;
        if (f->options.forget_on_owner_change)
                forget(f);
        r = change == RDMAD_OWNER_LEFT ? 0 : load(f);
        if (f->callbacks.owner_changed)
                f->callbacks.owner_changed(f, change == RDMAD_OWNER_LEFT ? NULL : owner, r, f->userdata);
        return 0;
}

static int on_disconnected(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        InventoryFollow *f = userdata;

        f->callbacks.disconnected(f, f->userdata);
        return 0;
}

InventoryFollow *inventory_follow_new(const InventoryFollowOptions *options, const InventoryFollowCallbacks *callbacks,
                                      void *userdata) {
        InventoryFollow *f = calloc(1, sizeof(InventoryFollow));

        if (!f)
                return NULL;
        f->options = *options;
        f->callbacks = *callbacks;
        f->userdata = userdata;
        return f;
}

void inventory_follow_stop(InventoryFollow *f) {
        f->signals = rdmad_signals_free(f->signals);
        f->load_slot = sd_bus_slot_unref(f->load_slot);
        f->bus = sd_bus_unref(f->bus);
}

InventoryFollow *inventory_follow_free(InventoryFollow *f) {
        if (!f)
                return NULL;
        inventory_follow_stop(f);
        inventory_free(f->inv);
        free(f);
        return NULL;
}

int inventory_follow_start(InventoryFollow *f, sd_bus *bus) {
        const RdmadSignalHandlers handlers = {
                .interfaces_added = on_interfaces_added,
                .interfaces_removed = on_interfaces_removed,
                .properties_changed = on_properties_changed,
                .name_owner_changed = on_name_owner_changed,
                .disconnected = f->callbacks.disconnected ? on_disconnected : NULL,
        };
        int r;

        inventory_follow_stop(f);
        f->bus = sd_bus_ref(bus);
        /* The matches first: a change after the answer is not missed. */
        r = rdmad_signals_new(bus, f->options.async_matches, &handlers, f, &f->signals);
        if (r >= 0)
                r = load(f);
        if (r < 0)
                inventory_follow_stop(f);
        return r;
}

Inventory *inventory_follow_inventory(const InventoryFollow *f) {
        return f->inv;
}

const Inventory *inventory_follow_before(const InventoryFollow *f) {
        return f->before;
}

int inventory_follow_reload(InventoryFollow *f) {
        if (!f->bus)
                return -ENOTCONN;
        return load(f);
}

const char *inventory_follow_owner(const InventoryFollow *f) {
        return rdmad_signals_owner(f->signals);
}

uint64_t inventory_follow_load_calls(const InventoryFollow *f) {
        return f->load_calls;
}
