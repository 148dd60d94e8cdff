/* SPDX-License-Identifier: MIT */
#pragma once

#include "forward.h"

struct EventSources; /* event-sources.h */

/* Subscribes to uevents of infiniband, infiniband_verbs, net and pci devices and feeds them to
 * the manager (reload, remove, VF counts). */
int udev_monitor_start(struct EventSources *s);
