/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-objects.h"
#include "bus-managed-objects.h"
#include "bus-ration.h"
#include "caller.h"
#include "forward.h"
#include "manager.h"
#include "polkit.h"
#include "rescan-calls.h"
#include "port-wait.h"
#include "sriov-worker.h"

/* The model on the system bus: the connection, the objects, the emission
 * of changes, and the registries of what callers make the daemon hold.
 * bus-objects.c hears of the model (ModelEvents) and publishes it; this
 * file keeps the connection and the registries and calls neither. */
struct BusServer {
        Manager *manager; /* the model; not owned */
        sd_event *event;  /* the manager's */
        sd_bus *bus;

        /* Property changes the model reported, emitted from here once per iteration. */
        sd_event_source *emit_event;
        PendingChanges pending;
        bool devices_changed;

        PortWaitRegistry port_waits;

        /* GetManagedObjects calls, their replies built a slice at a time. */
        ManagedObjectsQueue managed_objects;
        /* Get, GetAll, Introspect and the counters of users other than root, in turns. */
        BusRation ration;

        /* Heap pages freed by a burst of work (changes of the model, counters
         * read) go back to the kernel after it, at most every few seconds; a
         * plain Get is not work, and costs no second loop iteration. */
        sd_event_source *trim_post;
        uint64_t last_trim_usec;

        /* Who calls (uid per unique name) and when a caller leaves the bus. */
        CallerRegistry callers;
        PolkitRegistry polkit;
        SriovJobRegistry sriov_jobs;
        RescanCalls rescans;           /* Rescan() calls waiting for their reads */
        CounterReader *counter_reader; /* GetCounters: created by the first call */

        /* SIGTERM: held calls are answered, new ones refused; running VF
         * changes get SRIOV_STOP_TIMEOUT_USEC to finish. */
        bool stopping;
        sd_event_source *stop_timer;
        sd_event_source *stop_post;
};

/* Sets up the registries and subscribes to the model's events; no bus yet. */
int bus_server_new(Manager *m, BusServer **ret);
BusServer *bus_server_free(BusServer *s);
static inline void bus_server_freep(BusServer **s) {
        bus_server_free(*s);
}

/* The server of the call being dispatched: what a method handler, which
 * sd-bus hands the object found, reaches the registries through (every
 * vtable is registered with the server as its userdata). */
BusServer *bus_server_current(sd_bus_message *call);

/* Work was done whose garbage the heap keeps: trimmed after it. */
void bus_server_trim_later(BusServer *s);

/* Start-up, before sysfs is read: connects to the system bus and fails
 * with -EEXIST, naming the owner, when another rdmad has the name, so that
 * a second rdmad says so at once rather than after reading all of sysfs. */
int bus_server_open(BusServer *s);

/* After the objects are registered (bus_objects_register()): watches the
 * callers, attaches the connection to the loop and takes the name. */
int bus_server_connect(BusServer *s);

/* On SIGTERM: answers every held call with an error, and ends the event
 * loop once no VF change runs, SRIOV_STOP_TIMEOUT_USEC at the latest. */
int bus_server_stop(BusServer *s);
