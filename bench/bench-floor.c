/* SPDX-License-Identifier: MIT */
/* The floor of a property Get: an sd-bus service that does nothing but
 * answer. One object, one string property, on an sd-event loop like rdmad's,
 * started by the benchmark on the same private bus under the same umockdev
 * preload. What rdmad costs above this is rdmad's own.
 *
 *   bench-floor              owns org.rdmad1.BenchFloor, object /org/rdmad1/bench/floor,
 *                            interface org.rdmad1.BenchFloor, property State "4: ACTIVE",
 *                            method Blob(u size) → ay: a reply of that many bytes
 *
 * Blob is the bus's own ceiling for a big reply: the service does nothing
 * but hand the bus a body as large as GetManagedObjects', so what a call of
 * it takes is the bus's reading, checking and forwarding of that many bytes. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bench-names.h"

typedef struct Floor {
        const char *state;
        uint8_t *blob; /* the largest body asked for so far, zeroes */
        size_t blob_size;
} Floor;

/* The most a reply on dbus-daemon's system bus may be (32 MiB), less its header. */
#define BLOB_MAX (31u * 1024 * 1024)

static int method_blob(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        sd_bus_message *reply = NULL;
        Floor *f = userdata;
        uint32_t size;
        int r;

        r = sd_bus_message_read(m, "u", &size);
        if (r < 0)
                return r;
        if (size > BLOB_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "At most %u bytes.", BLOB_MAX);
        if (size > f->blob_size) {
                uint8_t *b = realloc(f->blob, size);
                if (!b)
                        return -ENOMEM;
                memset(b + f->blob_size, 0, size - f->blob_size);
                f->blob = b;
                f->blob_size = size;
        }
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'y', f->blob, size);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        return r;
}

static const sd_bus_vtable floor_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("State", "s", NULL, offsetof(Floor, state), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD("Blob", "u", "ay", method_blob, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static int fail(const char *what, int r) {
        fprintf(stderr, "bench-floor: %s: %s\n", what, strerror(-r));
        return EXIT_FAILURE;
}

int main(void) {
        Floor floor = { .state = "4: ACTIVE" };
        sd_event *event = NULL;
        sd_bus *bus = NULL;
        sigset_t mask;
        int r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigprocmask(SIG_BLOCK, &mask, NULL);

        r = sd_event_default(&event);
        if (r < 0)
                return fail("sd_event_default", r);
        (void) sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
        (void) sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);

        r = sd_bus_open_system(&bus);
        if (r < 0)
                return fail("sd_bus_open_system", r);
        r = sd_bus_add_object_vtable(bus, NULL, FLOOR_PATH, FLOOR_NAME, floor_vtable, &floor);
        if (r < 0)
                return fail("sd_bus_add_object_vtable", r);
        r = sd_bus_request_name(bus, FLOOR_NAME, 0);
        if (r < 0)
                return fail("sd_bus_request_name", r);
        r = sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return fail("sd_bus_attach_event", r);

        r = sd_event_loop(event);
        sd_bus_flush_close_unref(bus);
        sd_event_unref(event);
        free(floor.blob);
        return r < 0 ? fail("sd_event_loop", r) : EXIT_SUCCESS;
}
