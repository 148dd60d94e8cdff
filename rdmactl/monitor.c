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
 * timer) says no addition of the same hardware follows. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-event.h>

#include "api/bus-path.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "client/inventory.h"
#include "client/rdmad-signals.h"
#include "monitor.h"
#include "rdmactl.h"

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

static int on_interfaces_added(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        Monitor *m = userdata;
        bool known_device, known_port;
        const char *path;
        RdmaDevice *d;
        RdmaPort *p;
        int r;

        r = sd_bus_message_read(message, "o", &path);
        if (r < 0)
                return 0; /* not what the API promises: ignore it */
        /* Already known: announced between subscribing and reading the objects. */
        known_device = inventory_find_device(m->inv, path);
        known_port = inventory_find_port(m->inv, path);
        r = inventory_add_object(m->inv, path, message);
        if (r < 0)
                return 0;
        if (!m->options->json)
                inventory_make_printable(m->inv);

        d = inventory_find_device(m->inv, path);
        if (d && !known_device) {
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
                return 0;
        }
        p = inventory_find_port(m->inv, path);
        if (p && !known_port && !is_renamed(m, p->device))
                announce_port_added(m, p);
        return 0;
}

static int on_interfaces_removed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        Monitor *m = userdata;
        char **interfaces = NULL;
        const char *path;
        RdmaDevice *d;
        int r;

        r = sd_bus_message_read(message, "o", &path);
        if (r >= 0)
                r = sd_bus_message_read_strv(message, &interfaces);
        if (r < 0)
                return 0;

        d = inventory_find_device(m->inv, path);
        if (d) {
                queue_removal(m, d);
                (void) sd_event_source_set_time_relative(m->flush_timer, RENAME_WINDOW_USEC);
                (void) sd_event_source_set_enabled(m->flush_timer, SD_EVENT_ONESHOT);
                forget_renamed(m, path);
        }
        inventory_remove_object(m->inv, path, interfaces);
        for (char **i = interfaces; i && *i; i++)
                free(*i);
        free(interfaces);
        return 0;
}

static void port_link_done(PortLink *l) {
        free(l->state);
        free(l->phys_state);
        free(l->rate);
        free(l->link_layer);
        free(l->netdev);
}

/* The name of a netdev object: from the inventory, or, when the object is
 * already gone or not yet announced, decoded from its path (bus-path.h). */
static char *netdev_name(const Inventory *inv, const char *path) {
        const char *name = inventory_netdev_name(inv, path), *slash;
        BusPath parsed;

        if (name)
                return strdup(name);
        if (!path || streq(path, "/") || !(slash = strrchr(path, '/')))
                return strdup("");
        if (bus_path_parse(path, &parsed) > 0 && parsed.kind == BUS_PATH_NETDEV)
                return strdup(parsed.ifname);
        return strdup(slash + 1);
}

/* The port's link now; the netdev's name looked up in inv. */
static int port_link_save(const Monitor *m, const Inventory *inv, const RdmaPort *p, PortLink *ret) {
        *ret = (PortLink){
                .state = strdup(p->state_name),
                .phys_state = strdup(p->phys_state_name),
                .rate = strdup(p->rate),
                .link_layer = strdup(p->link_layer),
                .netdev = netdev_name(inv, p->netdev),
                .lid = p->lid,
                .sm_lid = p->sm_lid,
                .lmc = p->lid_mask_count,
                .sm_sl = p->sm_sl,
        };
        if (!ret->state || !ret->phys_state || !ret->rate || !ret->link_layer || !ret->netdev) {
                port_link_done(ret);
                return -ENOMEM;
        }
        if (!m->options->json) /* a decoded name did not go through inventory_make_printable() */
                make_printable(ret->netdev);
        return 0;
}

static void port_changed(Monitor *m, RdmaPort *p, sd_bus_message *message) {
        PortLink old, new;

        if (port_link_save(m, m->inv, p, &old) < 0)
                return;
        if (port_read_properties(p, message) >= 0) {
                if (!m->options->json) {
                        make_printable(p->state_name);
                        make_printable(p->phys_state_name);
                        make_printable(p->rate);
                        make_printable(p->link_layer);
                }
                if (port_link_save(m, m->inv, p, &new) >= 0) {
                        announce_port_changes(m, p, &old, &new);
                        port_link_done(&new);
                }
        }
        port_link_done(&old);
}

