/* SPDX-License-Identifier: MIT */
#include "http-errors.h"

#include <assert.h>
#include <string.h>

#include "basic/util.h"

static const char *const reason_table[_HTTP_ERROR_REASON_MAX] = {
        [HTTP_ERROR_REQUEST_TOO_LARGE] = "request_too_large",   [HTTP_ERROR_MALFORMED_REQUEST] = "malformed_request",
        [HTTP_ERROR_REQUEST_TIMEOUT] = "request_timeout",       [HTTP_ERROR_CONNECTION_CLOSED] = "connection_closed",
        [HTTP_ERROR_CONNECTION_REFUSED] = "connection_refused", [HTTP_ERROR_OTHER] = "other",
};

const char *http_error_reason_to_string(HttpErrorReason reason) {
        assert(reason >= 0 && reason < _HTTP_ERROR_REASON_MAX);
        return reason_table[reason];
}

/* libmicrohttpd's messages (0.9.7x), by the start of their text. */
typedef struct MessageClass {
        const char *prefix;
        HttpErrorReason reason;
        bool counted;
} MessageClass;

static const MessageClass message_classes[] = {
        /* Details: the error response that follows is counted. */
        { "Not enough memory in pool to allocate header record", HTTP_ERROR_REQUEST_TOO_LARGE, false },
        { "Not enough memory in pool to parse cookies", HTTP_ERROR_REQUEST_TOO_LARGE, false },
        { "Too large value of 'Content-Length' header", HTTP_ERROR_REQUEST_TOO_LARGE, false },
        { "Failed to parse `Content-Length' header", HTTP_ERROR_MALFORMED_REQUEST, false },
        { "Received HTTP/1.1 request without `Host' header", HTTP_ERROR_MALFORMED_REQUEST, false },
        /* The peer went away. */
        { "Socket has been disconnected when reading request", HTTP_ERROR_CONNECTION_CLOSED, true },
        { "Connection socket is closed when reading request", HTTP_ERROR_CONNECTION_CLOSED, true },
        { "Connection was closed by remote side with incomplete request", HTTP_ERROR_CONNECTION_CLOSED, true },
        { "Failed to send ", HTTP_ERROR_CONNECTION_CLOSED, true },
        /* Connections not taken. */
        { "Server reached connection limit", HTTP_ERROR_CONNECTION_REFUSED, true },
        { "Error accepting connection", HTTP_ERROR_CONNECTION_REFUSED, true },
        { "Hit process or system resource limit", HTTP_ERROR_CONNECTION_REFUSED, true },
        { "Failed to start serving new connection", HTTP_ERROR_CONNECTION_REFUSED, true },
};

#define ERROR_RESPONSE_PREFIX "Error processing request (HTTP response code is "

int http_error_response_status(const char *message) {
        const char *p;
        int code = 0;

        assert(message);
        if (strncmp(message, ERROR_RESPONSE_PREFIX, strlen(ERROR_RESPONSE_PREFIX)) != 0)
                return -1;
        p = message + strlen(ERROR_RESPONSE_PREFIX);
        for (int i = 0; i < 3; i++) {
                if (p[i] < '0' || p[i] > '9')
                        return -1;
                code = code * 10 + (p[i] - '0');
        }
        if (p[3] >= '0' && p[3] <= '9')
                return -1;
        return code >= 100 ? code : -1;
}

HttpErrorReason http_error_classify(const char *message, bool *ret_counted) {
        int code;

        assert(message);
        assert(ret_counted);

        *ret_counted = true;
        code = http_error_response_status(message);
        if (code == 413 || code == 414 || code == 431)
                return HTTP_ERROR_REQUEST_TOO_LARGE;
        if (code > 0)
                return HTTP_ERROR_MALFORMED_REQUEST;
        for (size_t i = 0; i < ELEMENTSOF(message_classes); i++)
                if (strncmp(message, message_classes[i].prefix, strlen(message_classes[i].prefix)) == 0) {
                        *ret_counted = message_classes[i].counted;
                        return message_classes[i].reason;
                }
        return HTTP_ERROR_OTHER;
}
