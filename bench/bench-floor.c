/* SPDX-License-Identifier: MIT */
/* The floor of a property Get: an sd-bus service that does nothing but
 * answer. One object, one string property, on an sd-event loop like rdmad's,
 * started by the benchmark on the same private bus under the same umockdev
 * preload. What rdmad costs above this is rdmad's own.
 *
 *   bench-floor              owns org.rdmad1.BenchFloor, object /org/rdmad1/bench/floor,
 *                            interface org.rdmad1.BenchFloor, property State "4: ACTIVE" */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#define FLOOR_NAME "org.rdmad1.BenchFloor"
#define FLOOR_PATH "/org/rdmad1/bench/floor"

typedef struct Floor {
        const char *state;
} Floor;

static const sd_bus_vtable floor_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("State", "s", NULL, offsetof(Floor, state), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
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
        return r < 0 ? fail("sd_event_loop", r) : EXIT_SUCCESS;
}
