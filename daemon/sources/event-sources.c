/* SPDX-License-Identifier: MIT */
#include "event-sources.h"

#include <unistd.h>

#include "basic/log.h"
#include "basic/util.h"
#include "gid-follow.h"
#include "link-poll.h"
#include "manager.h"
#include "netlink.h"
#include "udev-monitor.h"
#include "verbs-events.h"

static void on_device_added(Device *d, void *userdata) {
        verbs_device_added(userdata, d);
}

static void on_device_removing(Device *d, void *userdata) {
        verbs_device_removing(userdata, d);
}

static int on_table_changed(void *userdata) {
        EventSources *s = userdata;

        return link_poll_update(s->poll);
}

static void on_port_changed(Port *p, PropertyMask changed, void *userdata) {
        EventSources *s = userdata;

        link_poll_port_changed(s->poll, p, changed);
}

static void on_uncovered(void *userdata) {
        EventSources *s = userdata;

        link_poll_wake(s->poll);
}

static void on_detach(void *userdata) {
        EventSources *s = userdata;

        verbs_events_free(s);
        link_poll_free(s->poll);
        gid_follow_free(s->gid_follow);
        sd_event_source_disable_unref(s->monitor_event);
        sd_event_source_disable_unref(s->rtnl_event);
        closep(&s->rtnl_fd);
        udev_monitor_unref(s->monitor);
        free(s);
}

static const ModelSources event_sources = {
        .device_added = on_device_added,
        .device_removing = on_device_removing,
        .table_changed = on_table_changed,
        .port_changed = on_port_changed,
        .uncovered = on_uncovered,
        .turn_done = link_poll_turn_done,
        .detach = on_detach,
};

int event_sources_attach(Manager *m, EventSources **ret) {
        EventSources *s;
        int r;

        assert(m);
        assert(ret);
        s = calloc(1, sizeof(EventSources));
        if (!s)
                return -ENOMEM;
        *s = (EventSources){ .manager = m, .rtnl_fd = -EBADF };
        r = link_poll_new(m, &s->poll);
        if (r >= 0)
                r = gid_follow_new(m, &s->gid_follow);
        if (r < 0) {
                on_detach(s);
                return r;
        }
        manager_set_sources(m, &event_sources, s);
        *ret = s;
        return 0;
}

int event_sources_start(EventSources *s) {
        int r;

        assert(s);
        r = udev_monitor_start(s);
        return r < 0 ? r : rtnl_start(s);
}

int event_sources_run(EventSources *s) {
        int r;

        assert(s);
        r = verbs_events_start(s);
        if (r < 0)
                return r;
        /* One device list for all of them: the first open asks for it, the others wait for it. */
        for (size_t i = 0; i < s->manager->n_devices; i++)
                verbs_device_added(s, s->manager->devices[i]);
        r = link_poll_update(s->poll);
        if (r < 0)
                return log_error_errno(r, "Failed to start polling: %m");
        return 0;
}

void event_sources_stop(EventSources *s) {
        verbs_events_stop(s);
}
