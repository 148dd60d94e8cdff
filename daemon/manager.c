/* SPDX-License-Identifier: MIT */
#include "manager.h"

#include <systemd/sd-id128.h>

#include <malloc.h>
#include <time.h>

#include "batch-read.h"
#include "enumerate.h"
#include "log.h"
#include "netlink.h"
#include "poll.h"
#include "properties.h"
#include "time-util.h"
#include "udev-monitor.h"
#include "util.h"
#include "verbs-events.h"

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
        /* sd-event spreads timers by the boot ID, read from /proc when the first
         * timer is armed. Read it now, at start: later, the loop would open a
         * file while a worker may be stuck in a driver's write, and under an
         * LD_PRELOAD that serialises open() (umockdev's) it would wait for it. */
        (void) sd_id128_get_boot(&(sd_id128_t){});
        m->udev = udev_new();
        if (!m->udev)
                return -ENOMEM;

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        verbs_events_free(m);
        sd_event_source_disable_unref(m->poll_event);
        batch_read_free(m->poll_reads);
        sd_event_source_disable_unref(m->monitor_event);
        sd_event_source_disable_unref(m->rtnl_event);
        if (m->rtnl_fd >= 0)
                close(m->rtnl_fd);
        udev_monitor_unref(m->monitor);
        device_array_free(m->devices, m->n_devices);
        udev_unref(m->udev);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}

void manager_set_events(Manager *m, const ModelEvents *events, void *userdata) {
        assert(m);
        m->events = events ? *events : (ModelEvents){};
        m->events_userdata = userdata;
}

/* The one way out of the model: every change of what is published goes
 * through here, after the object's pending mask took it. */
static void manager_changed(Manager *m, ModelObjectKind kind, void *object, uint32_t mask) {
        if (m->events.changed)
                m->events.changed(kind, object, mask, m->events_userdata);
}

static void manager_mark(Manager *m, ModelObjectKind kind, void *object, uint32_t *dirty, uint32_t mask) {
        if (mask == 0)
                return;
        *dirty |= mask;
        manager_changed(m, kind, object, mask);
}