static void sriov_changed(Monitor *m, RdmaSriov *s, sd_bus_message *message) {
        uint32_t old = s->num_vfs;

        if (sriov_read_properties(s, message) >= 0 && s->num_vfs != old)
                announce_num_vfs(m, s, old);
}

/* Whether a device's health is news: another Health, or another reason for
 * the same one. None (an rdmad older than Health) is as good as "ok". */
static bool health_changed(const char *old_health, const char *old_reason, const RdmaDevice *d) {
        const char *was = old_health && *old_health ? old_health : "ok";
        const char *is = d->health && *d->health ? d->health : "ok";

        return !streq(was, is) || !streq(strempty(old_reason), strempty(d->health_reason));
}

static void device_changed(Monitor *m, RdmaDevice *d, sd_bus_message *message) {
        _cleanup_free_ char *old_health = strdup(strempty(d->health)), *old_reason = strdup(strempty(d->health_reason));

        if (!old_health || !old_reason || device_read_properties(d, message) < 0)
                return;
        if (!m->options->json) {
                make_printable(d->health);
                make_printable(d->health_reason);
        }
        if (health_changed(old_health, old_reason, d))
                announce_health(m, d, old_health, old_reason);
}

static int on_properties_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        Monitor *m = userdata;
        const char *path = sd_bus_message_get_path(message), *interface;
        RdmaPort *p;
        RdmaSriov *s;
        RdmaDevice *d;

        if (!path || sd_bus_message_read(message, "s", &interface) < 0)
                return 0;
        /* Anything but an addition ends a rename announcement (Manager.Devices follows every one). */
        flush_removals(m);

        if (streq(interface, RDMAD_PORT_INTERFACE) && (p = inventory_find_port(m->inv, path)))
                port_changed(m, p, message);
        else if (streq(interface, RDMAD_SRIOV_INTERFACE) && (s = inventory_find_sriov(m->inv, path)))
                sriov_changed(m, s, message);
        else if (streq(interface, RDMAD_DEVICE_INTERFACE) && (d = inventory_find_device(m->inv, path)))
                device_changed(m, d, message);
        return 0;
}

/* What changed while rdmad was away: m->inv is what it publishes now, old
 * what was known before it left. In the order the live signals would have
 * printed it: removals and renames, additions with their ports, then port
 * and SR-IOV changes of the devices that stayed. */
static void announce_differences(Monitor *m, const Inventory *old) {
        const Inventory *now = m->inv;
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

                if (renamed[i] || inventory_find_device(old, d->path))
                        continue;
                announce_device_added(m, d);
                for (size_t j = 0; j < now->n_ports; j++)
                        if (streq(now->ports[j]->device, d->path))
                                announce_port_added(m, now->ports[j]);
        }

        /* A device that stayed, and whose health changed meanwhile: before its ports' news. */
        for (size_t i = 0; i < now->n_devices; i++) {
                const RdmaDevice *d = now->devices[i], *before = inventory_find_device(old, d->path);

                if (before && health_changed(before->health, before->health_reason, d))
                        announce_health(m, d, before->health, before->health_reason);
        }

        for (size_t i = 0; i < now->n_ports; i++) {
                const RdmaPort *p = now->ports[i], *before;
                PortLink was, is;

                if (!inventory_find_device(old, p->device))
                        continue; /* a new or renamed device: told above */
                before = inventory_find_port(old, p->path);
                if (!before) {
                        announce_port_added(m, p);
                        continue;
                }
                if (port_link_save(m, old, before, &was) < 0)
                        continue;
                if (port_link_save(m, now, p, &is) >= 0) {
                        announce_port_changes(m, p, &was, &is);
                        port_link_done(&is);
                }
                port_link_done(&was);
        }

        for (size_t i = 0; i < now->n_sriovs; i++) {
                const RdmaSriov *before = inventory_find_sriov(old, now->sriovs[i]->path);

                if (before && before->num_vfs != now->sriovs[i]->num_vfs)
                        announce_num_vfs(m, now->sriovs[i], before->num_vfs);
        }
}

