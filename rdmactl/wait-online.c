/* SPDX-License-Identifier: MIT */
/* The waiting of `rdmactl wait` in its boot-time form: subscribe to rdmad's
 * signals, read its objects once (a call that asks for D-Bus activation),
 * keep them current from the signals, and decide after each change. When
 * rdmad leaves, what it published is forgotten; when it is back, all of it
 * is read again. rdmad is never asked twice for the same thing: only the
 * signals (and NameOwnerChanged) move the wait on. */
#include "wait-online.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-event.h>

#include "args.h"
#include "follow.h"
#include "inventory.h"
#include "time-util.h"
#include "util.h"

/* As systemd-networkd-wait-online logs: not at once (a wait that ends in a
 * moment says nothing), then now and then, so the boot log shows progress. */
#define PROGRESS_FIRST_USEC    (5 * USEC_PER_SEC)
#define PROGRESS_INTERVAL_USEC (20 * USEC_PER_SEC)
/* Reading the objects may start rdmad (activation): the call waits that long. */
#define LOAD_CALL_USEC (90 * USEC_PER_SEC)

typedef struct WaitOnline {
        sd_bus *bus;
        sd_event *event;
        const Options *options;
        const WaitSpec *spec;
        Inventory *inv;         /* NULL while rdmad is away or being read */
        sd_bus_slot *load_slot; /* the GetManagedObjects in flight */
        char *load_error;       /* why the last read failed, for the final lines */
        uint64_t start_usec;
        sd_event_source *progress;
} WaitOnline;

/* The lines that say what is not there yet; *ret_done when nothing. */
static int check(WaitOnline *w, bool *ret_done, WaitCheck *ret) {
        static const Inventory empty = {};
        int r = wait_check(w->spec, w->inv ?: &empty, ret);

        if (r < 0)
                return r;
        *ret_done = w->inv && ret->done;
        return 0;
}

static void print_reasons(WaitOnline *w, const char *prefix, const WaitCheck *c) {
        if (!w->inv)
                fprintf(stderr, "%srdmad (" RDMAD_BUS_NAME ") is not on the system bus%s%s\n", prefix,
                        w->load_error ? ": " : "", strempty(w->load_error));
        for (size_t i = 0; i < c->n_pending; i++)
                fprintf(stderr, "%s%s\n", prefix, c->pending[i]);
}

static void decide(WaitOnline *w) {
        WaitCheck c;
        bool done;

        if (check(w, &done, &c) < 0) {
                fprintf(stderr, "rdmactl: out of memory.\n");
                (void) sd_event_exit(w->event, EXIT_FAILURE_GENERIC);
                return;
        }
        if (done)
                (void) sd_event_exit(w->event, EXIT_OK);
        wait_check_done(&c);
}

static void forget_objects(WaitOnline *w) {
        w->inv = inventory_free(w->inv);
        w->load_slot = sd_bus_slot_unref(w->load_slot);
}

static int on_loaded(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        WaitOnline *w = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        int r;

        w->load_slot = sd_bus_slot_unref(w->load_slot);
        if (e) {
                /* Not there (no activation here, or it failed): its arrival on the bus moves us on. */
                if (!sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                        (void) free_and_strdup(&w->load_error, e->message ?: e->name);
                return 0;
        }
        inv = inventory_new();
        if (!inv)
                return sd_event_exit(w->event, EXIT_FAILURE_GENERIC);
        r = inventory_read_managed_objects(inv, reply);
        if (r < 0) {
                (void) free_and_strdup(&w->load_error, strerror(-r));
                return 0;
        }
        inventory_make_printable(inv);
        w->load_error = mfree(w->load_error);
        inventory_free(w->inv);
        w->inv = TAKE_PTR(inv);
        decide(w);
        return 0;
}

/* GetManagedObjects with auto-start: where rdmad is D-Bus activatable, the
 * bus starts it and answers once it is there. */
static int load_objects(WaitOnline *w) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        int r;

        w->load_slot = sd_bus_slot_unref(w->load_slot);
        r = sd_bus_message_new_method_call(w->bus, &call, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                           DBUS_OBJECT_MANAGER_INTERFACE, "GetManagedObjects");
        if (r >= 0)
                r = sd_bus_message_set_auto_start(call, true);
        if (r >= 0)
                r = sd_bus_call_async(w->bus, &w->load_slot, call, on_loaded, w, LOAD_CALL_USEC);
        return r;
}

