/* SPDX-License-Identifier: MIT */
/* The verbs event source (verbs-events.h): one context per device that has
 * an InfiniBand port, its async_fd non-blocking on the loop. Only the verbs
 * calls that list, open and close a device and read and acknowledge its
 * async events are used: nothing is allocated on the device.
 *
 * Listing reads sysfs (libibverbs reads every device's node_type and its
 * uverbs node's files), and opening and closing a context are commands to
 * the driver, which a wedged firmware never answers: none of them runs on
 * the loop (rdmad(8), SICK ADAPTERS). The list is made on a lane of its
 * own of the reader pool, each open and close on the device's lane;
 * only reading and acknowledging events, from a non-blocking descriptor,
 * stay on the loop. */
#include "verbs-events.h"

#include <fcntl.h>
#include <infiniband/verbs.h>
#include <systemd/sd-event.h>

#include "basic/log.h"
#include "basic/util.h"
#include "event-sources.h"
#include "manager.h"
#include "reader-pool.h"

/* The reader pool's lane of the device list; no device has this name. */
#define VERBS_LIST_LANE "(libibverbs)"

/* Events read per wakeup: a storm must not hold the bus calls queued behind
 * it; the descriptor stays readable and we come back. */
#define VERBS_EVENTS_PER_WAKEUP 256

typedef struct VerbsDevice {
        VerbsEvents *owner;
        char *name;
        char *node; /* "uverbs0", for its remove uevent; "" before the first open */
        struct ibv_context *context;
        sd_event_source *io, *retry;
        bool want_open;        /* an open waits for the next device list */
        bool opening;          /* its open runs on its lane */
        unsigned failures;     /* failed reads in a row, for the back-off */
        bool fatal;            /* DEVICE_FATAL: closed until the device or its node comes back */
        char *said;            /* why it polls, as last logged: each reason is said once */
        uint64_t pending;      /* PROPERTY_BIT-style bits of ports 1..63 to re-read */
        bool pending_all;      /* every port (a port number beyond 63, a reopen) */
        uint64_t pending_gids; /* the same for GID tables (GID_CHANGE) */
        bool pending_gids_all;
        /* uverbs nodes removed while an open was wanted or ran: its node is
         * known only when the open is applied, and may be one of them;
         * node_back: one of them was added again meanwhile, so an open
         * dropped for it is made again. Reset when an open is wanted. */
        char **nodes_gone;
        size_t n_nodes_gone, allocated_nodes_gone;
        bool node_back;
} VerbsDevice;

struct VerbsEvents {
        Manager *manager;
        VerbsDevice **devices;
        size_t n_devices, allocated;
        sd_event_source *defer; /* the re-reads the events asked for, once per iteration */
        bool stopped;
        bool said_none; /* "no verbs devices" is said once */
        /* One list serves every open that waits for it: libibverbs reads
         * sysfs for each list. listing: one is being made; list_again:
         * another open came meanwhile, so another list follows. */
        bool listing, list_again;
};

/* A device list, shared by the opens made from it. */
typedef struct VerbsList {
        VerbsEvents *owner; /* apply() only */
        struct ibv_device **devices;
        int n;
        int error; /* errno of ibv_get_device_list() */
        unsigned refs;
} VerbsList;

/* For the debug log; ibv_event_type_str() is not among the calls we make. */
static const char *event_name(enum ibv_event_type type) {
        switch (type) {
        case IBV_EVENT_PORT_ACTIVE:
                return "PORT_ACTIVE";
        case IBV_EVENT_PORT_ERR:
                return "PORT_ERR";
        case IBV_EVENT_LID_CHANGE:
                return "LID_CHANGE";
        case IBV_EVENT_PKEY_CHANGE:
                return "PKEY_CHANGE";
        case IBV_EVENT_SM_CHANGE:
                return "SM_CHANGE";
        case IBV_EVENT_CLIENT_REREGISTER:
                return "CLIENT_REREGISTER";
        case IBV_EVENT_GID_CHANGE:
                return "GID_CHANGE";
        default:
                return "event";
        }
}

static VerbsDevice *verbs_find(VerbsEvents *v, const char *name) {
        for (size_t i = 0; i < v->n_devices; i++)
                if (streq(v->devices[i]->name, name))
                        return v->devices[i];
        return NULL;
}

