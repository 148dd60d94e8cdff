/* SPDX-License-Identifier: MIT */
/* rdmactl counters [NAME...]: the traffic and error counters of each port,
 * the summary an operator reads first or --all; --watch samples again and
 * again and shows rates per second, as `rdma statistic` and ibqueryerrors
 * users expect. One sample is a field tree, printed as text or JSON. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/utf8.h"
#include "basic/util.h"
#include "field-tree.h"
#include "format.h"
#include "json-writer.h"
#include "rdmactl.h"
#include "target.h"
#include "verb-util.h"

#define LABEL_WIDTH 19

/* One block of the output: a port, or (port NULL) a device's device-wide hw_counters. */
typedef struct Shown {
        const RdmaDevice *device;
        const RdmaPort *port;
} Shown;

typedef struct View {
        const Inventory *inv;
        const Options *o;
        Shown *shown;
        size_t n_shown;
        bool every_port;
} View;

static int fetch_one(sd_bus *bus, const char *path, const char *interface, const char *device, uint32_t port,
                     CountersFetchFlags flags, CounterTable *t) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        bool quiet = flags & COUNTERS_FETCH_QUIET;
        int r;

        r = sd_bus_call_method(bus, RDMAD_BUS_NAME, path, interface, RDMAD_METHOD_GET_COUNTERS, &error, &reply, "");
        if (r < 0) {
                int status = quiet ? EXIT_FAILURE_GENERIC : report_bus_error(RDMAD_METHOD_GET_COUNTERS, r, &error);
                sd_bus_error_free(&error);
                return status;
        }
        r = counter_table_read_port(t, device, port, reply);
        if (r < 0)
                return quiet ? EXIT_FAILURE_GENERIC : report_bus_error(RDMAD_METHOD_GET_COUNTERS, r, NULL);
        return EXIT_OK;
}

int counters_fetch(sd_bus *bus, const Inventory *inv, const RdmaPort *const *ports, size_t n_ports,
                   CountersFetchFlags flags, CounterTable *t) {
        if (flags & COUNTERS_FETCH_EVERY_PORT) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                sd_bus_error error = SD_BUS_ERROR_NULL;
                bool quiet = flags & COUNTERS_FETCH_QUIET;
                int r;

                r = sd_bus_call_method(bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       RDMAD_METHOD_GET_ALL_COUNTERS, &error, &reply, "");
                if (r < 0) {
                        int status = quiet ? EXIT_FAILURE_GENERIC
                                           : report_bus_error(RDMAD_METHOD_GET_ALL_COUNTERS, r, &error);
                        sd_bus_error_free(&error);
                        return status;
                }
                r = counter_table_read(t, reply);
                if (r < 0)
                        return quiet ? EXIT_FAILURE_GENERIC : report_bus_error(RDMAD_METHOD_GET_ALL_COUNTERS, r, NULL);
                return EXIT_OK;
        }
        for (size_t i = 0; i < n_ports; i++) {
                int status = fetch_one(bus, ports[i]->path, RDMAD_PORT_INTERFACE, port_device_name(inv, ports[i]),
                                       ports[i]->number, flags, t);
                if (status != EXIT_OK)
                        return status;
        }
        return EXIT_OK;
}

static int fetch(sd_bus *bus, const View *v, CounterTable *t) {
        _cleanup_free_ const RdmaPort **ports = calloc(v->n_shown + 1, sizeof(RdmaPort *));
        size_t n = 0;
        int status;

        if (!ports)
                return report_oom();
        for (size_t i = 0; i < v->n_shown; i++)
                if (v->shown[i].port)
                        ports[n++] = v->shown[i].port;
        status = counters_fetch(bus, v->inv, ports, n, v->every_port ? COUNTERS_FETCH_EVERY_PORT : 0, t);
        if (status != EXIT_OK || v->every_port)
                return status;
        for (size_t i = 0; i < v->n_shown; i++)
                if (!v->shown[i].port) {
                        status = fetch_one(bus, v->shown[i].device->path, RDMAD_DEVICE_INTERFACE,
                                           v->shown[i].device->name, 0, 0, t);
                        if (status != EXIT_OK)
                                return status;
                }
        return EXIT_OK;
}

static const PortCounters *shown_counters(const CounterTable *t, const Shown *s) {
        return counter_table_find(t, s->device->name, s->port ? s->port->number : 0);
}

/* A summary counter, or its counters_ext twin on kernels before 4.5. */
static const CounterSample *find_summary(const PortCounters *p, const char *name) {
        char ext[64];
        const CounterSample *c = port_counters_find(p, name);

        if (c || counter_kind(name) == COUNTER_ERROR || counter_kind(name) == COUNTER_OTHER)
                return c;
        snprintf(ext, sizeof(ext), "%s_64", name);
        return port_counters_find(p, ext);
}

