/* SPDX-License-Identifier: MIT */
/* GetCounters (Port, Device) and GetAllCounters (Manager). */
#include "bus-counters.h"

#include "basic/log.h"
#include "basic/util.h"
#include "bus-server.h"
#include "bus-util.h"
#include "counters-worker.h"
#include "read-job.h"
#include "manager.h"
#include "reader-pool.h"

static int append_counters(sd_bus_message *reply, const CounterList *l) {
        int r;

        r = sd_bus_message_open_container(reply, 'a', "{st}");
        for (size_t i = 0; r >= 0 && i < l->n; i++)
                r = sd_bus_message_append(reply, "{st}", l->items[i].name, l->items[i].value);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* The reply to `call` with a copy of the body built for another call. */
static int send_copy(sd_bus_message *call, sd_bus_message *body) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(call, &reply);
        if (r >= 0)
                r = sd_bus_message_rewind(body, true);
        if (r >= 0)
                r = sd_bus_message_copy(reply, body, true);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        return r;
}

/* A reply just sent becomes the share's body, unless one is there. */
static void share_keep(CounterShare *share, sd_bus_message *reply) {
        if (share && !share->body)
                share->body = sd_bus_message_ref(reply);
}

/* Port.GetCounters and Device.GetCounters: one target. */
static int reply_counters(sd_bus_message *call, CounterEntry *targets, CounterSnapshot **snapshots, size_t n,
                          CounterShare *share) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        static const CounterList empty = {};
        int r;

        if (share && share->body)
                r = send_copy(call, share->body);
        else if (n > 0 && snapshots[0]->unresponsive)
                r = sd_bus_reply_method_errorf(call, RDMAD_ERROR_UNRESPONSIVE,
                                               "%s does not answer: its counters could not be read within the "
                                               "read timeout.",
                                               targets[0].device);
        else {
                r = sd_bus_message_new_method_return(call, &reply);
                if (r >= 0)
                        r = append_counters(reply, n > 0 ? &snapshots[0]->counters : &empty);
                if (r >= 0)
                        r = sd_bus_send(NULL, reply, NULL);
                if (r >= 0)
                        share_keep(share, reply);
        }
        counter_entries_free(targets, n);
        counter_snapshots_free(snapshots, n);
        return r;
}

/* GetAllCounters of a big host is ~100 000 entries: the reply is built
 * ALL_COUNTERS_CHUNK ports per loop iteration, so that the calls that
 * arrive meanwhile are answered in between. */
#define ALL_COUNTERS_CHUNK 8

typedef struct AllCountersReply {
        sd_bus_message *reply;
        CounterEntry *targets;
        CounterSnapshot **snapshots;
        size_t n, next;
        CounterShare *share;
} AllCountersReply;

static void all_counters_reply_free(void *userdata) {
        AllCountersReply *a = userdata;

        sd_bus_message_unref(a->reply);
        counter_entries_free(a->targets, a->n);
        counter_snapshots_free(a->snapshots, a->n);
        counter_share_unref(a->share);
        free(a);
}

/* The next chunk; the whole reply sent after the last. 1 when done. */
static int all_counters_reply_append(AllCountersReply *a) {
        int r;

        for (size_t end = a->next + ALL_COUNTERS_CHUNK; a->next < a->n && a->next < end; a->next++) {
                const CounterEntry *t = &a->targets[a->next];
                const CounterSnapshot *s = a->snapshots[a->next];

                /* Port 0: only devices that have device-wide counters; a
                 * device that did not answer is left out. */
                if ((t->port == 0 && !s->present) || s->unresponsive)
                        continue;
                r = sd_bus_message_open_container(a->reply, 'r', "sua{st}");
                if (r >= 0)
                        r = sd_bus_message_append(a->reply, "su", t->device, t->port);
                if (r >= 0)
                        r = append_counters(a->reply, &s->counters);
                if (r >= 0)
                        r = sd_bus_message_close_container(a->reply);
                if (r < 0)
                        return r;
        }
        if (a->next < a->n)
                return 0;
        r = sd_bus_message_close_container(a->reply);
        if (r >= 0)
                r = sd_bus_send(NULL, a->reply, NULL);
        if (r < 0)
                return r;
        share_keep(a->share, a->reply);
        return 1;
}

static int on_all_counters_chunk(sd_event_source *s, void *userdata) {
        AllCountersReply *a = userdata;
        int r;

        r = all_counters_reply_append(a);
        if (r < 0)
                log_warning_errno(r, "Failed to answer GetAllCounters: %m");
        if (r != 0) {
                /* Take the loop's reference back and drop it: the destroy callback frees a. */
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
                sd_event_source_ref(s);
                (void) sd_event_source_set_floating(s, false);
                sd_event_source_unref(s);
        }
        return 0;
}

