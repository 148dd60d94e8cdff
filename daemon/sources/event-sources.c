/* SPDX-License-Identifier: MIT */
#include "event-sources.h"

#include <unistd.h>

#include "basic/util.h"
#include "manager.h"
#include "netlink.h"
#include "link-poll.h"
#include "udev-monitor.h"
#include "verbs-events.h"

static void on_device_added(Device *d, void *userdata) {
        verbs_device_added(userdata, d);
}

static void on_device_removing(Device *d, void *userdata) {
        verbs_device_removing(userdata, d);
}

static int on_table_changed(void *userdata) {
        Manager *m = userdata;

        return poll_update(m->poll);
}

static void on_port_changed(const Port *p, uint32_t changed, void *userdata) {
        Manager *m = userdata;

        poll_port_changed(m->poll, p, changed);
}

static void on_uncovered(void *userdata) {
        Manager *m = userdata;

        poll_wake(m->poll);
}

static void on_turn_done(const char *device, void *userdata) {
        Manager *m = userdata;

        poll_turn_done(m->poll, device);
}

static void on_detach(void *userdata) {
        Manager *m = userdata;

        verbs_events_free(m);
        m->poll = poll_free(m->poll);
        m->monitor_event = sd_event_source_disable_unref(m->monitor_event);
        m->rtnl_event = sd_event_source_disable_unref(m->rtnl_event);
        if (m->rtnl_fd >= 0)
                close(m->rtnl_fd);
        m->rtnl_fd = -EBADF;
        m->monitor = udev_monitor_unref(m->monitor);
}

static const ModelSources event_sources = {
        .device_added = on_device_added,
        .device_removing = on_device_removing,
        .table_changed = on_table_changed,
        .port_changed = on_port_changed,
        .uncovered = on_uncovered,
        .turn_done = on_turn_done,
        .detach = on_detach,
};

int event_sources_attach(Manager *m) {
        int r;

        assert(m);
        assert(!m->poll);
        r = poll_new(m, &m->poll);
        if (r < 0)
                return r;
        manager_set_sources(m, &event_sources, m);
        return 0;
}

int event_sources_start(Manager *m) {
        int r;

        assert(m);
        r = udev_monitor_start(m);
        if (r < 0)
                return r;
        return rtnl_start(m);
}
