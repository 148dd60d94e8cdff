/* SPDX-License-Identifier: MIT */
#include "manager.h"

#include <systemd/sd-id128.h>

#include <malloc.h>
#include <time.h>

#include "basic/log.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "device-reads.h"
#include "enumerate.h"
#include "port-history.h"
#include "properties.h"
#include "reader-pool.h"

int manager_new(Manager **ret) {
        _cleanup_(manager_freep) Manager *m = NULL;
        int r;

        m = calloc(1, sizeof(Manager));
        if (!m)
                return -ENOMEM;
        m->poll_interval_ms = POLL_INTERVAL_MS_DEFAULT;
        m->read_timeout_usec = READ_TIMEOUT_USEC_DEFAULT;

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
        if (m->sources.detach)
                m->sources.detach(m->sources_userdata);
        for (size_t i = 0; i < m->n_devices; i++)
                m->devices[i]->lane = reader_lane_unref(m->devices[i]->lane);
        /* Reads still running are left to their threads. */
        reader_pool_free(m->readers);
        history_store_free(m->history);
        strv_free(m->start_stuck);
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

/* Every change of a published object's properties, and every change of
 * the device set, goes out through here with its mask; who publishes keeps
 * what is pending. Objects coming and going (device_added/_removing,
 * netdev_added/_removing) and a finished rescan (rescanned) have their own
 * events, called where they happen. */
static void manager_changed(Manager *m, ModelObjectKind kind, void *object, PropertyMask mask) {
        if (m->events.changed)
                m->events.changed(kind, object, mask, m->events_userdata);
}

static void manager_mark(Manager *m, ModelObjectKind kind, void *object, PropertyMask mask) {
        if (mask != 0)
                manager_changed(m, kind, object, mask);
}

static void manager_on_stuck(const char *name, const char *reason, void *userdata);
static void manager_on_unstuck(const char *name, void *userdata);

int manager_start_readers(Manager *m, uint64_t read_timeout_usec) {
        static const ReaderPoolEvents events = {
                .stuck = manager_on_stuck,
                .unstuck = manager_on_unstuck,
        };

        assert(m);
        assert(!m->readers);
        m->read_timeout_usec = read_timeout_usec;
        return reader_pool_new(m->event, read_timeout_usec, &events, m, &m->readers);
}

static int manager_submit(Manager *m, ReaderLane *lane, DeviceRead *r);
static size_t devices_lower_bound_public(Manager *m, const char *name);

/* With readers: every device read on its lane, at most the read timeout
 * waited for; what has not answered by then is published as a stand-in. */
static int manager_load_on_readers(Manager *m) {
        _cleanup_strv_free_ char **paths = NULL;
        uint64_t until;
        size_t n;
        int r;

        r = enumerate_device_paths(m->udev, &paths, &n);
        if (r < 0)
                return r;

        m->starting = true;
        for (size_t i = 0; i < n; i++) {
                DeviceRead *dr = device_read_new(m, DEVICE_READ_LOAD, NULL, paths[2 * i + 1], paths[2 * i]);
                ReaderLane *lane = reader_pool_lane(m->readers, paths[2 * i + 1]);

                r = dr && lane ? manager_submit(m, lane, dr) : -ENOMEM;
                reader_lane_unref(lane);
                if (r < 0) {
                        m->starting = false;
                        return r;
                }
                m->start_pending++;
        }

        until = m->read_timeout_usec > 0 ? now_usec(CLOCK_MONOTONIC) + m->read_timeout_usec : UINT64_MAX;
        while (m->start_pending > 0)
                if (reader_pool_wait(m->readers, until) == -ETIME)
                        break;
        m->starting = false;

        /* Sick devices delay READY=1 by the read timeout at most: published
         * with what is known, their name and path, and read again once the
         * stuck read returns. */
        for (size_t i = 0; i < n; i++) {
                const char *name = paths[2 * i + 1], *reason = NULL;
                _cleanup_(device_freep) Device *d = NULL;
                ReaderLane *lane;
                char buf[512];
                size_t j;

                if (manager_find_device(m, name))
                        continue;
                lane = reader_pool_lane(m->readers, name);
                if (!lane)
                        return -ENOMEM;
                if (reader_lane_pending(lane) == 0) {
                        reader_lane_unref(lane); /* gone meanwhile */
                        continue;
                }
                for (j = 0; j + 1 < m->n_start_stuck; j += 2)
                        if (streq(m->start_stuck[j], name))
                                reason = m->start_stuck[j + 1];
                if (!reason) {
                        /* Queued behind stuck reads: no thread took it yet. */
                        snprintf(buf, sizeof(buf), "no answer for %.1f s",
                                 (double) m->read_timeout_usec / USEC_PER_SEC);
                        reason = buf;
                }
                r = device_new_placeholder(paths[2 * i], name, &d);
                if (r >= 0)
                        r = free_and_strdup(&d->health_reason, reason);
                if (r < 0) {
                        reader_lane_unref(lane);
                        return r;
                }
                d->health = DEVICE_HEALTH_UNRESPONSIVE;
                d->lane = lane;
                d->manager = m;
                log_struct(LOG_WARNING, (const char *const[]){ "RDMA_HEALTH=unresponsive", NULL },
                           "%s: unresponsive: %s. Publishing its name and path for now.", name, reason);
                {
                        size_t k = devices_lower_bound_public(m, name);
                        Device **devices = reallocarray(m->devices, m->n_devices + 1, sizeof(Device *));
                        if (!devices)
                                return -ENOMEM;
                        m->devices = devices;
                        memmove(m->devices + k + 1, m->devices + k, (m->n_devices - k) * sizeof(Device *));
                        m->devices[k] = TAKE_PTR(d);
                        m->n_devices++;
                }
        }
        m->start_stuck = strv_free(m->start_stuck);
        m->n_start_stuck = 0;
        return 0;
}

int manager_load(Manager *m) {
        int r;

        assert(m);
        assert(m->n_devices == 0);

        if (m->readers)
                r = manager_load_on_readers(m);
        else
                r = enumerate_devices(m->udev, &m->devices, &m->n_devices);
        if (r < 0)
                return r;
        for (size_t i = 0; i < m->n_devices; i++) {
                m->devices[i]->manager = m;
                m->n_virtual_functions += !!*m->devices[i]->physfn_path;
                device_history_load(m->history, m->devices[i]);
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

static size_t devices_lower_bound_public(Manager *m, const char *name) {
        return devices_lower_bound(m->devices, m->n_devices, name);
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
                        manager_mark(m, MODEL_DEVICE, o, PROPERTY_BIT(DEVICE_PROP_VIRTUAL_FUNCTIONS));
                if (*d->device_path && streq(o->physfn_path, d->device_path))
                        manager_mark(m, MODEL_DEVICE, o, PROPERTY_BIT(DEVICE_PROP_PHYSICAL_FUNCTION));
        }
}

void manager_set_sources(Manager *m, const ModelSources *sources, void *userdata) {
        assert(m);
        m->sources = sources ? *sources : (ModelSources){};
        m->sources_userdata = userdata;
}

static int manager_table_changed(Manager *m) {
        return m->sources.table_changed ? m->sources.table_changed(m->sources_userdata) : 0;
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
        if (m->readers && !d->lane)
                d->lane = reader_pool_lane(m->readers, d->name);
        device_history_load(m->history, d);

        log_info("%s: added (%zu port%s, %s).", d->name, d->n_ports, d->n_ports == 1 ? "" : "s", d->transport);
        if (m->events.device_added)
                m->events.device_added(d, m->events_userdata);
        manager_mark_related(m, d);
        manager_changed(m, MODEL_DEVICE_SET, NULL, 0);
        if (m->sources.device_added)
                m->sources.device_added(d, m->sources_userdata);
        return 0;
}

static void manager_remove_device_at(Manager *m, size_t i) {
        Device *d = m->devices[i];

        log_info("%s: removed.", d->name);
        /* First: a context held open would stall the kernel's unregistration. */
        if (m->sources.device_removing)
                m->sources.device_removing(d, m->sources_userdata);
        if (m->events.device_removing)
                m->events.device_removing(d, m->events_userdata);
        memmove(m->devices + i, m->devices + i + 1, (m->n_devices - i - 1) * sizeof(Device *));
        m->n_devices--;
        m->n_virtual_functions -= !!*d->physfn_path;
        manager_mark_related(m, d);
        if (d->lane) {
                /* What is still being read of it would bring it back. */
                reader_lane_cancel_all(d->lane);
                d->lane = reader_lane_unref(d->lane);
        }
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
                (void) manager_table_changed(m);
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
 * State change counts in StateChanges and goes into LinkHistory. */
static PropertyMask port_stamp(Manager *m, Port *p, PropertyMask mask, const char *old_state_name) {
        if (mask & PORT_STATE_MASK) {
                p->state_changed_usec = now_usec(CLOCK_REALTIME);
                mask |= PROPERTY_BIT(PORT_PROP_STATE_CHANGED_USEC);
                port_log_state_change(p, old_state_name);
        }
        if (mask &
            (PROPERTY_BIT(PORT_PROP_STATE) | PROPERTY_BIT(PORT_PROP_STATE_NUM) | PROPERTY_BIT(PORT_PROP_STATE_NAME))) {
                p->state_changes++;
                mask |= PROPERTY_BIT(PORT_PROP_STATE_CHANGES);
                if (m->keep_history && port_history_record(m->history, p, p->state_changed_usec, old_state_name) >= 0)
                        mask |= PROPERTY_BIT(PORT_PROP_LINK_HISTORY);
        }
        return mask;
}

/* What a port's re-read changed, applied: marked for emission, stamped. */
static void manager_port_changed(Manager *m, Port *p, PropertyMask changed, const char *old_state_name) {
        if (changed != 0)
                manager_mark(m, MODEL_PORT, p, port_stamp(m, p, changed, old_state_name));
        if (m->sources.port_changed)
                m->sources.port_changed(p, changed, m->sources_userdata);
}

bool manager_device_readable(Manager *m, const Device *d) {
        if (d->placeholder || d->health == DEVICE_HEALTH_UNRESPONSIVE)
                return false;
        return !d->lane || !reader_lane_stuck(d->lane);
}

static int manager_read_ports(Manager *m, Device *d, const PollTurn *turns, size_t n, bool from_poll) {
        DeviceRead *r;

        if (!manager_device_readable(m, d))
                return 0;
        r = device_read_new(m, DEVICE_READ_PORTS, d, NULL, NULL);
        if (!r)
                return -ENOMEM;
        r->from_poll = from_poll;
        for (size_t i = 0; i < n; i++)
                if (!device_read_add_port(r, turns[i].port, turns[i].what)) {
                        device_read_free(r);
                        return -ENOMEM;
                }
        return manager_submit(m, d->lane, r);
}

int manager_poll_device(Manager *m, Device *d, const PollTurn *turns, size_t n) {
        int r;

        assert(m);
        assert(d);
        if (n == 0 || !manager_device_readable(m, d))
                return 0;
        r = manager_read_ports(m, d, turns, n, true);
        /* Queued on its lane: the poll hears of it again in manager_apply(). */
        return r < 0 ? r : m->readers && d->lane ? 1 : 0;
}

int manager_refresh_port(Manager *m, Port *p) {
        assert(m);
        assert(p);
        return manager_read_ports(m, p->device, &(PollTurn){ p, PORT_READ_LINK }, 1, false);
}

int manager_refresh_port_gids(Manager *m, Port *p) {
        assert(m);
        assert(p);
        return manager_read_ports(m, p->device, &(PollTurn){ p, PORT_READ_GIDS }, 1, false);
}

int manager_refresh_netdev(Manager *m, NetDev *n) {
        DeviceRead *r;

        assert(m);
        assert(n);
        if (!manager_device_readable(m, n->device))
                return 0;
        r = device_read_new(m, DEVICE_READ_NETDEV, n->device, NULL, NULL);
        if (!r || !(r->netdev = strdup(n->name))) {
                device_read_free(r);
                return -ENOMEM;
        }
        return manager_submit(m, n->device->lane, r);
}

int manager_read_num_vfs(Manager *m, const char *pci_path) {
        DeviceRead *r;

        assert(m);
        assert(pci_path);
        /* On the lane of the first device of that PCI function. */
        for (size_t i = 0; i < m->n_devices; i++) {
                Device *d = m->devices[i];

                if (!d->sriov_capable || !streq(d->device_path, pci_path))
                        continue;
                if (!manager_device_readable(m, d))
                        return 0;
                r = device_read_new(m, DEVICE_READ_NUM_VFS, d, NULL, NULL);
                if (!r || !(r->pci_path = strdup(pci_path))) {
                        device_read_free(r);
                        return -ENOMEM;
                }
                return manager_submit(m, d->lane, r);
        }
        return 0;
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
                        manager_mark(m, MODEL_PORT, p, PROPERTY_BIT(PORT_PROP_LINK_EVENTS));
                }
        }
        /* Polled at the normal period again. */
        if (!covered && m->sources.uncovered)
                m->sources.uncovered(m->sources_userdata);
}

void manager_netdev_changed(Manager *m, NetDev *n, PropertyMask mask) {
        assert(m);
        assert(n);

        manager_mark(m, MODEL_NETDEV, n, mask);
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
                manager_mark(m, MODEL_SRIOV, d, PROPERTY_BIT(SRIOV_PROP_NUM_VFS));
        }
}

