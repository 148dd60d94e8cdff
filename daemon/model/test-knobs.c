/* SPDX-License-Identifier: MIT */
#include "test-knobs.h"

#include <errno.h>
#include <stdlib.h>

static TestKnob knob_read(const char *name) {
        const char *e = getenv(name);
        unsigned long long v;
        char *end;

        if (!e)
                return (TestKnob){};
        errno = 0;
        v = strtoull(e, &end, 10);
        if (errno != 0 || end == e || *end != '\0')
                return (TestKnob){};
        return (TestKnob){ .set = true, .value = v };
}

const TestKnobs *test_knobs(void) {
        static TestKnobs knobs;
        static bool done;

        if (!done) {
                knobs = (TestKnobs){
                        .gmo_builtin = getenv("RDMAD_TEST_GMO_BUILTIN"),
                        .gmo_slice_objects = knob_read("RDMAD_TEST_GMO_SLICE_OBJECTS"),
                        .gmo_unprivileged_share = knob_read("RDMAD_TEST_GMO_UNPRIVILEGED_SHARE"),
                        .gmo_unprivileged_pause_msec = knob_read("RDMAD_TEST_GMO_UNPRIVILEGED_PAUSE_MSEC"),
                        .gmo_wait_max_msec = knob_read("RDMAD_TEST_GMO_WAIT_MAX_MSEC"),
                        .gmo_reply_max = knob_read("RDMAD_TEST_GMO_REPLY_MAX"),
                        .lose_name_owner_changed = getenv("RDMAD_TEST_LOSE_NAME_OWNER_CHANGED"),
                        .poll_ports_per_dispatch = knob_read("RDMAD_TEST_POLL_PORTS_PER_DISPATCH"),
                };
                done = true;
        }
        return &knobs;
}
