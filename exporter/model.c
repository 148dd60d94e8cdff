/* SPDX-License-Identifier: MIT */
#include "model.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "log.h"
#include "time-util.h"
#include "util.h"

struct Model {
        sd_event *event;
        sd_bus *bus;
        sd_bus_slot *gmo_slot;
        Inventory *inv;
        uint64_t last_update_usec;
        uint64_t gmo_calls;
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

static bool rdmad_absent(const sd_bus_error *e) {
        return sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER);
}

static int on_managed_objects(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        Model *m = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        int r;

        m->gmo_slot = sd_bus_slot_unref(m->gmo_slot);
        if (e) {
                if (rdmad_absent(e))
                        log_full_errno(m->failing ? LOG_DEBUG : LOG_NOTICE, 0, "rdmad is not on the bus (%s).",
                                       e->name);
                else
                        log_full_errno(m->failing ? LOG_DEBUG : LOG_WARNING, 0, "GetManagedObjects failed: %s: %s",
                                       e->name, strempty(e->message));
                m->failing = true;
                return 0;
        }
        inv = inventory_new();
        if (!inv)
                return log_oom();
        r = inventory_read_managed_objects(inv, reply);
        if (r < 0) {
                log_warning_errno(r, "Cannot read the GetManagedObjects reply: %m");
                return 0;
        }
        inventory_free(m->inv);
        m->inv = TAKE_PTR(inv);
        touched(m);
        if (m->failing)
                log_notice("rdmad answers again.");
        m->failing = false;
        log_debug("Model read: %zu devices, %zu ports.", m->inv->n_devices, m->inv->n_ports);
        return 0;
}

static int request_model(Model *m) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        int r;

        /* A newer owner's model replaces an answer still in flight. */
        m->gmo_slot = sd_bus_slot_unref(m->gmo_slot);
        r = sd_bus_message_new_method_call(m->bus, &call, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                           DBUS_OBJECT_MANAGER_INTERFACE, "GetManagedObjects");
        if (r < 0)
                return r;
        /* The exporter reports rdmad's absence; it does not start it. */
        r = sd_bus_message_set_auto_start(call, false);
        if (r < 0)
                return r;
        /* A model is big: its reply may take longer than a scrape. */
        r = sd_bus_call_async(m->bus, &m->gmo_slot, call, on_managed_objects, m, 60 * USEC_PER_SEC);
        if (r < 0)
                return r;
        m->gmo_calls++;
        return 0;
}

static int on_interfaces_added(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        Model *m = userdata;
        const char *path;
        int r;

        if (!m->inv)
                return 0; /* the GetManagedObjects reply will have it */
        r = sd_bus_message_read(message, "o", &path);
        if (r >= 0)
                r = inventory_add_object(m->inv, path, message);
        if (r < 0)
                log_warning_errno(r, "Cannot read InterfacesAdded: %m");
        touched(m);
        return 0;
}

static int on_interfaces_removed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        Model *m = userdata;
        _cleanup_strv_free_ char **interfaces = NULL;
        const char *path;
        int r;

        if (!m->inv)
                return 0;
        r = sd_bus_message_read(message, "o", &path);
        if (r >= 0)
                r = sd_bus_message_read_strv(message, &interfaces);
        if (r < 0) {
                log_warning_errno(r, "Cannot read InterfacesRemoved: %m");
                return 0;
        }
        inventory_remove_object(m->inv, path, interfaces);
        touched(m);
        return 0;
}

static int on_properties_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        Model *m = userdata;
        const char *interface, *path = sd_bus_message_get_path(message);
        int r = 0;

        if (!m->inv || !path)
                return 0;
        if (sd_bus_message_read(message, "s", &interface) < 0)
                return 0;
        if (streq(interface, RDMAD_PORT_INTERFACE)) {
                RdmaPort *p = inventory_find_port(m->inv, path);
                if (p)
                        r = port_read_properties(p, message);
        } else if (streq(interface, RDMAD_DEVICE_INTERFACE)) {
                RdmaDevice *d = inventory_find_device(m->inv, path);
                if (d)
                        r = device_read_properties(d, message);
        } else if (streq(interface, RDMAD_SRIOV_INTERFACE)) {
                RdmaSriov *s = inventory_find_sriov(m->inv, path);
                if (s)
                        r = sriov_read_properties(s, message);
        }
        if (r < 0)
                log_warning_errno(r, "Cannot read PropertiesChanged of %s: %m", path);
        touched(m);
        return 0;
}

