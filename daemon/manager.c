/* SPDX-License-Identifier: MIT */
#include "manager.h"

#include <malloc.h>
#include <time.h>

#include "batch-read.h"
#include "bus-objects.h"
#include "bus-util.h"
#include "enumerate.h"
#include "log.h"
#include "netlink.h"
#include "poll.h"
#include "properties.h"
#include "udev-monitor.h"
#include "util.h"

static const char *port_state_lookup(const char *device, uint32_t port, void *userdata);
static void on_sriov_job_done(const char *device_path, uint32_t num_vfs, void *userdata);

int manager_new(Manager **ret) {
        _cleanup_(manager_freep) Manager *m = NULL;
        int r;

        m = calloc(1, sizeof(Manager));
        if (!m)
                return -ENOMEM;
        m->poll_interval_ms = POLL_INTERVAL_MS_DEFAULT;
        m->rtnl_fd = -EBADF;

        r = sd_event_default(&m->event);
        if (r < 0)
                return r;
        /* WATCHDOG=1 from the loop itself, at half of WatchdogSec=, when systemd asks for it. */
        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                return r;
        m->udev = udev_new();
        if (!m->udev)
                return -ENOMEM;
        port_wait_registry_init(&m->port_waits, m->event, port_state_lookup, m);
        sriov_job_registry_init(&m->sriov_jobs, m->event, on_sriov_job_done, m);

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        sriov_job_registry_clear(&m->sriov_jobs);
        port_wait_registry_clear(&m->port_waits);
        polkit_registry_clear(&m->polkit);
        sd_event_source_disable_unref(m->emit_event);
        sd_event_source_disable_unref(m->trim_post);
        sd_event_source_disable_unref(m->poll_event);
        batch_read_free(m->poll_reads);
        sd_event_source_disable_unref(m->monitor_event);
        sd_event_source_disable_unref(m->rtnl_event);
        if (m->rtnl_fd >= 0)
                close(m->rtnl_fd);
        udev_monitor_unref(m->monitor);
        if (m->bus) {
                sd_bus_flush(m->bus);
                sd_bus_flush_close_unref(m->bus);
        }
        device_array_free(m->devices, m->n_devices);
        udev_unref(m->udev);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}

int manager_load(Manager *m) {
        int r;

        assert(m);
        assert(m->n_devices == 0);

        r = enumerate_devices(m->udev, &m->devices, &m->n_devices);
        if (r < 0)
                return r;
        for (size_t i = 0; i < m->n_devices; i++)
                m->devices[i]->manager = m;
        log_info("Found %zu RDMA device%s.", m->n_devices, m->n_devices == 1 ? "" : "s");
        /* The enumeration's temporaries are gone: give their pages back. */
        (void) malloc_trim(0);
        return 0;
}

