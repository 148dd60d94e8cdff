/* SPDX-License-Identifier: MIT */
#include "exposition.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/util.h"

static bool isempty(const char *s) {
        return !s || !*s;
}

const char *exposition_content_type(ExpositionFormat format) {
        static const char *const types[_EXPOSITION_FORMAT_MAX] = {
                [EXPOSITION_TEXT] = "text/plain; version=0.0.4; charset=utf-8",
                [EXPOSITION_OPENMETRICS] = "application/openmetrics-text; version=1.0.0; charset=utf-8",
        };
        assert(format >= 0 && format < _EXPOSITION_FORMAT_MAX);
        return types[format];
}

/* The port counters node_exporter (1.5.0, procfs 0.8.0) names, sorted by
 * file name for bsearch. Data counters arrive from rdmad already in octets. */
typedef struct CounterMetric {
        const char *file_name;
        const char *metric; /* after "rdma_" */
        const char *help;
} CounterMetric;

static const CounterMetric counter_metrics[] = {
        { "VL15_dropped", "vl15_dropped_total", "Incoming VL15 packets dropped for lack of resources." },
        { "excessive_buffer_overrun_errors", "excessive_buffer_overrun_errors_total",
          "Times that OverrunErrors consecutive flow control update periods each had an overrun error." },
        { "link_downed", "link_downed_total", "Times the link failed to recover from an error state and went down." },
        { "link_error_recovery", "link_error_recovery_total", "Times the link recovered from an error state." },
        { "local_link_integrity_errors", "local_link_integrity_errors_total",
          "Times the count of local physical errors exceeded the LocalPhyErrors threshold." },
        { "multicast_rcv_packets", "multicast_packets_received_total", "Multicast packets received, errors included." },
        { "multicast_xmit_packets", "multicast_packets_transmitted_total",
          "Multicast packets transmitted, errors included." },
        { "port_multicast_rcv_packets", "legacy_multicast_packets_received_total",
          "Multicast packets received (counters_ext)." },
        { "port_multicast_xmit_packets", "legacy_multicast_packets_transmitted_total",
          "Multicast packets transmitted (counters_ext)." },
        { "port_rcv_constraint_errors", "port_constraint_errors_received_total",
          "Packets received on the switch physical port that were discarded." },
        { "port_rcv_data", "port_data_received_bytes_total", "Data octets received on all VLs." },
        { "port_rcv_data_64", "legacy_data_received_bytes_total", "Data octets received on all VLs (counters_ext)." },
        { "port_rcv_discards", "port_discards_received_total",
          "Inbound packets discarded because the port was down or congested." },
        { "port_rcv_errors", "port_errors_received_total", "Packets with an error received on the port." },
        { "port_rcv_packets", "port_packets_received_total", "Packets received on all VLs, errors included." },
        { "port_rcv_packets_64", "legacy_packets_received_total", "Packets received on all VLs (counters_ext)." },
        { "port_rcv_remote_physical_errors", "port_receive_remote_physical_errors_total",
          "Packets received with the EBP (End of Bad Packet) delimiter." },
        { "port_rcv_switch_relay_errors", "port_receive_switch_relay_errors_total",
          "Packets the switch could not forward." },
        { "port_unicast_rcv_packets", "legacy_unicast_packets_received_total",
          "Unicast packets received (counters_ext)." },
        { "port_unicast_xmit_packets", "legacy_unicast_packets_transmitted_total",
          "Unicast packets transmitted (counters_ext)." },
        { "port_xmit_constraint_errors", "port_constraint_errors_transmitted_total",
          "Packets not transmitted from the switch physical port." },
        { "port_xmit_data", "port_data_transmitted_bytes_total", "Data octets transmitted on all VLs." },
        { "port_xmit_data_64", "legacy_data_transmitted_bytes_total",
          "Data octets transmitted on all VLs (counters_ext)." },
        { "port_xmit_discards", "port_discards_transmitted_total",
          "Outbound packets discarded because the port was down or congested." },
        { "port_xmit_packets", "port_packets_transmitted_total", "Packets transmitted on all VLs, errors included." },
        { "port_xmit_packets_64", "legacy_packets_transmitted_total",
          "Packets transmitted on all VLs (counters_ext)." },
        { "port_xmit_wait", "port_transmit_wait_total", "Ticks during which the port had data to send but sent none." },
        { "symbol_error", "symbol_error_total", "Minor link errors detected on one or more physical lanes." },
        { "unicast_rcv_packets", "unicast_packets_received_total", "Unicast packets received, errors included." },
        { "unicast_xmit_packets", "unicast_packets_transmitted_total",
          "Unicast packets transmitted, errors included." },
};