static int on_interfaces_added(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        WaitOnline *w = userdata;
        const char *path;

        if (!w->inv || sd_bus_message_read(message, "o", &path) < 0)
                return 0;
        if (inventory_add_object(w->inv, path, message) >= 0) {
                inventory_make_printable(w->inv);
                decide(w);
        }
        return 0;
}

static int on_interfaces_removed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        WaitOnline *w = userdata;
        _cleanup_strv_free_ char **interfaces = NULL;
        const char *path;

        if (!w->inv || sd_bus_message_read(message, "o", &path) < 0 ||
            sd_bus_message_read_strv(message, &interfaces) < 0)
                return 0;
        inventory_remove_object(w->inv, path, interfaces);
        decide(w);
        return 0;
}

static int on_properties_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        WaitOnline *w = userdata;

        if (w->inv && inventory_apply_properties_changed(w->inv, message) >= 0) {
                inventory_make_printable(w->inv);
                decide(w);
        }
        return 0;
}

static int on_name_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        WaitOnline *w = userdata;
        FollowOwner owner;
        int r;

        if (follow_read_owner_change(message, &owner) < 0)
                return 0;
        forget_objects(w);
        if (owner == FOLLOW_OWNER_LEFT)
                return 0;
        r = load_objects(w);
        if (r < 0) {
                fprintf(stderr, "rdmactl: cannot read rdmad's objects: %s\n", strerror(-r));
                return sd_event_exit(w->event, EXIT_FAILURE_GENERIC);
        }
        return 0;
}

static int on_disconnected(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        WaitOnline *w = userdata;

        fprintf(stderr, "rdmactl: lost the connection to the system bus.\n");
        return sd_event_exit(w->event, EXIT_NOT_RUNNING);
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        WaitOnline *w = userdata;
        char span[TIMESPAN_STRING_MAX];
        WaitCheck c;
        bool done;

        if (check(w, &done, &c) < 0)
                return sd_event_exit(w->event, EXIT_FAILURE_GENERIC);
        /* Even with --quiet: the boot log must say why. */
        fprintf(stderr, "rdmactl: timed out after %s.\n", format_timespan(usec - w->start_usec, span));
        print_reasons(w, "rdmactl: ", &c);
        wait_check_done(&c);
        return sd_event_exit(w->event, EXIT_TIMEOUT);
}

static int on_progress(sd_event_source *s, uint64_t usec, void *userdata) {
        WaitOnline *w = userdata;
        char span[TIMESPAN_STRING_MAX];
        WaitCheck c;
        bool done;
        int r;

        if (check(w, &done, &c) >= 0) {
                fprintf(stderr, "rdmactl: still waiting after %s:\n",
                        format_timespan((usec - w->start_usec) / USEC_PER_SEC * USEC_PER_SEC, span));
                print_reasons(w, "rdmactl:   ", &c);
                wait_check_done(&c);
        }
        r = sd_event_source_set_time(s, usec + PROGRESS_INTERVAL_USEC);
        return r < 0 ? r : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

int wait_online(sd_bus *bus, const Options *o, const WaitSpec *spec, uint64_t timeout_usec) {
        static const FollowHandlers handlers = {
                .interfaces_added = on_interfaces_added,
                .interfaces_removed = on_interfaces_removed,
                .properties_changed = on_properties_changed,
                .name_owner_changed = on_name_owner_changed,
                .disconnected = on_disconnected,
        };
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        WaitOnline w = { .bus = bus, .options = o, .spec = spec };
        int r, status;

        r = sd_event_default(&event);
        if (r >= 0)
                r = sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return report_bus_error("wait", r, NULL);
        w.event = event;
        w.start_usec = now_usec(CLOCK_MONOTONIC);

        if (timeout_usec != UINT64_MAX)
                r = sd_event_add_time(event, NULL, CLOCK_MONOTONIC, w.start_usec + timeout_usec, 0, on_timeout, &w);
        if (r >= 0 && !o->quiet)
                r = sd_event_add_time(event, &w.progress, CLOCK_MONOTONIC, w.start_usec + PROGRESS_FIRST_USEC, 0,
                                      on_progress, &w);
        /* Subscribe first, then read: nothing falls between the two. */
        if (r >= 0)
                r = follow_subscribe(bus, &handlers, &w);
        if (r >= 0)
                r = load_objects(&w);
        if (r < 0) {
                status = report_bus_error("subscribing", r, NULL);
                goto finish;
        }

        r = sd_event_loop(event);
        status = r < 0 ? report_bus_error("wait", r, NULL) : r;

finish:
        forget_objects(&w);
        free(w.load_error);
        sd_event_source_unref(w.progress);
        (void) sd_bus_detach_event(bus);
        return status;
}
