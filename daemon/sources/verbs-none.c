/* SPDX-License-Identifier: MIT */
/* The verbs event source of a build without libibverbs: the poll covers
 * every InfiniBand port, and the log says why, once. */
#include "basic/log.h"
#include "event-sources.h"
#include "manager.h"
#include "verbs-events.h"
#include "verbs-policy.h"

static bool said;

int verbs_events_start(EventSources *s) {
        return 0;
}

void verbs_events_stop(EventSources *s) {
}

void verbs_events_free(EventSources *s) {
}

void verbs_device_added(EventSources *s, Device *d) {
        if (said || verbs_skip_reason(d))
                return;
        log_info("Built without libibverbs: polling the link state of every InfiniBand port.");
        said = true;
}

void verbs_device_removing(EventSources *s, Device *d) {
}

void verbs_node_event(EventSources *s, const char *node, const char *action) {
}
