/* SPDX-License-Identifier: MIT */
#include "bus-objects.h"

#include <string.h>

#include "api/rdmad-api.h"
#include "arg-quote.h"
#include "basic/log.h"
#include "basic/util.h"
#include "bus-device.h"
#include "bus-manager.h"
#include "bus-netdev.h"
#include "bus-port.h"
#include "bus-server.h"
#include "bus-sriov.h"
#include "manager.h"
#include "port-wait.h"
#include "properties.h"

/* Every interface we serve. */
static const BusObjectType *const bus_object_types[] = {
        &manager_object, &device_object, &port_object, &netdev_object, &sriov_object,
};

/* The pending changes: an array in the order of first report, with an
 * open-addressing index by object and kind. */
static size_t slot_of(const PendingChanges *c, const void *object, ModelObjectKind kind) {
        uint64_t h = ((uint64_t) (uintptr_t) object ^ (uint64_t) kind) * UINT64_C(0x9e3779b97f4a7c15);

        return (size_t) (h >> 32) & (c->n_slots - 1);
}

/* The slot of the object's change, or the empty slot where it would go. */
static size_t *find_slot(const PendingChanges *c, const void *object, ModelObjectKind kind) {
        for (size_t i = slot_of(c, object, kind);; i = (i + 1) & (c->n_slots - 1)) {
                size_t *slot = &c->slots[i];

                if (*slot == 0 || (c->changes[*slot - 1].object == object && c->changes[*slot - 1].kind == kind))
                        return slot;
        }
}

/* Twice the slots of the changes (dropped ones included), so that probes stay short. */
static int reindex(PendingChanges *c, size_t n_changes) {
        size_t n = 64, *slots;

        while (n < 2 * n_changes)
                n *= 2;
        if (n <= c->n_slots && c->slots)
                return 0;
        slots = calloc(n, sizeof(size_t));
        if (!slots)
                return -ENOMEM;
        free(c->slots);
        c->slots = slots;
        c->n_slots = n;
        for (size_t i = 0; i < c->n; i++)
                if (c->changes[i].object)
                        *find_slot(c, c->changes[i].object, c->changes[i].kind) = i + 1;
        return 0;
}

void pending_changes_add(PendingChanges *c, ModelObjectKind kind, const void *object, PropertyMask mask) {
        size_t *slot;

        assert(c);

        if (mask == 0 || !object || c->everything)
                return;
        if (reindex(c, c->n + 1) < 0 || ARRAY_RESERVE(c->changes, c->allocated, c->n + 1) < 0) {
                log_oom();
                c->everything = true;
                return;
        }
        slot = find_slot(c, object, kind);
        if (*slot == 0) {
                c->changes[c->n] = (PendingChange){ .object = object, .kind = kind };
                *slot = ++c->n;
        }
        c->changes[*slot - 1].mask |= mask;
}

static void drop(PendingChanges *c, ModelObjectKind kind, const void *object) {
        size_t *slot;

        if (c->n == 0)
                return;
        slot = find_slot(c, object, kind);
        /* The slot stays, pointing at a change no object matches: probes go on past it. */
        if (*slot != 0)
                c->changes[*slot - 1] = (PendingChange){};
}

void pending_changes_drop_device(PendingChanges *c, const Device *d) {
        assert(c);
        assert(d);

        drop(c, MODEL_DEVICE, d);
        drop(c, MODEL_SRIOV, d);
        for (size_t i = 0; i < d->n_ports; i++)
                drop(c, MODEL_PORT, &d->ports[i]);
        for (size_t i = 0; i < d->n_netdevs; i++)
                drop(c, MODEL_NETDEV, d->netdevs[i]);
}

static const Device *owner_of(const PendingChange *x) {
        switch (x->kind) {
        case MODEL_PORT:
                return ((const Port *) x->object)->device;
        case MODEL_NETDEV:
                return ((const NetDev *) x->object)->device;
        default:
                return x->object;
        }
}