/* Says once, at info, why a device is polled; a new reason is said again. */
static void verbs_say_polling(VerbsDevice *vd, int error, const char *why) {
        char text[512];

        snprintf(text, sizeof(text), "%s", why);
        if (streq_ptr(vd->said, text))
                return;
        if (error != 0)
                log_full_errno(LOG_INFO, error, "%s: no verbs events (%s: %m); polling its link state.", vd->name,
                               text);
        else
                log_info("%s: no verbs events (%s); polling its link state.", vd->name, text);
        (void) free_and_strdup(&vd->said, text);
}

/* gids: the port's GID table too, which only GID_CHANGE tells of. */
static void verbs_schedule_reread(VerbsDevice *vd, uint32_t port, bool gids) {
        VerbsEvents *v = vd->owner;

        if (port >= 1 && port < 64) {
                vd->pending |= UINT64_C(1) << port;
                if (gids)
                        vd->pending_gids |= UINT64_C(1) << port;
        } else {
                vd->pending_all = true;
                vd->pending_gids_all = vd->pending_gids_all || gids;
        }
        if (sd_event_source_set_enabled(v->defer, SD_EVENT_ONESHOT) < 0) {
                /* Cannot happen for a defer source; the poll's sweep would catch up. */
                log_debug("Cannot schedule a verbs re-read.");
        }
}

static VerbsList *verbs_list_ref(VerbsList *l) {
        if (l)
                __atomic_add_fetch(&l->refs, 1, __ATOMIC_RELAXED);
        return l;
}

/* On the loop or on a reader thread: the last open made from it frees it. */
static void verbs_list_unref(VerbsList *l) {
        if (!l || __atomic_sub_fetch(&l->refs, 1, __ATOMIC_ACQ_REL) > 0)
                return;
        if (l->devices)
                ibv_free_device_list(l->devices);
        free(l);
}

typedef struct VerbsClose {
        struct ibv_context *context;
        struct VerbsClose *next; /* in left_open */
} VerbsClose;

/* Contexts whose close was dropped before it ran, because rdmad exits: the
 * kernel closes their descriptors with the process; waiting for a close on
 * the way out could be for good. Kept reachable until then. */
static VerbsClose *left_open;

static void close_run(ReaderLane *lane, void *arg) {
        VerbsClose *c = arg;

        (void) ibv_close_device(c->context);
        c->context = NULL;
}