/* fresh, a new read of the port p, moved into p; what the port keeps of
 * itself (its device, its change count and time, its history) is fresh's
 * already (port_carry_over()), and fresh holds the old values, freed with it. */
static void port_take_values(Port *p, Port *fresh) {
        Port old = *p;

        *p = *fresh;
        p->device = old.device;
        *fresh = old;
        fresh->history = NULL; /* p's */
}

/* What a port keeps across reads, into its new read, before the two are compared. */
static void port_carry_over(Port *fresh, const Port *p) {
        fresh->state_changed_usec = p->state_changed_usec;
        fresh->state_changes = p->state_changes;
        fresh->history = p->history;
        fresh->link_events = port_link_events(fresh);
}

static size_t netdev_index(const Device *d, const char *name) {
        size_t i = 0;

        while (i < d->n_netdevs && !streq(d->netdevs[i]->name, name))
                i++;
        return i;
}

/* fresh's netdevs become d's: one of a name d has already keeps its
 * address and takes the new values, and the old values go to fresh in its
 * place; the ones that went are announced first (d still holds them), the
 * new ones once d holds them. The old array is fresh's, freed with it. */
static int device_take_netdevs(Manager *m, Device *d, Device *fresh, PropertyMask *masks) {
        _cleanup_free_ NetDev **added = calloc(fresh->n_netdevs + 1, sizeof(NetDev *));
        size_t n_added = 0;

        if (!added)
                return -ENOMEM;
        for (size_t i = 0; i < d->n_netdevs; i++)
                if (netdev_index(fresh, d->netdevs[i]->name) == fresh->n_netdevs && m->events.netdev_removing)
                        m->events.netdev_removing(d->netdevs[i], m->events_userdata);
        for (size_t i = 0; i < fresh->n_netdevs; i++) {
                size_t j = netdev_index(d, fresh->netdevs[i]->name);
                NetDev *kept, old;

                if (j == d->n_netdevs) {
                        fresh->netdevs[i]->device = d;
                        added[n_added++] = fresh->netdevs[i];
                        continue;
                }
                kept = d->netdevs[j];
                masks[i] = netdev_changed_mask(kept, fresh->netdevs[i]);
                old = *kept;
                *kept = *fresh->netdevs[i];
                kept->device = d;
                *fresh->netdevs[i] = old;
                d->netdevs[j] = fresh->netdevs[i];
                fresh->netdevs[i] = kept;
        }
        SWAP_VALUES(d->netdevs, fresh->netdevs);
        SWAP_VALUES(d->n_netdevs, fresh->n_netdevs);
        for (size_t i = 0; i < n_added; i++)
                if (m->events.netdev_added)
                        m->events.netdev_added(added[i], m->events_userdata);
        return 0;
}

