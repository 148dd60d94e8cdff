/* SPDX-License-Identifier: MIT */
#pragma once

/* rdmad's model and counters as Prometheus metrics: the text format 0.0.4
 * and OpenMetrics 1.0.0. Pure: everything comes in as arguments. The names
 * follow node_exporter's InfiniBand collector (node_infiniband_<x> becomes
 * rdma_<x>, same labels, same values), plus rdmad's own series: link state,
 * rates, SR-IOV and scrape health (man/rdmad-exporter.8 lists them). */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "client/counter-table.h"
#include "client/inventory.h"
#include "http-errors.h"

typedef enum ExpositionFormat {
        EXPOSITION_TEXT,        /* text/plain; version=0.0.4 */
        EXPOSITION_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
        _EXPOSITION_FORMAT_MAX,
} ExpositionFormat;

const char *exposition_content_type(ExpositionFormat format);

/* What one scrape saw. up: rdmad answered this scrape (its counters are
 * in counters). inventory: the model as last known, shown whether or not
 * rdmad answered now, with last_update_usec (CLOCK_REALTIME µs, 0: never)
 * telling how old it is. version set: the exporter's own series too. */
typedef struct ScrapeResult {
        bool up;
        const Inventory *inventory;
        const CounterTable *counters;
        uint64_t last_update_usec;
        const char *version;
        const char *libmicrohttpd_version;
        uint64_t duration_usec;
        uint64_t scrape_errors_total;
        const uint64_t *http_errors; /* _HTTP_ERROR_REASON_MAX counts by reason, or NULL: none shown */
} ScrapeResult;

/* Writes the exposition of `scrape` to f. Returns 0, or -ENOMEM / -EIO. */
int exposition_write(FILE *f, ExpositionFormat format, const ScrapeResult *scrape);

/* node_exporter's value of rate_bytes_per_second for RateSpeed Gb/s: it
 * parses the number as a 32-bit float and truncates Gb/s × 125 000 000. */
uint64_t exposition_rate_bytes(double rate_gbps);

/* The node_exporter metric name (without "rdma_") for a counter file name,
 * or NULL when it has none (the counter goes to rdma_port_hw_counters_total). */
const char *exposition_counter_metric(const char *file_name);

/* Writes s as a label value: backslash, double quote and newline escaped. */
void exposition_write_label_value(FILE *f, const char *s);
