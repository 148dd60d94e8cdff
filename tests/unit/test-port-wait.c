/* SPDX-License-Identifier: MIT */
/* The WaitForState registry on its own: each call answered exactly once, with
 * the right value or error, without a Manager. */
#include "api/rdmad-api.h"
#include "bus-pair.h"

#include "model.h"
#include "port-wait.h"

/* The model the registry follows: mlx5_0 port 1 and mlx4_0 port 2. */
static Device mlx5 = { .name = (char *) "mlx5_0" }, mlx4 = { .name = (char *) "mlx4_0" };

/* port_wait_add() as uid, the bus error kept for the tests that look at it. */
static int add_wait(PortWaitRegistry *registry, sd_bus_message *call, uid_t uid, const Port *port, uint32_t timeout_ms,
                    sd_bus_error *error) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = port_wait_add(registry, call, uid, port, "ACTIVE", timeout_ms, error ?: &e);

        sd_bus_error_free(&e);
        return r;
}

typedef struct Fixture {
        BusPair pair;
        Port port, other;
        PortWaitRegistry registry;
        BusReply reply;
} Fixture;

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));

        bus_pair_new(&f->pair);
        f->port = (Port){ .device = &mlx5, .number = 1, .state_name = (char *) "DOWN" };
        f->other = (Port){ .device = &mlx4, .number = 2, .state_name = (char *) "DOWN" };
        port_wait_registry_init(&f->registry, f->pair.event);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        port_wait_registry_clear(&f->registry);
        assert_int_equal(f->registry.n_waits, 0);
        bus_reply_clear(&f->reply);
        bus_pair_free(&f->pair);
        free(f);
        return 0;
}

static void test_answered_when_the_state_is_reached(void **state) {
        Fixture *f = *state;

        bus_pair_call(&f->pair, "ReturnsString", &f->reply);
        assert_int_equal(add_wait(&f->registry, f->pair.call, 1000, &f->port, 60 * 1000, NULL), 0);
        assert_int_equal(f->registry.n_waits, 1);

        port_wait_check(&f->registry); /* still DOWN: held */
        assert_int_equal(f->registry.n_waits, 1);

        f->port.state_name = (char *) "ACTIVE";
        port_wait_check(&f->registry);
        assert_int_equal(f->registry.n_waits, 0);
        bus_pair_wait_reply(&f->pair, &f->reply);
        assert_null(f->reply.error_name);
        assert_string_equal(f->reply.value, "ACTIVE");
}

static void test_timeout_says_where_the_port_is(void **state) {
        Fixture *f = *state;

        bus_pair_call(&f->pair, "ReturnsString", &f->reply);
        assert_int_equal(add_wait(&f->registry, f->pair.call, 1000, &f->port, 1, NULL), 0);
        bus_pair_wait_reply(&f->pair, &f->reply);
        assert_int_equal(f->registry.n_waits, 0);
        assert_string_equal(f->reply.error_name, RDMAD_ERROR_TIMEOUT);
        assert_string_equal(f->reply.error_message, "Port 1 of mlx5_0 did not reach ACTIVE within 1 ms; it is DOWN.");
}

static void test_device_removal_fails_only_its_calls(void **state) {
        Fixture *f = *state;
        BusReply other = {};

        bus_pair_call(&f->pair, "ReturnsString", &other);
        assert_int_equal(add_wait(&f->registry, f->pair.call, 1000, &f->other, 60 * 1000, NULL), 0);
        bus_pair_call(&f->pair, "ReturnsString", &f->reply);
        assert_int_equal(add_wait(&f->registry, f->pair.call, 1000, &f->port, 60 * 1000, NULL), 0);
        assert_int_equal(f->registry.n_waits, 2);

        port_wait_fail_device(&f->registry, &mlx5);
        assert_int_equal(f->registry.n_waits, 1);
        bus_pair_wait_reply(&f->pair, &f->reply);
        assert_string_equal(f->reply.error_name, RDMAD_ERROR_NO_SUCH_DEVICE);
        assert_string_equal(f->reply.error_message, "Device mlx5_0 was removed while waiting for port 1.");
        assert_false(other.done);
        bus_reply_clear(&other);
}

static void test_waits_are_bounded_per_user(void **state) {
        Fixture *f = *state;
        sd_bus_error error = SD_BUS_ERROR_NULL;

        bus_pair_call(&f->pair, "ReturnsString", &f->reply);
        for (unsigned i = 0; i < PORT_WAITS_PER_USER_MAX; i++)
                assert_int_equal(add_wait(&f->registry, f->pair.call, 1000, &f->port, 60 * 1000, NULL), 0);
        assert_int_equal(add_wait(&f->registry, f->pair.call, 1000, &f->port, 60 * 1000, &error), -EBUSY);
        assert_string_equal(error.name, RDMAD_ERROR_BUSY);
        assert_string_equal(error.message, "Too many pending WaitForState calls of uid 1000 (at most 256 per user).");
        sd_bus_error_free(&error);

        /* Another user, and root, are not affected. */
        assert_int_equal(add_wait(&f->registry, f->pair.call, 1001, &f->port, 60 * 1000, NULL), 0);
        assert_int_equal(add_wait(&f->registry, f->pair.call, 0, &f->port, 60 * 1000, NULL), 0);
        assert_int_equal(f->registry.n_waits, PORT_WAITS_PER_USER_MAX + 2);
        assert_int_equal(f->registry.n_unprivileged, PORT_WAITS_PER_USER_MAX + 1);
}