/* A new read of a device that is already published. Whose identity
 * changed is another device: removed and added. Else the new values move
 * into the device, its ports and netdevs, which keep their addresses (and
 * so whatever follows them), and what changed is reported. */
static void manager_update_device_at(Manager *m, size_t index, Device *fresh) {
        Device *d = m->devices[index], old;
        PropertyMask device_mask, sriov_mask;
        _cleanup_free_ PropertyMask *port_masks = NULL, *netdev_masks = NULL;

        if (device_identity_changed(d, fresh)) {
                manager_remove_device_at(m, index);
                if (manager_insert_device(m, fresh) < 0) {
                        log_oom();
                        device_free(fresh);
                }
                return;
        }

        port_masks = calloc(d->n_ports + 1, sizeof(PropertyMask));
        netdev_masks = calloc(fresh->n_netdevs + 1, sizeof(PropertyMask));
        if (!port_masks || !netdev_masks) {
                /* Keep what the device had: the next event or the sweep re-reads it. */
                manager_defer_resync(m, -ENOMEM, fresh->name);
                device_free(fresh);
                return;
        }

        fresh->verbs_covered = d->verbs_covered;
        device_mask = device_changed_mask(d, fresh);
        sriov_mask = sriov_changed_mask(d, fresh);
        /* The same port numbers in the same order: the identity says so. */
        for (size_t i = 0; i < d->n_ports; i++) {
                Port *p = &d->ports[i], *n = &fresh->ports[i];

                port_carry_over(n, p);
                if (port_keep_state(n, p) < 0)
                        log_oom();
                port_masks[i] = port_changed_mask(p, n);
                port_take_values(p, n);
                /* n holds the old values now, its state name among them. */
                port_masks[i] = port_stamp(m, p, port_masks[i], n->state_name);
        }
        if (device_take_netdevs(m, d, fresh, netdev_masks) < 0) {
                log_oom();
                manager_defer_resync(m, -ENOMEM, fresh->name);
        }

        /* The device's own values; what is the manager's (its table, health,
         * lane, verbs coverage) and its ports and netdevs stay. */
        old = *d;
        *d = *fresh;
        d->manager = old.manager;
        d->ports = old.ports;
        d->n_ports = old.n_ports;
        d->netdevs = old.netdevs;
        d->n_netdevs = old.n_netdevs;
        d->health = old.health;
        d->health_reason = old.health_reason;
        d->lane = old.lane;
        d->verbs_covered = old.verbs_covered;
        old.ports = fresh->ports;
        old.n_ports = fresh->n_ports;
        old.netdevs = fresh->netdevs;
        old.n_netdevs = fresh->n_netdevs;
        old.health_reason = fresh->health_reason; /* the read's own, unused */
        old.lane = NULL;
        *fresh = old;
        device_free(fresh);

        manager_mark(m, MODEL_DEVICE, d, device_mask);
        manager_mark(m, MODEL_SRIOV, d, sriov_mask);
        for (size_t i = 0; i < d->n_ports; i++)
                manager_mark(m, MODEL_PORT, &d->ports[i], port_masks[i]);
        for (size_t i = 0; i < d->n_netdevs; i++)
                manager_mark(m, MODEL_NETDEV, d->netdevs[i], netdev_masks[i]);
}