/* The counters a block shows, in order: the summary's, or every one. */
static size_t shown_samples(const View *v, const PortCounters *p, const CounterSample **out, size_t max) {
        size_t n = 0;

        if (!p)
                return 0;
        if (v->o->all) {
                for (size_t i = 0; i < p->n_counters && n < max; i++)
                        out[n++] = &p->counters[i];
                return n;
        }
        for (size_t i = 0; counter_summary_name(i) && n < max; i++) {
                const CounterSample *c = find_summary(p, counter_summary_name(i));
                if (c)
                        out[n++] = c;
        }
        return n;
}

static const char *sample_label(const View *v, const CounterSample *c) {
        const char *label = v->o->all ? NULL : counter_summary_label(c->name);

        /* The _64 twins stand under their summary label. */
        if (!label && !v->o->all) {
                char base[64];
                size_t len = strlen(c->name);

                if (len > 3 && len < sizeof(base) && streq(c->name + len - 3, "_64")) {
                        snprintf(base, sizeof(base), "%.*s", (int) (len - 3), c->name);
                        label = counter_summary_label(base);
                }
        }
        return label ?: c->name;
}

static unsigned label_width(const View *v, const CounterTable *t) {
        unsigned width = LABEL_WIDTH;

        for (size_t i = 0; i < v->n_shown; i++) {
                const PortCounters *p = shown_counters(t, &v->shown[i]);
                const CounterSample *samples[512];
                size_t n = shown_samples(v, p, samples, ELEMENTSOF(samples));

                for (size_t k = 0; k < n; k++) {
                        unsigned w = (unsigned) strlen(sample_label(v, samples[k]));
                        if (w > width)
                                width = w;
                }
        }
        return width;
}

/* The value as text: octets with units, a rate after it when there is one. */
static void sample_text(const CounterSample *c, const CounterSample *prev, uint64_t interval_usec, char *buf,
                        size_t size) {
        CounterKind kind = counter_kind(c->name);
        int n;

        if (kind == COUNTER_DATA) {
                char b[BYTES_STRING_MAX];
                n = snprintf(buf, size, "%s (%" PRIu64 " bytes)", format_bytes(c->value, b), c->value);
        } else
                n = snprintf(buf, size, "%" PRIu64, c->value);
        if (prev && n >= 0 && (size_t) n < size) {
                char rate[RATE_STRING_MAX];

                format_rate(counter_rate(counter_delta(prev->value, c->value), interval_usec), kind == COUNTER_DATA,
                            rate);
                snprintf(buf + n, size - (size_t) n, ", %s", rate);
        }
}

static const char *shown_netdev(const View *v, const Shown *s) {
        return s->port ? inventory_netdev_name(v->inv, s->port->netdev) : NULL;
}

/* One block: heading, and a line (text) or a member (JSON) per counter. With
 * prev, the rates since that sample too. */
