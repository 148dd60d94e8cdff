/* SPDX-License-Identifier: MIT */
/* rdmactl monitor: one line per device added, removed or renamed, per port
 * state change, per change of a port's other link properties (rate, link
 * layer, netdev, LIDs), per SR-IOV count change and per change of a
 * device's health (ok, errors, unresponsive), as rdmad announces them.
 *
 * When rdmad leaves the bus (a restart by the watchdog, an upgrade), the
 * monitor waits for it; when it is back, one GetManagedObjects is compared
 * with what was known and the differences are printed as they would have
 * been live. --exit-on-disconnect exits instead (status 3).
 *
 * The daemon announces a rename as the old device's removal followed at
 * once by the new one's addition. A removal is therefore held back until
 * the next message that is not part of the same announcement (or a short
 * timer) says no addition of the same hardware follows.
 *
 * With patterns (filter.h), only the events of what they name are printed;
 * a pattern that names nothing yet is waited for, as a device may come. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-event.h>

#include "api/bus-path.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "client/inventory.h"
#include "client/inventory-follow.h"
#include "monitor-output.h"
#include "rdmactl.h"
#include "verb-util.h"
#include "verbs.h"
#include "client/inventory-decode.h"

/* How long a removal waits for the addition that would make it a rename
 * when nothing else settles it first. Only a fallback: rdmad follows every
 * removal and addition with a Manager.Devices change, which settles it. */
#define RENAME_WINDOW_USEC (1000 * 1000)

static void removed_device_free(RemovedDevice *r) {
        free(r->name);
        free(r->device_path);
        free(r->node_guid);
}

static void queue_removal(Monitor *m, const RdmaDevice *d) {
        RemovedDevice *removed;

        if (ARRAY_RESERVE(m->removed, m->allocated_removed, m->n_removed + 1) < 0)
                return;
        removed = &m->removed[m->n_removed];
        *removed = (RemovedDevice){
                .name = strdup(d->name),
                .device_path = strdup(d->device_path),
                .node_guid = strdup(d->node_guid),
                .usec = now_usec(CLOCK_REALTIME),
        };
        if (removed->name && removed->device_path && removed->node_guid)
                m->n_removed++;
        else
                removed_device_free(removed);
}

/* Announces the removals no addition claimed as a rename. */
static void flush_removals(Monitor *m) {
        for (size_t i = 0; i < m->n_removed; i++) {
                announce_removal(m, &m->removed[i]);
                removed_device_free(&m->removed[i]);
        }
        m->n_removed = 0;
        (void) sd_event_source_set_enabled(m->flush_timer, SD_EVENT_OFF);
}

static int on_flush_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        flush_removals(userdata);
        return 0;
}

static bool guid_is_set(const char *guid) {
        return guid && *guid && strspn(guid, "0:") != strlen(guid);
}

/* The same hardware under another name: the same PCI function, or for
 * virtual devices (rxe, siw) the same node GUID. */
static RemovedDevice *find_rename_source(Monitor *m, const RdmaDevice *d) {
        for (size_t i = 0; i < m->n_removed; i++) {
                RemovedDevice *r = &m->removed[i];

                if (streq(r->name, d->name))
                        continue;
                if (*d->device_path
                            ? streq(r->device_path, d->device_path)
                            : !*r->device_path && guid_is_set(d->node_guid) && streq(r->node_guid, d->node_guid))
                        return r;
        }
        return NULL;
}

static bool is_renamed(const Monitor *m, const char *device_path) {
        for (size_t i = 0; i < m->n_renamed; i++)
                if (streq(m->renamed[i], device_path))
                        return true;
        return false;
}

static void forget_renamed(Monitor *m, const char *device_path) {
        for (size_t i = 0; i < m->n_renamed; i++)
                if (streq(m->renamed[i], device_path)) {
                        free(m->renamed[i]);
                        m->renamed[i] = m->renamed[--m->n_renamed];
                        return;
                }
}

static int remember_renamed(Monitor *m, const char *device_path) {
        int r = ARRAY_RESERVE(m->renamed, m->allocated_renamed, m->n_renamed + 1);

        if (r < 0)
                return r;
        m->renamed[m->n_renamed] = strdup(device_path);
        if (!m->renamed[m->n_renamed])
                return -ENOMEM;
        m->n_renamed++;
        return 0;
}