static int change_compare(const void *a, const void *b) {
        const PendingChange *x = a, *y = b;
        int k;

        if (!x->object || !y->object)
                return !x->object - !y->object;
        k = strcmp(owner_of(x)->name, owner_of(y)->name);
        if (k != 0)
                return k;
        if (x->kind != y->kind) /* the order of ModelObjectKind */
                return (int) x->kind - (int) y->kind;
        if (x->kind == MODEL_PORT) {
                uint32_t p = ((const Port *) x->object)->number, q = ((const Port *) y->object)->number;
                return p < q ? -1 : p > q;
        }
        if (x->kind == MODEL_NETDEV)
                return strcmp(((const NetDev *) x->object)->name, ((const NetDev *) y->object)->name);
        return 0;
}

void pending_changes_sort(PendingChanges *c) {
        assert(c);

        if (c->n < 2)
                return;
        qsort(c->changes, c->n, sizeof(PendingChange), change_compare);
        /* The index points at the old places: it is cleared with the changes after the emission. */
}

void pending_changes_clear(PendingChanges *c) {
        assert(c);

        /* The arrays stay for the next iteration's few changes; a burst's go back. */
        if (c->allocated > 256)
                pending_changes_done(c);
        else if (c->n > 0 && c->slots)
                memset(c->slots, 0, c->n_slots * sizeof(size_t));
        c->n = 0;
        c->everything = false;
}

void pending_changes_done(PendingChanges *c) {
        free(c->changes);
        free(c->slots);
        *c = (PendingChanges){};
}

static int device_object_path(const Device *d, size_t i, char **ret) {
        if (i == 0)
                return device_bus_path(d, ret);
        if (--i < d->n_ports)
                return port_bus_path(&d->ports[i], ret);
        if ((i -= d->n_ports) < d->n_netdevs)
                return netdev_bus_path(d->netdevs[i], ret);
        return sriov_bus_path(d, ret);
}

