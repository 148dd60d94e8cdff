/* SPDX-License-Identifier: MIT */
#pragma once

/* A real Prometheus server for the exporter's tests: started on a free
 * port with a one-job configuration that scrapes the exporter, and asked
 * through its HTTP query API. */

#include <stdbool.h>
#include <sys/types.h>

/* Writes <dir>/<name>.yml (job "rdmad", targets 127.0.0.1:target_port,
 * `global` holding scrape_interval and what else the test sets), keeps the
 * TSDB in <dir>/<name>, starts prometheus; its pid, and in *ret_port the
 * port of its API. */
pid_t prometheus_start(const char *dir, const char *name, const char *global, unsigned target_port, unsigned *ret_port);

/* The value of an instant query's single result ("value":[<time>,"<value>"]),
 * malloc'd; NULL when the result is empty or the query failed. */
char *prometheus_query(unsigned port, const char *query);

/* Asks every 250 ms, for up to timeout_ms, until the query's value is `expected`. */
bool prometheus_wait_value(unsigned port, const char *query, const char *expected, int timeout_ms);