/* A device or port came: announced unless it was known already (announced
 * between subscribing and reading the objects), or is a renamed device's. */
static void objects_added(Monitor *m, const Inventory *inv, const Inventory *before, const char *path) {
        RdmaDevice *d = inventory_find_device(inv, path);
        RdmaPort *p = inventory_find_port(inv, path);

        if (d && !inventory_find_device(before, path)) {
                RemovedDevice *from = find_rename_source(m, d);

                if (from) {
                        announce_rename(m, from, d);
                        (void) remember_renamed(m, d->path);
                        removed_device_free(from);
                        *from = m->removed[--m->n_removed];
                } else {
                        flush_removals(m);
                        announce_device_added(m, d);
                }
                return;
        }
        if (p && !inventory_find_port(before, path) && !is_renamed(m, p->device))
                announce_port_added(m, p);
}

/* A removed device is held back: the addition of the same hardware may follow (a rename). */
static void objects_removed(Monitor *m, const Inventory *before, const char *path) {
        RdmaDevice *d = inventory_find_device(before, path);

        if (!d)
                return;
        queue_removal(m, d);
        (void) sd_event_source_set_time_relative(m->flush_timer, RENAME_WINDOW_USEC);
        (void) sd_event_source_set_enabled(m->flush_timer, SD_EVENT_ONESHOT);
        forget_renamed(m, path);
}

/* The name of a port's netdev: from inv, or, when the object is already
 * gone or not yet announced, decoded from its path (bus-path.h) into buf. */
static const char *netdev_name(const Monitor *m, const Inventory *inv, const char *path,
                               char buf[static NAME_MAX + 1]) {
        const char *name = inventory_netdev_name(inv, path), *slash;
        BusPath parsed;

        if (name)
                return name;
        if (!path || streq(path, "/") || !(slash = strrchr(path, '/')))
                return "";
        if (bus_path_parse(path, &parsed) <= 0 || parsed.kind != BUS_PATH_NETDEV)
                return slash + 1; /* an object path's characters are all printable */
        memcpy(buf, parsed.ifname, sizeof(parsed.ifname));
        if (!m->options->json) /* a decoded name did not go through inventory_make_printable_at() */
                make_printable(buf);
        return buf;
}

/* A port as it was (its netdev named in old_inv) and as it is (in inv): the objects themselves, no copies. */
static void port_changed(Monitor *m, const Inventory *old_inv, const RdmaPort *old, const Inventory *inv,
                         const RdmaPort *p) {
        char old_netdev[NAME_MAX + 1], new_netdev[NAME_MAX + 1];

        announce_port_changes(m, &(PortSide){ old, netdev_name(m, old_inv, old->netdev, old_netdev) },
                              &(PortSide){ p, netdev_name(m, inv, p->netdev, new_netdev) });
}

/* Whether a device's health is news: another Health, or another reason for
 * the same one. None (an rdmad older than Health) is as good as "ok". */
static bool health_changed(const char *old_health, const char *old_reason, const RdmaDevice *d) {
        const char *was = old_health && *old_health ? old_health : "ok";
        const char *is = d->health && *d->health ? d->health : "ok";

        return !streq(was, is) || !streq(strempty(old_reason), strempty(d->health_reason));
}

/* What a PropertiesChanged changed, told against the object as it was. */
static void properties_changed(Monitor *m, const Inventory *inv, const Inventory *before, const char *path) {
        const RdmaPort *p = inventory_find_port(inv, path), *old_port = inventory_find_port(before, path);
        const RdmaSriov *s = inventory_find_sriov(inv, path), *old_sriov = inventory_find_sriov(before, path);
        const RdmaDevice *d = inventory_find_device(inv, path), *old_device = inventory_find_device(before, path);

        if (p && old_port)
                port_changed(m, inv, old_port, inv, p);
        if (s && old_sriov && s->num_vfs != old_sriov->num_vfs)
                announce_num_vfs(m, s, old_sriov->num_vfs);
        if (d && old_device && health_changed(old_device->health, old_device->health_reason, d))
                announce_health(m, d, old_device->health, old_device->health_reason);
}

