/* SPDX-License-Identifier: MIT */
#include "client/counter-table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/bus-message.h"
#include "basic/util.h"

static void port_counters_clear(PortCounters *p) {
        for (size_t i = 0; i < p->n_counters; i++)
                free(p->counters[i].name);
        free(p->counters);
        free(p->device);
}

void counter_table_clear(CounterTable *t) {
        for (size_t i = 0; i < t->n_ports; i++)
                port_counters_clear(&t->ports[i]);
        free(t->ports);
        *t = (CounterTable){};
}

/* A new, empty entry at the end of the table; NULL when out of memory. */
static PortCounters *counter_table_append(CounterTable *t, const char *device, uint32_t port) {
        PortCounters *ports, *p;

        ports = reallocarray(t->ports, t->n_ports + 1, sizeof(PortCounters));
        if (!ports)
                return NULL;
        t->ports = ports;
        p = &ports[t->n_ports];
        *p = (PortCounters){ .device = strdup(device), .port = port };
        if (!p->device)
                return NULL;
        t->n_ports++;
        return p;
}

static int port_counters_push(PortCounters *p, size_t *allocated, const char *name, uint64_t value) {
        char *copy;
        int r;

        r = ARRAY_RESERVE(p->counters, *allocated, p->n_counters + 1);
        if (r < 0)
                return r;
        copy = strdup(name);
        if (!copy)
                return -ENOMEM;
        p->counters[p->n_counters++] = (CounterSample){ .name = copy, .value = value };
        return 0;
}

int counter_table_add(CounterTable *t, const char *device, uint32_t port, const CounterSample *counters, size_t n) {
        PortCounters *p = counter_table_append(t, device, port);
        size_t allocated = 0;

        if (!p)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                int r = port_counters_push(p, &allocated, counters[i].name, counters[i].value);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* One a{st} into p, appended to what it holds. */
static int port_counters_read_dict(PortCounters *p, sd_bus_message *m) {
        size_t allocated = p->n_counters;
        const char *name;
        uint64_t value;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{st}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "{st}", &name, &value)) > 0) {
                r = port_counters_push(p, &allocated, name, value);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

int counter_table_read_port(CounterTable *t, const char *device, uint32_t port, sd_bus_message *reply) {
        PortCounters *p = counter_table_append(t, device, port);

        if (!p)
                return -ENOMEM;
        return port_counters_read_dict(p, reply);
}

/* One (device, port, counters) of GetAllCounters' reply. */
static int read_port_entry(sd_bus_message *m, void *userdata) {
        const char *device;
        uint32_t port;
        int r;

        r = sd_bus_message_read(m, "su", &device, &port);
        if (r < 0)
                return r;
        return counter_table_read_port(userdata, device, port, m);
}

int counter_table_read(CounterTable *t, sd_bus_message *reply) {
        return bus_message_read_entries(reply, 'r', "sua{st}", read_port_entry, t);
}

const PortCounters *counter_table_find(const CounterTable *t, const char *device, uint32_t port) {
        for (size_t i = 0; i < t->n_ports; i++)
                if (t->ports[i].port == port && streq(t->ports[i].device, device))
                        return &t->ports[i];
        return NULL;
}

const CounterSample *port_counters_find(const PortCounters *p, const char *name) {
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_counters; i++)
                if (streq(p->counters[i].name, name))
                        return &p->counters[i];
        return NULL;
}