static void test_unprivileged_users_together_are_bounded_root_is_not(void **state) {
        Fixture *f = *state;
        sd_bus_error error = SD_BUS_ERROR_NULL;

        bus_pair_call(&f->pair, "ReturnsString", &f->reply);
        for (unsigned i = 0; i < PORT_WAITS_UNPRIVILEGED_MAX; i++)
                assert_int_equal(add_wait(&f->registry, f->pair.call, 1000 + i / PORT_WAITS_PER_USER_MAX, &f->port,
                                          60 * 1000, NULL),
                                 0);
        assert_int_equal(add_wait(&f->registry, f->pair.call, 5000, &f->port, 60 * 1000, &error), -EBUSY);
        assert_string_equal(error.message,
                            "Too many pending WaitForState calls of unprivileged users (at most 4096 in all).");
        sd_bus_error_free(&error);

        for (unsigned i = 0; i < PORT_WAITS_ROOT_MAX; i++)
                assert_int_equal(add_wait(&f->registry, f->pair.call, 0, &f->port, 60 * 1000, NULL), 0);
        assert_int_equal(add_wait(&f->registry, f->pair.call, 0, &f->port, 60 * 1000, &error), -EBUSY);
        assert_string_equal(error.message, "Too many pending WaitForState calls of root (at most 4096).");
        sd_bus_error_free(&error);
        assert_int_equal(f->registry.n_waits, PORT_WAITS_UNPRIVILEGED_MAX + PORT_WAITS_ROOT_MAX);
}

static void test_call_expecting_no_reply_is_not_held(void **state) {
        Fixture *f = *state;
        sd_bus_error error = SD_BUS_ERROR_NULL;

        sd_bus_message *call = NULL;

        /* Flagged NO_REPLY_EXPECTED by the client. */
        assert_true(sd_bus_message_new_method_call(f->pair.client, &call, NULL, "/test", "org.rdmad1.Test",
                                                   "ReturnsString") >= 0);
        assert_true(sd_bus_message_set_expect_reply(call, false) >= 0);
        assert_true(sd_bus_send(f->pair.client, call, NULL) >= 0);
        sd_bus_message_unref(call);
        while (!f->pair.call)
                assert_true(sd_event_run(f->pair.event, UINT64_MAX) >= 0);
        assert_int_equal(add_wait(&f->registry, f->pair.call, 1000, &f->port, UINT32_MAX, &error), -EINVAL);
        assert_string_equal(error.name, RDMAD_ERROR_INVALID_ARGUMENT);
        sd_bus_error_free(&error);
        assert_int_equal(f->registry.n_waits, 0);
}

static void test_stopping_fails_every_call(void **state) {
        Fixture *f = *state;
        BusReply other = {};

        bus_pair_call(&f->pair, "ReturnsString", &other);
        assert_int_equal(add_wait(&f->registry, f->pair.call, 0, &f->port, UINT32_MAX, NULL), 0);
        bus_pair_call(&f->pair, "ReturnsString", &f->reply);
        assert_int_equal(add_wait(&f->registry, f->pair.call, 1000, &f->port, UINT32_MAX, NULL), 0);

        port_wait_fail_all(&f->registry, "rdmad is stopping.");
        assert_int_equal(f->registry.n_waits, 0);
        assert_int_equal(f->registry.n_unprivileged, 0);
        bus_pair_wait_reply(&f->pair, &f->reply);
        bus_pair_wait_reply(&f->pair, &other);
        assert_string_equal(f->reply.error_name, RDMAD_ERROR_FAILED);
        assert_string_equal(f->reply.error_message, "rdmad is stopping.");
        assert_string_equal(other.error_message, "rdmad is stopping.");
        bus_reply_clear(&other);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_answered_when_the_state_is_reached, setup, teardown),
                cmocka_unit_test_setup_teardown(test_timeout_says_where_the_port_is, setup, teardown),
                cmocka_unit_test_setup_teardown(test_device_removal_fails_only_its_calls, setup, teardown),
                cmocka_unit_test_setup_teardown(test_waits_are_bounded_per_user, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unprivileged_users_together_are_bounded_root_is_not, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_call_expecting_no_reply_is_not_held, setup, teardown),
                cmocka_unit_test_setup_teardown(test_stopping_fails_every_call, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
