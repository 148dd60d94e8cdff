/* SPDX-License-Identifier: MIT */
/* GetCounters (Port, Device) and GetAllCounters (Manager). */
#include "bus-counters.h"

#include "bus-util.h"
#include "counters-worker.h"
#include "manager.h"
#include "util.h"

static int append_counters(sd_bus_message *reply, const CounterList *l) {
        int r;

        r = sd_bus_message_open_container(reply, 'a', "{st}");
        if (r < 0)
                return r;
        for (size_t i = 0; i < l->n; i++) {
                r = sd_bus_message_append(reply, "{st}", l->items[i].name, l->items[i].value);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

/* Port.GetCounters and Device.GetCounters: one target. */
static int reply_counters(sd_bus_message *call, const CounterTarget *targets, const CounterResult *results,
                          size_t n) {
        _cleanup_(sd_bus_message_unrefp_) sd_bus_message *reply = NULL;
        static const CounterList empty = {};
        int r;

        r = sd_bus_message_new_method_return(call, &reply);
        if (r < 0)
                return r;
        r = append_counters(reply, n > 0 ? results[0].counters : &empty);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* Manager.GetAllCounters: every port; port 0 (the device-wide hw_counters) only where it exists. */
static int reply_all_counters(sd_bus_message *call, const CounterTarget *targets, const CounterResult *results,
                              size_t n) {
        _cleanup_(sd_bus_message_unrefp_) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(call, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(sua{st})");
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                if (targets[i].port == 0 && !results[i].present)
                        continue;
                r = sd_bus_message_open_container(reply, 'r', "sua{st}");
                if (r < 0)
                        return r;
                r = sd_bus_message_append(reply, "su", targets[i].device, targets[i].port);
                if (r < 0)
                        return r;
                r = append_counters(reply, results[i].counters);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(reply);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int target_set(CounterTarget *t, const Device *d, uint32_t port) {
        t->device = strdup(d->name);
        t->port = port;
        if (port == 0)
                t->path = strdup(d->sysfs_path);
        else if (asprintf(&t->path, "%s/ports/%u", d->sysfs_path, port) < 0)
                t->path = NULL;
        return t->device && t->path ? 0 : -ENOMEM;
}

/* The device-wide target (port 0), then one per port. */
static int device_targets(const Device *d, bool with_ports, CounterTarget *t, size_t *n) {
        int r;

        r = target_set(&t[(*n)++], d, 0);
        for (size_t i = 0; with_ports && r >= 0 && i < d->n_ports; i++)
                r = target_set(&t[(*n)++], d, d->ports[i].number);
        return r;
}

static int submit(Manager *m, sd_bus_message *message, CounterTarget *targets, size_t n, CounterReplyFn reply,
                  sd_bus_error *error) {
        int r;

        if (!m->counter_reader) {
                r = counter_reader_new(m->event, &m->counter_reader);
                if (r < 0) {
                        counter_targets_free(targets, n);
                        return r;
                }
        }
        r = counter_reader_submit(m->counter_reader, message, targets, n, reply);
        if (r == -EBUSY)
                return sd_bus_error_setf(error, RDMAD_ERROR_BUSY, "Too many pending counter calls.");
        if (r < 0)
                return r;
        return 1; /* answered by the reader */
}

int bus_port_get_counters(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Port *p = userdata;
        CounterTarget *t;
        int r;

        t = calloc(1, sizeof(CounterTarget));
        if (!t)
                return -ENOMEM;
        r = target_set(t, p->device, p->number);
        if (r < 0) {
                counter_targets_free(t, 1);
                return r;
        }
        return submit(p->device->manager, message, t, 1, reply_counters, error);
}

int bus_device_get_counters(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        CounterTarget *t;
        size_t n = 0;
        int r;

        t = calloc(1, sizeof(CounterTarget));
        if (!t)
                return -ENOMEM;
        r = device_targets(d, false, t, &n);
        if (r < 0) {
                counter_targets_free(t, n);
                return r;
        }
        return submit(d->manager, message, t, n, reply_counters, error);
}

int bus_manager_get_all_counters(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        CounterTarget *t;
        size_t total = 0, n = 0;
        int r = 0;

        for (size_t i = 0; i < m->n_devices; i++)
                total += 1 + m->devices[i]->n_ports;
        t = calloc(total ?: 1, sizeof(CounterTarget));
        if (!t)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_devices && r >= 0; i++)
                r = device_targets(m->devices[i], true, t, &n);
        if (r < 0) {
                counter_targets_free(t, n);
                return r;
        }
        return submit(m, message, t, n, reply_all_counters, error);
}