#define N_COUNTER_METRICS ELEMENTSOF(counter_metrics)

static int compare_counter_metric(const void *key, const void *entry) {
        return strcmp(key, ((const CounterMetric *) entry)->file_name);
}

static const CounterMetric *find_counter_metric(const char *file_name) {
        return bsearch(file_name, counter_metrics, N_COUNTER_METRICS, sizeof(CounterMetric), compare_counter_metric);
}

const char *exposition_counter_metric(const char *file_name) {
        const CounterMetric *m = find_counter_metric(file_name);
        return m ? m->metric : NULL;
}

uint64_t exposition_rate_bytes(double rate_gbps) {
        double rate = (float) rate_gbps;

        if (!(rate > 0) || rate * 125000000.0 >= 18446744073709551615.0)
                return 0;
        return (uint64_t) (rate * 125000000.0);
}

static void write_escaped(FILE *f, const char *s, bool escape_quote) {
        for (const char *p = s; *p; p++)
                switch (*p) {
                case '\\':
                        fputs_unlocked("\\\\", f);
                        break;
                case '\n':
                        fputs_unlocked("\\n", f);
                        break;
                case '"':
                        fputs_unlocked(escape_quote ? "\\\"" : "\"", f);
                        break;
                default:
                        fputc_unlocked(*p, f);
                }
}

void exposition_write_label_value(FILE *f, const char *s) {
        write_escaped(f, strempty(s), true);
}

static void write_u64(FILE *f, uint64_t v) {
        char buf[21];
        char *p = buf + sizeof(buf);

        do {
                *--p = (char) ('0' + v % 10);
                v /= 10;
        } while (v > 0);
        fwrite_unlocked(p, 1, (size_t) (buf + sizeof(buf) - p), f);
}

typedef enum FamilyType {
        FAMILY_GAUGE,
        FAMILY_COUNTER, /* sample name ends in _total */
        FAMILY_INFO,    /* sample name ends in _info; a gauge in 0.0.4 */
} FamilyType;

/* One metric family being written: its header goes out with its first sample. */
typedef struct Family {
        FILE *f;
        ExpositionFormat format;
        const char *name; /* the sample name, "rdma_" and the rest */
        const char *name_rest;
        FamilyType type;
        const char *help;
        bool started;
} Family;

static void write_family_name(const Family *fam) {
        size_t len = strlen(fam->name_rest);

        fputs_unlocked(fam->name, fam->f);
        /* OpenMetrics names the family without the sample suffix. */
        if (fam->format == EXPOSITION_OPENMETRICS && fam->type != FAMILY_GAUGE)
                len -= fam->type == FAMILY_COUNTER ? strlen("_total") : strlen("_info");
        fwrite_unlocked(fam->name_rest, 1, len, fam->f);
}

static void family_header(Family *fam) {
        static const char *const types[] = {
                [FAMILY_GAUGE] = "gauge", [FAMILY_COUNTER] = "counter", [FAMILY_INFO] = "info"
        };
        FamilyType type = fam->type;

        if (fam->started)
                return;
        fam->started = true;
        if (fam->format == EXPOSITION_TEXT && type == FAMILY_INFO)
                type = FAMILY_GAUGE;
        fputs_unlocked("# HELP ", fam->f);
        write_family_name(fam);
        fputc_unlocked(' ', fam->f);
        write_escaped(fam->f, fam->help, fam->format == EXPOSITION_OPENMETRICS);
        fputs_unlocked("\n# TYPE ", fam->f);
        write_family_name(fam);
        fputc_unlocked(' ', fam->f);
        fputs_unlocked(types[type], fam->f);
        fputc_unlocked('\n', fam->f);
}

