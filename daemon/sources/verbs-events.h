/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "forward.h"

struct EventSources; /* event-sources.h */

/* InfiniBand link changes from the kernel's verbs asynchronous events: a
 * verbs context per device with an InfiniBand link-layer port, its async_fd
 * on the event loop, each event acknowledged and the port it names re-read
 * from sysfs (at most once per loop iteration, however many arrive). sysfs
 * stays the source of every published value: an event is only a hint.
 *
 * A context is never held across the device's removal: it is closed on the
 * uverbs node's remove uevent, on DEVICE_FATAL, when the device is removed
 * or renamed, and on SIGTERM; reopened after a rename or re-add. Where no
 * context can be opened the poll covers the device, as it did before. */
typedef struct VerbsEvents VerbsEvents;

/* After manager_load(), before the loaded devices are added. Never fatal. */
int verbs_events_start(struct EventSources *s);
/* Closes every context and opens no more (SIGTERM). */
void verbs_events_stop(struct EventSources *s);
void verbs_events_free(struct EventSources *s);

/* From the manager's table changes; no-ops before verbs_events_start(). */
void verbs_device_added(struct EventSources *s, Device *d);
void verbs_device_removing(struct EventSources *s, Device *d);

/* A uevent of the infiniband_verbs subsystem: node is its sysname ("uverbs0"). */
void verbs_node_event(struct EventSources *s, const char *node, const char *action);