int bus_objects_device_paths(const Device *d, char ***l, size_t *n, size_t *allocated) {
        int r;

        assert(d);
        assert(l);
        assert(n);
        assert(allocated);

        for (size_t i = 0; i < 1 + d->n_ports + d->n_netdevs + d->sriov_capable; i++) {
                char *p;

                r = device_object_path(d, i, &p);
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
        BusServer *s = userdata;
        Manager *m = s->manager;
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
        int r = list_object_paths(userdata, nodes, &n);

        return r < 0 ? r : 1;
}

/* InterfacesAdded for all objects of a device: after it is in the table,
 * parent first (sd-bus reads the properties through the find callbacks).
 * InterfacesRemoved: while it is still there, children first (sd-bus asks
 * the find callbacks which interfaces the object had). */
static void send_device_objects(BusServer *s, const Device *d, bool added) {
        _cleanup_strv_free_ char **paths = NULL;
        size_t n = 0, allocated = 0;
        int r;

        bus_managed_objects_changed(&s->managed_objects);
        if (!s->bus)
                return;
        r = bus_objects_device_paths(d, &paths, &n, &allocated);
        if (r < 0) {
                log_oom();
                return;
        }
        for (size_t k = 0; k < n; k++) {
                const char *path = paths[added ? k : n - 1 - k];

                r = added ? sd_bus_emit_object_added(s->bus, path) : sd_bus_emit_object_removed(s->bus, path);
                if (r < 0)
                        log_warning_errno(r, "Failed to announce %s %s: %m",
                                          added ? "the addition of" : "the removal of", path);
        }
}

static void send_netdev_object(BusServer *s, const NetDev *n, bool added) {
        _cleanup_free_ char *path = NULL;

        bus_managed_objects_changed(&s->managed_objects);
        if (!s->bus || netdev_bus_path(n, &path) < 0)
                return;
        (void) (added ? sd_bus_emit_object_added(s->bus, path) : sd_bus_emit_object_removed(s->bus, path));
}

static void schedule_emit(BusServer *s) {
        /* Every change of the model comes through here (or announces objects):
         * a GetManagedObjects reply being built must not mix before and after. */
        bus_managed_objects_changed(&s->managed_objects);
        bus_server_trim_later(s);
        if (s->emit_event)
                (void) sd_event_source_set_enabled(s->emit_event, SD_EVENT_ONESHOT);
}

/* The model's events: objects announced as they come and go, changes
 * kept until the emission. */
static void on_device_added(Device *d, void *userdata) {
        send_device_objects(userdata, d, true);
}

static void on_device_removing(Device *d, void *userdata) {
        BusServer *s = userdata;

        port_wait_fail_device(&s->port_waits, d);
        pending_changes_drop_device(&s->pending, d);
        send_device_objects(s, d, false);
}

static void on_netdev_added(NetDev *n, void *userdata) {
        send_netdev_object(userdata, n, true);
}

static void on_netdev_removing(NetDev *n, void *userdata) {
        BusServer *s = userdata;

        drop(&s->pending, MODEL_NETDEV, n);
        send_netdev_object(s, n, false);
}

static void on_model_changed(ModelObjectKind kind, void *object, PropertyMask mask, void *userdata) {
        BusServer *s = userdata;

        if (kind == MODEL_DEVICE_SET)
                s->devices_changed = true;
        else
                pending_changes_add(&s->pending, kind, object, mask);
        schedule_emit(s);
}

static void on_rescanned(void *userdata) {
        BusServer *s = userdata;

        rescan_calls_answer(&s->rescans);
}

static const ModelEvents model_events = {
        .device_added = on_device_added,
        .device_removing = on_device_removing,
        .netdev_added = on_netdev_added,
        .netdev_removing = on_netdev_removing,
        .changed = on_model_changed,
        .rescanned = on_rescanned,
};

/* The names of each kind's bits, indexed by them: what PropertiesChanged
 * names, each spelled in api/rdmad-api.h after its row's id. */
#define NAME_CHANGE(name) name,
#define NAME_CONST(name)
#define NAME(prefix, id, signature, emits, ...) NAME_##emits(prefix##id)
#define DEVICE_NAME(...)                        NAME(RDMAD_DEVICE_PROPERTY_, __VA_ARGS__)
#define PORT_NAME(...)                          NAME(RDMAD_PORT_PROPERTY_, __VA_ARGS__)
#define NETDEV_NAME(...)                        NAME(RDMAD_NETDEV_PROPERTY_, __VA_ARGS__)
#define SRIOV_NAME(...)                         NAME(RDMAD_SRIOV_PROPERTY_, __VA_ARGS__)

static const char *const device_names[_DEVICE_PROP_MAX] = { DEVICE_PROPERTIES(DEVICE_NAME) };
static const char *const port_names[_PORT_PROP_MAX] = { PORT_PROPERTIES(PORT_NAME) };
static const char *const netdev_names[_NETDEV_PROP_MAX] = { NETDEV_PROPERTIES(NETDEV_NAME) };
static const char *const sriov_names[_SRIOV_PROP_MAX] = { SRIOV_PROPERTIES(SRIOV_NAME) };

/* How each kind of object announces its changes: one PropertiesChanged
 * for the names of its pending bits, which are then clear. */
typedef struct ChangeEmitter {
        const char *interface;
        const char *const *names;
        unsigned n_names;
} ChangeEmitter;

static const ChangeEmitter change_emitters[] = {
        [MODEL_DEVICE] = { RDMAD_DEVICE_INTERFACE, device_names, _DEVICE_PROP_MAX },
        [MODEL_PORT] = { RDMAD_PORT_INTERFACE, port_names, _PORT_PROP_MAX },
        [MODEL_NETDEV] = { RDMAD_NETDEV_INTERFACE, netdev_names, _NETDEV_PROP_MAX },
        [MODEL_SRIOV] = { RDMAD_SRIOV_INTERFACE, sriov_names, _SRIOV_PROP_MAX },
};

const char *bus_property_name(ModelObjectKind kind, unsigned bit) {
        return bit < change_emitters[kind].n_names ? change_emitters[kind].names[bit] : NULL;
}

static int object_path(ModelObjectKind kind, const void *object, char **ret) {
        switch (kind) {
        case MODEL_DEVICE:
                return device_bus_path(object, ret);
        case MODEL_PORT:
                return port_bus_path(object, ret);
        case MODEL_NETDEV:
                return netdev_bus_path(object, ret);
        default: /* MODEL_SRIOV */
                return sriov_bus_path(object, ret);
        }
}

static int send_changed(sd_bus *bus, ModelObjectKind kind, const void *object, PropertyMask mask) {
        const ChangeEmitter *e = &change_emitters[kind];
        _cleanup_free_ char *path = NULL;
        const char *names[64 + 1];
        size_t n = 0;
        int r;

        if (!object || mask == 0)
                return 0;
        for (unsigned bit = 0; bit < e->n_names; bit++)
                if (mask & PROPERTY_BIT(bit))
                        names[n++] = e->names[bit];
        names[n] = NULL;
        if (n == 0)
                return 0;
        r = object_path(kind, object, &path);
        if (r < 0)
                return r;
        r = sd_bus_emit_properties_changed_strv(bus, path, e->interface, (char **) names);
        if (r < 0)
                return log_warning_errno(r, "Failed to announce changes of %s: %m", path);
        return 0;
}

/* Every object announced as changed: a change that could not be recorded. */
static void send_everything_changed(BusServer *s) {
        Manager *m = s->manager;

        for (size_t i = 0; i < m->n_devices; i++) {
                const Device *d = m->devices[i];

                (void) send_changed(s->bus, MODEL_DEVICE, d, UINT64_MAX);
                for (size_t j = 0; j < d->n_ports; j++)
                        (void) send_changed(s->bus, MODEL_PORT, &d->ports[j], UINT64_MAX);
                for (size_t j = 0; j < d->n_netdevs; j++)
                        (void) send_changed(s->bus, MODEL_NETDEV, d->netdevs[j], UINT64_MAX);
                (void) send_changed(s->bus, MODEL_SRIOV, d, UINT64_MAX);
        }
}

/* One PropertiesChanged per changed object; runs once per loop iteration. */
static int on_emit(sd_event_source *source, void *userdata) {
        BusServer *s = userdata;

        if (s->devices_changed) {
                s->devices_changed = false;
                (void) bus_manager_send_changed(s);
        }

        if (s->pending.everything)
                send_everything_changed(s);
        else {
                pending_changes_sort(&s->pending);
                for (size_t i = 0; i < s->pending.n; i++) {
                        const PendingChange *c = &s->pending.changes[i];

                        (void) send_changed(s->bus, c->kind, c->object, c->mask);
                }
        }
        pending_changes_clear(&s->pending);

        /* The states are published: now the waiters may be answered. */
        port_wait_check(&s->port_waits);
        return 0;
}

static void on_emit_gone(void *userdata) {
        BusServer *s = userdata;

        pending_changes_done(&s->pending);
}

/* What a rationed reply is about to cost, before it is built: generous
 * upper estimates (a port's counters are a few KiB; a node's introspection
 * data a few KiB plus a line per child). */
#define COST_OBJECT_BYTES   4096u
#define COST_CHILD_BYTES    64u
#define COST_TARGET_BYTES   4096u
#define COST_PROPERTY_BYTES 512u

static uint64_t reply_cost(sd_bus_message *call, void *userdata) {
        BusServer *s = userdata;
        const Manager *m = s->manager;
        const char *member = strempty(sd_bus_message_get_member(call));
        const char *path = strempty(sd_bus_message_get_path(call));
        uint64_t targets = 0;

        if (streq(member, "Get"))
                return COST_PROPERTY_BYTES;
        if (streq(member, RDMAD_METHOD_GET_ALL_COUNTERS)) {
                for (size_t i = 0; i < m->n_devices; i++)
                        targets += 1 + m->devices[i]->n_ports;
                return COST_OBJECT_BYTES + targets * COST_TARGET_BYTES;
        }
        if (streq(member, "Introspect") && (streq(path, RDMAD_DEVICE_PREFIX) || streq(path, RDMAD_ROOT_PATH)))
                return COST_OBJECT_BYTES + (uint64_t) m->n_devices * COST_CHILD_BYTES;
        return COST_OBJECT_BYTES;
}

/* sd-bus would echo an unknown object's path and an unknown property's
 * names whole. This fallback at the root is reached only once every object
 * below declined a call (root's own calls come first: only their long names
 * are refused); it quotes at most ARG_QUOTE_PREFIX bytes of each. The device
 * folder is a node, as sd-bus counts it. A Get that finds its property ends before. */
static int on_unknown(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        char quoted[2][ARG_QUOTE_SIZE];
        const char *path = sd_bus_message_get_path(m), *names[2];
        int r = bus_refuse_long_names(m);

        if (r != 0 || streq(path, RDMAD_ROOT_PATH))
                return r;
        if (!streq(path, RDMAD_DEVICE_PREFIX) && !bus_path_is_object(userdata, path))
                return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_OBJECT, "Unknown object '%s'.",
                                         arg_quote(path, quoted[0]));
        if (!sd_bus_message_is_method_call(m, DBUS_PROPERTIES_INTERFACE, "Get") &&
            !sd_bus_message_is_method_call(m, DBUS_PROPERTIES_INTERFACE, "Set"))
                return 0; /* sd-bus's UnknownMethod names only the member and interface */
        r = sd_bus_message_read(m, "ss", &names[0], &names[1]);
        if (r < 0)
                return r;
        return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_PROPERTY, "Unknown interface '%s' or property '%s'.",
                                 arg_quote(names[0], quoted[0]), arg_quote(names[1], quoted[1]));
}

