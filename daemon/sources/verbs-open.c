/* SPDX-License-Identifier: MIT */
/* The verbs contexts opened and closed off the loop (verbs-events.c reads
 * their events): listing reads sysfs (libibverbs reads every device's
 * node_type and its uverbs node's files), and opening and closing a context
 * are commands to the driver, which a wedged firmware never answers. The
 * list is made on a lane of its own of the reader pool, each open and
 * close on the device's lane (rdmad(8), SICK ADAPTERS). */
#include <fcntl.h>
#include <stdio.h>

#include "basic/log.h"
#include "basic/util.h"
#include "manager.h"
#include "reader-pool.h"
#include "verbs-internal.h"

/* The reader pool's lane of the device list; no device has this name. */
#define VERBS_LIST_LANE "(libibverbs)"

/* A device list, shared by the opens made from it. */
typedef struct VerbsList {
        VerbsEvents *owner; /* apply() only */
        struct ibv_device **devices;
        int n;
        int error; /* errno of ibv_get_device_list() */
        unsigned refs;
} VerbsList;

static VerbsList *verbs_list_ref(VerbsList *l) {
        if (l)
                __atomic_add_fetch(&l->refs, 1, __ATOMIC_RELAXED);
        return l;
}

/* On the loop or on a reader thread: the last open made from it frees it.
 * Also the list job's ReaderFree. */
static void verbs_list_unref(void *arg) {
        VerbsList *l = arg;

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

VerbsDevice *verbs_find(VerbsEvents *v, const char *name) {
        for (size_t i = 0; i < v->n_devices; i++)
                if (streq(v->devices[i]->name, name))
                        return v->devices[i];
        return NULL;
}

void verbs_say_polling(VerbsDevice *vd, int error, const char *why) {
        if (streq_ptr(vd->said, why))
                return;
        if (error != 0)
                log_full_errno(LOG_INFO, error, "%s: no verbs events (%s: %m); polling its link state.", vd->name, why);
        else
                log_info("%s: no verbs events (%s); polling its link state.", vd->name, why);
        (void) free_and_strdup(&vd->said, why);
}

void verbs_close_context(VerbsEvents *v, Device *d, const char *name, struct ibv_context *context) {
        Manager *m = v->manager;
        ReaderLane *lane = NULL;
        VerbsClose *arg;
        int r = -ENOMEM;

        if (!context)
                return;
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
                log_warning_errno(r, "%s: failed to queue the close of its verbs context; left open: %m", name);
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
        VerbsDevice *vd = verbs_find(v, o->name);
        Device *d = vd ? vd->device : NULL;
        bool node_gone = false, node_back = false;

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
                        verbs_open(vd);
                return;
        }
        /* Its node's remove came before we knew the node: the kernel waits
         * for this context to close; a node added since is opened anew. */
        if (vd && node_gone) {
                log_debug("%s: its open was on %s, removed meanwhile: closed.", o->name, o->node);
                verbs_close_context(v, d, o->name, TAKE_PTR(o->context));
                if (node_back)
                        verbs_open(vd);
                return;
        }
        /* Closed, removed or stopped meanwhile: this context is not wanted. */
        if (!vd || vd->context || vd->fatal || vd->retry || v->stopped) {
                verbs_close_context(v, d, o->name, TAKE_PTR(o->context));
                return;
        }
        v->attach(vd, d, TAKE_PTR(o->context), o->node);
}

static void verbs_submit_open(VerbsDevice *vd, VerbsList *list) {
        VerbsEvents *v = vd->owner;
        Manager *m = v->manager;
        Device *d = vd->device;
        VerbsOpen *o;
        int r;

        if (vd->context || vd->opening || vd->fatal || vd->retry || v->stopped)
                return;
        o = calloc(1, sizeof(VerbsOpen));
        if (!o || !(o->name = strdup(vd->name))) {
                free(o);
                return (void) log_oom();
        }
        o->owner = v;
        o->list = verbs_list_ref(list);
        for (int i = 0; i < list->n && !o->device; i++)
                if (streq(ibv_get_device_name(list->devices[i]), vd->name))
                        o->device = list->devices[i];
        vd->opening = true;
        /* Never on the loop: an open can hang in a sick driver. */
        r = d->lane ? reader_pool_submit(m->readers, d->lane, open_run, open_apply, open_free, o, NULL) : -ENOMEM;
        if (r < 0) {
                vd->opening = false;
                open_free(o);
                log_warning_errno(r, "%s: failed to queue the open of its verbs context: %m", vd->name);
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
        if ((!l->devices || l->n == 0) && !v->said_none) {
                if (l->error != 0)
                        log_full_errno(LOG_INFO, l->error,
                                       "No verbs devices (libibverbs: %m): polling the link state of every port.");
                else
                        log_info("No verbs devices (no uverbs node, or no libibverbs provider): polling the link "
                                 "state of every port.");
                v->said_none = true;
        }
        for (size_t i = 0; i < v->n_devices; i++)
                if (v->devices[i]->want_open) {
                        v->devices[i]->want_open = false;
                        if (l->devices && l->n > 0)
                                verbs_submit_open(v->devices[i], l);
                }
        if (v->list_again) {
                v->list_again = false;
                verbs_request_list(v);
        }
}

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
        if (!l)
                return (void) log_oom();
        *l = (VerbsList){ .owner = v, .refs = 1 };
        lane = reader_pool_lane(m->readers, VERBS_LIST_LANE);
        r = lane ? reader_pool_submit(m->readers, lane, list_run, list_apply, verbs_list_unref, l, NULL) : -ENOMEM;
        reader_lane_unref(lane);
        if (r < 0) {
                verbs_list_unref(l);
                return (void) log_warning_errno(r, "Failed to queue the verbs device list: %m");
        }
        v->listing = true;
}

void verbs_open(VerbsDevice *vd) {
        VerbsEvents *v = vd->owner;

        if (vd->context || vd->opening || vd->fatal || vd->retry || v->stopped)
                return;
        if (!vd->want_open)
                verbs_forget_nodes_gone(vd);
        vd->want_open = true;
        verbs_request_list(v);
}