static void on_changed(InventoryFollow *f, InventoryChange change, const char *path, int r, void *userdata) {
        Monitor *m = userdata;
        Inventory *inv = inventory_follow_inventory(f);
        const Inventory *before = inventory_follow_before(f);

        if (r < 0 || !path || !before)
                return;        /* not what the API promises, or out of memory: ignore it */
        if (!m->options->json) /* the rest was made printable when it came */
                inventory_make_printable_at(inv, path);
        switch (change) {
        case INVENTORY_CHANGE_ADDED:
                objects_added(m, inv, before, path);
                break;
        case INVENTORY_CHANGE_REMOVED:
                objects_removed(m, before, path);
                break;
        case INVENTORY_CHANGE_PROPERTIES:
                /* Anything but an addition ends a rename announcement (Manager.Devices follows every one). */
                flush_removals(m);
                properties_changed(m, inv, before, path);
                break;
        }
}

/* What changed while rdmad was away: now is what it publishes now, old
 * what was known before it left. In the order the live signals would have
 * printed it: removals and renames, additions with their ports, then port
 * and SR-IOV changes of the devices that stayed. */
static void announce_differences(Monitor *m, const Inventory *now, const Inventory *old) {
        _cleanup_free_ bool *renamed = calloc(now->n_devices ?: 1, sizeof(bool));

        if (!renamed)
                return;
        for (size_t i = 0; i < old->n_devices; i++)
                if (!inventory_find_device(now, old->devices[i]->path))
                        queue_removal(m, old->devices[i]);
        for (size_t i = 0; i < now->n_devices; i++) {
                RemovedDevice *from;

                if (inventory_find_device(old, now->devices[i]->path) ||
                    !(from = find_rename_source(m, now->devices[i])))
                        continue;
                announce_rename(m, from, now->devices[i]);
                removed_device_free(from);
                *from = m->removed[--m->n_removed];
                renamed[i] = true;
        }
        flush_removals(m);

        for (size_t i = 0; i < now->n_devices; i++) {
                const RdmaDevice *d = now->devices[i];
                RdmaPort *const *ports;
                size_t n_ports;

                if (renamed[i] || inventory_find_device(old, d->path))
                        continue;
                announce_device_added(m, d);
                ports = inventory_device_ports(now, d->path, &n_ports);
                for (size_t j = 0; j < n_ports; j++)
                        announce_port_added(m, ports[j]);
        }

        /* A device that stayed, and whose health changed meanwhile: before its ports' news. */
        for (size_t i = 0; i < now->n_devices; i++) {
                const RdmaDevice *d = now->devices[i], *before = inventory_find_device(old, d->path);

                if (before && health_changed(before->health, before->health_reason, d))
                        announce_health(m, d, before->health, before->health_reason);
        }

        for (size_t i = 0; i < now->n_ports; i++) {
                const RdmaPort *p = now->ports[i], *before;

                if (!inventory_find_device(old, p->device))
                        continue; /* a new or renamed device: told above */
                before = inventory_find_port(old, p->path);
                if (before)
                        port_changed(m, old, before, now, p);
                else
                        announce_port_added(m, p);
        }

        for (size_t i = 0; i < now->n_sriovs; i++) {
                const RdmaSriov *before = inventory_find_sriov(old, now->sriovs[i]->path);

                if (before && before->num_vfs != now->sriovs[i]->num_vfs)
                        announce_num_vfs(m, now->sriovs[i], before->num_vfs);
        }
}

static void load_failed(Monitor *m, int r, const sd_bus_error *error) {
        if (!m->started) {
                (void) sd_event_exit(m->event, report_bus_error("subscribing", r, error));
                return;
        }
        /* Still away as far as we know: the next owner change tries again. */
        fprintf(stderr, "rdmactl: rdmad is back, but failed to read its objects: %s\n",
                error && error->message ? error->message : strerror(-r));
}

/* A GetManagedObjects answered: the first says monitoring began; a later
 * one (rdmad is back) tells what changed meanwhile. */
