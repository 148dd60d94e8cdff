/* SPDX-License-Identifier: MIT */
#include "manager.h"

#include <time.h>

#include "bus-objects.h"
#include "bus-util.h"
#include "diff.h"
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

        r = sd_event_default(&m->event);
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
        log_info("Found %zu RDMA device%s.", m->n_devices, m->n_devices == 1 ? "" : "s");
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

void manager_publish_device_added(Manager *m, const Device *d) {
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
        for (size_t i = 0; i < n; i++) {
                r = sd_bus_emit_object_added(m->bus, paths[i]);
                if (r < 0)
                        log_warning_errno(r, "Failed to announce %s: %m", paths[i]);
        }
        paths_free(paths, n);
}

/* Must run while the device is still in the table: sd-bus asks the find
 * callbacks which interfaces the object had. */
void manager_publish_device_removed(Manager *m, const Device *d) {
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
        for (size_t i = n; i > 0; i--) {
                r = sd_bus_emit_object_removed(m->bus, paths[i - 1]);
                if (r < 0)
                        log_warning_errno(r, "Failed to announce removal of %s: %m", paths[i - 1]);
        }
        paths_free(paths, n);
}

void manager_publish_devices_changed(Manager *m) {
        int r;

        if (!m->bus)
                return;
        r = sd_bus_emit_properties_changed(m->bus, RDMAD_ROOT_PATH, "org.rdmad1.Manager", "Devices", NULL);
        if (r < 0)
                log_warning_errno(r, "Failed to announce the device list: %m");
}

static void emit_changed(Manager *m, const char *path, const char *interface, const PropertyNames *names) {
        int r;

        if (names->n == 0)
                return;
        r = sd_bus_emit_properties_changed_strv(m->bus, path, interface, (char **) names->names);
        if (r < 0)
                log_warning_errno(r, "Failed to announce changes of %s: %m", path);
}

static uint64_t now_realtime_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

/* State that lives in the daemon, not in sysfs, goes from old to new. */
static void device_carry_over(const Device *old, Device *new) {
        uint64_t now = 0;

        for (size_t i = 0; i < new->n_ports; i++) {
                Port *p = &new->ports[i];
                const Port *o = device_find_port(old, p->number);

                if (!o)
                        continue;
                if (o->state_num != p->state_num || o->phys_state_num != p->phys_state_num ||
                    !streq(o->state, p->state) || !streq(o->phys_state, p->phys_state))
                        p->state_changed_usec = now ?: (now = now_realtime_usec());
                else
                        p->state_changed_usec = o->state_changed_usec;
        }
}

/* Netdevs of a device that is kept, but that went away: before the swap. */
static void publish_netdevs_removed(Manager *m, const Device *old, const Device *new) {
        for (size_t i = 0; i < old->n_netdevs; i++) {
                _cleanup_free_ char *path = NULL;

                if (device_find_netdev(new, old->netdevs[i].name))
                        continue;
                if (netdev_object_path(old->name, old->netdevs[i].name, &path) >= 0)
                        (void) sd_bus_emit_object_removed(m->bus, path);
        }
}

/* Everything that changed in a device that is kept: after the swap. */
static void publish_device_changes(Manager *m, const Device *old, const Device *new) {
        _cleanup_free_ char *path = NULL;
        PropertyNames names;

        if (device_object_path(new->name, &path) < 0)
                return;
        device_changed_properties(old, new, &names);
        emit_changed(m, path, "org.rdmad1.Device", &names);

        for (size_t i = 0; i < new->n_ports; i++) {
                _cleanup_free_ char *p = NULL;

                port_changed_properties(&old->ports[i], &new->ports[i], &names);
                if (names.n > 0 && port_object_path(new->name, new->ports[i].number, &p) >= 0)
                        emit_changed(m, p, "org.rdmad1.Port", &names);
        }

        for (size_t i = 0; i < new->n_netdevs; i++) {
                _cleanup_free_ char *p = NULL;
                const NetDev *o = device_find_netdev(old, new->netdevs[i].name);

                if (netdev_object_path(new->name, new->netdevs[i].name, &p) < 0)
                        continue;
                if (!o) {
                        (void) sd_bus_emit_object_added(m->bus, p);
                        continue;
                }
                netdev_changed_properties(o, &new->netdevs[i], &names);
                emit_changed(m, p, "org.rdmad1.NetDev", &names);
        }

        if (new->sriov_capable) {
                _cleanup_free_ char *p = NULL;

                sriov_changed_properties(old, new, &names);
                if (names.n > 0 && sriov_object_path(new->name, &p) >= 0)
                        emit_changed(m, p, "org.rdmad1.Sriov", &names);
        }
}

int manager_rescan(Manager *m) {
        Device **new = NULL, **old;
        size_t n_new = 0, n_old, i, j;
        bool list_changed = false;
        int r;

        r = enumerate_devices(m->udev, &new, &n_new);
        if (r < 0)
                return r;

        old = m->devices;
        n_old = m->n_devices;

        /* Both lists are sorted by name: walk them side by side. First the
         * removals, while the old objects can still be found. */
        for (i = 0, j = 0; i < n_old; i++) {
                int c = 1;

                while (j < n_new && (c = strcmp(new[j]->name, old[i]->name)) < 0)
                        j++;
                if (j < n_new && c == 0 && !device_identity_changed(old[i], new[j])) {
                        device_carry_over(old[i], new[j]);
                        if (m->bus)
                                publish_netdevs_removed(m, old[i], new[j]);
                        continue;
                }
                manager_publish_device_removed(m, old[i]);
                list_changed = true;
        }

        m->devices = new;
        m->n_devices = n_new;

        for (i = 0, j = 0; j < n_new; j++) {
                int c = 1;

                while (i < n_old && (c = strcmp(old[i]->name, new[j]->name)) < 0)
                        i++;
                if (i < n_old && c == 0 && !device_identity_changed(old[i], new[j])) {
                        if (m->bus)
                                publish_device_changes(m, old[i], new[j]);
                        continue;
                }
                manager_publish_device_added(m, new[j]);
                list_changed = true;
        }

        if (list_changed)
                manager_publish_devices_changed(m);

        device_array_free(old, n_old);
        return 0;
}