static int on_name_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        Model *m = userdata;
        const char *name, *old_owner, *new_owner;
        int r;

        if (sd_bus_message_read(message, "sss", &name, &old_owner, &new_owner) < 0 || !streq(name, RDMAD_BUS_NAME))
                return 0;
        if (!new_owner || !*new_owner) {
                log_notice("rdmad left the bus: the last known model is kept.");
                return 0;
        }
        log_info("rdmad is on the bus (%s): reading its model.", new_owner);
        r = request_model(m);
        if (r < 0)
                log_warning_errno(r, "Cannot ask rdmad for its model: %m");
        return 0;
}

static int subscribe(Model *m) {
        int r;

        /* Asynchronous: the exporter's loop never waits for the bus. */
        r = sd_bus_match_signal_async(m->bus, NULL, RDMAD_BUS_NAME, NULL, DBUS_OBJECT_MANAGER_INTERFACE,
                                      "InterfacesAdded", on_interfaces_added, NULL, m);
        if (r >= 0)
                r = sd_bus_match_signal_async(m->bus, NULL, RDMAD_BUS_NAME, NULL, DBUS_OBJECT_MANAGER_INTERFACE,
                                              "InterfacesRemoved", on_interfaces_removed, NULL, m);
        if (r >= 0)
                r = sd_bus_match_signal_async(m->bus, NULL, RDMAD_BUS_NAME, NULL, DBUS_PROPERTIES_INTERFACE,
                                              "PropertiesChanged", on_properties_changed, NULL, m);
        if (r >= 0)
                r = sd_bus_add_match_async(m->bus, NULL, RDMAD_NAME_OWNER_MATCH, on_name_owner_changed, NULL, m);
        return r;
}

Model *model_new(sd_event *event) {
        Model *m = calloc(1, sizeof(Model));

        if (!m)
                return NULL;
        m->event = sd_event_ref(event);
        return m;
}

Model *model_free(Model *m) {
        if (!m)
                return NULL;
        sd_bus_slot_unref(m->gmo_slot);
        sd_bus_flush_close_unref(m->bus);
        inventory_free(m->inv);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}

int model_connect(Model *m) {
        int r;

        if (m->bus && sd_bus_is_open(m->bus) > 0)
                return 0;
        m->gmo_slot = sd_bus_slot_unref(m->gmo_slot);
        m->bus = sd_bus_flush_close_unref(m->bus);
        r = sd_bus_open_system(&m->bus);
        if (r < 0)
                goto fail;
        (void) sd_bus_set_description(m->bus, "rdmad-exporter");
        /* A bus that goes away is reconnected at the next scrape, not fatal. */
        r = sd_bus_set_exit_on_disconnect(m->bus, false);
        if (r >= 0)
                r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r >= 0)
                r = subscribe(m);
        /* The matches are sent first: a change after the answer is not missed. */
        if (r >= 0)
                r = request_model(m);
        if (r >= 0)
                return 0;
fail:
        m->bus = sd_bus_flush_close_unref(m->bus);
        return log_full_errno(m->failing ? LOG_DEBUG : LOG_WARNING, r, "Cannot connect to the system bus: %m");
}

const Inventory *model_inventory(const Model *m) {
        return m->inv;
}

uint64_t model_last_update_usec(const Model *m) {
        return m->last_update_usec;
}

uint64_t model_gmo_calls(const Model *m) {
        return m->gmo_calls;
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
                        log_warning_errno(r, "Cannot read the GetAllCounters reply: %m");
                        counter_table_clear(&t);
                } else
                        up = true;
        } else if (sd_bus_error_has_name(e, SD_BUS_ERROR_UNKNOWN_METHOD))
                up = true; /* an rdmad older than GetAllCounters: the model without counters */
        else
                log_debug("GetAllCounters failed: %s: %s", e->name, strempty(e->message));
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
                                           "GetAllCounters");
        if (r >= 0)
                r = sd_bus_message_set_auto_start(call, false);
        if (r >= 0)
                r = sd_bus_call_async(m->bus, &c->slot, call, on_counters, c, timeout_usec);
        if (r < 0) {
                free(c);
                log_warning_errno(r, "Cannot call GetAllCounters: %m");
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