/* "journalctl MESSAGE_ID=..." finds every health transition of every device. */
#define RDMAD_MESSAGE_HEALTH "MESSAGE_ID=0b5c3e1f8d2a4f6b9e7c1d3a5b7f9e21"

/* One journal entry per transition, with fields to select by. */
static void manager_set_health(Manager *m, Device *d, DeviceHealth health, const char *reason) {
        char device[256], field[64];
        PropertyMask mask = 0;

        reason = health == DEVICE_HEALTH_OK ? "" : strempty(reason);
        if (d->health != health)
                mask |= PROPERTY_BIT(DEVICE_PROP_HEALTH);
        if (!streq_ptr(d->health_reason, reason)) {
                if (free_and_strdup(&d->health_reason, reason) < 0) {
                        log_oom();
                        return;
                }
                mask |= PROPERTY_BIT(DEVICE_PROP_HEALTH_REASON);
        }
        if (mask & PROPERTY_BIT(DEVICE_PROP_HEALTH)) {
                DeviceHealth was = d->health;

                d->health = health;
                snprintf(device, sizeof(device), "RDMA_DEVICE=%s", d->name);
                snprintf(field, sizeof(field), "RDMA_HEALTH=%s", device_health_to_string(health));
                if (health == DEVICE_HEALTH_OK)
                        log_struct(LOG_NOTICE, (const char *const[]){ RDMAD_MESSAGE_HEALTH, device, field, NULL },
                                   "%s: answers again (was %s).", d->name, device_health_to_string(was));
                else
                        log_struct(LOG_WARNING, (const char *const[]){ RDMAD_MESSAGE_HEALTH, device, field, NULL },
                                   "%s: %s: %s.", d->name, device_health_to_string(health), reason);
        }
        if (!m->starting)
                manager_mark(m, MODEL_DEVICE, d, mask);
}

