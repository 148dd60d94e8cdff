/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>
#include <systemd/sd-event.h>

#include "forward.h"

/* The event sources (udev-monitor.c, netlink.c, link-poll.c, verbs-events.c)
 * as the model's followers, and what they keep: theirs, not the model's.
 * The manager knows them only through the ModelSources they register. */
typedef struct EventSources {
        Manager *manager;
        struct LinkPoll *poll; /* the link-state poll's own state (link-poll.c) */

        struct udev_monitor *monitor;
        sd_event_source *monitor_event;

        int rtnl_fd;
        sd_event_source *rtnl_event;
        /* GID tables re-read after address messages (gid-follow.h). */
        struct GidFollow *gid_follow;

        /* The verbs contexts and their async events; NULL until
         * event_sources_run(). */
        struct VerbsEvents *verbs;
} EventSources;

/* Makes the sources of m, with the poll, and registers them with the
 * manager (after manager_new(), before manager_load()). They go with the
 * manager (ModelSources.detach); *ret is valid as long as it lives. */
int event_sources_attach(Manager *m, EventSources **ret);

/* Starts the udev monitor and rtnetlink (before manager_load(): nothing
 * falls between the enumeration and the first event). */
int event_sources_start(EventSources *s);

/* After the bus name: opens the verbs contexts (their first events are
 * published) and arms the poll. */
int event_sources_run(EventSources *s);

/* SIGTERM: nothing of ours may hold up a device's removal while we exit. */
void event_sources_stop(EventSources *s);
