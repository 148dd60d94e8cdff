/* SPDX-License-Identifier: MIT */
#include "bus-objects.h"

#include <string.h>

#include "bus-device.h"
#include "bus-manager.h"
#include "bus-netdev.h"
#include "bus-path.h"
#include "bus-port.h"
#include "bus-sriov.h"
#include "log.h"
#include "manager.h"
#include "port-wait.h"
#include "util.h"

/* Upper bounds of what the getters of each vtable marshal. A path a getter
 * gives is the object's own, or a sibling's or child's: at most an escaped
 * interface name (3 × 15) and a "/netdev/" longer. Each value also pays its
 * length field and up to 7 bytes of padding. */
#define PATH_SIZE_MAX(path_len) (4 + (path_len) + 8 + 45 + 1 + 7)
#define ARRAY_SIZE_MAX 12

static size_t device_getters_size_max(const void *object, size_t path_len) {
        const Device *d = object;

        return ARRAY_SIZE_MAX + d->n_ports * PATH_SIZE_MAX(path_len) /* Ports */
               + ARRAY_SIZE_MAX + d->n_ports * 4                     /* PortNumbers */
               + ARRAY_SIZE_MAX + d->n_netdevs * PATH_SIZE_MAX(path_len) /* NetDevs */
               + 8 + PATH_SIZE_MAX(path_len);                        /* SriovCapable, Sriov */
}

static size_t port_getters_size_max(const void *object, size_t path_len) {
        const Port *p = object;
        size_t size = 2 * PATH_SIZE_MAX(path_len) + ARRAY_SIZE_MAX; /* Device, NetDev, Gids */

        for (size_t i = 0; i < p->n_gids; i++) /* (uss), aligned to 8 */
                size += 8 + 4 + 4 + strlen(strempty(p->gids[i].gid)) + 1 + 3 + 4 +
                        strlen(strempty(p->gids[i].type)) + 1;
        return size;
}

static size_t netdev_getters_size_max(const void *object, size_t path_len) {
        return 2 * PATH_SIZE_MAX(path_len); /* Device, Port */
}

static size_t sriov_getters_size_max(const void *object, size_t path_len) {
        return PATH_SIZE_MAX(path_len); /* Device */
}

/* Every interface we serve. */
static const BusObjectType bus_object_types[] = {
        { RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, manager_vtable, NULL, NULL },
        { RDMAD_DEVICE_PREFIX, RDMAD_DEVICE_INTERFACE, device_vtable, device_object_find, device_getters_size_max },
        { RDMAD_DEVICE_PREFIX, RDMAD_PORT_INTERFACE, port_vtable, port_object_find, port_getters_size_max },
        { RDMAD_DEVICE_PREFIX, RDMAD_NETDEV_INTERFACE, netdev_vtable, netdev_object_find, netdev_getters_size_max },
        { RDMAD_DEVICE_PREFIX, RDMAD_SRIOV_INTERFACE, sriov_vtable, sriov_object_find, sriov_getters_size_max },
};