int manager_load(Manager *m) {
        int r;

        assert(m);
        assert(m->n_devices == 0);

        r = enumerate_devices(m->udev, &m->devices, &m->n_devices);
        if (r < 0)
                return r;
        for (size_t i = 0; i < m->n_devices; i++) {
                m->devices[i]->manager = m;
                m->n_virtual_functions += !!*m->devices[i]->physfn_path;
        }
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

Device *manager_find_physical_function(Manager *m, const Device *vf) {
        assert(m);
        assert(vf);

        if (!*vf->physfn_path)
                return NULL;
        for (size_t i = 0; i < m->n_devices; i++)
                if (streq(m->devices[i]->device_path, vf->physfn_path))
                        return m->devices[i];
        return NULL;
}

Device *manager_next_virtual_function(Manager *m, const Device *pf, size_t *i) {
        assert(m);
        assert(pf);
        assert(i);

        /* A VF has no VFs of its own. */
        if (!*pf->device_path || *pf->physfn_path || m->n_virtual_functions == 0)
                return NULL;
        for (; *i < m->n_devices; (*i)++)
                if (streq(m->devices[*i]->physfn_path, pf->device_path))
                        return m->devices[(*i)++];
        return NULL;
}

/* d comes or goes: the devices it is a VF or a PF of publish their side of
 * the relation (a VF's RDMA device may appear long after its PF's). */
static void manager_mark_related(Manager *m, const Device *d) {
        for (size_t i = 0; i < m->n_devices; i++) {
                Device *o = m->devices[i];

                if (o == d)
                        continue;
                if (*d->physfn_path && streq(o->device_path, d->physfn_path))
                        manager_mark(m, MODEL_DEVICE, o, &o->dirty, PROPERTY_BIT(DEVICE_PROP_VIRTUAL_FUNCTIONS));
                if (*d->device_path && streq(o->physfn_path, d->device_path))
                        manager_mark(m, MODEL_DEVICE, o, &o->dirty, PROPERTY_BIT(DEVICE_PROP_PHYSICAL_FUNCTION));
        }
}

int manager_start_event_sources(Manager *m) {
        int r;

        assert(m);
        r = udev_monitor_start(m);
        if (r < 0)
                return r;
        return rtnl_start(m);
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
        m->n_virtual_functions += !!*d->physfn_path;
        d->manager = m;

        log_info("%s: added (%zu port%s, %s).", d->name, d->n_ports, d->n_ports == 1 ? "" : "s", d->transport);
        if (m->events.device_added)
                m->events.device_added(d, m->events_userdata);
        manager_mark_related(m, d);
        manager_changed(m, MODEL_DEVICE_SET, NULL, 0);
        verbs_device_added(m, d);
        return 0;
}

static void manager_remove_device_at(Manager *m, size_t i) {
        Device *d = m->devices[i];

        log_info("%s: removed.", d->name);
        /* First: a context held open would stall the kernel's unregistration. */
        verbs_device_removing(m, d);
        if (m->events.device_removing)
                m->events.device_removing(d, m->events_userdata);
        memmove(m->devices + i, m->devices + i + 1, (m->n_devices - i - 1) * sizeof(Device *));
        m->n_devices--;
        m->n_virtual_functions -= !!*d->physfn_path;
        manager_mark_related(m, d);
        device_free(d);
        manager_changed(m, MODEL_DEVICE_SET, NULL, 0);
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

/* "journalctl MESSAGE_ID=..." finds every link state change of every port. */
#define RDMAD_MESSAGE_PORT_STATE "MESSAGE_ID=6c05c1e209f7416285733a4ed371ba8a"

/* One journal entry per observed change, with fields to select by, so that
 * "journalctl RDMA_DEVICE=mlx4_0" is the link history. */
static void port_log_state_change(const Port *p, const char *old_state_name) {
        char device[256], port[32], state[64], phys_state[64];

        snprintf(device, sizeof(device), "RDMA_DEVICE=%s", p->device->name);
        snprintf(port, sizeof(port), "RDMA_PORT=%u", p->number);
        snprintf(state, sizeof(state), "RDMA_STATE=%s", p->state_name);
        snprintf(phys_state, sizeof(phys_state), "RDMA_PHYS_STATE=%s", p->phys_state_name);
        log_struct(LOG_INFO, (const char *const[]){ RDMAD_MESSAGE_PORT_STATE, device, port, state, phys_state, NULL },
                   "%s port %u: %s -> %s (%s).", p->device->name, p->number, old_state_name, p->state_name,
                   p->phys_state_name);
}

/* A State or PhysState change also moves StateChangedUsec, and is logged; a
 * State change counts in StateChanges. */
static uint32_t port_stamp(Port *p, uint32_t mask, const char *old_state_name) {
        if (mask & PORT_STATE_MASK) {
                p->state_changed_usec = now_usec(CLOCK_REALTIME);
                mask |= PROPERTY_BIT(PORT_PROP_STATE_CHANGED_USEC);
                port_log_state_change(p, old_state_name);
        }
        if (mask &
            (PROPERTY_BIT(PORT_PROP_STATE) | PROPERTY_BIT(PORT_PROP_STATE_NUM) | PROPERTY_BIT(PORT_PROP_STATE_NAME))) {
                p->state_changes++;
                mask |= PROPERTY_BIT(PORT_PROP_STATE_CHANGES);
        }
        return mask;
}

static int manager_refresh_port_with(Manager *m, Port *p, int (*refresh)(Port *p, uint32_t *ret_changed)) {
        char old_state_name[64];
        uint32_t changed;
        int r;

        assert(m);
        assert(p);

        /* The old name goes with the old string when the port is re-derived. */
        snprintf(old_state_name, sizeof(old_state_name), "%s", p->state_name);
        r = refresh(p, &changed);
        if (errno_is_resource(r))
                manager_defer_resync(m, r, p->device->name);
        if (r < 0)
                return r;
        if (changed != 0)
                manager_mark(m, MODEL_PORT, p, &p->dirty, port_stamp(p, changed, old_state_name));
        /* The port's files are no snapshot: phys_state, rate or the LIDs may
         * settle a moment after the state. The poll's next tick re-reads the
         * port once more, instead of leaving them stale until its sweep. */
        if (changed & PROPERTY_BIT(PORT_PROP_STATE))
                p->poll_settle = true;
        /* Left ACTIVE for INIT or ARMED, or boosted: the poll's timer may sleep till its slow round. */
        if (poll_port_every_tick(p))
                poll_wake(m);
        return 0;
}

int manager_refresh_port(Manager *m, Port *p) {
        return manager_refresh_port_with(m, p, port_refresh_link);
}

int manager_sweep_port(Manager *m, Port *p) {
        return manager_refresh_port_with(m, p, port_refresh_unreported);
}

int manager_refresh_port_gids(Manager *m, Port *p) {
        return manager_refresh_port_with(m, p, port_refresh_gids);
}

void manager_set_verbs_covered(Manager *m, Device *d, bool covered) {
        assert(m);
        assert(d);

        d->verbs_covered = covered;
        for (size_t i = 0; i < d->n_ports; i++) {
                Port *p = &d->ports[i];
                const char *e = port_link_events(p);

                if (!streq_ptr(p->link_events, e)) {
                        p->link_events = e;
                        manager_mark(m, MODEL_PORT, p, &p->dirty, PROPERTY_BIT(PORT_PROP_LINK_EVENTS));
                }
        }
        /* Polled at the normal period again. */
        if (!covered)
                poll_wake(m);
}

void manager_netdev_changed(Manager *m, NetDev *n, uint32_t mask) {
        assert(m);
        assert(n);

        manager_mark(m, MODEL_NETDEV, n, &n->dirty, mask);
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
                manager_mark(m, MODEL_SRIOV, d, &d->sriov_dirty, PROPERTY_BIT(SRIOV_PROP_NUM_VFS));
        }
}

/* A new snapshot of a device that is already published. Objects whose
 * identity changed are re-announced; everything else is reported as changes
 * of the new snapshot, which also carries what the old had pending. */
static void manager_replace_device_at(Manager *m, size_t index, Device *new) {
        Device *old = m->devices[index];
        uint32_t device_mask, sriov_mask;
        _cleanup_free_ uint32_t *port_masks = NULL, *netdev_masks = NULL;

        if (device_identity_changed(old, new)) {
                manager_remove_device_at(m, index);
                if (manager_insert_device(m, new) < 0) {
                        log_oom();
                        device_free(new);
                }
                return;
        }

        port_masks = calloc(new->n_ports + 1, sizeof(uint32_t));
        netdev_masks = calloc(new->n_netdevs + 1, sizeof(uint32_t));
        if (!port_masks || !netdev_masks) {
                /* Keep the old snapshot: the next event or the sweep re-reads it. */
                manager_defer_resync(m, -ENOMEM, new->name);
                device_free(new);
                return;
        }

        /* Netdevs that went away: reported while the old snapshot is findable. */
        for (size_t i = 0; i < old->n_netdevs; i++)
                if (!device_find_netdev(new, old->netdevs[i].name) && m->events.netdev_removing)
                        m->events.netdev_removing(&old->netdevs[i], m->events_userdata);

        device_mask = device_changed_mask(old, new);
        sriov_mask = sriov_changed_mask(old, new);
        new->dirty = old->dirty;
        new->sriov_dirty = old->sriov_dirty;
        new->verbs_covered = old->verbs_covered;
        for (size_t i = 0; i < new->n_ports; i++) {
                Port *p = &new->ports[i], *o = &old->ports[i];

                p->link_events = port_link_events(p);
                p->state_changed_usec = o->state_changed_usec;
                p->state_changes = o->state_changes;
                p->dirty = o->dirty;
                port_masks[i] = port_stamp(p, port_changed_mask(o, p), o->state_name);
        }
        for (size_t i = 0; i < new->n_netdevs; i++) {
                const NetDev *o = device_find_netdev(old, new->netdevs[i].name);
                if (o) {
                        new->netdevs[i].dirty = o->dirty;
                        netdev_masks[i] = netdev_changed_mask(o, &new->netdevs[i]);
                }
        }

        new->manager = m;
        m->devices[index] = new;

        /* Netdevs that are new: reported now that the new snapshot is findable. */
        for (size_t i = 0; i < new->n_netdevs; i++)
                if (!device_find_netdev(old, new->netdevs[i].name) && m->events.netdev_added)
                        m->events.netdev_added(&new->netdevs[i], m->events_userdata);
        device_free(old);

        manager_mark(m, MODEL_DEVICE, new, &new->dirty, device_mask);
        manager_mark(m, MODEL_SRIOV, new, &new->sriov_dirty, sriov_mask);
        for (size_t i = 0; i < new->n_ports; i++)
                manager_mark(m, MODEL_PORT, &new->ports[i], &new->ports[i].dirty, port_masks[i]);
        for (size_t i = 0; i < new->n_netdevs; i++)
                manager_mark(m, MODEL_NETDEV, &new->netdevs[i], &new->netdevs[i].dirty, netdev_masks[i]);
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
                log_error_errno(error,
                                "%s: cannot read sysfs: %m. Keeping the last known state; retrying on the next event.",
                                what);
        m->resync_pending = true;
}

void manager_retry_resync(Manager *m) {
        if (m->resync_pending)
                (void) manager_rescan(m); /* clears it, or fails quietly: the episode is logged */
}
