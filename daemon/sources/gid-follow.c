/* SPDX-License-Identifier: MIT */
/* Re-reads of the GID tables after address messages (gid-follow.h). */
#include "gid-follow.h"

#include <net/if.h>
#include <string.h>

#include "basic/log.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "manager.h"
#include "port.h"
#include "read-job.h"

typedef struct FollowedNetdev {
        char name[IF_NAMESIZE];
        uint64_t until_usec; /* CLOCK_MONOTONIC */
} FollowedNetdev;

struct GidFollow {
        Manager *manager;
        sd_event_source *timer;
        FollowedNetdev netdevs[GID_FOLLOW_NETDEVS_MAX];
        size_t n_netdevs;
        uint64_t all_until_usec; /* every Ethernet port until then; 0: not */
};

int gid_follow_new(Manager *m, GidFollow **ret) {
        GidFollow *f;

        assert(ret);
        f = calloc(1, sizeof(GidFollow));
        if (!f)
                return -ENOMEM;
        f->manager = m;
        *ret = f;
        return 0;
}

GidFollow *gid_follow_free(GidFollow *f) {
        if (!f)
                return NULL;
        sd_event_source_disable_unref(f->timer);
        free(f);
        return NULL;
}

bool port_gids_name(const Port *p, const char *ifname) {
        if (streq(p->netdev, ifname))
                return true;
        for (size_t i = 0; i < p->n_gids; i++)
                if (streq(p->gids[i].ndev, ifname))
                        return true;
        return false;
}

static bool port_followed(const GidFollow *f, const Port *p) {
        /* InfiniBand ports: the verbs GID_CHANGE event re-reads them. */
        if (streq(p->link_layer, "InfiniBand"))
                return false;
        if (f->all_until_usec > 0)
                return true;
        for (size_t i = 0; i < f->n_netdevs; i++)
                if (port_gids_name(p, f->netdevs[i].name))
                        return true;
        return false;
}

static void reread(GidFollow *f) {
        Manager *m = f->manager;

        for (size_t i = 0; i < m->n_devices; i++) {
                Device *d = m->devices[i];

                for (size_t j = 0; j < d->n_ports; j++) {
                        int r;

                        if (!port_followed(f, &d->ports[j]))
                                continue;
                        r = port_refresh_gids(&d->ports[j]);
                        if (errno_is_resource(r))
                                resync_defer(m, r, d->name);
                }
        }
}

/* Drops what is over by now; whether anything is left. */
static bool expire(GidFollow *f, uint64_t now) {
        size_t k = 0;

        for (size_t i = 0; i < f->n_netdevs; i++)
                if (f->netdevs[i].until_usec > now)
                        f->netdevs[k++] = f->netdevs[i];
        f->n_netdevs = k;
        if (f->all_until_usec <= now)
                f->all_until_usec = 0;
        return f->n_netdevs > 0 || f->all_until_usec > 0;
}

static uint64_t loop_now(GidFollow *f) {
        uint64_t now;

        if (sd_event_now(f->manager->event, CLOCK_MONOTONIC, &now) < 0)
                now = now_usec(CLOCK_MONOTONIC);
        return now;
}

static int on_tick(sd_event_source *source, uint64_t usec, void *userdata) {
        GidFollow *f = userdata;
        uint64_t now = loop_now(f);

        /* A message that came meanwhile keeps its netdev in for a window from then. */
        reread(f);
        if (!expire(f, now))
                return sd_event_source_set_enabled(source, SD_EVENT_OFF);
        (void) sd_event_source_set_time(source, now + GID_FOLLOW_TICK_USEC);
        return sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
}

static void arm(GidFollow *f, uint64_t now) {
        int enabled = SD_EVENT_OFF, r;

        if (f->timer && sd_event_source_get_enabled(f->timer, &enabled) >= 0 && enabled != SD_EVENT_OFF)
                return; /* the next tick comes anyway */
        /* At once (the kernel may have filled the table already), then every tick. */
        reread(f);
        if (!f->timer) {
                r = sd_event_add_time(f->manager->event, &f->timer, CLOCK_MONOTONIC, now + GID_FOLLOW_TICK_USEC, 0,
                                      on_tick, f);
                if (r < 0)
                        return (void) log_warning_errno(r, "Failed to follow GID tables after an address change: %m");
                (void) sd_event_source_set_description(f->timer, "gid-follow");
        }
        (void) sd_event_source_set_time(f->timer, now + GID_FOLLOW_TICK_USEC);
        (void) sd_event_source_set_enabled(f->timer, SD_EVENT_ONESHOT);
}

void gid_follow_netdev(GidFollow *f, const char *ifname) {
        uint64_t now;
        size_t i;

        assert(f);
        assert(ifname);
        if (!*ifname || strlen(ifname) >= IF_NAMESIZE)
                return;
        now = loop_now(f);
        for (i = 0; i < f->n_netdevs; i++)
                if (streq(f->netdevs[i].name, ifname))
                        break;
        if (i == f->n_netdevs) {
                if (f->n_netdevs == GID_FOLLOW_NETDEVS_MAX) {
                        /* A storm of netdevs: following them all costs less than the lookups. */
                        gid_follow_all(f);
                        return;
                }
                strcpy(f->netdevs[f->n_netdevs++].name, ifname);
        }
        f->netdevs[i].until_usec = now + GID_FOLLOW_WINDOW_USEC;
        log_debug("Address change on %s: following the GID tables that name it.", ifname);
        arm(f, now);
}

void gid_follow_all(GidFollow *f) {
        uint64_t now;

        assert(f);
        now = loop_now(f);
        f->all_until_usec = now + GID_FOLLOW_WINDOW_USEC;
        arm(f, now);
}
