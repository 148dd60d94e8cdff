/* SPDX-License-Identifier: MIT */
/* The waiting of `rdmactl wait`: subscribe to rdmad's signals, read its
 * objects once (a call that asks for D-Bus activation), keep them current
 * from the signals, and decide after each change. When rdmad leaves, what
 * it published is forgotten; when it is back, all of it is read again.
 * Signals only move the wait on: when they say it is over, rdmad is asked
 * once more (GetManagedObjects, answered by the owner of org.rdmad1), and
 * that answer decides. A forged signal can delay a boot, never end a wait
 * early. */
#include "wait-online.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-event.h>

#include "args.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "bus-errors.h"
#include "client/inventory-follow.h"
#include "verb-util.h"

/* As systemd-networkd-wait-online logs: not at once (a wait that ends in a
 * moment says nothing), then now and then, so the boot log shows progress. */
#define PROGRESS_FIRST_USEC    (5 * USEC_PER_SEC)
#define PROGRESS_INTERVAL_USEC (20 * USEC_PER_SEC)
/* Reading the objects may start rdmad (activation): the call waits that long. */
#define LOAD_CALL_USEC (90 * USEC_PER_SEC)

typedef struct WaitOnline {
        sd_event *event;
        const Options *options;
        const WaitSpec *spec;
        InventoryFollow *follow; /* its inventory: NULL while rdmad is away or being read */
        char *load_error;        /* why the last read failed, for the final lines */
        uint64_t start_usec;
        sd_event_source *progress;
        bool confirming; /* the signals say done: the objects are read again to be sure */
} WaitOnline;

/* The lines that say what is not there yet; *ret_done when nothing. */
static int check(WaitOnline *w, bool *ret_done, WaitCheck *ret) {
        static const Inventory empty = {};
        const Inventory *inv = inventory_follow_inventory(w->follow);
        int r = wait_check(w->spec, inv ?: &empty, ret);

        if (r < 0)
                return r;
        *ret_done = inv && ret->done;
        return 0;
}

static void print_reasons(WaitOnline *w, const char *prefix, const WaitCheck *c) {
        if (!inventory_follow_inventory(w->follow))
                fprintf(stderr, "%srdmad (" RDMAD_BUS_NAME ") is not on the system bus%s%s\n", prefix,
                        w->load_error ? ": " : "", strempty(w->load_error));
        for (size_t i = 0; i < c->n_pending; i++)
                fprintf(stderr, "%s%s\n", prefix, c->pending[i]);
}

/* from_rdmad: the inventory is a GetManagedObjects answer, not yet changed by a signal. */
static void decide(WaitOnline *w, bool from_rdmad) {
        WaitCheck c;
        bool done;
        int r;

        if (check(w, &done, &c) < 0) {
                (void) sd_event_exit(w->event, report_oom());
                return;
        }
        wait_check_done(&c);
        if (!done)
                return;
        if (from_rdmad) {
                (void) sd_event_exit(w->event, EXIT_OK);
                return;
        }
        if (w->confirming)
                return; /* the answer to that read decides */
        r = inventory_follow_reload(w->follow);
        if (r < 0) {
                fprintf(stderr, "rdmactl: Failed to read rdmad's objects: %s\n", strerror(-r));
                (void) sd_event_exit(w->event, EXIT_FAILURE_GENERIC);
                return;
        }
        w->confirming = true;
}

static void load_failed(WaitOnline *w, int r, const sd_bus_error *e) {
        w->confirming = false;
        if (!e) {
                if (r == -ENOMEM)
                        (void) sd_event_exit(w->event, EXIT_FAILURE_GENERIC);
                else
                        (void) free_and_strdup(&w->load_error, strerror(-r));
                return;
        }
        /* Not there (no activation here, or it failed): its arrival on the bus moves us on. */
        if (!sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
                _cleanup_free_ char *named = message_unescape_paths(e->message); /* mlx5_0/1, not a path */

                (void) free_and_strdup(&w->load_error, named ?: e->message ?: e->name);
        }
}

static void on_loaded(InventoryFollow *f, int r, const sd_bus_error *e, void *userdata) {
        WaitOnline *w = userdata;

        if (r < 0) {
                load_failed(w, r, e);
                return;
        }
        inventory_make_printable(inventory_follow_inventory(f));
        w->load_error = mfree(w->load_error);
        w->confirming = false;
        decide(w, true);
}

static void on_changed(InventoryFollow *f, InventoryChange change, const char *path, int r, void *userdata) {
        WaitOnline *w = userdata;

        if (r < 0)
                return;
        /* A removal brings no new strings. */
        if (change != INVENTORY_CHANGE_REMOVED)
                inventory_make_printable(inventory_follow_inventory(f));
        decide(w, false);
}

/* The inventory is forgotten at once (forget_on_owner_change); a new owner's is read in full. */
static void on_owner_changed(InventoryFollow *f, const char *owner, int r, void *userdata) {
        WaitOnline *w = userdata;

        if (r < 0) {
                fprintf(stderr, "rdmactl: Failed to read rdmad's objects: %s\n", strerror(-r));
                (void) sd_event_exit(w->event, EXIT_FAILURE_GENERIC);
        }
}

static void on_disconnected(InventoryFollow *f, void *userdata) {
        WaitOnline *w = userdata;

        fprintf(stderr, "rdmactl: lost the connection to the system bus.\n");
        (void) sd_event_exit(w->event, EXIT_NOT_RUNNING);
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
        static const InventoryFollowOptions options = {
                /* Where rdmad is D-Bus activatable, the bus starts it and answers once it is there. */
                .auto_start = true,
                .forget_on_owner_change = true,
                .load_timeout_usec = LOAD_CALL_USEC,
        };
        static const InventoryFollowCallbacks callbacks = {
                .loaded = on_loaded,
                .changed = on_changed,
                .owner_changed = on_owner_changed,
                .disconnected = on_disconnected,
        };
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        WaitOnline w = { .options = o, .spec = spec };
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
        if (r >= 0) {
                w.follow = inventory_follow_new(&options, &callbacks, &w);
                if (!w.follow)
                        r = -ENOMEM;
        }
        status = r < 0 ? report_bus_error("subscribing", r, NULL) : follow_and_run(w.follow, bus, event, "wait");

        inventory_follow_free(w.follow);
        free(w.load_error);
        sd_event_source_unref(w.progress);
        (void) sd_bus_detach_event(bus);
        return status;
}