int bus_objects_device_paths(const Device *d, char ***l, size_t *n, size_t *allocated) {
        char *p;
        int r;

        assert(d);
        assert(l);
        assert(n);
        assert(allocated);

        r = device_bus_path(d, &p);
        if (r < 0)
                return r;
        r = strv_push_take(l, n, allocated, p);
        if (r < 0)
                return r;
        for (size_t i = 0; i < d->n_ports; i++) {
                r = port_bus_path(&d->ports[i], &p);
                if (r < 0)
                        return r;
                r = strv_push_take(l, n, allocated, p);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < d->n_netdevs; i++) {
                r = netdev_bus_path(&d->netdevs[i], &p);
                if (r < 0)
                        return r;
                r = strv_push_take(l, n, allocated, p);
                if (r < 0)
                        return r;
        }
        if (d->sriov_capable) {
                r = sriov_bus_path(d, &p);
                if (r < 0)
                        return r;
                r = strv_push_take(l, n, allocated, p);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Every object under the root: what the node enumerator lists, and what
 * GetManagedObjects goes through. */
static int list_object_paths(void *userdata, char ***ret, size_t *ret_n) {
        _cleanup_strv_free_ char **l = NULL;
        Manager *m = userdata;
        size_t n = 0, allocated = 0;
        int r;

        for (size_t i = 0; i < m->n_devices; i++) {
                r = bus_objects_device_paths(m->devices[i], &l, &n, &allocated);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(l);
        *ret_n = n;
        return 0;
}

static int node_enumerator(sd_bus *bus, const char *path, void *userdata, char ***nodes, sd_bus_error *error) {
        size_t n;
        int r;

        r = list_object_paths(userdata, nodes, &n);
        if (r < 0)
                return r;
        return 1;
}

static void send_device_objects(Manager *m, const Device *d, bool added) {
        _cleanup_strv_free_ char **paths = NULL;
        size_t n = 0, allocated = 0;
        int r;

        bus_managed_objects_changed(&m->managed_objects);
        if (!m->bus)
                return;
        r = bus_objects_device_paths(d, &paths, &n, &allocated);
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
}

void bus_objects_send_device_added(Manager *m, const Device *d) {
        send_device_objects(m, d, true);
}

void bus_objects_send_device_removed(Manager *m, const Device *d) {
        send_device_objects(m, d, false);
}

static void send_netdev_object(Manager *m, const NetDev *n, bool added) {
        _cleanup_free_ char *path = NULL;

        bus_managed_objects_changed(&m->managed_objects);
        if (!m->bus || netdev_bus_path(n, &path) < 0)
                return;
        (void) (added ? sd_bus_emit_object_added(m->bus, path) : sd_bus_emit_object_removed(m->bus, path));
}

void bus_objects_send_netdev_added(Manager *m, const NetDev *n) {
        send_netdev_object(m, n, true);
}

void bus_objects_send_netdev_removed(Manager *m, const NetDev *n) {
        send_netdev_object(m, n, false);
}

void bus_objects_schedule_emit(Manager *m) {
        /* Every change of the model comes through here (or announces objects):
         * a GetManagedObjects reply being built must not mix before and after. */
        bus_managed_objects_changed(&m->managed_objects);
        if (m->emit_event)
                (void) sd_event_source_set_enabled(m->emit_event, SD_EVENT_ONESHOT);
}

/* One PropertiesChanged per changed object; runs once per loop iteration. */
static int on_emit(sd_event_source *s, void *userdata) {
        Manager *m = userdata;

        if (m->devices_changed) {
                m->devices_changed = false;
                (void) manager_send_changed(m);
        }

        for (size_t i = 0; i < m->n_devices; i++) {
                Device *d = m->devices[i];

                (void) device_send_changed(m->bus, d);
                for (size_t j = 0; j < d->n_ports; j++)
                        (void) port_send_changed(m->bus, &d->ports[j]);
                for (size_t j = 0; j < d->n_netdevs; j++)
                        (void) netdev_send_changed(m->bus, &d->netdevs[j]);
                (void) sriov_send_changed(m->bus, d);
        }

        /* The states are published: now the waiters may be answered. */
        port_wait_check(&m->port_waits);
        return 0;
}

int bus_objects_register(Manager *m) {
        int r;

        assert(m);
        assert(m->bus);
        assert(m->event);

        for (size_t i = 0; i < ELEMENTSOF(bus_object_types); i++) {
                const BusObjectType *t = &bus_object_types[i];

                if (t->find)
                        r = sd_bus_add_fallback_vtable(m->bus, NULL, t->path, t->interface, t->vtable, t->find, m);
                else
                        r = sd_bus_add_object_vtable(m->bus, NULL, t->path, t->interface, t->vtable, m);
                if (r < 0)
                        return log_error_errno(r, "Failed to add the %s vtable at %s: %m", t->interface, t->path);
        }

        r = sd_bus_add_node_enumerator(m->bus, NULL, RDMAD_DEVICE_PREFIX, node_enumerator, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add the node enumerator: %m");

        r = sd_bus_add_object_manager(m->bus, NULL, RDMAD_ROOT_PATH);
        if (r < 0)
                return log_error_errno(r, "Failed to add the object manager: %m");

        /* Its GetManagedObjects is taken over: built in slices, not in one go. */
        r = bus_managed_objects_start(&m->managed_objects, m->bus, m->event, RDMAD_ROOT_PATH, bus_object_types,
                                      ELEMENTSOF(bus_object_types), list_object_paths, m, &m->callers);
        if (r < 0)
                return r;

        /* Emission runs after everything else of an iteration, so changes from
         * several sources coalesce into one signal per object. */
        r = sd_event_add_defer(m->event, &m->emit_event, on_emit, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add the emit source: %m");
        (void) sd_event_source_set_priority(m->emit_event, SD_EVENT_PRIORITY_IDLE);
        (void) sd_event_source_set_enabled(m->emit_event, SD_EVENT_OFF);
        (void) sd_event_source_set_description(m->emit_event, "emit-changes");
        return 0;
}
