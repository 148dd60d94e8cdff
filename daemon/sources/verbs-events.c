/* SPDX-License-Identifier: MIT */
/* The verbs event source (verbs-events.h): one context per device that has
 * an InfiniBand port, its async_fd non-blocking on the loop. Only the verbs
 * calls that list, open and close a device and read and acknowledge its
 * async events are used: nothing is allocated on the device. Listing,
 * opening and closing run on the reader pool (verbs-open.c). */
#include "verbs-events.h"

#include <infiniband/verbs.h>
#include <systemd/sd-event.h>

#include "basic/log.h"
#include "basic/util.h"
#include "event-sources.h"
#include "manager.h"
#include "reader-pool.h"
#include "verbs-internal.h"
#include "port.h"
#include "verbs-policy.h"

/* Events read per wakeup: a storm must not hold the bus calls queued behind
 * it; the descriptor stays readable and we come back. */
#define VERBS_EVENTS_PER_WAKEUP 256

/* The events that have a port re-read, named for the debug log
 * (ibv_event_type_str() is not among the calls we make). */
static const char *const port_events[] = {
        [IBV_EVENT_PORT_ACTIVE] = "PORT_ACTIVE", [IBV_EVENT_PORT_ERR] = "PORT_ERR",
        [IBV_EVENT_LID_CHANGE] = "LID_CHANGE",   [IBV_EVENT_PKEY_CHANGE] = "PKEY_CHANGE",
        [IBV_EVENT_SM_CHANGE] = "SM_CHANGE",     [IBV_EVENT_CLIENT_REREGISTER] = "CLIENT_REREGISTER",
        [IBV_EVENT_GID_CHANGE] = "GID_CHANGE",
};

void verbs_schedule_reread(VerbsDevice *vd, uint32_t port, bool gids) {
        VerbsEvents *v = vd->owner;

        if (port >= 1 && port < 64) {
                vd->pending |= UINT64_C(1) << port;
                if (gids)
                        vd->pending_gids |= UINT64_C(1) << port;
        } else {
                vd->pending_all = true;
                vd->pending_gids_all = vd->pending_gids_all || gids;
        }
        /* Cannot happen for a defer source; the poll's sweep would catch up. */
        if (sd_event_source_set_enabled(v->defer, SD_EVENT_ONESHOT) < 0)
                log_debug("Failed to schedule a verbs re-read.");
}

/* Whether closing is told to the model: the ports' LinkEvents go back to
 * "poll"; not while the daemon stops, when the bus may be gone already. */
typedef enum VerbsCloseMode {
        VERBS_CLOSE_REPORT,
        VERBS_CLOSE_STOPPING,
} VerbsCloseMode;

static void verbs_close(VerbsDevice *vd, const char *why, VerbsCloseMode mode) {
        if (!vd->context)
                return;
        vd->io = sd_event_source_disable_unref(vd->io);
        verbs_close_context(vd->owner, vd->device, vd->name, TAKE_PTR(vd->context));
        log_debug("%s: verbs context closed (%s).", vd->name, why);
        if (mode == VERBS_CLOSE_REPORT)
                device_set_verbs_covered(vd->device, false);
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        VerbsDevice *vd = userdata;

        vd->retry = sd_event_source_disable_unref(vd->retry);
        verbs_open(vd);
        return 0;
}

