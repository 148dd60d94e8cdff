/* SPDX-License-Identifier: MIT */
#pragma once

#include "forward.h"

/* The event sources (udev-monitor.c, netlink.c, link-poll.c, verbs-events.c) as
 * the model's followers: creates the poll and registers the sources'
 * ModelSources with the manager (after manager_new(), before manager_load()).
 * Their state goes with the manager (ModelSources.detach). */
int event_sources_attach(Manager *m);

/* Starts the udev monitor and rtnetlink (before manager_load(): nothing
 * falls between the enumeration and the first event). */
int event_sources_start(Manager *m);
