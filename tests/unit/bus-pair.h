/* SPDX-License-Identifier: MIT */
#pragma once

/* Two sd-bus connections over a socketpair, both on one sd-event loop: a
 * "daemon" side that receives method calls and a client that makes them.
 * Enough to test code that holds calls and answers them later, without a
 * bus daemon. Header-only: each unit test is one program. */

#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <systemd/sd-id128.h>

#include <cmocka.h>

typedef struct BusPair {
        sd_event *event;
        sd_bus *server;
        sd_bus *client;
        sd_bus_message *call; /* the last call the server received, held */
} BusPair;

/* What the client got back. */
typedef struct BusReply {
        bool done;
        char *error_name; /* NULL for a method return */
        char *error_message;
        char *value; /* the "s" of a method return, if it had one */
} BusReply;

static inline int bus_pair_on_call(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        BusPair *p = userdata;

        sd_bus_message_unref(p->call);
        p->call = sd_bus_message_ref(m);
        return 1; /* answered later, by the code under test */
}

/* sd-bus holds a reply to the result signature of its vtable entry. */
static const sd_bus_vtable bus_pair_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("ReturnsString", NULL, "s", bus_pair_on_call, 0),
        SD_BUS_METHOD("ReturnsNothing", NULL, NULL, bus_pair_on_call, 0),
        SD_BUS_VTABLE_END,
};

static inline void bus_pair_new(BusPair *p) {
        sd_id128_t id;
        int fds[2];

        *p = (BusPair){};
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds), 0);
        assert_int_equal(sd_id128_randomize(&id), 0);
        assert_int_equal(sd_event_new(&p->event), 0);

        assert_int_equal(sd_bus_new(&p->server), 0);
        assert_int_equal(sd_bus_set_fd(p->server, fds[0], fds[0]), 0);
        assert_int_equal(sd_bus_set_server(p->server, 1, id), 0);
        assert_int_equal(sd_bus_add_object_vtable(p->server, NULL, "/test", "org.rdmad1.Test", bus_pair_vtable, p), 0);
        assert_int_equal(sd_bus_start(p->server), 0);
        assert_int_equal(sd_bus_attach_event(p->server, p->event, 0), 0);

        assert_int_equal(sd_bus_new(&p->client), 0);
        assert_int_equal(sd_bus_set_fd(p->client, fds[1], fds[1]), 0);
        assert_int_equal(sd_bus_start(p->client), 0);
        assert_int_equal(sd_bus_attach_event(p->client, p->event, 0), 0);
}

static inline void bus_pair_free(BusPair *p) {
        sd_bus_message_unref(p->call);
        sd_bus_flush_close_unref(p->client);
        sd_bus_flush_close_unref(p->server);
        sd_event_unref(p->event);
}

static inline void bus_reply_clear(BusReply *r) {
        free(r->error_name);
        free(r->error_message);
        free(r->value);
        *r = (BusReply){};
}

static inline int bus_pair_on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        BusReply *r = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        const char *s = NULL;

        r->done = true;
        if (e) {
                r->error_name = strdup(e->name);
                r->error_message = strdup(e->message ?: "");
        } else if (sd_bus_message_read(m, "s", &s) > 0)
                r->value = strdup(s);
        return 0;
}

/* The client calls member (of bus_pair_vtable), the server holds the call in p->call. */
static inline void bus_pair_call(BusPair *p, const char *member, BusReply *reply) {
        sd_bus_message_unref(p->call);
        p->call = NULL;
        *reply = (BusReply){};
        assert_true(sd_bus_call_method_async(p->client, NULL, NULL, "/test", "org.rdmad1.Test", member,
                                             bus_pair_on_reply, reply, NULL) >= 0);
        while (!p->call)
                assert_true(sd_event_run(p->event, UINT64_MAX) >= 0);
}

/* Runs the loop until the client has its answer. */
static inline void bus_pair_wait_reply(BusPair *p, BusReply *reply) {
        while (!reply->done)
                assert_true(sd_event_run(p->event, UINT64_MAX) >= 0);
}