/* rdmad is back: read everything again and tell what changed meanwhile. */
static void daemon_returned(Monitor *m) {
        _cleanup_(inventory_freep) Inventory *old = NULL, *now = inventory_new();
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        if (!now)
                return;
        r = inventory_load(now, m->bus, &error);
        if (r < 0) {
                /* Still away as far as we know: the next owner change tries again. */
                fprintf(stderr, "rdmactl: rdmad is back, but reading its objects failed: %s\n",
                        error.message ?: strerror(-r));
                sd_bus_error_free(&error);
                return;
        }
        if (!m->options->json)
                inventory_make_printable(now);
        old = m->inv;
        m->inv = TAKE_PTR(now);
        m->away = false;
        announce_daemon_restarted(m);
        announce_differences(m, old);
}

static int on_name_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        Monitor *m = userdata;
        RdmadOwner owner;

        if (rdmad_read_owner_change(message, &owner, NULL) < 0)
                return 0;
        if (owner != RDMAD_OWNER_LEFT) {
                /* Back, or replaced without a gap. */
                if (m->away || owner == RDMAD_OWNER_REPLACED)
                        daemon_returned(m);
                return 0;
        }
        flush_removals(m);
        if (m->options->exit_on_disconnect) {
                fprintf(stderr, "rdmactl: rdmad left the system bus.\n");
                return sd_event_exit(m->event, EXIT_NOT_RUNNING);
        }
        m->away = true;
        announce_daemon_left(m);
        return 0;
}

static int on_disconnected(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        Monitor *m = userdata;

        flush_removals(m);
        fprintf(stderr, "rdmactl: lost the connection to the system bus.\n");
        return sd_event_exit(m->event, EXIT_NOT_RUNNING);
}

static int on_exit_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Monitor *m = userdata;

        flush_removals(m);
        return sd_event_exit(m->event, EXIT_OK);
}

static int subscribe(Monitor *m) {
        static const RdmadSignalHandlers handlers = {
                .interfaces_added = on_interfaces_added,
                .interfaces_removed = on_interfaces_removed,
                .properties_changed = on_properties_changed,
                .name_owner_changed = on_name_owner_changed,
                .disconnected = on_disconnected,
        };

        return rdmad_signals_new(m->bus, false, &handlers, m, &m->signals);
}

int verb_monitor(sd_bus *bus, const Options *options, char **args, size_t n_args) {
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        Inventory *inv = inventory_new(); /* m.inv from here on: replaced when rdmad returns */
        sd_bus_error error = SD_BUS_ERROR_NULL;
        Monitor m = { .bus = bus, .options = options, .inv = inv };
        sigset_t mask;
        int r, status;

        if (!inv)
                return report_oom();
        json_writer_init(&m.json, stdout, options->json == JSON_PRETTY);

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

        /* Subscribe first, then read the objects: nothing falls between the two. */
        r = subscribe(&m);
        if (r >= 0)
                r = inventory_load(inv, bus, &error);
        if (r >= 0 && !options->json)
                inventory_make_printable(inv);
        if (r < 0) {
                status = report_bus_error("subscribing", r, &error);
                sd_bus_error_free(&error);
                goto finish;
        }

        /* On stderr, so that --json output stays pure; tests wait for it. */
        fprintf(stderr, "Monitoring " RDMAD_BUS_NAME " (%zu devices, %zu ports); press Ctrl+C to stop.\n",
                inv->n_devices, inv->n_ports);

        r = sd_event_loop(event);
        status = r < 0 ? report_bus_error("monitor", r, NULL) : r;

finish:
        rdmad_signals_free(m.signals);
        inventory_free(m.inv);
        for (size_t i = 0; i < m.n_removed; i++)
                removed_device_free(&m.removed[i]);
        free(m.removed);
        for (size_t i = 0; i < m.n_renamed; i++)
                free(m.renamed[i]);
        free(m.renamed);
        sd_event_source_disable_unref(m.flush_timer);
        (void) sd_bus_detach_event(bus);
        return status;
}
