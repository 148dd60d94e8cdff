/* SPDX-License-Identifier: MIT */
#include "manager.h"

#include <malloc.h>
#include <time.h>

#include "bus-objects.h"
#include "bus-util.h"
#include "counters-worker.h"
#include "diff.h"
#include "properties.h"
#include "enumerate.h"
#include "log.h"
#include "util.h"

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

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        manager_free_sriov_jobs(m);
        counter_reader_free(m->counter_reader);
        manager_free_waiters(m);
        polkit_registry_clear(&m->polkit);
        sd_event_source_disable_unref(m->emit_event);
        sd_event_source_disable_unref(m->trim_post);
        sd_event_source_disable_unref(m->poll_event);
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

static int device_name_compare(const void *key, const void *elem) {
        return strcmp(key, (*(Device *const *) elem)->name);
}

Device *manager_find_device(Manager *m, const char *name) {
        Device **d;

        if (m->n_devices == 0)
                return NULL;
        d = bsearch(name, m->devices, m->n_devices, sizeof(Device *), device_name_compare);
        return d ? *d : NULL;
}

static int on_emit(sd_event_source *s, void *userdata);

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

        r = manager_start_udev_monitor(m);
        if (r < 0)
                return r;
        return manager_start_rtnl(m);
}

int manager_connect_bus(Manager *m) {
        int r;

        r = sd_bus_open_system_with_description(&m->bus, "rdmad");
        if (r < 0)
                return log_error_errno(r, "Failed to connect to the system bus: %m");

        r = sd_bus_add_object_vtable(m->bus, NULL, RDMAD_ROOT_PATH, "org.rdmad1.Manager", manager_vtable, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add the manager object: %m");

        r = sd_bus_add_fallback_vtable(m->bus, NULL, RDMAD_DEVICE_PREFIX, "org.rdmad1.Device", device_vtable,
                                       device_object_find, m);
        if (r >= 0)
                r = sd_bus_add_fallback_vtable(m->bus, NULL, RDMAD_DEVICE_PREFIX, "org.rdmad1.Port", port_vtable,
                                               port_object_find, m);
        if (r >= 0)
                r = sd_bus_add_fallback_vtable(m->bus, NULL, RDMAD_DEVICE_PREFIX, "org.rdmad1.NetDev",
                                               netdev_vtable, netdev_object_find, m);
        if (r >= 0)
                r = sd_bus_add_fallback_vtable(m->bus, NULL, RDMAD_DEVICE_PREFIX, "org.rdmad1.Sriov",
                                               sriov_vtable, sriov_object_find, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add the object vtables: %m");

        r = sd_bus_add_node_enumerator(m->bus, NULL, RDMAD_DEVICE_PREFIX, manager_node_enumerator, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add the node enumerator: %m");

        r = sd_bus_add_object_manager(m->bus, NULL, RDMAD_ROOT_PATH);
        if (r < 0)
                return log_error_errno(r, "Failed to add the object manager: %m");

        /* Emission runs after everything else of an iteration, so changes from
         * several sources coalesce into one signal per object. */
        r = sd_event_add_defer(m->event, &m->emit_event, on_emit, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add the emit source: %m");
        (void) sd_event_source_set_priority(m->emit_event, SD_EVENT_PRIORITY_IDLE);
        (void) sd_event_source_set_enabled(m->emit_event, SD_EVENT_OFF);
        (void) sd_event_source_set_description(m->emit_event, "emit-changes");

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

/* Every object path of a device: the device first, then its children. */
static int device_object_paths(const Device *d, char ***ret, size_t *ret_n) {
        char **paths;
        size_t n = 0;
        int r;

        paths = calloc(2 + d->n_ports + d->n_netdevs, sizeof(char *));
        if (!paths)
                return -ENOMEM;

        r = device_object_path(d->name, &paths[n++]);
        for (size_t i = 0; i < d->n_ports && r >= 0; i++)
                r = port_object_path(d->name, d->ports[i].number, &paths[n++]);
        for (size_t i = 0; i < d->n_netdevs && r >= 0; i++)
                r = netdev_object_path(d->name, d->netdevs[i].name, &paths[n++]);
        if (d->sriov_capable && r >= 0)
                r = sriov_object_path(d->name, &paths[n++]);

        if (r < 0) {
                for (size_t i = 0; i < n; i++)
                        free(paths[i]);
                free(paths);
                return r;
        }
        *ret = paths;
        *ret_n = n;
        return 0;
}

static void paths_free(char **paths, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(paths[i]);
        free(paths);
}

static void schedule_emit(Manager *m) {
        if (m->emit_event)
                (void) sd_event_source_set_enabled(m->emit_event, SD_EVENT_ONESHOT);
}

/* Announces all objects of a device. Added: after the device is in the
 * table, parent first (sd-bus reads the properties through the find
 * callbacks). Removed: while it is still there, children first (sd-bus asks
 * the find callbacks which interfaces the object had). */
static void publish_device(Manager *m, const Device *d, bool added) {
        char **paths;
        size_t n;
        int r;

        if (!m->bus)
                return;
        r = device_object_paths(d, &paths, &n);
        if (r < 0) {
                log_oom();
                return;
        }
        for (size_t k = 0; k < n; k++) {
                const char *path = paths[added ? k : n - 1 - k];

                r = added ? sd_bus_emit_object_added(m->bus, path) : sd_bus_emit_object_removed(m->bus, path);
                if (r < 0)
                        log_warning_errno(r, "Failed to announce %s %s: %m", added ? "the addition of" : "the removal of",
                                          path);
        }
        paths_free(paths, n);
}

static size_t manager_lower_bound(Manager *m, const char *name) {
        size_t lo = 0, hi = m->n_devices;

        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (strcmp(m->devices[mid]->name, name) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

static int manager_insert_device(Manager *m, Device *d) {
        size_t i = manager_lower_bound(m, d->name);
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
        publish_device(m, d, true);
        m->devices_changed = true;
        schedule_emit(m);
        return 0;
}

static void manager_remove_device_at(Manager *m, size_t i) {
        Device *d = m->devices[i];

        log_info("%s: removed.", d->name);
        manager_fail_waiters(m, d->name);
        publish_device(m, d, false);
        memmove(m->devices + i, m->devices + i + 1, (m->n_devices - i - 1) * sizeof(Device *));
        m->n_devices--;
        device_free(d);
        m->devices_changed = true;
        schedule_emit(m);
}

void manager_remove_device(Manager *m, const char *name) {
        size_t i = manager_lower_bound(m, name);

        if (i < m->n_devices && streq(m->devices[i]->name, name)) {
                manager_remove_device_at(m, i);
                (void) manager_update_poll(m);
        }
}

static uint64_t now_realtime_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

/* A State or PhysState change also moves StateChangedUsec; a State change counts in StateChanges. */
static uint32_t port_stamp(Port *p, uint32_t mask) {
        if (mask & (PORT_STATE | PORT_STATE_NUM | PORT_STATE_NAME | PORT_PHYS_STATE | PORT_PHYS_STATE_NUM |
                    PORT_PHYS_STATE_NAME)) {
                p->state_changed_usec = now_realtime_usec();
                mask |= PORT_STATE_CHANGED_USEC;
        }
        if (mask & (PORT_STATE | PORT_STATE_NUM | PORT_STATE_NAME)) {
                p->state_changes++;
                mask |= PORT_STATE_CHANGES;
        }
        return mask;
}

void manager_port_changed(Manager *m, Port *p, uint32_t mask) {
        if (mask == 0)
                return;
        p->dirty |= port_stamp(p, mask);
        schedule_emit(m);
}

int manager_refresh_port(Manager *m, Port *p) {
        uint32_t changed;
        int r;

        r = port_refresh_link(p, &changed);
        if (errno_is_resource(r))
                manager_defer_resync(m, r, p->device->name);
        if (r < 0)
                return r;
        manager_port_changed(m, p, changed);
        return 0;
}

void manager_netdev_changed(Manager *m, Device *d, NetDev *n, uint32_t mask) {
        if (mask == 0)
                return;
        n->dirty |= mask;
        schedule_emit(m);
}

void manager_sriov_changed(Manager *m, Device *d, uint32_t mask) {
        if (mask == 0)
                return;
        d->sriov_dirty |= mask;
        schedule_emit(m);
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
        if (m->bus)
                for (size_t i = 0; i < old->n_netdevs; i++) {
                        _cleanup_free_ char *path = NULL;

                        if (device_find_netdev(new, old->netdevs[i].name))
                                continue;
                        if (netdev_object_path(old->name, old->netdevs[i].name, &path) >= 0)
                                (void) sd_bus_emit_object_removed(m->bus, path);
                }

        new->dirty = old->dirty | device_changed_mask(old, new);
        new->sriov_dirty = old->sriov_dirty | sriov_changed_mask(old, new);
        for (size_t i = 0; i < new->n_ports; i++) {
                Port *p = &new->ports[i], *o = &old->ports[i];

                p->state_changed_usec = o->state_changed_usec;
                p->state_changes = o->state_changes;
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
        if (m->bus)
                for (size_t i = 0; i < new->n_netdevs; i++) {
                        _cleanup_free_ char *path = NULL;

                        if (device_find_netdev(old, new->netdevs[i].name))
                                continue;
                        if (netdev_object_path(new->name, new->netdevs[i].name, &path) >= 0)
                                (void) sd_bus_emit_object_added(m->bus, path);
                }
        device_free(old);

        if (pending || new->dirty || new->sriov_dirty)
                schedule_emit(m);
}

int manager_reload_device(Manager *m, const char *syspath, const char *name) {
        Device *d = NULL;
        size_t i;
        int r;

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

        i = manager_lower_bound(m, name);
        if (i < m->n_devices && streq(m->devices[i]->name, name))
                manager_replace_device_at(m, i, d);
        else if (manager_insert_device(m, d) < 0) {
                device_free(d);
                return log_oom();
        }
        return manager_update_poll(m);
}

int manager_rescan(Manager *m) {
        Device **new = NULL, **old = NULL;
        size_t n_new = 0, n_old = m->n_devices;
        int r;

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
        for (size_t i = 0; i < n_old; i++) {
                Device **found = n_new > 0 ? bsearch(old[i]->name, new, n_new, sizeof(Device *),
                                                     device_name_compare)
                                           : NULL;
                if (!found)
                        manager_remove_device(m, old[i]->name);
        }
        free(old);

        for (size_t i = 0; i < n_new; i++) {
                size_t j = manager_lower_bound(m, new[i]->name);

                if (j < m->n_devices && streq(m->devices[j]->name, new[i]->name))
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
        return manager_update_poll(m);
}

void manager_defer_resync(Manager *m, int error, const char *what) {
        if (!m->resync_pending)
                log_error_errno(error, "%s: cannot read sysfs: %m. Keeping the last known state; retrying on the next event.",
                                what);
        m->resync_pending = true;
}

void manager_retry_resync(Manager *m) {
        if (m->resync_pending)
                (void) manager_rescan(m); /* clears it, or fails quietly: the episode is logged */
}

/* One PropertiesChanged for an object's dirty bits, which are then clear. */
static void emit_dirty(Manager *m, int path_result, const char *path, const char *interface, uint32_t *dirty,
                       void (*names_of)(uint32_t mask, PropertyNames *ret)) {
        PropertyNames names;
        int r;

        names_of(*dirty, &names);
        *dirty = 0;
        if (path_result < 0 || names.n == 0)
                return;
        r = sd_bus_emit_properties_changed_strv(m->bus, path, interface, (char **) names.names);
        if (r < 0)
                log_warning_errno(r, "Failed to announce changes of %s: %m", path);
}

/* One PropertiesChanged per changed object; runs once per loop iteration. */
static int on_emit(sd_event_source *s, void *userdata) {
        Manager *m = userdata;

        if (m->devices_changed) {
                m->devices_changed = false;
                (void) sd_bus_emit_properties_changed(m->bus, RDMAD_ROOT_PATH, "org.rdmad1.Manager", "Devices",
                                                      NULL);
        }

        for (size_t i = 0; i < m->n_devices; i++) {
                Device *d = m->devices[i];

                if (d->dirty) {
                        _cleanup_free_ char *path = NULL;
                        int r = device_object_path(d->name, &path);
                        emit_dirty(m, r, path, "org.rdmad1.Device", &d->dirty, device_property_names);
                }
                for (size_t j = 0; j < d->n_ports; j++)
                        if (d->ports[j].dirty) {
                                _cleanup_free_ char *path = NULL;
                                int r = port_object_path(d->name, d->ports[j].number, &path);
                                emit_dirty(m, r, path, "org.rdmad1.Port", &d->ports[j].dirty, port_property_names);
                        }
                for (size_t j = 0; j < d->n_netdevs; j++)
                        if (d->netdevs[j].dirty) {
                                _cleanup_free_ char *path = NULL;
                                int r = netdev_object_path(d->name, d->netdevs[j].name, &path);
                                emit_dirty(m, r, path, "org.rdmad1.NetDev", &d->netdevs[j].dirty,
                                           netdev_property_names);
                        }
                if (d->sriov_dirty) {
                        _cleanup_free_ char *path = NULL;
                        int r = d->sriov_capable ? sriov_object_path(d->name, &path) : -ENODEV;
                        emit_dirty(m, r, path, "org.rdmad1.Sriov", &d->sriov_dirty, sriov_property_names);
                }
        }

        manager_check_waiters(m);
        return 0;
}
