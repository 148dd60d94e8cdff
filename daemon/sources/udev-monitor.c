/* SPDX-License-Identifier: MIT */
/* udev events: infiniband devices appear, vanish, are renamed or change;
 * netdevs come and go; a PF's sriov_numvfs is changed behind our back; a
 * uverbs node comes or goes (verbs-events.h). */
#include "udev-monitor.h"

#include <fcntl.h>
#include <string.h>

#include "basic/log.h"
#include "basic/parse.h"
#include "basic/util.h"
#include "event-sources.h"
#include "manager.h"
#include "pci-function.h"
#include "verbs-events.h"
#include "read-job.h"
#include "netdev.h"

static void handle_infiniband(Manager *m, struct udev_device *dev, const char *action) {
        const char *syspath = udev_device_get_syspath(dev);
        const char *name = udev_device_get_sysname(dev), *old = NULL;

        if (!syspath || !name)
                return;

        if (streq(action, "remove")) {
                manager_remove_device(m, name);
                return;
        }
        /* A rename (also a netns move): the old name's objects go, the new ones come. */
        if (streq(action, "move"))
                old = udev_device_get_property_value(dev, "DEVPATH_OLD");
        (void) manager_reload_device(m, old && !streq(basename(old), name) ? basename(old) : NULL, syspath, name);
}

static bool device_names_ifname(const Device *d, const char *ifname) {
        if (!ifname)
                return false;
        if (device_find_netdev(d, ifname))
                return true;
        for (size_t j = 0; j < d->n_ports; j++)
                if (streq(d->ports[j].gid_ndev, ifname))
                        return true;
        return false;
}

/* The RDMA devices a netdev event concerns: those on the same PCI function,
 * those that list the netdev (under its old name after a rename), and
 * virtual devices whose GIDs name it. */
static void handle_net(Manager *m, struct udev_device *dev, const char *action) {
        const char *syspath = udev_device_get_syspath(dev);
        const char *ifname = udev_device_get_sysname(dev);
        const char *old = streq(action, "move") ? udev_device_get_property_value(dev, "DEVPATH_OLD") : NULL;
        const char *old_ifname = old ? basename(old) : NULL;
        _cleanup_strv_free_ char **reload = NULL; /* syspath, name, syspath, name, ... */
        size_t n = 0, allocated = 0;
        char parent[4096];

        if (!syspath || !ifname)
                return;

        /* <parent>/net/<ifname> → <parent> */
        snprintf(parent, sizeof(parent), "%s", syspath);
        for (int k = 0; k < 2; k++) {
                char *slash = strrchr(parent, '/');
                if (slash)
                        *slash = '\0';
        }

        for (size_t i = 0; i < m->n_devices; i++) {
                Device *d = m->devices[i];
                bool hit = streq(d->device_path, parent) || device_names_ifname(d, ifname) ||
                           device_names_ifname(d, old_ifname);

                if (hit && (strv_push_take(&reload, &n, &allocated, strdup(d->sysfs_path)) < 0 ||
                            strv_push_take(&reload, &n, &allocated, strdup(d->name)) < 0))
                        return (void) log_oom();
        }
        /* Reloading changes the table: collect first, then reload. */
        for (size_t i = 0; i + 1 < n; i += 2)
                (void) manager_reload_device(m, NULL, reload[i], reload[i + 1]);
}

/* The kernel sends "change" on the PF when sriov_numvfs is written. */
static void handle_pci(Manager *m, struct udev_device *dev, const char *action) {
        const char *syspath = udev_device_get_syspath(dev);
        int r;

        if (!syspath || !streq(action, "change"))
                return;

        /* Read on the lane of a device of that PF; not a PF of ours: nothing is read. */
        r = pci_function_read_num_vfs(m, syspath);
        if (errno_is_resource(r))
                resync_defer(m, r, syspath);
}

/* Events handled per wakeup: a storm of thousands must not hold the bus
 * calls queued behind it; the socket stays readable and we come back. */
#define UDEV_EVENTS_PER_WAKEUP 16

static int on_udev_event(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        EventSources *s = userdata;
        Manager *m = s->manager;

        for (unsigned n = 0; n < UDEV_EVENTS_PER_WAKEUP; n++) {
                struct udev_device *dev;
                const char *subsystem, *action;

                errno = 0;
                dev = udev_monitor_receive_device(s->monitor);
                if (!dev) {
                        if (errno == ENOBUFS) {
                                /* Events were lost: only a full comparison with sysfs is safe. */
                                log_warning("udev monitor overflowed; resynchronising with sysfs.");
                                (void) manager_rescan(m);
                        }
                        break;
                }

                subsystem = udev_device_get_subsystem(dev);
                action = udev_device_get_action(dev);
                if (subsystem && action) {
                        log_debug("uevent %s %s %s", action, subsystem, strempty(udev_device_get_sysname(dev)));
                        if (streq(subsystem, "infiniband"))
                                handle_infiniband(m, dev, action);
                        else if (streq(subsystem, "net"))
                                handle_net(m, dev, action);
                        else if (streq(subsystem, "pci"))
                                handle_pci(m, dev, action);
                        else if (streq(subsystem, "infiniband_verbs"))
                                /* Its remove comes before the kernel waits for the node's users. */
                                verbs_node_event(s, udev_device_get_sysname(dev), action);
                }
                udev_device_unref(dev);
        }
        manager_retry_resync(m);
        return 0;
}

/* What on_udev_event() dispatches. */
static const char *const monitored_subsystems[] = { "infiniband", "net", "pci", "infiniband_verbs" };

int udev_monitor_start(EventSources *s) {
        Manager *m;
        int r;

        assert(s);
        assert(!s->monitor);
        m = s->manager;

        s->monitor = udev_monitor_new_from_netlink(m->udev, "udev");
        if (!s->monitor)
                return log_error_errno(errno ?: ENOMEM, "Failed to create the udev monitor: %m");

        for (size_t i = 0; i < ELEMENTSOF(monitored_subsystems); i++) {
                r = udev_monitor_filter_add_match_subsystem_devtype(s->monitor, monitored_subsystems[i], NULL);
                if (r < 0)
                        return log_error_errno(r, "Failed to filter the udev monitor for %s: %m",
                                               monitored_subsystems[i]);
        }

        /* A VF storm sends thousands of events at once: a large buffer makes overflow rare. */
        (void) udev_monitor_set_receive_buffer_size(s->monitor, 128 * 1024 * 1024);

        r = udev_monitor_enable_receiving(s->monitor);
        if (r < 0)
                return log_error_errno(r, "Failed to start the udev monitor: %m");

        r = sd_event_add_io(m->event, &s->monitor_event, udev_monitor_get_fd(s->monitor), EPOLLIN, on_udev_event, s);
        if (r < 0)
                return log_error_errno(r, "Failed to watch the udev monitor: %m");
        (void) sd_event_source_set_description(s->monitor_event, "udev-monitor");
        return 0;
}
