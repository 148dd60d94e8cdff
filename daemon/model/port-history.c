/* SPDX-License-Identifier: MIT */
#include "port-history.h"

#include <stdlib.h>

#include "basic/log.h"
#include "basic/util.h"
#include "model.h"
#include "port.h"
#include "port-gids.h"

int port_history_key(const Port *p, char ret[static LINK_HISTORY_KEY_MAX]) {
        char guid[PORT_GUID_MAX];

        return link_history_key(port_guid(p, guid), p->device->name, p->number, ret);
}

void device_history_load(HistoryStore *store, Device *d) {
        if (!store)
                return;
        for (size_t i = 0; i < d->n_ports; i++) {
                Port *p = &d->ports[i];
                char key[LINK_HISTORY_KEY_MAX];
                LinkHistory h;

                if (p->history || port_history_key(p, key) < 0)
                        continue;
                history_store_load(store, key, &h);
                if (h.n == 0)
                        continue;
                p->history = malloc(sizeof(LinkHistory));
                if (!p->history) {
                        log_oom();
                        continue;
                }
                *p->history = h;
        }
}

int port_history_record(HistoryStore *store, Port *p, uint64_t usec, const char *old_state) {
        char key[LINK_HISTORY_KEY_MAX];
        int r;

        if (!p->history) {
                p->history = calloc(1, sizeof(LinkHistory));
                if (!p->history)
                        return log_oom();
        }
        link_history_add(p->history, usec, old_state, p->state_name);
        if (!store)
                return 0;
        r = port_history_key(p, key);
        if (r < 0)
                return log_debug_errno(r, "%s port %u: no file name for its link history: %m", p->device->name,
                                       p->number),
                       0;
        r = history_store_save(store, key, p->history);
        if (r < 0)
                log_oom();
        return 0;
}