/* Where name is or would go in a sorted device array. */
static size_t devices_lower_bound(Device *const *devices, size_t n, const char *name) {
        size_t lo = 0, hi = n;

        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (strcmp(devices[mid]->name, name) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* The index of the device called name in a sorted array, or n. */
static size_t devices_index(Device *const *devices, size_t n, const char *name) {
        size_t i = devices_lower_bound(devices, n, name);
        return i < n && streq(devices[i]->name, name) ? i : n;
}

Device *manager_find_device(Manager *m, const char *name) {
        size_t i;

        assert(m);
        assert(name);
        i = devices_index(m->devices, m->n_devices, name);
        return i < m->n_devices ? m->devices[i] : NULL;
}

static const char *port_state_lookup(const char *device, uint32_t port, void *userdata) {
        Device *d = manager_find_device(userdata, device);
        const Port *p = d ? device_find_port(d, port) : NULL;

        return p ? p->state_name : NULL;
}

#define TRIM_INTERVAL_USEC (5 * 1000000ULL)

/* After an iteration that did something (never when idle: no timer of its own). */
static int on_trim_post(sd_event_source *s, void *userdata) {
        Manager *m = userdata;
        uint64_t now;

        if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0 || now < m->last_trim_usec + TRIM_INTERVAL_USEC)
                return 0;
        m->last_trim_usec = now;
        (void) malloc_trim(0);
        return 0;
}

int manager_start_event_sources(Manager *m) {
        int r;

        assert(m);
        r = udev_monitor_start(m);
        if (r < 0)
                return r;
        return rtnl_start(m);
}

int manager_connect_bus(Manager *m) {
        int r;

        assert(m);
        assert(!m->bus);

        r = sd_bus_open_system_with_description(&m->bus, "rdmad");
        if (r < 0)
                return log_error_errno(r, "Failed to connect to the system bus: %m");

        r = bus_objects_register(m);
        if (r < 0)
                return r;

        r = sd_event_add_post(m->event, &m->trim_post, on_trim_post, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add the trim source: %m");

        r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Failed to attach the bus to the event loop: %m");

        /* Losing the bus ends the loop with a failure, so systemd restarts us. */
        r = sd_bus_set_exit_on_disconnect(m->bus, true);
        if (r < 0)
                return log_error_errno(r, "Failed to set exit on disconnect: %m");

        /* The model is complete: only now may clients find us. */
        r = sd_bus_request_name(m->bus, RDMAD_BUS_NAME, 0);
        if (r < 0)
                return log_error_errno(r, "Failed to acquire the name %s: %m", RDMAD_BUS_NAME);

        return 0;
}

static int manager_insert_device(Manager *m, Device *d) {
        size_t i = devices_lower_bound(m->devices, m->n_devices, d->name);
        Device **devices;

        devices = reallocarray(m->devices, m->n_devices + 1, sizeof(Device *));
        if (!devices)
                return -ENOMEM;
        m->devices = devices;
        memmove(m->devices + i + 1, m->devices + i, (m->n_devices - i) * sizeof(Device *));
        m->devices[i] = d;
        m->n_devices++;
        d->manager = m;

        log_info("%s: added (%zu port%s, %s).", d->name, d->n_ports, d->n_ports == 1 ? "" : "s", d->transport);
        bus_objects_send_device_added(m, d);
        m->devices_changed = true;
        bus_objects_schedule_emit(m);
        return 0;
}

static void manager_remove_device_at(Manager *m, size_t i) {
        Device *d = m->devices[i];

        log_info("%s: removed.", d->name);
        port_wait_fail_device(&m->port_waits, d->name);
        bus_objects_send_device_removed(m, d);
        memmove(m->devices + i, m->devices + i + 1, (m->n_devices - i - 1) * sizeof(Device *));
        m->n_devices--;
        device_free(d);
        m->devices_changed = true;
        bus_objects_schedule_emit(m);
}

void manager_remove_device(Manager *m, const char *name) {
        size_t i;

        assert(m);
        assert(name);
        i = devices_index(m->devices, m->n_devices, name);
        if (i < m->n_devices) {
                manager_remove_device_at(m, i);
                (void) poll_update(m);
        }
}

static uint64_t now_realtime_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

/* A State or PhysState change also moves StateChangedUsec. */
static uint32_t port_stamp(Port *p, uint32_t mask) {
        if (mask & PORT_STATE_MASK) {
                p->state_changed_usec = now_realtime_usec();
                mask |= PROPERTY_BIT(PORT_PROP_STATE_CHANGED_USEC);
        }
        return mask;
}

int manager_refresh_port(Manager *m, Port *p) {
        uint32_t changed;
        int r;

        assert(m);
        assert(p);

        r = port_refresh_link(p, &changed);
        if (errno_is_resource(r))
                manager_defer_resync(m, r, p->device->name);
        if (r < 0)
                return r;
        if (changed != 0) {
                p->dirty |= port_stamp(p, changed);
                bus_objects_schedule_emit(m);
        }
        return 0;
}

void manager_netdev_changed(Manager *m, NetDev *n, uint32_t mask) {
        assert(m);
        assert(n);

        if (mask == 0)
                return;
        n->dirty |= mask;
        bus_objects_schedule_emit(m);
}

void manager_set_num_vfs(Manager *m, const char *pci_path, uint32_t num_vfs) {
        assert(m);
        assert(pci_path);

        for (size_t i = 0; i < m->n_devices; i++) {
                Device *d = m->devices[i];

                if (!d->sriov_capable || !streq(d->device_path, pci_path) || d->num_vfs == num_vfs)
                        continue;
                log_info("%s: %u VFs (was %u).", d->name, num_vfs, d->num_vfs);
                d->num_vfs = num_vfs;
                d->sriov_dirty |= PROPERTY_BIT(SRIOV_PROP_NUM_VFS);
                bus_objects_schedule_emit(m);
        }
}

static void on_sriov_job_done(const char *device_path, uint32_t num_vfs, void *userdata) {
        manager_set_num_vfs(userdata, device_path, num_vfs);
}

/* A new snapshot of a device that is already published. Objects whose
 * identity changed are re-announced; everything else becomes dirty bits on
 * the new snapshot, emitted later with whatever was pending on the old. */
static void manager_replace_device_at(Manager *m, size_t index, Device *new) {
        Device *old = m->devices[index];
        bool pending = false;

        if (device_identity_changed(old, new)) {
                manager_remove_device_at(m, index);
                if (manager_insert_device(m, new) < 0) {
                        log_oom();
                        device_free(new);
                }
                return;
        }

        /* Netdevs that went away: announced while the old snapshot is findable. */
        for (size_t i = 0; i < old->n_netdevs; i++)
                if (!device_find_netdev(new, old->netdevs[i].name))
                        bus_objects_send_netdev_removed(m, &old->netdevs[i]);

        new->dirty = old->dirty | device_changed_mask(old, new);
        new->sriov_dirty = old->sriov_dirty | sriov_changed_mask(old, new);
        for (size_t i = 0; i < new->n_ports; i++) {
                Port *p = &new->ports[i], *o = &old->ports[i];

                p->state_changed_usec = o->state_changed_usec;
                p->dirty = o->dirty | port_stamp(p, port_changed_mask(o, p));
                pending = pending || p->dirty;
        }
        for (size_t i = 0; i < new->n_netdevs; i++) {
                const NetDev *o = device_find_netdev(old, new->netdevs[i].name);
                if (o) {
                        new->netdevs[i].dirty = o->dirty | netdev_changed_mask(o, &new->netdevs[i]);
                        pending = pending || new->netdevs[i].dirty;
                }
        }

        new->manager = m;
        m->devices[index] = new;

        /* Netdevs that are new: announced now that the new snapshot is findable. */
        for (size_t i = 0; i < new->n_netdevs; i++)
                if (!device_find_netdev(old, new->netdevs[i].name))
                        bus_objects_send_netdev_added(m, &new->netdevs[i]);
        device_free(old);

        if (pending || new->dirty || new->sriov_dirty)
                bus_objects_schedule_emit(m);
}

int manager_reload_device(Manager *m, const char *syspath, const char *name) {
        Device *d = NULL;
        size_t i;
        int r;

        assert(m);
        assert(syspath);
        assert(name);

        r = device_load(syspath, name, &d);
        if (errno_is_resource(r)) {
                manager_defer_resync(m, r, name);
                return r;
        }
        if (r < 0) {
                /* Gone again before we could read it: the remove event follows, or it never existed. */
                log_debug_errno(r, "%s: cannot load %s: %m", name, syspath);
                manager_remove_device(m, name);
                return 0;
        }

        i = devices_index(m->devices, m->n_devices, name);
        if (i < m->n_devices)
                manager_replace_device_at(m, i, d);
        else if (manager_insert_device(m, d) < 0) {
                device_free(d);
                return log_oom();
        }
        return poll_update(m);
}

int manager_rescan(Manager *m) {
        Device **new = NULL, **old = NULL;
        size_t n_new = 0, n_old;
        int r;

        assert(m);
        n_old = m->n_devices;

        r = enumerate_devices(m->udev, &new, &n_new);
        if (errno_is_resource(r))
                manager_defer_resync(m, r, "Rescan");
        if (r < 0)
                return r;

        /* Removals first, while the old objects can be found; then
         * replacements and additions. */
        old = calloc(n_old + 1, sizeof(Device *));
        if (!old) {
                device_array_free(new, n_new);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n_old; i++)
                old[i] = m->devices[i];
        for (size_t i = 0; i < n_old; i++)
                if (devices_index(new, n_new, old[i]->name) == n_new)
                        manager_remove_device(m, old[i]->name);
        free(old);

        for (size_t i = 0; i < n_new; i++) {
                size_t j = devices_index(m->devices, m->n_devices, new[i]->name);

                if (j < m->n_devices)
                        manager_replace_device_at(m, j, new[i]);
                else if (manager_insert_device(m, new[i]) < 0) {
                        log_oom();
                        device_free(new[i]);
                }
        }
        free(new);
        (void) malloc_trim(0);
        if (m->resync_pending) {
                m->resync_pending = false;
                log_info("Resynchronised with sysfs.");
        }
        return poll_update(m);
}

void manager_defer_resync(Manager *m, int error, const char *what) {
        assert(m);
        assert(error < 0);
        assert(what);

        if (!m->resync_pending)
                log_error_errno(error, "%s: cannot read sysfs: %m. Keeping the last known state; retrying on the next event.",
                                what);
        m->resync_pending = true;
}

void manager_retry_resync(Manager *m) {
        if (m->resync_pending)
                (void) manager_rescan(m); /* clears it, or fails quietly: the episode is logged */
}
