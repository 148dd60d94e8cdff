/* SPDX-License-Identifier: MIT */
#pragma once

/* What went wrong with a peer's connection or request, from what
 * libmicrohttpd logs about it and from the guard (guard.h): a small fixed
 * set of reasons, exported as rdmad_exporter_http_errors_total{reason}.
 * Pure. */

#include <stdbool.h>

typedef enum HttpErrorReason {
        HTTP_ERROR_REQUEST_TOO_LARGE,  /* answered 413, 414, 431: headers, URL or body beyond the limits */
        HTTP_ERROR_MALFORMED_REQUEST,  /* answered another error status: 400, 505, ... */
        HTTP_ERROR_REQUEST_TIMEOUT,    /* no complete request within the guard's time: closed */
        HTTP_ERROR_CONNECTION_CLOSED,  /* the peer closed or reset the connection in mid-request or mid-answer */
        HTTP_ERROR_CONNECTION_REFUSED, /* not accepted: a connection limit, accept() failed */
        HTTP_ERROR_OTHER,              /* any other message of libmicrohttpd */
        _HTTP_ERROR_REASON_MAX,
} HttpErrorReason;

/* "request_too_large", ...: the label value. */
const char *http_error_reason_to_string(HttpErrorReason reason);

/* The reason of one libmicrohttpd log message. *ret_counted is false for a
 * message that only precedes the one that ends the request (libmicrohttpd
 * logs "Not enough memory in pool to allocate header record!" and then
 * "Error processing request (HTTP response code is 431 ..."), so that a
 * request is counted once. */
HttpErrorReason http_error_classify(const char *message, bool *ret_counted);

/* The status of libmicrohttpd's "Error processing request (HTTP response
 * code is 431 ('<html>...'))" message: 100-999, or -1 for another message. */
int http_error_response_status(const char *message);