/* What of a device a read covered: only a full one (a load) says how the
 * whole device answers. */
typedef enum ReadExtent {
        READ_PARTIAL,
        READ_FULL,
} ReadExtent;

/* How a read went, for its device's health: an I/O error sets errors, a
 * clean full read clears them. Unresponsive ends only by a full read. */
static void manager_read_health(Manager *m, Device *d, const ReaderResult *res, ReadExtent extent) {
        char reason[512];

        if (res->io_error < 0) {
                if (d->health == DEVICE_HEALTH_UNRESPONSIVE && extent != READ_FULL)
                        return;
                snprintf(reason, sizeof(reason), "%s: %s", res->io_file, strerror(-res->io_error));
                manager_set_health(m, d, DEVICE_HEALTH_ERRORS, reason);
        } else if (extent == READ_FULL)
                manager_set_health(m, d, DEVICE_HEALTH_OK, NULL);
}

void manager_read_result(Manager *m, const char *name, const ReaderResult *res) {
        Device *d = manager_find_device(m, name);

        if (d)
                manager_read_health(m, d, res, READ_PARTIAL);
}

/* A full read's result: the device as read, or gone. */
static void manager_apply_load(Manager *m, DeviceRead *r, const ReaderResult *res) {
        Device *d;
        size_t i;

        /* A rename: the old name's objects go right before the new ones come. */
        if (r->old_name && !m->starting)
                manager_remove_device(m, r->old_name);
        if (errno_is_resource(r->error)) {
                manager_defer_resync(m, r->error, r->name);
                return;
        }
        if (r->error < 0) {
                /* Gone again before we could read it: the remove event follows, or it never existed. */
                log_debug_errno(r->error, "%s: cannot load %s: %m", r->name, r->sysfs_path);
                if (!m->starting)
                        manager_remove_device(m, r->name);
                return;
        }

        d = TAKE_PTR(r->device);
        d->manager = m;
        if (m->starting) {
                /* Into the table without events: the bus publishes the table when it starts. */
                Device **devices;

                i = devices_lower_bound(m->devices, m->n_devices, d->name);
                if (i < m->n_devices && streq(m->devices[i]->name, d->name)) {
                        device_free(d);
                        return;
                }
                devices = reallocarray(m->devices, m->n_devices + 1, sizeof(Device *));
                if (!devices) {
                        device_free(d);
                        log_oom();
                        return;
                }
                m->devices = devices;
                memmove(m->devices + i + 1, m->devices + i, (m->n_devices - i) * sizeof(Device *));
                m->devices[i] = d;
                m->n_devices++;
                d->lane = m->readers ? reader_pool_lane(m->readers, d->name) : NULL;
                manager_read_health(m, d, res, READ_FULL);
                return;
        }

        i = devices_index(m->devices, m->n_devices, d->name);
        if (i < m->n_devices)
                manager_update_device_at(m, i, d);
        else if (manager_insert_device(m, d) < 0) {
                device_free(d);
                log_oom();
                return;
        }
        d = manager_find_device(m, r->name);
        if (d)
                manager_read_health(m, d, res, READ_FULL);
        (void) manager_table_changed(m);
}

