/* SPDX-License-Identifier: MIT */
#pragma once

/* Content negotiation for /metrics: which exposition format an Accept
 * header asks for, honouring q-values and the most specific matching media
 * range (RFC 9110 12.5.1). Pure. */

#include "exposition.h"

/* NULL or "" or nothing acceptable: the text format, as Prometheus's own
 * client libraries answer. At equal q, OpenMetrics wins if the client named
 * it (a client that names it can parse it), the text format otherwise. */
ExpositionFormat exposition_negotiate(const char *accept);

/* "0", "0.5", "1.000" → 0, 500, 1000; -1 when not a valid qvalue. */
int qvalue_parse(const char *s, size_t len);

/* How long a scrape may wait for rdmad: the scraper's
 * X-Prometheus-Scrape-Timeout-Seconds ("10", "2.5") less a margin for the
 * answer to reach it (a tenth, at least 250 ms), at most bus_timeout_usec;
 * bus_timeout_usec for no or a malformed header. Never below 100 ms. */
uint64_t scrape_budget_usec(const char *timeout_header, uint64_t bus_timeout_usec);
