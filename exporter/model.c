/* SPDX-License-Identifier: MIT */
#include "model.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "basic/log.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "client/inventory-follow.h"

struct Model {
        sd_event *event;
        sd_bus *bus;
        InventoryFollow *follow;
        uint64_t last_update_usec;
        bool failing; /* log the next failure at debug level only */
};

struct CountersCall {
        sd_bus_slot *slot;
        model_counters_done_t done;
        void *userdata;
};

static void touched(Model *m) {
        m->last_update_usec = now_usec(CLOCK_REALTIME);
}

static void load_failed(Model *m, int r, const sd_bus_error *e) {
        if (!e) {
                log_warning_errno(r, "Failed to read the GetManagedObjects reply: %m");
                return;
        }
        if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                log_full_errno(m->failing ? LOG_DEBUG : LOG_NOTICE, 0, "rdmad is not on the bus (%s).", e->name);
        else
                log_full_errno(m->failing ? LOG_DEBUG : LOG_WARNING, 0,
                               "Failed to get the objects (GetManagedObjects): %s: %s", e->name, strempty(e->message));
        m->failing = true;
}

static void on_loaded(InventoryFollow *f, int r, const sd_bus_error *e, void *userdata) {
        Model *m = userdata;
        const Inventory *inv = inventory_follow_inventory(f);

        if (r < 0) {
                load_failed(m, r, e);
                return;
        }
        touched(m);
        if (m->failing)
                log_notice("rdmad answers again.");
        m->failing = false;
        log_debug("Model read: %zu devices, %zu ports.", inv->n_devices, inv->n_ports);
}

static void on_changed(InventoryFollow *f, InventoryChange change, const char *path, int r, void *userdata) {
        Model *m = userdata;

        if (r < 0)
                switch (change) {
                case INVENTORY_CHANGE_ADDED:
                        log_warning_errno(r, "Failed to read InterfacesAdded: %m");
                        break;
                case INVENTORY_CHANGE_REMOVED:
                        log_warning_errno(r, "Failed to read InterfacesRemoved: %m");
                        return; /* nothing was removed */
                case INVENTORY_CHANGE_PROPERTIES:
                        log_warning_errno(r, "Failed to read PropertiesChanged of %s: %m", path);
                        break;
                }
        touched(m);
}

static void on_owner_changed(InventoryFollow *f, const char *owner, int r, void *userdata) {
        if (!owner) {
                log_notice("rdmad left the bus: the last known model is kept.");
                return;
        }
        log_info("rdmad is on the bus (%s): reading its model.", owner);
        if (r < 0)
                log_warning_errno(r, "Failed to ask rdmad for its model: %m");
}

Model *model_new(sd_event *event) {
        static const InventoryFollowOptions options = {
                /* The exporter reports rdmad's absence; it does not start it. */
                .auto_start = false,
                /* The exporter's loop never waits for the bus. */
                .async_matches = true,
                /* A model is big: its reply may take longer than a scrape. */
                .load_timeout_usec = 60 * USEC_PER_SEC,
        };
        static const InventoryFollowCallbacks callbacks = {
                .loaded = on_loaded,
                .changed = on_changed,
                .owner_changed = on_owner_changed,
        };
        Model *m = calloc(1, sizeof(Model));

        if (!m)
                return NULL;
        m->follow = inventory_follow_new(&options, &callbacks, m);
        if (!m->follow)
                return mfree(m);
        m->event = sd_event_ref(event);
        return m;
}

Model *model_free(Model *m) {
        if (!m)
                return NULL;
        inventory_follow_free(m->follow);
        sd_bus_flush_close_unref(m->bus);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}

int model_connect(Model *m) {
        int r;

        if (m->bus && sd_bus_is_open(m->bus) > 0)
                return 0;
        inventory_follow_stop(m->follow);
        m->bus = sd_bus_flush_close_unref(m->bus);
        r = sd_bus_open_system(&m->bus);
        if (r < 0)
                goto fail;
        (void) sd_bus_set_description(m->bus, "rdmad-exporter");
        /* A bus that goes away is reconnected at the next scrape, not fatal. */
        r = sd_bus_set_exit_on_disconnect(m->bus, false);
        if (r >= 0)
                r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        /* The last known model stays until the new connection's replaces it. */
        if (r >= 0)
                r = inventory_follow_start(m->follow, m->bus);
        if (r >= 0)
                return 0;
fail:
        m->bus = sd_bus_flush_close_unref(m->bus);
        /* Tried again at every scrape: logged once until the model is read. */
        r = log_full_errno(m->failing ? LOG_DEBUG : LOG_WARNING, r, "Failed to connect to the system bus: %m");
        m->failing = true;
        return r;
}

const Inventory *model_inventory(const Model *m) {
        return inventory_follow_inventory(m->follow);
}

uint64_t model_last_update_usec(const Model *m) {
        return m->last_update_usec;
}

uint64_t model_gmo_calls(const Model *m) {
        return inventory_follow_load_calls(m->follow);
}

static int on_counters(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        CountersCall *c = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        CounterTable t = {};
        bool up = false;
        int r;

        if (!e) {
                r = counter_table_read(&t, reply);
                if (r < 0) {
                        log_warning_errno(r, "Failed to read the GetAllCounters reply: %m");
                        counter_table_clear(&t);
                } else
                        up = true;
        } else if (sd_bus_error_has_name(e, SD_BUS_ERROR_UNKNOWN_METHOD))
                up = true; /* an rdmad older than GetAllCounters: the model without counters */
        else
                log_debug("Failed to get the counters (GetAllCounters): %s: %s", e->name, strempty(e->message));
        c->done(&t, up, c->userdata);
        counter_table_clear(&t);
        c->slot = sd_bus_slot_unref(c->slot);
        free(c);
        return 0;
}

int model_get_counters(Model *m, uint64_t timeout_usec, model_counters_done_t done, void *userdata,
                       CountersCall **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        CountersCall *c;
        int r;

        (void) model_connect(m);
        if (!m->bus) {
                done(&(CounterTable){}, false, userdata);
                *ret = NULL;
                return 0;
        }
        c = calloc(1, sizeof(CountersCall));
        if (!c)
                return -ENOMEM;
        *c = (CountersCall){ .done = done, .userdata = userdata };
        r = sd_bus_message_new_method_call(m->bus, &call, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                           RDMAD_METHOD_GET_ALL_COUNTERS);
        if (r >= 0)
                r = sd_bus_message_set_auto_start(call, false);
        if (r >= 0)
                r = sd_bus_call_async(m->bus, &c->slot, call, on_counters, c, timeout_usec);
        if (r < 0) {
                free(c);
                log_warning_errno(r, "Failed to call GetAllCounters: %m");
                done(&(CounterTable){}, false, userdata);
                *ret = NULL;
                return 0;
        }
        *ret = c;
        return 0;
}

void model_counters_cancel(CountersCall *c) {
        if (!c)
                return;
        sd_bus_slot_unref(c->slot);
        free(c);
}