static void add_block(Field *root, const View *v, const Shown *s, const PortCounters *p, const PortCounters *prev,
                      uint64_t interval_usec) {
        const char *netdev = shown_netdev(v, s);
        const CounterSample *samples[512];
        size_t n = shown_samples(v, p, samples, ELEMENTSOF(samples));
        bool errors = false;
        Field *f, *counters, *deltas = NULL, *rates = NULL;

        if (s->port)
                f = field_labelf(field_object(root, NULL), "%s/%" PRIu32 "%s%s%s", s->device->name, s->port->number,
                                 netdev ? " (" : "", strempty(netdev), netdev ? ")" : "");
        else
                f = field_labelf(field_object(root, NULL), "%s (device-wide)", s->device->name);
        field_flags(field_string(f, "device", s->device->name), FIELD_JSON_ONLY);
        field_flags(field_uint(f, "port", s->port ? s->port->number : 0), FIELD_JSON_ONLY);
        field_flags(field_string(f, "netdev", netdev), FIELD_JSON_ONLY);
        counters = field_object(f, "counters");
        if (prev) {
                field_flags(field_uint(f, "interval_usec", interval_usec), FIELD_JSON_ONLY);
                deltas = field_flags(field_object(f, "deltas"), FIELD_JSON_ONLY);
                rates = field_flags(field_object(f, "rates"), FIELD_JSON_ONLY);
        }
        for (size_t i = 0; i < n; i++) {
                const CounterSample *c = samples[i], *before = prev ? port_counters_find(prev, c->name) : NULL;
                bool bad = counter_kind(c->name) == COUNTER_ERROR && c->value > 0;
                char text[128];

                sample_text(c, before, interval_usec, text, sizeof(text));
                field_flags(field_uint(counters, c->name, c->value), FIELD_JSON_ONLY);
                field_color(field_label(field_flags(field_string_copy(counters, c->name, text), FIELD_TEXT_ONLY),
                                        sample_label(v, c)),
                            bad ? ANSI_RED : NULL);
                if (before) {
                        uint64_t delta = counter_delta(before->value, c->value);

                        field_uint(deltas, c->name, delta);
                        /* Whole units per second: deltas and interval_usec give the fraction. */
                        field_uint(rates, c->name, (uint64_t) counter_rate(delta, interval_usec));
                }
                errors = errors || bad;
        }
        /* rdmad leaves out the counters of a device whose reads hang: say why the block is empty. */
        if (n == 0 && !device_health_ok(s->device)) {
                Field *h = field_label(field_flags(field_object(f, NULL), FIELD_TEXT_ONLY), "Health");

                field_color(field_string(h, NULL, s->device->health), health_color(s->device->health));
                field_affix(field_string(h, NULL, *s->device->health_reason ? s->device->health_reason : NULL), " (",
                            ")");
                field_string(h, NULL, ", no counters");
                errors = true;
        } else if (n == 0)
                /* Said, not an empty block: siw, for one, publishes none. */
                field_label(field_flags(field_string(f, NULL, "none (the driver publishes no counters for it)"),
                                        FIELD_TEXT_ONLY),
                            "Counters");
        field_color(f, errors ? ANSI_RED : ANSI_GREEN);
}

/* A sample as blocks (text) or one JSON document. */
static int print_sample(const View *v, const CounterTable *t, const CounterTable *prev, uint64_t interval_usec) {
        _cleanup_(field_tree_freep) Field *root = field_tree_new();

        if (!root)
                return report_oom();
        for (size_t i = 0; i < v->n_shown; i++) {
                const PortCounters *p = shown_counters(t, &v->shown[i]);

                /* Device-wide counters only where the device has some. */
                if (!v->shown[i].port && (!p || p->n_counters == 0))
                        continue;
                add_block(root, v, &v->shown[i], p, prev ? shown_counters(prev, &v->shown[i]) : NULL, interval_usec);
        }
        if (field_tree_check(root) < 0)
                return report_oom();
        if (v->o->json)
                return print_fields_json(root, v->o, EXIT_OK);
        if (v->n_shown == 0)
                printf("No RDMA ports.\n");
        field_tree_text(root, stdout, label_width(v, t), utf8_locale() ? "●" : "*", v->o->color);
        return EXIT_OK;
}

/* Not on a terminal, --watch writes a line per port and interval: the
 * totals first, then the rates of data, packets and errors. */
static void print_watch_line(const View *v, const Shown *s, const PortCounters *p, const PortCounters *prev,
                             uint64_t interval_usec) {
        uint64_t sums[2][4] = {}; /* [now, before] × rx bytes, tx bytes, rx+tx packets, errors */
        char ts[TIMESTAMP_MAX];
        const char *netdev = shown_netdev(v, s);

        if (!p)
                return;
        for (int k = 0; k < 2; k++) {
                const PortCounters *q = k == 0 ? p : prev;

                for (size_t i = 0; q && i < q->n_counters; i++) {
                        const char *name = q->counters[i].name;
                        uint64_t value = q->counters[i].value;

                        if (streq(name, "port_rcv_data"))
                                sums[k][0] = value;
                        else if (streq(name, "port_xmit_data"))
                                sums[k][1] = value;
                        else if (streq(name, "port_rcv_packets") || streq(name, "port_xmit_packets"))
                                sums[k][2] += value;
                        else if (counter_kind(name) == COUNTER_ERROR)
                                sums[k][3] += value;
                }
        }
        printf("%s %s/%" PRIu32 "%s%s", format_timestamp(now_usec(CLOCK_REALTIME), ts), s->device->name,
               s->port ? s->port->number : 0, netdev ? " " : "", strempty(netdev));
        if (!prev) {
                char rx[BYTES_STRING_MAX], tx[BYTES_STRING_MAX];

                printf(" total rx %s tx %s packets %" PRIu64 " errors %" PRIu64 "\n", format_bytes(sums[0][0], rx),
                       format_bytes(sums[0][1], tx), sums[0][2], sums[0][3]);
                return;
        }
        printf(" rx");
        for (int i = 0; i < 4; i++) {
                char rate[RATE_STRING_MAX];

                printf("%s%s",
                       i == 1   ? " tx "
                       : i == 2 ? " packets "
                       : i == 3 ? " errors "
                                : " ",
                       format_rate(counter_rate(counter_delta(sums[1][i], sums[0][i]), interval_usec), i < 2, rate));
        }
        putchar('\n');
}

