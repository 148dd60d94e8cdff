/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "caller.h"
#include "bus-managed-objects.h"
#include "forward.h"
#include "model.h"
#include "polkit.h"
#include "port-wait.h"
#include "sriov-worker.h"

#define POLL_INTERVAL_MS_DEFAULT 1000

/* Owns everything: the event loop, the bus, the event sources, the device
 * table and the registries of what callers make us hold. */
struct Manager {
        sd_event *event;
        sd_bus *bus;
        struct udev *udev;

        Device **devices; /* sorted by name */
        size_t n_devices;
        /* Devices with a physfn (VFs). None: no PF has VFs to look for,
         * which spares every VirtualFunctions a walk of all devices. A
         * device keeps its physfn while it is in the array: a change of
         * it is a removal and an insertion. */
        size_t n_virtual_functions;

        uint32_t poll_interval_ms;
        sd_event_source *poll_event;
        unsigned poll_ticks;
        BatchRead *poll_reads; /* the poll's buffers, allocated on its first tick */

        /* Property changes are collected on the objects and emitted from here, once per iteration. */
        sd_event_source *emit_event;
        bool devices_changed;

        struct udev_monitor *monitor;
        sd_event_source *monitor_event;

        int rtnl_fd;
        sd_event_source *rtnl_event;

        PortWaitRegistry port_waits;

        /* GetManagedObjects calls, their replies built a slice at a time. */
        ManagedObjectsQueue managed_objects;

        /* Heap pages freed by a burst of work (a big GetManagedObjects reply, a
         * rescan) go back to the kernel after it, at most every few seconds. */
        sd_event_source *trim_post;
        uint64_t last_trim_usec;

        /* Who calls (uid per unique name) and when a caller leaves the bus. */
        CallerRegistry callers;
        PolkitRegistry polkit;
        SriovJobRegistry sriov_jobs;
        CounterReader *counter_reader; /* GetCounters: created by the first call */

        /* SIGTERM: held calls are answered, new ones refused; running VF
         * changes get SRIOV_STOP_TIMEOUT_USEC to finish. */
        bool stopping;
        sd_event_source *stop_timer;
        sd_event_source *stop_post;

        /* A read failed for lack of memory or descriptors: a full rescan is owed. */
        bool resync_pending;
};

int manager_new(Manager **ret);
Manager *manager_free(Manager *m);
static inline void manager_freep(Manager **m) {
        manager_free(*m);
}

/* Reads the whole model from sysfs; before the bus name is taken. */
int manager_load(Manager *m);

/* Connects to the system bus, publishes the objects, takes the name. */
int manager_connect_bus(Manager *m);

/* Starts the udev monitor, rtnetlink and the poll timer. */
int manager_start_event_sources(Manager *m);

Device *manager_find_device(Manager *m, const char *name);

/* On SIGTERM: answers every held call with an error, and ends the event
 * loop once no VF change runs, SRIOV_STOP_TIMEOUT_USEC at the latest. */
int manager_stop(Manager *m);

/* SR-IOV relations between published devices, through the PCI functions:
 * the first device (by name) on a VF's PF, or NULL; the i-th device (by
 * name) on a VF of the PF d, counting from *i, or NULL when there is none. */
Device *manager_find_physical_function(Manager *m, const Device *vf);
Device *manager_next_virtual_function(Manager *m, const Device *pf, size_t *i);

/* Re-reads everything and publishes the differences. */
int manager_rescan(Manager *m);

/* A sysfs read failed with errno_is_resource(error): what is published is
 * kept, and a full rescan follows on the next event (udev, rtnetlink, or the
 * poll's sweep at the latest). Logs once per episode. */
void manager_defer_resync(Manager *m, int error, const char *what);
void manager_retry_resync(Manager *m);

/* Re-reads one device (after an add/change uevent); a device that is gone
 * from sysfs is removed. */
int manager_reload_device(Manager *m, const char *syspath, const char *name);
void manager_remove_device(Manager *m, const char *name);

/* Re-reads a port's link (port_refresh_link()) and records what changed
 * for emission; a State or PhysState change also moves StateChangedUsec. A
 * lack of resources defers to a resync (manager_defer_resync). */
int manager_refresh_port(Manager *m, Port *p);

/* Records changed PROPERTY_BIT(NETDEV_PROP_*)s and schedules their emission. */
void manager_netdev_changed(Manager *m, NetDev *n, uint32_t mask);

/* The PCI function at pci_path (a PF) has num_vfs VFs now: every device on
 * it publishes the count. */
void manager_set_num_vfs(Manager *m, const char *pci_path, uint32_t num_vfs);