static void manager_apply_ports(Manager *m, Device *d, DeviceRead *r, const ReaderResult *res) {
        /* Its directory went meanwhile (a removal, a rename): the uevent says what happened. */
        if (r->error == -ENOENT)
                return;
        if (errno_is_resource(r->error))
                manager_defer_resync(m, r->error, d->name);
        for (size_t i = 0; i < r->n_ports; i++) {
                PortRead *pr = &r->ports[i];
                Port *p = (Port *) device_find_port(d, pr->number);
                char old_state_name[64];
                PropertyMask changed = 0, more = 0;
                int k = 0;

                if (!p || pr->done == 0)
                        continue;
                /* The old name goes with the old string when the port is re-derived. */
                snprintf(old_state_name, sizeof(old_state_name), "%s", p->state_name);
                if (pr->done & PORT_READ_LINK)
                        k = port_apply_link(p, pr->link, &changed);
                else if (pr->done & PORT_READ_UNREPORTED)
                        k = port_apply_unreported(p, pr->unreported, &changed);
                if (k >= 0 && (pr->done & PORT_READ_GIDS))
                        k = port_apply_gids(p, &pr->gids, &more);
                if (errno_is_resource(k))
                        manager_defer_resync(m, k, d->name);
                manager_port_changed(m, p, changed | more, old_state_name);
        }
        manager_read_health(m, d, res, READ_PARTIAL);
}