static void close_free(void *arg) {
        VerbsClose *c = arg;

        if (!c->context) {
                free(c);
                return;
        }
        /* On the loop or on an abandoned reader thread. */
        c->next = __atomic_load_n(&left_open, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(&left_open, &c->next, c, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
                ;
}

/* The context is closed on the device's lane, never on the loop. */
static void verbs_close_context(VerbsEvents *v, const char *name, struct ibv_context *context) {
        Manager *m = v->manager;
        Device *d = manager_find_device(m, name);
        ReaderLane *lane = NULL;
        VerbsClose *arg;
        int r = -ENOMEM;

        if (!context)
                return;
        if (!m->readers) {
                (void) ibv_close_device(context);
                return;
        }
        arg = calloc(1, sizeof(*arg));
        if (arg) {
                arg->context = context;
                lane = d && d->lane ? reader_lane_ref(d->lane) : reader_pool_lane(m->readers, name);
                r = lane ? reader_pool_submit(m->readers, lane, close_run, NULL, close_free, arg, NULL) : -ENOMEM;
                reader_lane_unref(lane);
                if (r < 0)
                        free(arg);
        }
        if (r < 0)
                log_warning_errno(r, "%s: cannot queue the close of its verbs context; left open: %m", name);
}

/* Whether closing is told to the model: the ports' LinkEvents go back to
 * "poll"; not while the daemon stops, when the bus may be gone already. */
typedef enum VerbsCloseMode {
        VERBS_CLOSE_REPORT,
        VERBS_CLOSE_STOPPING,
} VerbsCloseMode;

static void verbs_close(VerbsDevice *vd, const char *why, VerbsCloseMode mode) {
        Manager *m = vd->owner->manager;
        Device *d;

        if (!vd->context)
                return;
        vd->io = sd_event_source_disable_unref(vd->io);
        verbs_close_context(vd->owner, vd->name, TAKE_PTR(vd->context));
        log_debug("%s: verbs context closed (%s).", vd->name, why);
        d = mode == VERBS_CLOSE_REPORT ? manager_find_device(m, vd->name) : NULL;
        if (d)
                manager_set_verbs_covered(m, d, false);
}

static int verbs_open(VerbsDevice *vd);

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        VerbsDevice *vd = userdata;

        vd->retry = sd_event_source_disable_unref(vd->retry);
        (void) verbs_open(vd);
        return 0;
}

/* A read failed: closed, and reopened after a back-off, never in a busy loop. */
static void verbs_fail(VerbsDevice *vd, int error) {
        Manager *m = vd->owner->manager;
        uint64_t delay = verbs_retry_delay_usec(++vd->failures), now;
        int r;

        log_warning_errno(error, "%s: cannot read verbs events: %m. Closing; retrying in %" PRIu64 " s.", vd->name,
                          delay / 1000000);
        verbs_close(vd, "read failed", VERBS_CLOSE_REPORT);
        /* What happened meanwhile: read now, then polled. */
        verbs_schedule_reread(vd, 0, false);
        if (vd->retry || sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        r = sd_event_add_time(m->event, &vd->retry, CLOCK_MONOTONIC, now + delay, 100 * 1000, on_retry, vd);
        if (r < 0)
                log_warning_errno(r, "%s: cannot schedule the verbs retry: %m", vd->name);
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

                switch (type) {
                case IBV_EVENT_PORT_ACTIVE:
                case IBV_EVENT_PORT_ERR:
                case IBV_EVENT_LID_CHANGE:
                case IBV_EVENT_PKEY_CHANGE:
                case IBV_EVENT_SM_CHANGE:
                case IBV_EVENT_CLIENT_REREGISTER:
                case IBV_EVENT_GID_CHANGE:
                        log_debug("%s port %u: %s.", vd->name, port, event_name(type));
                        verbs_schedule_reread(vd, port, type == IBV_EVENT_GID_CHANGE);
                        break;
                case IBV_EVENT_DEVICE_FATAL:
                        /* The device is dead until its driver resets it, which re-registers it. */
                        log_warning("%s: fatal device error reported; closing its verbs context.", vd->name);
                        vd->fatal = true;
                        verbs_close(vd, "DEVICE_FATAL", VERBS_CLOSE_REPORT);
                        verbs_schedule_reread(vd, 0, false);
                        verbs_say_polling(vd, 0, "after a fatal device error");
                        return 0;
                default:
                        /* Events of QPs, CQs, SRQs: none is ever created. */
                        break;
                }
        }
        return 0;
}

/* An open, on the device's lane: the device from the list, the context
 * made, its descriptor non-blocking; or why not. */
typedef struct VerbsOpen {
        VerbsEvents *owner; /* apply() only */
        char *name;
        VerbsList *list;
        struct ibv_device *device; /* in list; NULL: the list does not have it */
        struct ibv_context *context;
        char node[IBV_SYSFS_NAME_MAX];
        int error;
        const char *why;
} VerbsOpen;

static void open_free(void *arg) {
        VerbsOpen *o = arg;

        /* Opened, and its device went before it was applied: the one close on
         * the loop, right after an open that answered. */
        if (o->context)
                (void) ibv_close_device(o->context);
        verbs_list_unref(o->list);
        free(o->name);
        free(o);
}

static void open_run(ReaderLane *lane, void *arg) {
        VerbsOpen *o = arg;
        int flags;

        if (!o->device) {
                o->why = "libibverbs does not list it: no uverbs node yet, or no provider";
                return;
        }
        o->context = ibv_open_device(o->device);
        if (!o->context) {
                o->error = errno ?: EIO;
                o->why = "cannot open its uverbs node";
                return;
        }
        snprintf(o->node, sizeof(o->node), "%s", o->device->dev_name);
        flags = fcntl(o->context->async_fd, F_GETFL);
        if (flags < 0 || fcntl(o->context->async_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
                o->error = errno;
                o->why = "cannot make its event descriptor non-blocking";
                (void) ibv_close_device(o->context);
                o->context = NULL;
        }
}

static void verbs_forget_nodes_gone(VerbsDevice *vd) {
        vd->nodes_gone = strv_free(vd->nodes_gone);
        vd->n_nodes_gone = vd->allocated_nodes_gone = 0;
        vd->node_back = false;
}

static void open_apply(void *arg, const ReaderResult *result, void *userdata) {
        VerbsOpen *o = arg;
        VerbsEvents *v = o->owner;
        Manager *m = v->manager;
        VerbsDevice *vd = verbs_find(v, o->name);
        Device *d = manager_find_device(m, o->name);
        bool node_gone = false, node_back = false;
        int r;

        if (vd) {
                vd->opening = false;
                /* A failed open's node is not known: any node that came back may be its own. */
                node_gone = o->context && strv_contains(vd->nodes_gone, o->node);
                node_back = vd->node_back;
                verbs_forget_nodes_gone(vd);
        }
        if (!o->context) {
                if (vd && o->why)
                        verbs_say_polling(vd, o->error, o->why);
                if (vd && node_back)
                        (void) verbs_open(vd);
                return;
        }
        /* Its node's remove came before we knew the node: the kernel waits
         * for this context to close; a node added since is opened anew. */
        if (vd && node_gone) {
                log_debug("%s: its open was on %s, removed meanwhile: closed.", o->name, o->node);
                verbs_close_context(v, o->name, TAKE_PTR(o->context));
                if (node_back)
                        (void) verbs_open(vd);
                return;
        }
        /* Closed, removed or stopped meanwhile: this context is not wanted. */
        if (!vd || !d || vd->context || vd->fatal || vd->retry || v->stopped) {
                verbs_close_context(v, o->name, TAKE_PTR(o->context));
                return;
        }
        r = free_and_strdup(&vd->node, o->node);
        if (r < 0) {
                verbs_close_context(v, o->name, TAKE_PTR(o->context));
                log_oom();
                return;
        }
        r = sd_event_add_io(m->event, &vd->io, o->context->async_fd, EPOLLIN, on_async_event, vd);
        if (r < 0) {
                verbs_close_context(v, o->name, TAKE_PTR(o->context));
                verbs_say_polling(vd, -r, "cannot watch its event descriptor");
                return;
        }
        (void) sd_event_source_set_description(vd->io, "verbs-events");
        vd->context = TAKE_PTR(o->context);
        vd->said = mfree(vd->said);
        log_debug("%s: link events from its verbs context (%s).", vd->name, vd->node);
        manager_set_verbs_covered(m, d, true);
        /* Events before the open are lost: read the ports once now. */
        verbs_schedule_reread(vd, 0, false);
}

/* Queues the open of vd's context on its lane, from list. */
static void verbs_submit_open(VerbsDevice *vd, VerbsList *list) {
        VerbsEvents *v = vd->owner;
        Manager *m = v->manager;
        Device *d = manager_find_device(m, vd->name);
        VerbsOpen *o;
        int r;

        if (!d || vd->context || vd->opening || vd->fatal || vd->retry || v->stopped)
                return;
        o = calloc(1, sizeof(VerbsOpen));
        if (!o || !(o->name = strdup(vd->name))) {
                free(o);
                log_oom();
                return;
        }
        o->owner = v;
        o->list = verbs_list_ref(list);
        for (int i = 0; i < list->n && !o->device; i++)
                if (streq(ibv_get_device_name(list->devices[i]), vd->name))
                        o->device = list->devices[i];
        vd->opening = true;
        if (!m->readers || !d->lane) {
                open_run(NULL, o);
                open_apply(o, &(ReaderResult){}, NULL);
                open_free(o);
                return;
        }
        r = reader_pool_submit(m->readers, d->lane, open_run, open_apply, open_free, o, NULL);
        if (r < 0) {
                vd->opening = false;
                open_free(o);
                log_warning_errno(r, "%s: cannot queue the open of its verbs context: %m", vd->name);
        }
}

static void verbs_request_list(VerbsEvents *v);

static void list_run(ReaderLane *lane, void *arg) {
        VerbsList *l = arg;

        l->devices = ibv_get_device_list(&l->n);
        if (!l->devices)
                l->error = errno ?: EIO;
}

/* The list is here: every open that waited for it is queued. */
static void list_apply(void *arg, const ReaderResult *result, void *userdata) {
        VerbsList *l = arg;
        VerbsEvents *v = l->owner;

        v->listing = false;
        if (!l->devices || l->n == 0) {
                if (!v->said_none) {
                        if (l->error != 0)
                                log_full_errno(LOG_INFO, l->error,
                                               "No verbs devices (libibverbs: %m): polling the link state of every "
                                               "port.");
                        else
                                log_info("No verbs devices (no uverbs node, or no libibverbs provider): polling the "
                                         "link state of every port.");
                        v->said_none = true;
                }
                for (size_t i = 0; i < v->n_devices; i++)
                        v->devices[i]->want_open = false;
        } else
                for (size_t i = 0; i < v->n_devices; i++)
                        if (v->devices[i]->want_open) {
                                v->devices[i]->want_open = false;
                                verbs_submit_open(v->devices[i], l);
                        }
        if (v->list_again) {
                v->list_again = false;
                verbs_request_list(v);
        }
}

static void list_free(void *arg) {
        verbs_list_unref(arg);
}

/* A new device list, for the opens that want one. */
static void verbs_request_list(VerbsEvents *v) {
        Manager *m = v->manager;
        ReaderLane *lane;
        VerbsList *l;
        int r;

        if (v->stopped)
                return;
        if (v->listing) {
                v->list_again = true;
                return;
        }
        l = calloc(1, sizeof(VerbsList));
        if (!l) {
                log_oom();
                return;
        }
        l->refs = 1;
        l->owner = v;
        if (!m->readers) {
                list_run(NULL, l);
                list_apply(l, &(ReaderResult){}, NULL);
                list_free(l);
                return;
        }
        lane = reader_pool_lane(m->readers, VERBS_LIST_LANE);
        r = lane ? reader_pool_submit(m->readers, lane, list_run, list_apply, list_free, l, NULL) : -ENOMEM;
        reader_lane_unref(lane);
        if (r < 0) {
                list_free(l);
                log_warning_errno(r, "Cannot queue the verbs device list: %m");
                return;
        }
        v->listing = true;
}

/* Opens the device's context unless it is open, given up on, or the source
 * stopped: with the next device list, on its lane. */
static int verbs_open(VerbsDevice *vd) {
        VerbsEvents *v = vd->owner;

        if (vd->context || vd->opening || vd->fatal || vd->retry || v->stopped)
                return 0;
        if (!manager_find_device(v->manager, vd->name))
                return 0;
        if (!vd->want_open)
                verbs_forget_nodes_gone(vd);
        vd->want_open = true;
        verbs_request_list(v);
        return 0;
}

static int on_reread(sd_event_source *s, void *userdata) {
        VerbsEvents *v = userdata;
        Manager *m = v->manager;

        for (size_t i = 0; i < v->n_devices; i++) {
                VerbsDevice *vd = v->devices[i];
                uint64_t pending = vd->pending, pending_gids = vd->pending_gids;
                bool all = vd->pending_all, all_gids = vd->pending_gids_all;
                Device *d;

                if (!pending && !all)
                        continue;
                vd->pending = vd->pending_gids = 0;
                vd->pending_all = vd->pending_gids_all = false;
                d = manager_find_device(m, vd->name);
                for (size_t j = 0; d && j < d->n_ports; j++) {
                        Port *p = &d->ports[j];
                        uint64_t bit = p->number < 64 ? UINT64_C(1) << p->number : 0;
                        int r;

                        if (!all && !(pending & bit))
                                continue;
                        r = manager_refresh_port(m, p);
                        if (r < 0 && !errno_is_resource(r))
                                log_warning_errno(r, "%s port %u: cannot re-read link state: %m", d->name, p->number);
                        if (!all_gids && !(pending_gids & bit))
                                continue;
                        r = manager_refresh_port_gids(m, p);
                        if (r < 0 && !errno_is_resource(r))
                                log_warning_errno(r, "%s port %u: cannot re-read GIDs: %m", d->name, p->number);
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

        v = calloc(1, sizeof(VerbsEvents));
        if (!v)
                return log_oom();
        v->manager = m;
        r = sd_event_add_defer(m->event, &v->defer, on_reread, v);
        if (r < 0) {
                free(v);
                return log_error_errno(r, "Failed to add the verbs re-read source: %m");
        }
        (void) sd_event_source_set_enabled(v->defer, SD_EVENT_OFF);
        (void) sd_event_source_set_description(v->defer, "verbs-reread");
        s->verbs = v;

        /* One list for all of them: the first open asks for it, the others wait for it. */
        for (size_t i = 0; i < m->n_devices; i++)
                verbs_device_added(s, m->devices[i]);
        return 0;
}

void verbs_events_stop(EventSources *s) {
        VerbsEvents *v = s ? s->verbs : NULL;
        Manager *m = s ? s->manager : NULL;

        if (!v)
                return;
        v->stopped = true;
        for (size_t i = 0; i < v->n_devices; i++) {
                VerbsDevice *vd = v->devices[i];
                Device *d = manager_find_device(m, vd->name);

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
                v->devices[i]->retry = sd_event_source_disable_unref(v->devices[i]->retry);
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
        if (skip) {
                log_debug("%s: no verbs context (%s).", d->name, skip);
                return;
        }
        vd = verbs_find(v, d->name);
        if (!vd) {
                if (ARRAY_RESERVE(v->devices, v->allocated, v->n_devices + 1) < 0) {
                        log_oom();
                        return;
                }
                vd = calloc(1, sizeof(VerbsDevice));
                if (!vd || !(vd->name = strdup(d->name)) || !(vd->node = strdup(""))) {
                        if (vd)
                                free(vd->name);
                        free(vd);
                        log_oom();
                        return;
                }
                vd->owner = v;
                v->devices[v->n_devices++] = vd;
        }
        (void) verbs_open(vd);
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
                        (void) verbs_open(vd);
                }
        }
}
