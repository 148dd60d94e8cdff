/* SPDX-License-Identifier: MIT */
/* What a hostile caller sends is bounded by rdmad, not by the caller: a
 * 30 MB name argument is refused with a short error, never echoed, and the
 * daemon still answers; a caller whose NameOwnerChanged was lost (the knob
 * plays the full queue that drops it) loses what it held within the
 * re-validation's bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#define MLX4_PORT1 "/org/rdmad1/device/mlx4_5f0/port/1"
#define HUGE_SIZE  (30u * 1024 * 1024)
#define ERROR_MAX  (64u * 1024)

static int setup(void **state) {
        harness_capture_daemon_log = true;
        *state = harness_start(HARNESS_FIXTURES("mlx4-vpi"), (const char *const[]){ "--log-level=debug", NULL });
        harness_capture_daemon_log = false;
        return 0;
}

static char *huge_string(void) {
        char *s = malloc(HUGE_SIZE + 1);

        assert_non_null(s);
        memset(s, 'A', HUGE_SIZE);
        s[HUGE_SIZE] = '\0';
        return s;
}

/* Calls member(huge, rest...) and checks the error is short and names no more than a prefix. */
static void call_huge(Harness *h, const char *path, const char *interface, const char *member, bool state_arg) {
        sd_bus_message *m = NULL, *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char *huge = huge_string();
        uint64_t t0;

        assert_true(sd_bus_message_new_method_call(h->bus, &m, RDMAD_BUS_NAME, path, interface, member) >= 0);
        if (state_arg)
                assert_true(sd_bus_message_append(m, "su", huge, 1000) >= 0);
        else
                assert_true(sd_bus_message_append(m, "ss", huge, "State") >= 0);
        t0 = now_usec();
        /* 30 MB through sd-bus's checks takes rdmad ~0.6 s; under valgrind
         * thirty to fifty times that, which is valgrind's, not a hold. */
        assert_true(sd_bus_call(h->bus, m, (harness_daemon_wrapped() ? 120 : 25) * 1000000ULL, &error, &reply) < 0);
        fprintf(stderr, "%s: %s, message %zu bytes, in %.1f ms\n", member, error.name,
                error.message ? strlen(error.message) : 0, (double) (now_usec() - t0) / 1000);
        assert_non_null(error.message);
        assert_true(strlen(error.message) < ERROR_MAX);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        sd_bus_message_unref(m);
        free(huge);
}

static void test_huge_name_arguments_refused_briefly(void **state) {
        Harness *h = *state;

        call_huge(h, MLX4_PORT1, "org.freedesktop.DBus.Properties", "Get", false);
        call_huge(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, "WaitForState", true);
        /* root is served after them */
        harness_assert_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, "Number", "1");
}

static bool log_has(Harness *h, const void *needle) {
        char *log = harness_daemon_log(h);
        bool found = log && strstr(log, needle);

        free(log);
        return found;
}

static int lost_setup(void **state) {
        setenv("RDMAD_TEST_LOSE_NAME_OWNER_CHANGED", "1", 1);
        setup(state);
        unsetenv("RDMAD_TEST_LOSE_NAME_OWNER_CHANGED");
        return 0;
}

/* A caller holding a WaitForState leaves; the news is lost: the held call
 * is dropped by the re-validation, within 5 s and its batches. */
static int ignore_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        return 0;
}

static void test_departed_caller_found_without_the_signal(void **state) {
        Harness *h = *state;
        sd_bus *c = NULL;

        assert_true(sd_bus_open_system(&c) >= 0);
        assert_true(sd_bus_call_method_async(c, NULL, RDMAD_BUS_NAME, MLX4_PORT1, RDMAD_PORT_INTERFACE, "WaitForState",
                                             ignore_reply, NULL, "su", "NOP", 600000) >= 0);
        assert_true(sd_bus_flush(c) >= 0);
        if (!harness_wait(h, log_has, "WaitForState calls held: 1", 10000))
                fail_msg("the call was never held");
        sd_bus_flush_close_unref(c);
        if (!harness_wait(h, log_has, "left the bus without a word", 15000))
                fail_msg("the departed caller was never found");
        if (!harness_wait(h, log_has, "1 WaitForState call dropped, 0 held.", 5000))
                fail_msg("its call is still held");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_huge_name_arguments_refused_briefly, setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_departed_caller_found_without_the_signal, lost_setup,
                                                harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
