/* SPDX-License-Identifier: MIT */
/* The WaitForState registry on its own: each call answered exactly once, with
 * the right value or error, without a Manager. */
#include "bus-pair.h"

#include "port-wait.h"

/* The "model" the registry asks about: one port, mlx5_0 port 1. */
typedef struct FakePort {
        const char *state; /* NULL: the port is gone */
} FakePort;

static const char *lookup(const char *device, uint32_t port, void *userdata) {
        FakePort *f = userdata;
        return strcmp(device, "mlx5_0") == 0 && port == 1 ? f->state : NULL;
}

typedef struct Fixture {
        BusPair pair;
        FakePort port;
        PortWaitRegistry registry;
        BusReply reply;
} Fixture;

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));

        bus_pair_new(&f->pair);
        f->port.state = "DOWN";
        port_wait_registry_init(&f->registry, f->pair.event, lookup, &f->port);
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
        assert_int_equal(port_wait_add(&f->registry, f->pair.call, "mlx5_0", 1, "ACTIVE", 60 * 1000000ULL), 0);
        assert_int_equal(f->registry.n_waits, 1);

        port_wait_check(&f->registry); /* still DOWN: held */
        assert_int_equal(f->registry.n_waits, 1);

        f->port.state = "ACTIVE";
        port_wait_check(&f->registry);
        assert_int_equal(f->registry.n_waits, 0);
        bus_pair_wait_reply(&f->pair, &f->reply);
        assert_null(f->reply.error_name);
        assert_string_equal(f->reply.value, "ACTIVE");
}

static void test_timeout_says_where_the_port_is(void **state) {
        Fixture *f = *state;

        bus_pair_call(&f->pair, "ReturnsString", &f->reply);
        assert_int_equal(port_wait_add(&f->registry, f->pair.call, "mlx5_0", 1, "ACTIVE", 1000), 0);
        bus_pair_wait_reply(&f->pair, &f->reply);
        assert_int_equal(f->registry.n_waits, 0);
        assert_string_equal(f->reply.error_name, "org.rdmad1.Error.Timeout");
        assert_string_equal(f->reply.error_message, "Port 1 of mlx5_0 did not reach ACTIVE within 1 ms; it is DOWN.");
}

static void test_port_gone_fails_the_call(void **state) {
        Fixture *f = *state;

        bus_pair_call(&f->pair, "ReturnsString", &f->reply);
        assert_int_equal(port_wait_add(&f->registry, f->pair.call, "mlx5_0", 1, "ACTIVE", 60 * 1000000ULL), 0);
        f->port.state = NULL;
        port_wait_check(&f->registry);
        assert_int_equal(f->registry.n_waits, 0);
        bus_pair_wait_reply(&f->pair, &f->reply);
        assert_string_equal(f->reply.error_name, "org.rdmad1.Error.NoSuchDevice");
        assert_string_equal(f->reply.error_message, "Port 1 of mlx5_0 is gone.");
}

static void test_device_removal_fails_only_its_calls(void **state) {
        Fixture *f = *state;
        BusReply other = {};

        bus_pair_call(&f->pair, "ReturnsString", &other);
        assert_int_equal(port_wait_add(&f->registry, f->pair.call, "mlx4_0", 2, "ACTIVE", 60 * 1000000ULL), 0);
        bus_pair_call(&f->pair, "ReturnsString", &f->reply);
        assert_int_equal(port_wait_add(&f->registry, f->pair.call, "mlx5_0", 1, "ACTIVE", 60 * 1000000ULL), 0);
        assert_int_equal(f->registry.n_waits, 2);

        port_wait_fail_device(&f->registry, "mlx5_0");
        assert_int_equal(f->registry.n_waits, 1);
        bus_pair_wait_reply(&f->pair, &f->reply);
        assert_string_equal(f->reply.error_name, "org.rdmad1.Error.NoSuchDevice");
        assert_string_equal(f->reply.error_message, "Device mlx5_0 was removed while waiting for port 1.");
        assert_false(other.done);
        bus_reply_clear(&other);
}

static void test_waits_are_bounded(void **state) {
        Fixture *f = *state;

        bus_pair_call(&f->pair, "ReturnsString", &f->reply);
        for (unsigned i = 0; i < PORT_WAITS_MAX; i++)
                assert_int_equal(port_wait_add(&f->registry, f->pair.call, "mlx5_0", 1, "ACTIVE", 60 * 1000000ULL),
                                 0);
        assert_int_equal(port_wait_add(&f->registry, f->pair.call, "mlx5_0", 1, "ACTIVE", 60 * 1000000ULL), -EBUSY);
        assert_int_equal(f->registry.n_waits, PORT_WAITS_MAX);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_answered_when_the_state_is_reached, setup, teardown),
                cmocka_unit_test_setup_teardown(test_timeout_says_where_the_port_is, setup, teardown),
                cmocka_unit_test_setup_teardown(test_port_gone_fails_the_call, setup, teardown),
                cmocka_unit_test_setup_teardown(test_device_removal_fails_only_its_calls, setup, teardown),
                cmocka_unit_test_setup_teardown(test_waits_are_bounded, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
