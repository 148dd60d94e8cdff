/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "model.h"
#include "polkit.h"

#define POLL_INTERVAL_MS_DEFAULT 1000

typedef struct PortWaiter PortWaiter;
typedef struct SriovJob SriovJob;
typedef struct CounterReader CounterReader;

/* Owns everything: the event loop, the bus, the event sources and the
 * device table. */
typedef struct Manager {
        sd_event *event;
        sd_bus *bus;
        struct udev *udev;

        Device **devices; /* sorted by name */
        size_t n_devices;

        uint32_t poll_interval_ms;
        sd_event_source *poll_event;
        unsigned poll_ticks;

        /* Property changes are collected on the objects and emitted from here, once per iteration. */
        sd_event_source *emit_event;
        bool devices_changed;

        struct udev_monitor *monitor;
        sd_event_source *monitor_event;

        int rtnl_fd;
        sd_event_source *rtnl_event;

        PortWaiter *waiters;
        unsigned n_waiters;

        /* Heap pages freed by a burst of work (a big GetManagedObjects reply, a
         * rescan) go back to the kernel after it, at most every few seconds. */
        sd_event_source *trim_post;
        uint64_t last_trim_usec;

        PolkitRegistry polkit;
        SriovJob *sriov_jobs;
        CounterReader *counter_reader; /* GetCounters: created by the first call */

        /* A read failed for lack of memory or descriptors: a full rescan is owed. */
        bool resync_pending;
} Manager;

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

/* Records changed PORT_* bits on a port (and the state timestamp) and
 * schedules their emission. */
void manager_port_changed(Manager *m, Port *p, uint32_t mask);
void manager_netdev_changed(Manager *m, Device *d, NetDev *n, uint32_t mask);

/* port_refresh_link() and manager_port_changed(); a lack of resources
 * defers to a resync (manager_defer_resync). */
int manager_refresh_port(Manager *m, Port *p);
void manager_sriov_changed(Manager *m, Device *d, uint32_t mask);

/* poll.c */
int manager_update_poll(Manager *m);

/* udev-monitor.c */
int manager_start_udev_monitor(Manager *m);

/* netlink.c */
int manager_start_rtnl(Manager *m);
void manager_link_event(Manager *m, const char *ifname);

/* port-wait.c */
int manager_add_waiter(Manager *m, sd_bus_message *call, const Port *p, const char *state, uint64_t timeout_usec);
void manager_check_waiters(Manager *m);
void manager_fail_waiters(Manager *m, const char *device_name);
void manager_free_waiters(Manager *m);

/* sriov-worker.c */
int manager_start_sriov_job(Manager *m, sd_bus_message *call, const Device *d, uint32_t count);
bool manager_sriov_job_running(Manager *m, const char *device_path);
void manager_free_sriov_jobs(Manager *m);