static void manager_apply_netdev(Manager *m, Device *d, DeviceRead *r, const ReaderResult *res) {
        NetDev *n = (NetDev *) device_find_netdev(d, r->netdev);
        PropertyMask changed = 0;
        int k = r->error;

        if (n && k >= 0)
                k = netdev_apply(n, r->netdev_values, &changed);
        if (errno_is_resource(k))
                manager_defer_resync(m, k, r->netdev);
        else if (n && k >= 0)
                manager_netdev_changed(m, n, changed);
        manager_read_health(m, d, res, READ_PARTIAL);
}

static void manager_apply(void *arg, const ReaderResult *res, void *userdata) {
        DeviceRead *r = arg;
        Manager *m = r->manager;
        Device *d;

        if (r->kind == DEVICE_READ_LOAD) {
                if (m->starting && m->start_pending > 0)
                        m->start_pending--;
                /* A full read that hung: its values are old; the recovery reads again. */
                if (!res->stuck)
                        manager_apply_load(m, r, res);
                if (r->rescan != 0 && r->rescan == m->rescan_epoch && m->rescan_loads > 0 && --m->rescan_loads == 0 &&
                    m->events.rescanned)
                        m->events.rescanned(m->events_userdata);
                return;
        }

        if (r->from_poll && m->sources.turn_done)
                m->sources.turn_done(r->name, m->sources_userdata);
        d = manager_find_device(m, r->name);
        if (!d)
                return;
        if (res->stuck)
                return;
        switch (r->kind) {
        case DEVICE_READ_PORTS:
                manager_apply_ports(m, d, r, res);
                break;
        case DEVICE_READ_NETDEV:
                manager_apply_netdev(m, d, r, res);
                break;
        case DEVICE_READ_NUM_VFS:
                if (errno_is_resource(r->error))
                        manager_defer_resync(m, r->error, r->pci_path);
                else if (r->error >= 0)
                        manager_set_num_vfs(m, r->pci_path, r->num_vfs);
                manager_read_health(m, d, res, READ_PARTIAL);
                break;
        default:
                break;
        }
}

/* On the device's lane; without readers (tests, --dump) at once, in line. */
static int manager_submit(Manager *m, ReaderLane *lane, DeviceRead *r) {
        int k;

        if (!m->readers || !lane) {
                device_read_run(NULL, r);
                manager_apply(r, &(ReaderResult){}, m);
                device_read_free(r);
                return 0;
        }
        k = reader_pool_submit(m->readers, lane, device_read_run, manager_apply, device_read_free, r, NULL);
        if (k < 0)
                device_read_free(r);
        return k;
}

static void manager_on_stuck(const char *name, const char *reason, void *userdata) {
        Manager *m = userdata;
        Device *d = manager_find_device(m, name);

        if (m->starting) {
                (void) strv_push_take(&m->start_stuck, &m->n_start_stuck, &(size_t){ m->n_start_stuck }, strdup(name));
                (void) strv_push_take(&m->start_stuck, &m->n_start_stuck, &(size_t){ m->n_start_stuck },
                                      strdup(reason));
        }
        if (d)
                manager_set_health(m, d, DEVICE_HEALTH_UNRESPONSIVE, reason);
}

