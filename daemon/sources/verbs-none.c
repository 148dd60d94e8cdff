/* SPDX-License-Identifier: MIT */
/* The verbs event source of a build without libibverbs: the poll covers
 * every InfiniBand port, and the log says why, once. */
#include "basic/log.h"
#include "manager.h"
#include "verbs-events.h"

static bool said;

int verbs_events_start(Manager *m) {
        for (size_t i = 0; i < m->n_devices; i++)
                verbs_device_added(m, m->devices[i]);
        return 0;
}

void verbs_events_stop(Manager *m) {
}

void verbs_events_free(Manager *m) {
}

void verbs_device_added(Manager *m, Device *d) {
        if (said || verbs_skip_reason(d))
                return;
        log_info("Built without libibverbs: polling the link state of every InfiniBand port.");
        said = true;
}

void verbs_device_removing(Manager *m, Device *d) {
}

void verbs_node_event(Manager *m, const char *node, const char *action) {
}
