/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Every RDMAD_TEST_* variable the daemon reads, in one place and read once:
 * the integration tests set them to reach, on a small fixture host and in
 * seconds, what a big host reaches in minutes. Product logic takes its
 * values from here and never reads the environment itself. A knob that is
 * unset, or not a decimal number, is not set. */

typedef struct TestKnob {
        bool set;
        unsigned long long value;
} TestKnob;

typedef struct TestKnobs {
        /* RDMAD_TEST_GMO_BUILTIN, any value: GetManagedObjects is left to
         * sd-bus, so that tests compare its reply with ours. */
        bool gmo_builtin;
        /* RDMAD_TEST_GMO_SLICE_OBJECTS: a GetManagedObjects slice is this
         * many objects instead of a time budget (0: the time budget), so a
         * small reply spans many event-loop iterations. */
        TestKnob gmo_slice_objects;
        /* RDMAD_TEST_GMO_UNPRIVILEGED_SHARE: percent of the time replies to
         * callers other than root may keep the bus connection busy (1-100). */
        TestKnob gmo_unprivileged_share;
        /* RDMAD_TEST_GMO_UNPRIVILEGED_PAUSE_MSEC: this pause after every
         * unprivileged reply instead of the one its time to leave gives (a
         * fixture's replies leave too fast to measure). */
        TestKnob gmo_unprivileged_pause_msec;
        /* RDMAD_TEST_GMO_WAIT_MAX_MSEC: a held call is answered Busy after
         * this instead of MANAGED_OBJECTS_WAIT_MAX_USEC. */
        TestKnob gmo_wait_max_msec;
        /* RDMAD_TEST_GMO_REPLY_MAX: the largest reply in bytes, lowered to
         * reach the bus's message limit with a small host. */
        TestKnob gmo_reply_max;
        /* RDMAD_TEST_LOSE_NAME_OWNER_CHANGED, any value: every NameOwnerChanged
         * is ignored, as if the bus had dropped it (a full queue does). */
        bool lose_name_owner_changed;
        /* RDMAD_TEST_POLL_PORTS_PER_DISPATCH: the poll yields to the loop
         * after this many ports instead of a batch, so that a fixture's
         * handful of ports spans several dispatches. */
        TestKnob poll_ports_per_dispatch;
} TestKnobs;

/* Read from the environment on the first call. */
const TestKnobs *test_knobs(void);

static inline unsigned long long test_knob_or(TestKnob knob, unsigned long long fallback) {
        return knob.set ? knob.value : fallback;
}