/* Starts a sample: header if needed, the name and "{". */
static void sample_begin(Family *fam) {
        family_header(fam);
        fputs_unlocked(fam->name, fam->f);
        fputs_unlocked(fam->name_rest, fam->f);
        fputc_unlocked('{', fam->f);
}

/* A label up to its value: the comma before all but the first, the name, '="'. */
static void label_begin(Family *fam, bool first, const char *name) {
        if (!first)
                fputc_unlocked(',', fam->f);
        fputs_unlocked(name, fam->f);
        fputs_unlocked("=\"", fam->f);
}

static void label(Family *fam, bool first, const char *name, const char *value) {
        label_begin(fam, first, name);
        exposition_write_label_value(fam->f, value);
        fputc_unlocked('"', fam->f);
}

static void label_u32(Family *fam, bool first, const char *name, uint32_t value) {
        label_begin(fam, first, name);
        write_u64(fam->f, value);
        fputc_unlocked('"', fam->f);
}

static void sample_end(Family *fam, uint64_t value) {
        fputs_unlocked("} ", fam->f);
        write_u64(fam->f, value);
        fputc_unlocked('\n', fam->f);
}

static Family family(FILE *f, ExpositionFormat format, const char *prefix, const char *rest, FamilyType type,
                     const char *help) {
        return (Family){ .f = f, .format = format, .name = prefix, .name_rest = rest, .type = type, .help = help };
}

/* Object path → object, by binary search in a sorted copy: a big host
 * has thousands of ports to resolve on every scrape. Every object type of
 * the inventory starts with its path. */
typedef struct ObjectIndex {
        void **objects;
        size_t n;
} ObjectIndex;

static int compare_object_path(const void *a, const void *b) {
        return strcmp(**(char *const *const *) a, **(char *const *const *) b);
}

static int object_index_build(ObjectIndex *idx, void *const *objects, size_t n) {
        idx->objects = reallocarray(NULL, n ?: 1, sizeof(void *));
        if (!idx->objects)
                return -ENOMEM;
        if (n > 0)
                memcpy(idx->objects, objects, n * sizeof(void *));
        idx->n = n;
        qsort(idx->objects, n, sizeof(void *), compare_object_path);
        return 0;
}

static void *object_index_lookup(const ObjectIndex *idx, const char *path) {
        const char *const *key = &path;
        void **found;

        if (!path)
                return NULL;
        found = bsearch(&key, idx->objects, idx->n, sizeof(void *), compare_object_path);
        return found ? *found : NULL;
}

/* What an rdmad without PciAddress, Port.Transport, LinkWidth and LinkSpeed
 * still lets us tell: the PCI address is the name of the parent device,
 * width and speed are the words of RateInfo ("4X EDR"), the transport
 * follows from the link layer and the node type. Published values win. */