/* Manager.GetAllCounters: every port; port 0 (the device-wide hw_counters) only where it exists. */
static int reply_all_counters(sd_bus_message *call, CounterEntry *targets, CounterSnapshot **snapshots, size_t n,
                              CounterShare *share) {
        sd_event_source *source = NULL;
        AllCountersReply *a;
        int r;

        a = share && share->body ? NULL : calloc(1, sizeof(AllCountersReply));
        if (!a) {
                counter_entries_free(targets, n);
                counter_snapshots_free(snapshots, n);
                return share && share->body ? send_copy(call, share->body) : -ENOMEM;
        }
        *a = (AllCountersReply){
                .targets = targets, .snapshots = snapshots, .n = n, .share = counter_share_ref(share)
        };
        r = sd_bus_message_new_method_return(call, &a->reply);
        if (r >= 0)
                r = sd_bus_message_open_container(a->reply, 'a', "(sua{st})");
        if (r >= 0)
                r = all_counters_reply_append(a);
        if (r != 0) {
                /* Done at once (a small host), or failed. */
                all_counters_reply_free(a);
                return r < 0 ? r : 0;
        }

        /* The rest from a source the event loop owns, freed with a even at exit. */
        r = sd_event_add_defer(sd_bus_get_event(sd_bus_message_get_bus(call)), &source, on_all_counters_chunk, a);
        if (r < 0) {
                all_counters_reply_free(a);
                return r;
        }
        (void) sd_event_source_set_destroy_callback(source, all_counters_reply_free);
        r = sd_event_source_set_enabled(source, SD_EVENT_ON); /* a defer source starts as ONESHOT */
        if (r >= 0)
                r = sd_event_source_set_floating(source, true);
        sd_event_source_unref(source);
        return r;
}

static int target_set(CounterEntry *t, const Device *d, uint32_t port) {
        t->device = strdup(d->name);
        t->lane = reader_lane_ref(d->lane);
        t->port = port;
        if (port == 0)
                t->path = strdup(d->sysfs_path);
        else if (asprintf(&t->path, "%s/ports/%u", d->sysfs_path, port) < 0)
                t->path = NULL;
        return t->device && t->path ? 0 : -ENOMEM;
}

/* The lane's owner: its device, unless it is gone meanwhile. */
static bool counters_unresponsive(ReaderLane *lane, void *userdata) {
        Device *d = reader_lane_owner(lane);
        return d && !device_readable(d);
}

static void counters_read_result(ReaderLane *lane, const ReaderResult *result, void *userdata) {
        Device *d = reader_lane_owner(lane);

        bus_server_trim_later(userdata);
        if (d)
                device_read_health(d, result, READ_PARTIAL);
}

static int submit(BusServer *s, sd_bus_message *message, CounterEntry *targets, size_t n, CounterReplyFn reply,
                  sd_bus_error *error) {
        uid_t uid;
        int r;

        /* Root's cache rule differs: who calls is known before anything is read. */
        r = caller_resolve_uid(&s->callers, message, &uid, error);
        if (r <= 0) {
                counter_entries_free(targets, n);
                return r < 0 ? r : 1; /* 0: runs again once the caller is known */
        }
        if (!s->counter_reader) {
                const CounterReaderHost host = {
                        .unresponsive = counters_unresponsive,
                        .read_result = counters_read_result,
                        .userdata = s,
                };

                r = counter_reader_new(s->event, s->manager->readers, &host, &s->counter_reader);
                if (r < 0) {
                        counter_entries_free(targets, n);
                        return r;
                }
        }
        r = counter_reader_submit(s->counter_reader, message, uid, targets, n, reply);
        if (r == -EBUSY)
                return sd_bus_error_setf(error, RDMAD_ERROR_BUSY,
                                         "Too many pending counter calls on this connection (at most %u).",
                                         COUNTERS_CALLS_PER_CALLER_MAX);
        if (r == -EUSERS)
                return sd_bus_error_setf(error, RDMAD_ERROR_BUSY,
                                         "Too many pending counter calls of this user (at most %u) or of all (at "
                                         "most %u).",
                                         COUNTERS_CALLS_PER_USER_MAX, COUNTERS_CALLS_MAX);
        if (r < 0)
                return r;
        return 1; /* answered by the reader */
}

/* Port.GetCounters, and Device.GetCounters (port 0): one target. */
static int get_counters(sd_bus_message *message, const Device *d, uint32_t port, sd_bus_error *error) {
        CounterEntry *t;
        int r;

        if (!device_readable(d))
                return bus_error_unresponsive(d, error);
        t = calloc(1, sizeof(CounterEntry));
        if (!t)
                return -ENOMEM;
        r = target_set(t, d, port);
        if (r < 0) {
                counter_entries_free(t, 1);
                return r;
        }
        return submit(bus_server_current(message), message, t, 1, reply_counters, error);
}

int bus_port_get_counters(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Port *p = userdata;

        return get_counters(message, p->device, p->number, error);
}

int bus_device_get_counters(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        return get_counters(message, userdata, 0, error);
}

int bus_manager_get_all_counters(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        BusServer *s = userdata;
        Manager *m = s->manager;
        CounterEntry *t;
        size_t total = 0, n = 0;
        int r = 0;

        for (size_t i = 0; i < m->n_devices; i++)
                total += 1 + m->devices[i]->n_ports;
        t = calloc(total ?: 1, sizeof(CounterEntry));
        if (!t)
                return -ENOMEM;
        /* The devices that do not answer are left out; of the others, the
         * device-wide target (port 0), then one per port. */
        for (size_t i = 0; i < m->n_devices; i++) {
                const Device *d = m->devices[i];
                size_t n_targets = device_readable(d) ? 1 + d->n_ports : 0;

                for (size_t j = 0; r >= 0 && j < n_targets; j++)
                        r = target_set(&t[n++], d, j == 0 ? 0 : d->ports[j - 1].number);
        }
        if (r < 0) {
                counter_entries_free(t, n);
                return r;
        }
        return submit(s, message, t, n, reply_all_counters, error);
}