/* The stuck read returned: the device is read again in full, which sets
 * its health back and publishes what changed meanwhile. */
static void manager_on_unstuck(const char *name, void *userdata) {
        Manager *m = userdata;
        Device *d = manager_find_device(m, name);
        DeviceRead *r;

        log_info("%s: the stuck read returned; reading the device again.", name);
        if (!d)
                return;
        r = device_read_new(m, DEVICE_READ_LOAD, d, NULL, NULL);
        if (!r || manager_submit(m, d->lane, r) < 0)
                manager_defer_resync(m, -ENOMEM, name);
}

static int manager_read_device(Manager *m, const char *old_name, const char *syspath, const char *name,
                               bool from_rescan);

int manager_reload_device(Manager *m, const char *syspath, const char *name) {
        return manager_read_device(m, NULL, syspath, name, false);
}

int manager_rename_device(Manager *m, const char *old_name, const char *syspath, const char *name) {
        return manager_read_device(m, old_name, syspath, name, false);
}

static int manager_read_device(Manager *m, const char *old_name, const char *syspath, const char *name,
                               bool from_rescan) {
        Device *d;
        DeviceRead *r;
        ReaderLane *lane;
        int k;

        assert(m);
        assert(syspath);
        assert(name);

        d = manager_find_device(m, name);
        /* Stuck: the recovery reads it in full anyway. */
        if (!old_name && d && d->lane && reader_lane_stuck(d->lane))
                return 0;
        r = device_read_new(m, DEVICE_READ_LOAD, NULL, name, syspath);
        if (r && old_name && !(r->old_name = strdup(old_name)))
                r = (device_read_free(r), NULL);
        if (!r) {
                manager_defer_resync(m, -ENOMEM, name);
                return -ENOMEM;
        }
        lane = m->readers ? reader_pool_lane(m->readers, name) : NULL;
        if (m->readers && !lane) {
                device_read_free(r);
                manager_defer_resync(m, -ENOMEM, name);
                return -ENOMEM;
        }
        if (from_rescan && m->readers) {
                r->rescan = m->rescan_epoch;
                m->rescan_loads++;
        }
        k = manager_submit(m, lane, r);
        reader_lane_unref(lane);
        if (k < 0) {
                if (from_rescan && m->readers)
                        m->rescan_loads--;
                manager_defer_resync(m, k, name);
        }
        return k;
}

int manager_rescan(Manager *m) {
        _cleanup_strv_free_ char **paths = NULL;
        _cleanup_free_ char **gone = NULL;
        size_t n, n_gone = 0;
        int r;

        assert(m);

        r = enumerate_device_paths(m->udev, &paths, &n);
        if (errno_is_resource(r))
                manager_defer_resync(m, r, "Rescan");
        if (r < 0)
                return r;

        /* Removals first, while the old objects can be found; then the
         * re-reads, whose results replace or add devices as they come. */
        gone = calloc(m->n_devices + 1, sizeof(char *));
        if (!gone)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_devices; i++) {
                bool found = false;

                for (size_t j = 0; j < n && !found; j++)
                        found = streq(paths[2 * j + 1], m->devices[i]->name);
                if (!found)
                        gone[n_gone++] = m->devices[i]->name;
        }
        for (size_t i = 0; i < n_gone; i++) {
                _cleanup_free_ char *name = strdup(gone[i]);
                if (!name)
                        return -ENOMEM;
                manager_remove_device(m, name);
        }

        if (m->resync_pending) {
                m->resync_pending = false;
                log_info("Resynchronised with sysfs.");
        }
        /* 0 is no rescan's. */
        m->rescan_epoch = m->rescan_epoch + 1 ?: 1;
        m->rescan_loads = 0;
        for (size_t i = 0; i < n; i++)
                (void) manager_read_device(m, NULL, paths[2 * i], paths[2 * i + 1], true);
        (void) malloc_trim(0);
        /* Read in line, or nothing to read: done already. */
        if (m->rescan_loads == 0 && m->events.rescanned)
                m->events.rescanned(m->events_userdata);
        return manager_table_changed(m);
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
