/* SPDX-License-Identifier: MIT */
#pragma once

/* The tests' and the benchmark's side of HTTP and of the text format: a
 * blocking HTTP/1.0 GET on 127.0.0.1 and a reader for exposition lines
 * (enough to compare two exporters; not a validator: promtool is). */

#include <stdbool.h>
#include <stddef.h>

typedef struct HttpReply {
        int status;    /* 200, 404, ...; 0 when nothing came */
        char *headers; /* the header block, lines with \r\n */
        char *body;
        size_t body_size;
} HttpReply;

/* method "GET" or "HEAD"; accept may be NULL. Retries the connection for up
 * to connect_timeout_ms (a server still starting), then waits at most
 * HTTP_REPLY_TIMEOUT_MS for the whole answer: -ETIMEDOUT after it, with
 * what came so far on stderr. 0 or -errno. */
#define HTTP_REPLY_TIMEOUT_MS 30000
int http_request(unsigned port, const char *method, const char *target, const char *accept, int connect_timeout_ms,
                 HttpReply *ret);
/* The same with more header lines ("Name: value\r\n" each, NULL for none). */
int http_request_with(unsigned port, const char *method, const char *target, const char *headers,
                      int connect_timeout_ms, HttpReply *ret);
void http_reply_clear(HttpReply *r);

/* The value of a header (case-insensitive name), malloc'd; NULL if absent. */
char *http_reply_header(const HttpReply *r, const char *name);

/* Percent-encodes s for a query string (caller frees). */
char *url_encode(const char *s);

typedef struct Sample {
        char *name;
        char *labels; /* canonical: name="value" pairs sorted, comma-separated */
        double value;
} Sample;

typedef struct Samples {
        Sample *items;
        size_t n;
} Samples;

/* Every sample line of an exposition; false on a line it cannot read. */
bool samples_parse(const char *text, Samples *ret);
void samples_clear(Samples *s);
const Sample *samples_find(const Samples *s, const char *name, const char *labels);

/* A free TCP port on 127.0.0.1 (bound, read, closed: racy, good enough). */
unsigned free_tcp_port(void);