int bus_objects_register(BusServer *s) {
        int r;

        assert(s);
        assert(s->bus);
        assert(s->event);

        manager_set_events(s->manager, &model_events, s);

        for (size_t i = 0; i < ELEMENTSOF(bus_object_types); i++) {
                const BusObjectType *t = bus_object_types[i];

                if (t->find)
                        r = sd_bus_add_fallback_vtable(s->bus, NULL, t->path, t->interface, t->vtable, t->find, s);
                else
                        r = sd_bus_add_object_vtable(s->bus, NULL, t->path, t->interface, t->vtable, s);
                if (r < 0)
                        return log_error_errno(r, "Failed to add the %s vtable at %s: %m", t->interface, t->path);
        }

        r = sd_bus_add_node_enumerator(s->bus, NULL, RDMAD_DEVICE_PREFIX, node_enumerator, s);
        if (r < 0)
                return log_error_errno(r, "Failed to add the node enumerator: %m");

        r = sd_bus_add_object_manager(s->bus, NULL, RDMAD_ROOT_PATH);
        if (r < 0)
                return log_error_errno(r, "Failed to add the object manager: %m");

        r = sd_bus_add_fallback(s->bus, NULL, RDMAD_ROOT_PATH, on_unknown, s->manager);
        if (r < 0)
                return log_error_errno(r, "Failed to add the fallback for unknown calls: %m");

        /* Its GetManagedObjects is taken over: built in slices, not in one go. */
        r = bus_managed_objects_start(&s->managed_objects, s->bus, s->event, RDMAD_ROOT_PATH, bus_object_types,
                                      ELEMENTSOF(bus_object_types), list_object_paths, s, &s->callers);
        if (r < 0)
                return r;

        /* The other costly methods of users other than root: in turns, rationed. */
        r = bus_ration_start(&s->ration, s->bus, s->event, RDMAD_ROOT_PATH, &s->callers, reply_cost, s);
        if (r < 0)
                return r;

        /* Emission runs after everything else of an iteration, so changes from
         * several sources coalesce into one signal per object. */
        r = sd_event_add_defer(s->event, &s->emit_event, on_emit, s);
        if (r < 0)
                return log_error_errno(r, "Failed to add the emit source: %m");
        (void) sd_event_source_set_priority(s->emit_event, SD_EVENT_PRIORITY_IDLE);
        (void) sd_event_source_set_enabled(s->emit_event, SD_EVENT_OFF);
        (void) sd_event_source_set_description(s->emit_event, "emit-changes");
        /* What is pending goes with the source that would announce it. */
        (void) sd_event_source_set_destroy_callback(s->emit_event, on_emit_gone);
        return 0;
}