/* One sample on the screen (redrawn in place on a terminal), as JSON, or as lines. */
static int show(const View *v, bool terminal, const CounterTable *cur, const CounterTable *prev,
                uint64_t interval_usec) {
        int status = EXIT_OK;

        if (terminal)
                printf("\x1b[H\x1b[2J");
        if (terminal || v->o->json)
                status = print_sample(v, cur, prev, interval_usec);
        else
                for (size_t i = 0; i < v->n_shown; i++)
                        print_watch_line(v, &v->shown[i], shown_counters(cur, &v->shown[i]),
                                         prev ? shown_counters(prev, &v->shown[i]) : NULL, interval_usec);
        return status != EXIT_OK ? status : finish_output(status); /* a failure was told where it happened */
}

static void sleep_until(uint64_t monotonic_usec) {
        struct timespec ts = { .tv_sec = (time_t) (monotonic_usec / USEC_PER_SEC),
                               .tv_nsec = (long) (monotonic_usec % USEC_PER_SEC) * 1000 };

        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

/* Until interrupted: each sample against the one before, the rates over
 * the time measured between the two reads. */
static int watch(sd_bus *bus, const View *v, CounterTable *first) {
        CounterTable prev = *first, cur = {};
        uint64_t prev_usec = now_usec(CLOCK_MONOTONIC), next = prev_usec;
        bool terminal = isatty(STDOUT_FILENO) == 1 && !v->o->json;
        int status;

        *first = (CounterTable){};
        status = show(v, terminal, &prev, NULL, 0);
        while (status == EXIT_OK) {
                uint64_t now = now_usec(CLOCK_MONOTONIC);

                /* On a schedule, so that a slow read does not stretch every interval after it. */
                next += v->o->watch_usec;
                if (next <= now)
                        next = now + v->o->watch_usec;
                sleep_until(next);
                status = fetch(bus, v, &cur);
                if (status != EXIT_OK)
                        break;
                now = now_usec(CLOCK_MONOTONIC);
                status = show(v, terminal, &cur, &prev, now - prev_usec);
                counter_table_clear(&prev);
                prev = cur;
                cur = (CounterTable){};
                prev_usec = now;
        }
        counter_table_clear(&prev);
        counter_table_clear(&cur);
        return status;
}

/* The blocks the targets name: their ports (and, with --all and a whole
 * device named, its device-wide counters), in the inventory's order. */
static int collect(View *v, const Target *targets, size_t n_targets) {
        v->shown = calloc(v->inv->n_ports + n_targets + 1, sizeof(Shown));
        if (!v->shown)
                return report_oom();
        for (size_t t = 0; t < n_targets; t++) {
                size_t n;
                RdmaPort *const *ports = inventory_device_ports(v->inv, targets[t].device->path, &n);

                for (size_t i = 0; i < n; i++)
                        if (targets[t].port == 0 || targets[t].port == ports[i]->number)
                                v->shown[v->n_shown++] = (Shown){ .device = targets[t].device, .port = ports[i] };
                if (v->o->all && targets[t].port == 0)
                        v->shown[v->n_shown++] = (Shown){ .device = targets[t].device };
        }
        return EXIT_OK;
}

/* "mlx5_0", "mlx5_0 1", "mlx5_0/1", "ib0"; none: every port of the host. */
int verb_counters(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_free_ Target *targets = NULL;
        _cleanup_(counter_table_clear) CounterTable t = {};
        View v = { .o = o, .every_port = n_args == 0 };
        size_t n_targets = 0;
        int status, worst = EXIT_OK;

        status = load_inventory(bus, o, &inv);
        if (status != EXIT_OK)
                return status;
        v.inv = inv;
        status = targets_parse(bus, inv, args, n_args, &targets, &n_targets, &worst);
        if (status != EXIT_OK)
                return status;
        status = collect(&v, targets, n_targets);
        if (status == EXIT_OK && (n_targets > 0 || n_args == 0))
                status = fetch(bus, &v, &t);
        if (status == EXIT_OK && (n_targets > 0 || n_args == 0)) {
                if (o->watch)
                        status = watch(bus, &v, &t);
                else if ((status = print_sample(&v, &t, NULL, 0)) == EXIT_OK)
                        status = finish_output(status); /* a failure was told where it happened */
        }
        free(v.shown);
        return status != EXIT_OK ? status : worst;
}
