/* SPDX-License-Identifier: MIT */
#include "rdmad-client.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <time.h>

#include "log.h"
#include "time-util.h"
#include "util.h"

typedef struct PendingCall {
        const char *what;
        sd_bus_message *reply; /* a method return or an error */
} PendingCall;

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        PendingCall *call = userdata;

        call->reply = sd_bus_message_ref(m);
        return 0;
}

static int connect_bus(RdmadClient *c) {
        int r;

        if (c->bus && sd_bus_is_open(c->bus) > 0)
                return 0;
        c->bus = sd_bus_flush_close_unref(c->bus);
        r = sd_bus_open_system(&c->bus);
        if (r < 0)
                return log_full_errno(c->failing ? LOG_DEBUG : LOG_WARNING, r, "Cannot connect to the system bus: %m");
        (void) sd_bus_set_description(c->bus, "rdmad-exporter");
        return 0;
}

static int send_call(RdmadClient *c, sd_bus_slot **ret_slot, PendingCall *call, const char *path, const char *interface,
                     const char *member) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(c->bus, &m, RDMAD_BUS_NAME, path, interface, member);
        if (r < 0)
                return r;
        /* A scrape reports rdmad's absence; it does not start it. */
        r = sd_bus_message_set_auto_start(m, false);
        if (r < 0)
                return r;
        return sd_bus_call_async(c->bus, ret_slot, m, on_reply, call, c->timeout_usec);
}

static bool rdmad_absent(const sd_bus_error *e) {
        return sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER);
}

/* Both calls in flight at once: the scrape waits for one round trip. */
static int call_both(RdmadClient *c, PendingCall calls[2]) {
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *objects_slot = NULL, *counters_slot = NULL;
        uint64_t deadline;
        int r;

        r = send_call(c, &objects_slot, &calls[0], RDMAD_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                      "GetManagedObjects");
        if (r < 0)
                return r;
        r = send_call(c, &counters_slot, &calls[1], RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, "GetAllCounters");
        if (r < 0)
                return r;

        /* Our own deadline: sd_bus_wait() was seen blocking without one while
         * an asynchronous call's timeout was pending (libsystemd 252). */
        deadline = now_usec(CLOCK_MONOTONIC) + c->timeout_usec;
        while (!calls[0].reply || !calls[1].reply) {
                uint64_t now;

                r = sd_bus_process(c->bus, NULL);
                if (r < 0)
                        return r;
                if (r > 0)
                        continue;
                now = now_usec(CLOCK_MONOTONIC);
                if (now >= deadline)
                        return -ETIMEDOUT;
                r = sd_bus_wait(c->bus, deadline - now);
                if (r < 0 && r != -EINTR)
                        return r;
        }
        return 0;
}

static int check_reply(const RdmadClient *c, const PendingCall *call) {
        const sd_bus_error *e = sd_bus_message_get_error(call->reply);

        if (!e)
                return 0;
        if (rdmad_absent(e)) {
                log_full_errno(c->failing ? LOG_DEBUG : LOG_NOTICE, 0, "rdmad is not on the bus (%s).", e->name);
                return -ENXIO;
        }
        log_full_errno(c->failing ? LOG_DEBUG : LOG_WARNING, 0, "%s failed: %s: %s", call->what, e->name,
                       strempty(e->message));
        return -sd_bus_error_get_errno(e) ?: -EIO;
}

int rdmad_client_scrape(RdmadClient *c, Inventory **ret_inventory, CounterTable *counters) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        PendingCall calls[2] = { { .what = "GetManagedObjects" }, { .what = "GetAllCounters" } };
        bool counters_unsupported;
        int r;

        assert(c);
        assert(ret_inventory);
        assert(counters && counters->n_ports == 0);

        /* A connection the bus dropped is reconnected once, within this scrape. */
        for (int attempt = 0; attempt < 2; attempt++) {
                r = connect_bus(c);
                if (r < 0)
                        goto finish;
                r = call_both(c, calls);
                if (r >= 0 || attempt == 1 || sd_bus_is_open(c->bus) > 0)
                        break;
                for (size_t i = 0; i < ELEMENTSOF(calls); i++)
                        calls[i].reply = sd_bus_message_unref(calls[i].reply);
        }
        if (r < 0) {
                log_full_errno(c->failing ? LOG_DEBUG : LOG_WARNING, r, "Cannot call rdmad: %m");
                goto finish;
        }

        r = check_reply(c, &calls[0]);
        if (r < 0)
                goto finish;
        /* An rdmad older than GetAllCounters: the model without counters. */
        counters_unsupported =
                sd_bus_error_has_name(sd_bus_message_get_error(calls[1].reply), SD_BUS_ERROR_UNKNOWN_METHOD);
        if (counters_unsupported) {
                if (!c->warned_no_counters)
                        log_warning("rdmad has no GetAllCounters(): exporting no counters.");
                c->warned_no_counters = true;
        } else {
                r = check_reply(c, &calls[1]);
                if (r < 0)
                        goto finish;
        }

        inv = inventory_new();
        if (!inv) {
                r = -ENOMEM;
                goto finish;
        }
        r = inventory_read_managed_objects(inv, calls[0].reply);
        if (r < 0) {
                log_warning_errno(r, "Cannot read the GetManagedObjects reply: %m");
                goto finish;
        }
        r = counters_unsupported ? 0 : counter_table_read(counters, calls[1].reply);
        if (r < 0) {
                log_warning_errno(r, "Cannot read the GetAllCounters reply: %m");
                counter_table_clear(counters);
                goto finish;
        }
        *ret_inventory = TAKE_PTR(inv);
        if (c->failing)
                log_notice("rdmad answers again.");
finish:
        c->failing = r < 0;
        for (size_t i = 0; i < ELEMENTSOF(calls); i++)
                sd_bus_message_unref(calls[i].reply);
        return r;
}

void rdmad_client_done(RdmadClient *c) {
        c->bus = sd_bus_flush_close_unref(c->bus);
}