static bool is_pci_address(const char *s) {
        unsigned dom, bus, dev, fn;
        int end = 0;

        return sscanf(s, "%4x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &end) == 4 && s[end] == '\0' && strlen(s) == 12;
}

static const char *device_pci_address(const RdmaDevice *d) {
        const char *base;

        if (!isempty(d->pci_address) || isempty(d->device_path))
                return strempty(d->pci_address);
        base = strrchr(d->device_path, '/');
        base = base ? base + 1 : d->device_path;
        return is_pci_address(base) ? base : "";
}

static void port_link_words(const RdmaPort *p, char width[static 16], char speed[static 16]) {
        const char *info = strempty(p->rate_info), *space = strchr(info, ' ');
        size_t len = space ? (size_t) (space - info) : strlen(info);

        snprintf(width, 16, "%.*s", (int) len, info);
        snprintf(speed, 16, "%s", space ? space + 1 : "");
        if (!isempty(p->link_width))
                snprintf(width, 16, "%s", p->link_width);
        if (!isempty(p->link_speed))
                snprintf(speed, 16, "%s", p->link_speed);
}

static void write_devices(FILE *f, ExpositionFormat format, const Inventory *inv) {
        Family info = family(f, format, "rdma_", "device_info", FAMILY_INFO,
                             "RDMA device identity from rdmad; the value is always 1.");

        for (size_t i = 0; i < inv->n_devices; i++) {
                const RdmaDevice *d = inv->devices[i];

                sample_begin(&info);
                label(&info, true, "device", d->name);
                label(&info, false, "driver", d->driver);
                label(&info, false, "transport", d->transport);
                label(&info, false, "node_type", d->node_type);
                label(&info, false, "firmware_version", d->firmware_version);
                label(&info, false, "hca_type", d->hca_type);
                label(&info, false, "board_id", d->board_id);
                label(&info, false, "node_guid", d->node_guid);
                label(&info, false, "pci_address", device_pci_address(d));
                sample_end(&info, 1);
        }
}

/* A state set, as node_exporter's systemd unit states: a sample per
 * state, 1 for the device's Health and 0 for the others. A state this
 * exporter does not know (a newer rdmad's) gets its own sample, so that
 * one is always 1; a device without Health (an rdmad older than it) none. */
static void write_device_health(FILE *f, ExpositionFormat format, const Inventory *inv) {
        static const char *const states[] = { "ok", "errors", "unresponsive" };
        Family health = family(f, format, "rdma_", "device_health", FAMILY_GAUGE,
                               "Whether the RDMA device's files answer (rdmad's Health): 1 for its state of ok, errors "
                               "(an I/O error), unresponsive (a read hangs), 0 for the others.");

        for (size_t i = 0; i < inv->n_devices; i++) {
                const RdmaDevice *d = inv->devices[i];
                bool known = false;

                if (isempty(d->health))
                        continue;
                for (size_t k = 0; k < ELEMENTSOF(states); k++) {
                        bool current = streq(d->health, states[k]);

                        known = known || current;
                        sample_begin(&health);
                        label(&health, true, "device", d->name);
                        label(&health, false, "state", states[k]);
                        sample_end(&health, current);
                }
                if (!known) {
                        sample_begin(&health);
                        label(&health, true, "device", d->name);
                        label(&health, false, "state", d->health);
                        sample_end(&health, 1);
                }
        }
}

typedef enum PortGauge {
        PORT_INFO,
        PORT_STATE_ID,
        PORT_PHYSICAL_STATE_ID,
        PORT_RATE,
        PORT_STATE_CHANGES,
        _PORT_SERIES_MAX,
} PortGauge;

static uint64_t port_value(const RdmaPort *p, PortGauge g) {
        switch (g) {
        case PORT_INFO:
                return 1;
        case PORT_STATE_ID:
                return p->state_num;
        case PORT_PHYSICAL_STATE_ID:
                return p->phys_state_num;
        case PORT_RATE:
                return exposition_rate_bytes(p->rate_speed);
        case PORT_STATE_CHANGES:
                return p->state_changes;
        default:
                assert(false);
                return 0;
        }
}

static int write_ports(FILE *f, ExpositionFormat format, const Inventory *inv) {
        Family families[_PORT_SERIES_MAX] = {
                [PORT_INFO] = family(f, format, "rdma_", "port_info", FAMILY_INFO,
                                     "RDMA port identity from rdmad; the value is always 1."),
                [PORT_STATE_ID] = family(f, format, "rdma_", "state_id", FAMILY_GAUGE,
                                         "Port state (1: down, 2: init, 3: armed, 4: active, 5: active defer)."),
                [PORT_PHYSICAL_STATE_ID] = family(f, format, "rdma_", "physical_state_id", FAMILY_GAUGE,
                                                  "Physical port state (1: sleep, 2: polling, 3: disabled, 4: "
                                                  "configuration training, 5: link up, 6: link error recovery, "
                                                  "7: phy test)."),
                [PORT_RATE] = family(f, format, "rdma_", "rate_bytes_per_second", FAMILY_GAUGE,
                                     "Signalling rate of the port in bytes per second."),
                [PORT_STATE_CHANGES] = family(f, format, "rdma_", "port_state_changes_total", FAMILY_COUNTER,
                                              "Port state changes rdmad observed since it started."),
        };
        ObjectIndex devices = {}, netdevs = {};
        int r;

        r = object_index_build(&devices, (void *const *) inv->devices, inv->n_devices);
        if (r >= 0)
                r = object_index_build(&netdevs, (void *const *) inv->netdevs, inv->n_netdevs);
        if (r < 0)
                goto finish;

        for (PortGauge g = 0; g < _PORT_SERIES_MAX; g++)
                for (size_t i = 0; i < inv->n_ports; i++) {
                        const RdmaPort *p = inv->ports[i];
                        const RdmaDevice *d = object_index_lookup(&devices, p->device);
                        const RdmaNetDev *n = object_index_lookup(&netdevs, p->netdev);
                        Family *fam = &families[g];

                        sample_begin(fam);
                        label(fam, true, "device", d ? d->name : NULL);
                        label_u32(fam, false, "port", p->number);
                        if (g == PORT_INFO) {
                                char width[16], speed[16];

                                port_link_words(p, width, speed);
                                label(fam, false, "transport", port_transport(p, d));
                                label(fam, false, "link_layer", p->link_layer);
                                label(fam, false, "netdev", n ? n->name : NULL);
                                label(fam, false, "link_width", width);
                                label(fam, false, "link_speed", speed);
                        }
                        sample_end(fam, port_value(p, g));
                }
finish:
        free(devices.objects);
        free(netdevs.objects);
        return r;
}

static int write_counters(FILE *f, ExpositionFormat format, const CounterTable *t) {
        Family hw = family(f, format, "rdma_", "port_hw_counters_total", FAMILY_COUNTER,
                           "Driver-specific counters (hw_counters) without a node_exporter name; port 0 is "
                           "device-wide.");
        /* For each port and named metric, the index of its counter or -1:
         * one lookup per counter instead of one per metric and counter. */
        _cleanup_free_ int *slots = reallocarray(NULL, t->n_ports ?: 1, N_COUNTER_METRICS * sizeof(int));

        if (!slots)
                return -ENOMEM;
        for (size_t i = 0; i < t->n_ports; i++) {
                const PortCounters *p = &t->ports[i];
                int *s = slots + i * N_COUNTER_METRICS;

                for (size_t m = 0; m < N_COUNTER_METRICS; m++)
                        s[m] = -1;
                /* node_exporter has no port 0: everything there is device-wide. */
                if (p->port == 0)
                        continue;
                for (size_t c = 0; c < p->n_counters; c++) {
                        const CounterMetric *m = find_counter_metric(p->counters[c].name);
                        if (m)
                                s[m - counter_metrics] = (int) c;
                }
        }

        for (size_t m = 0; m < N_COUNTER_METRICS; m++) {
                Family fam =
                        family(f, format, "rdma_", counter_metrics[m].metric, FAMILY_COUNTER, counter_metrics[m].help);

                for (size_t i = 0; i < t->n_ports; i++) {
                        int c = slots[i * N_COUNTER_METRICS + m];

                        if (c < 0)
                                continue;
                        sample_begin(&fam);
                        label(&fam, true, "device", t->ports[i].device);
                        label_u32(&fam, false, "port", t->ports[i].port);
                        sample_end(&fam, t->ports[i].counters[c].value);
                }
        }

        for (size_t i = 0; i < t->n_ports; i++) {
                const PortCounters *p = &t->ports[i];

                for (size_t c = 0; c < p->n_counters; c++) {
                        if (p->port != 0 && find_counter_metric(p->counters[c].name))
                                continue;
                        sample_begin(&hw);
                        label(&hw, true, "device", p->device);
                        label_u32(&hw, false, "port", p->port);
                        label(&hw, false, "counter", p->counters[c].name);
                        sample_end(&hw, p->counters[c].value);
                }
        }
        return 0;
}

static int write_sriov(FILE *f, ExpositionFormat format, const Inventory *inv) {
        Family fams[] = {
                family(f, format, "rdma_", "sriov_vfs", FAMILY_GAUGE, "SR-IOV virtual functions enabled."),
                family(f, format, "rdma_", "sriov_total_vfs", FAMILY_GAUGE,
                       "SR-IOV virtual functions the device supports."),
        };
        ObjectIndex devices = {};
        int r;

        r = object_index_build(&devices, (void *const *) inv->devices, inv->n_devices);
        if (r < 0)
                return r;
        for (size_t k = 0; k < ELEMENTSOF(fams); k++)
                for (size_t i = 0; i < inv->n_sriovs; i++) {
                        const RdmaSriov *s = inv->sriovs[i];
                        const RdmaDevice *d = object_index_lookup(&devices, s->device);

                        sample_begin(&fams[k]);
                        label(&fams[k], true, "device", d ? d->name : NULL);
                        sample_end(&fams[k], k == 0 ? s->num_vfs : s->total_vfs);
                }
        free(devices.objects);
        return 0;
}

/* Seconds with their fraction, for durations and timestamps. */
static void write_seconds(FILE *f, uint64_t usec) {
        write_u64(f, usec / 1000000);
        fprintf(f, ".%06u\n", (unsigned) (usec % 1000000));
}

static void write_exporter_series(FILE *f, ExpositionFormat format, const ScrapeResult *s) {
        Family info = family(f, format, "rdmad_", "exporter_build_info", FAMILY_INFO,
                             "rdmad-exporter's version and the libmicrohttpd it runs on; the value is always 1.");
        Family duration = family(f, format, "rdmad_", "exporter_scrape_duration_seconds", FAMILY_GAUGE,
                                 "How long this scrape took until its exposition was rendered.");
        Family errors = family(f, format, "rdmad_", "exporter_scrape_errors_total", FAMILY_COUNTER,
                               "Scrapes in which rdmad did not answer (rdmad_up was 0) since the exporter started.");
        Family http_errors =
                family(f, format, "rdmad_", "exporter_http_errors_total", FAMILY_COUNTER,
                       "Connections and requests of HTTP peers that failed, by reason, since the exporter started.");

        sample_begin(&info);
        label(&info, true, "version", s->version);
        label(&info, false, "libmicrohttpd", s->libmicrohttpd_version);
        sample_end(&info, 1);
        family_header(&duration);
        fputs_unlocked("rdmad_exporter_scrape_duration_seconds ", f);
        write_seconds(f, s->duration_usec);
        family_header(&errors);
        fputs_unlocked("rdmad_exporter_scrape_errors_total ", f);
        write_u64(f, s->scrape_errors_total);
        fputc_unlocked('\n', f);
        /* Every reason, 0 too: a rate over a series that appears late misses its first errors. */
        for (HttpErrorReason r = 0; s->http_errors && r < _HTTP_ERROR_REASON_MAX; r++) {
                sample_begin(&http_errors);
                label(&http_errors, true, "reason", http_error_reason_to_string(r));
                sample_end(&http_errors, s->http_errors[r]);
        }
}

int exposition_write(FILE *f, ExpositionFormat format, const ScrapeResult *scrape) {
        Family up = family(f, format, "rdmad_", "up", FAMILY_GAUGE,
                           "1 when rdmad answered this scrape on the system bus, else 0.");
        Family updated = family(f, format, "rdmad_", "last_update_timestamp_seconds", FAMILY_GAUGE,
                                "When rdmad last told the exporter anything (a reply or a signal): the age of "
                                "the model series when rdmad_up is 0.");
        int r = 0;

        assert(f);
        assert(scrape);
        assert(format >= 0 && format < _EXPOSITION_FORMAT_MAX);

        family_header(&up);
        fprintf(f, "rdmad_up %d\n", scrape->up ? 1 : 0);
        if (scrape->last_update_usec > 0) {
                family_header(&updated);
                fputs_unlocked("rdmad_last_update_timestamp_seconds ", f);
                write_seconds(f, scrape->last_update_usec);
        }
        if (scrape->version)
                write_exporter_series(f, format, scrape);

        /* The model as last known, also while rdmad does not answer. */
        if (scrape->inventory) {
                write_devices(f, format, scrape->inventory);
                write_device_health(f, format, scrape->inventory);
                r = write_ports(f, format, scrape->inventory);
                if (r >= 0)
                        r = write_sriov(f, format, scrape->inventory);
        }
        if (r >= 0 && scrape->up && scrape->counters)
                r = write_counters(f, format, scrape->counters);
        if (r < 0)
                return r;
        if (format == EXPOSITION_OPENMETRICS)
                fputs_unlocked("# EOF\n", f);
        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}