/* A read failed: closed, and reopened after a back-off, never in a busy loop. */
static void verbs_fail(VerbsDevice *vd, int error) {
        Manager *m = vd->owner->manager;
        uint64_t delay = verbs_retry_delay_usec(++vd->failures), now;
        int r;

        log_warning_errno(error, "%s: failed to read verbs events: %m. Closing; retrying in %" PRIu64 " s.", vd->name,
                          delay / 1000000);
        verbs_close(vd, "read failed", VERBS_CLOSE_REPORT);
        /* What happened meanwhile: read now, then polled. */
        verbs_schedule_reread(vd, 0, false);
        if (vd->retry || sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        r = sd_event_add_time(m->event, &vd->retry, CLOCK_MONOTONIC, now + delay, 100 * 1000, on_retry, vd);
        if (r < 0)
                log_warning_errno(r, "%s: failed to schedule the verbs retry: %m", vd->name);
        else
                (void) sd_event_source_set_description(vd->retry, "verbs-retry");
}

static int on_async_event(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        VerbsDevice *vd = userdata;

        for (unsigned n = 0; n < VERBS_EVENTS_PER_WAKEUP; n++) {
                struct ibv_async_event ev;
                enum ibv_event_type type;
                uint32_t port;

                if (ibv_get_async_event(vd->context, &ev) < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                return 0;
                        verbs_fail(vd, errno ?: EIO);
                        return 0;
                }
                type = ev.event_type;
                port = (uint32_t) ev.element.port_num;
                ibv_ack_async_event(&ev);
                vd->failures = 0;

                if (type < ELEMENTSOF(port_events) && port_events[type]) {
                        log_debug("%s port %u: %s.", vd->name, port, port_events[type]);
                        verbs_schedule_reread(vd, port, type == IBV_EVENT_GID_CHANGE);
                } else if (type == IBV_EVENT_DEVICE_FATAL) {
                        /* The device is dead until its driver resets it, which re-registers it. */
                        log_warning("%s: fatal device error reported; closing its verbs context.", vd->name);
                        vd->fatal = true;
                        verbs_close(vd, "DEVICE_FATAL", VERBS_CLOSE_REPORT);
                        verbs_schedule_reread(vd, 0, false);
                        verbs_say_polling(vd, 0, "after a fatal device error");
                        return 0;
                }
                /* Other events are of QPs, CQs, SRQs: none is ever created. */
        }
        return 0;
}

static void verbs_attach(VerbsDevice *vd, Device *d, struct ibv_context *context, const char *node) {
        VerbsEvents *v = vd->owner;
        Manager *m = v->manager;
        int r;

        r = free_and_strdup(&vd->node, node);
        if (r < 0) {
                verbs_close_context(v, vd->device, vd->name, context);
                return (void) log_oom();
        }
        r = sd_event_add_io(m->event, &vd->io, context->async_fd, EPOLLIN, on_async_event, vd);
        if (r < 0) {
                verbs_close_context(v, vd->device, vd->name, context);
                verbs_say_polling(vd, -r, "cannot watch its event descriptor");
                return;
        }
        (void) sd_event_source_set_description(vd->io, "verbs-events");
        vd->context = context;
        vd->said = mfree(vd->said);
        log_debug("%s: link events from its verbs context (%s).", vd->name, vd->node);
        device_set_verbs_covered(d, true);
        /* Events before the open are lost: read the ports once now. */
        verbs_schedule_reread(vd, 0, false);
}

static int on_reread(sd_event_source *s, void *userdata) {
        VerbsEvents *v = userdata;

        for (size_t i = 0; i < v->n_devices; i++) {
                VerbsDevice *vd = v->devices[i];
                uint64_t pending = vd->pending, pending_gids = vd->pending_gids;
                bool all = vd->pending_all, all_gids = vd->pending_gids_all;
                Device *d;

                if (!pending && !all)
                        continue;
                vd->pending = vd->pending_gids = 0;
                vd->pending_all = vd->pending_gids_all = false;
                d = vd->device;
                for (size_t j = 0; j < d->n_ports; j++) {
                        Port *p = &d->ports[j];
                        uint64_t bit = p->number < 64 ? UINT64_C(1) << p->number : 0;
                        int r;

                        if (!all && !(pending & bit))
                                continue;
                        r = port_refresh(p);
                        if (r < 0 && !errno_is_resource(r))
                                log_warning_errno(r, "%s port %u: failed to re-read link state: %m", d->name,
                                                  p->number);
                        if (!all_gids && !(pending_gids & bit))
                                continue;
                        r = port_refresh_gids(p);
                        if (r < 0 && !errno_is_resource(r))
                                log_warning_errno(r, "%s port %u: failed to re-read GIDs: %m", d->name, p->number);
                }
        }
        return 0;
}

static void verbs_device_free(VerbsDevice *vd, VerbsCloseMode mode) {
        if (!vd)
                return;
        verbs_close(vd, "device removed", mode);
        sd_event_source_disable_unref(vd->retry);
        free(vd->name);
        free(vd->node);
        strv_free(vd->nodes_gone);
        free(vd->said);
        free(vd);
}

int verbs_events_start(EventSources *s) {
        Manager *m;
        VerbsEvents *v;
        int r;

        assert(s);
        assert(!s->verbs);
        m = s->manager;
        assert(m->readers); /* lists, opens and closes go to the reader pool */

        v = calloc(1, sizeof(VerbsEvents));
        if (!v)
                return log_oom();
        v->manager = m;
        v->attach = verbs_attach;
        r = sd_event_add_defer(m->event, &v->defer, on_reread, v);
        if (r < 0) {
                free(v);
                return log_error_errno(r, "Failed to add the verbs re-read source: %m");
        }
        (void) sd_event_source_set_enabled(v->defer, SD_EVENT_OFF);
        (void) sd_event_source_set_description(v->defer, "verbs-reread");
        s->verbs = v;
        return 0;
}

void verbs_events_stop(EventSources *s) {
        VerbsEvents *v = s ? s->verbs : NULL;

        if (!v)
                return;
        v->stopped = true;
        for (size_t i = 0; i < v->n_devices; i++) {
                VerbsDevice *vd = v->devices[i];
                Device *d = vd->device;

                /* rdmad is about to exit: a close queued or running on a
                 * thread would race with the exit. A device whose lane is
                 * idle answers, and is closed now; the context of one whose
                 * reads are stuck or under way is left to the kernel (a close
                 * behind them may never run). */
                if (vd->context &&
                    (!d || !d->lane || (!reader_lane_stuck(d->lane) && reader_lane_pending(d->lane) == 0))) {
                        vd->io = sd_event_source_disable_unref(vd->io);
                        (void) ibv_close_device(TAKE_PTR(vd->context));
                }
                verbs_close(vd, "stopping", VERBS_CLOSE_STOPPING);
                vd->retry = sd_event_source_disable_unref(vd->retry);
        }
}

void verbs_events_free(EventSources *s) {
        VerbsEvents *v = s ? s->verbs : NULL;

        if (!v)
                return;
        for (size_t i = 0; i < v->n_devices; i++)
                verbs_device_free(v->devices[i], VERBS_CLOSE_STOPPING);
        free(v->devices);
        sd_event_source_disable_unref(v->defer);
        free(v);
        s->verbs = NULL;
}

void verbs_device_added(EventSources *s, Device *d) {
        VerbsEvents *v = s->verbs;
        VerbsDevice *vd;
        const char *skip;

        if (!v)
                return;
        skip = verbs_skip_reason(d);
        if (skip)
                return (void) log_debug("%s: no verbs context (%s).", d->name, skip);
        vd = verbs_find(v, d->name);
        if (!vd) {
                if (ARRAY_RESERVE(v->devices, v->allocated, v->n_devices + 1) < 0)
                        return (void) log_oom();
                vd = calloc(1, sizeof(VerbsDevice));
                if (!vd || !(vd->name = strdup(d->name)) || !(vd->node = strdup(""))) {
                        verbs_device_free(vd, VERBS_CLOSE_STOPPING);
                        return (void) log_oom();
                }
                vd->owner = v;
                v->devices[v->n_devices++] = vd;
        }
        vd->device = d;
        verbs_open(vd);
}

void verbs_device_removing(EventSources *s, Device *d) {
        VerbsEvents *v = s->verbs;

        if (!v)
                return;
        for (size_t i = 0; i < v->n_devices; i++)
                if (streq(v->devices[i]->name, d->name)) {
                        VerbsDevice *vd = v->devices[i];

                        v->devices[i] = v->devices[--v->n_devices];
                        verbs_device_free(vd, VERBS_CLOSE_REPORT);
                        return;
                }
}

void verbs_node_event(EventSources *s, const char *node, const char *action) {
        VerbsEvents *v = s->verbs;

        if (!v || !node || !action)
                return;
        if (streq(action, "remove")) {
                /* Before the kernel waits for every open file of the node to close. */
                for (size_t i = 0; i < v->n_devices; i++) {
                        VerbsDevice *vd = v->devices[i];

                        /* An open under way may be on any node, this one too
                         * (vd->node names the last open's). */
                        if (!vd->want_open && !vd->opening && streq(vd->node, node)) {
                                verbs_close(vd, "its uverbs node is being removed", VERBS_CLOSE_REPORT);
                                verbs_schedule_reread(vd, 0, false);
                        } else if ((vd->want_open || vd->opening) && !strv_contains(vd->nodes_gone, node)) {
                                if (strv_push_take(&vd->nodes_gone, &vd->n_nodes_gone, &vd->allocated_nodes_gone,
                                                   strdup(node)) < 0)
                                        log_oom();
                                else
                                        log_debug("%s: uverbs node %s removed while it opens.", vd->name, node);
                        }
                }
                return;
        }
        if (streq(action, "add")) {
                /* A new node: a device registered again, perhaps after its fatal error. */
                for (size_t i = 0; i < v->n_devices; i++) {
                        VerbsDevice *vd = v->devices[i];

                        if (vd->context)
                                continue;
                        if (strv_contains(vd->nodes_gone, node)) {
                                vd->node_back = true;
                                log_debug("%s: uverbs node %s added again while it opens.", vd->name, node);
                        }
                        vd->fatal = false;
                        verbs_open(vd);
                }
        }
}