static void on_loaded(InventoryFollow *f, int r, const sd_bus_error *error, void *userdata) {
        Monitor *m = userdata;
        Inventory *inv = inventory_follow_inventory(f);
        const Inventory *old = inventory_follow_before(f);

        if (r < 0) {
                load_failed(m, r, error);
                return;
        }
        inventory_sort(inv);
        if (!m->options->json)
                inventory_make_printable(inv);
        if (!m->started) {
                m->started = true;
                /* On stderr, so that --json output stays pure; tests wait for it. */
                fprintf(stderr, "Monitoring " RDMAD_BUS_NAME " (%zu devices, %zu ports); press Ctrl+C to stop.\n",
                        inv->n_devices, inv->n_ports);
                for (size_t i = 0; i < m->filter.n_patterns; i++)
                        if (port_filter_unmatched(&(PortFilter){ .patterns = m->filter.patterns + i, .n_patterns = 1 },
                                                  inv))
                                fprintf(stderr, "Nothing matches '%s' yet; its events will be shown when it comes.\n",
                                        m->filter.patterns[i]);
                return;
        }
        m->away = false;
        announce_daemon_restarted(m);
        if (old)
                announce_differences(m, inv, old);
}

/* Only its leaving is news: a new owner's objects come to on_loaded(). */
static void on_owner_changed(InventoryFollow *f, const char *owner, int r, void *userdata) {
        Monitor *m = userdata;

        if (owner)
                return;
        flush_removals(m);
        if (m->options->exit_on_disconnect) {
                fprintf(stderr, "rdmactl: rdmad left the system bus.\n");
                (void) sd_event_exit(m->event, EXIT_NOT_RUNNING);
                return;
        }
        m->away = true;
        announce_daemon_left(m);
}

static void on_disconnected(InventoryFollow *f, void *userdata) {
        Monitor *m = userdata;

        flush_removals(m);
        fprintf(stderr, "rdmactl: lost the connection to the system bus.\n");
        (void) sd_event_exit(m->event, EXIT_NOT_RUNNING);
}

static int on_exit_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Monitor *m = userdata;

        flush_removals(m);
        return sd_event_exit(m->event, EXIT_OK);
}

int verb_monitor(sd_bus *bus, const Options *options, char **args, size_t n_args) {
        static const InventoryFollowOptions follow_options = {
                .auto_start = true, .keep_before = true, .load_timeout_usec = 0, /* sd-bus' default */
        };
        static const InventoryFollowCallbacks callbacks = {
                .loaded = on_loaded,
                .changed = on_changed,
                .owner_changed = on_owner_changed,
                .disconnected = on_disconnected,
        };
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        Monitor m = { .options = options };
        const char *bad = NULL;
        sigset_t mask;
        int r, status;

        r = port_filter_parse(&m.filter, args, n_args, &bad);
        if (r == -ENOMEM)
                return report_oom();
        if (r < 0) {
                port_filter_done(&m.filter);
                return usage_error("'%s' is a port number: name its device first, as in 'mlx5_0 %s'.", bad, bad);
        }

        json_writer_init(&m.json, stdout, options->json == JSON_PRETTY);
        m.follow = inventory_follow_new(&follow_options, &callbacks, &m);
        if (!m.follow) {
                port_filter_done(&m.filter);
                return report_oom();
        }

        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        r = sigprocmask(SIG_BLOCK, &mask, NULL);
        if (r >= 0)
                r = sd_event_default(&event);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGINT, on_exit_signal, &m);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGTERM, on_exit_signal, &m);
        if (r >= 0)
                r = sd_event_add_time_relative(event, &m.flush_timer, CLOCK_MONOTONIC, RENAME_WINDOW_USEC, 0,
                                               on_flush_timer, &m);
        if (r >= 0)
                r = sd_event_source_set_enabled(m.flush_timer, SD_EVENT_OFF);
        if (r >= 0)
                r = sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0) {
                status = report_bus_error("monitor", r, NULL);
                goto finish;
        }
        m.event = event;
        status = follow_and_run(m.follow, bus, event, "monitor");

finish:
        inventory_follow_free(m.follow);
        for (size_t i = 0; i < m.n_removed; i++)
                removed_device_free(&m.removed[i]);
        free(m.removed);
        for (size_t i = 0; i < m.n_renamed; i++)
                free(m.renamed[i]);
        free(m.renamed);
        sd_event_source_disable_unref(m.flush_timer);
        port_filter_done(&m.filter);
        (void) sd_bus_detach_event(bus);
        return status;
}
