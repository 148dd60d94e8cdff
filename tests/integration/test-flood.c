/* SPDX-License-Identifier: MIT */
/* A flood: 100 clients calling GetManagedObjects, GetAll and Get in a loop,
 * each on its own connection, while 2000 uevents (hot-add, change,
 * hot-remove) and port flaps arrive. Every call must be answered, the tree
 * must end equal to sysfs (what a fresh daemon reads), and the daemon's
 * resident memory must come back to its baseline.
 *
 * RDMAD_FLOOD_CLIENTS and RDMAD_FLOOD_EVENTS scale it down where everything
 * runs many times slower (the valgrind setup). */
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#define MLX5_SYS "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/infiniband/mlx5_0"
#define MLX5_0   "/org/rdmad1/device/mlx5_5f0"
#define HFI1_SYS "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"
#define HFI1_0   "/org/rdmad1/device/hfi1_5f0"
#define N_STORM  100

static const char *const fast_poll[] = { "--poll-interval=50", NULL };
static bool private_network;

static int flood_setup(void **state) {
        *state = harness_start(HARNESS_FIXTURES("mlx5-roce-sriov", "hfi1", "mlx4-vpi"), fast_poll);
        return 0;
}

static unsigned env_unsigned(const char *name, unsigned fallback) {
        const char *v = getenv(name);
        return v && *v ? (unsigned) strtoul(v, NULL, 10) : fallback;
}

typedef struct Client {
        pthread_t thread;
        const atomic_bool *stop; /* set by the main thread once the daemon has caught up */
        unsigned index;
        unsigned long calls, failures;
        uint64_t max_latency_usec;
        char first_failure[256];
} Client;

static int call(sd_bus *bus, Client *c, const char *path, const char *interface, const char *member, const char *types,
                ...) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *m = NULL, *reply = NULL;
        va_list ap;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, path, interface, member);
        if (r >= 0) {
                va_start(ap, types);
                r = sd_bus_message_appendv(m, types, ap);
                va_end(ap);
        }
        if (r >= 0) {
                uint64_t t = now_usec();
                r = sd_bus_call(bus, m, 60 * 1000000ULL, &error, &reply);
                t = now_usec() - t;
                c->max_latency_usec = t > c->max_latency_usec ? t : c->max_latency_usec;
        }
        c->calls++;
        if (r < 0) {
                if (c->failures++ == 0)
                        snprintf(c->first_failure, sizeof(c->first_failure), "%s.%s on %s: %s: %s", interface, member,
                                 path, error.name ?: "(local)", error.message ?: strerror(-r));
        }
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        sd_bus_message_unref(m);
        return r;
}

/* Objects that exist throughout: the fixtures' devices, whose ports flap. */
static void *client_main(void *userdata) {
        Client *c = userdata;
        sd_bus *bus = NULL;

        if (sd_bus_open_system(&bus) < 0) {
                c->failures++;
                snprintf(c->first_failure, sizeof(c->first_failure), "cannot connect to the bus");
                return NULL;
        }
        do {
                switch (c->index % 3) {
                case 0:
                        (void) call(bus, c, RDMAD_ROOT_PATH, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
                                    "");
                        (void) call(bus, c, MLX5_0 "/port/1", "org.freedesktop.DBus.Properties", "GetAll", "s",
                                    RDMAD_PORT_INTERFACE);
                        break;
                case 1:
                        (void) call(bus, c, HFI1_0 "/port/1", "org.freedesktop.DBus.Properties", "GetAll", "s",
                                    RDMAD_PORT_INTERFACE);
                        (void) call(bus, c, MLX5_0, "org.freedesktop.DBus.Properties", "GetAll", "s",
                                    RDMAD_DEVICE_INTERFACE);
                        break;
                default:
                        (void) call(bus, c, HFI1_0 "/port/1", "org.freedesktop.DBus.Properties", "Get", "ss",
                                    RDMAD_PORT_INTERFACE, "StateName");
                        (void) call(bus, c, RDMAD_ROOT_PATH, "org.freedesktop.DBus.Properties", "Get", "ss",
                                    RDMAD_MANAGER_INTERFACE, "Devices");
                        break;
                }
        } while (!atomic_load(c->stop) || c->calls < 20);
        sd_bus_flush_close_unref(bus);
        return NULL;
}

static size_t published_devices(Harness *h) {
        char *devices = harness_get_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, "Devices", NULL);
        size_t n = 0;

        for (const char *p = devices; p && (p = strstr(p, "\"/org")); p++)
                n++;
        free(devices);
        return n;
}

/* GetManagedObjects without the timestamps and counts of state changes, which a
 * fresh daemon has not seen. */
static char *tree_snapshot(Harness *h) {
        Objects *o = get_managed_objects(h);
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        assert_non_null(f);
        for (size_t i = 0; i < o->n; i++)
                if (!o->entries[i].name || (strcmp(o->entries[i].name, "StateChangedUsec") != 0 &&
                                            strcmp(o->entries[i].name, "StateChanges") != 0))
                        fprintf(f, "%s %s %s=%s\n", o->entries[i].path, o->entries[i].interface,
                                o->entries[i].name ?: "", o->entries[i].value ?: "");
        fclose(f);
        objects_free(o);
        return text;
}

static void storm_record(char *buf, size_t size, unsigned i, const char *state) {
        snprintf(buf, size,
                 "P: /devices/virtual/infiniband/flood%u\nE: SUBSYSTEM=infiniband\nE: NAME=flood%u\n"
                 "A: node_type=1: CA\\n\nA: node_desc=flood %u\\n\nA: ports/1/state=%s\\n\n"
                 "A: ports/1/phys_state=5: LinkUp\\n\nA: ports/1/link_layer=InfiniBand\\n\n"
                 "A: ports/1/gids/0=fe80:0000:0000:0000:0002:c903:00%02x:%04x\\n\n",
                 i, i, i, state, i % 256, i);
}

static void test_flood(void **state) {
        Harness *h = *state;
        unsigned n_clients = env_unsigned("RDMAD_FLOOD_CLIENTS", 100);
        unsigned n_events = env_unsigned("RDMAD_FLOOD_EVENTS", 2000);
        atomic_bool stop = false;
        Client *clients = calloc(n_clients, sizeof(Client));
        bool present[N_STORM] = {};
        unsigned events = 0, flaps = 0, expected;
        unsigned long calls = 0, failures = 0;
        uint64_t max_latency = 0;
        uint64_t rss_before, rss_peak = 0, rss_after, start;
        char record[1024], devpath[128], *before, *after;

        if (!private_network)
                skip(); /* umockdev drops a storm on a shared host's 10-datagram queue */
        assert_true(n_events >= 4 * N_STORM);
        assert_non_null(clients);

        /* Warm up (one round of every call), then the baseline. */
        for (unsigned i = 0; i < 3; i++) {
                static const atomic_bool once = true;
                Client c = { .stop = &once, .index = i, .calls = 19 };
                client_main(&c);
                assert_int_equal(c.failures, 0);
        }
        rss_before = harness_settled_rss_kib(h);

        for (unsigned i = 0; i < n_clients; i++) {
                clients[i] = (Client){ .stop = &stop, .index = i };
                assert_int_equal(pthread_create(&clients[i].thread, NULL, client_main, &clients[i]), 0);
        }

        /* The events: every storm device added; then rounds of a change
         * uevent on a fixture device, a remove or an add of a storm device,
         * and a port flap; finally every storm device removed. */
        start = now_usec();
        for (unsigned i = 0; i < N_STORM; i++) {
                storm_record(record, sizeof(record), i, "4: ACTIVE");
                harness_add_device(h, record);
                present[i] = true;
                events++;
        }
        for (unsigned k = 0; events < n_events - N_STORM; k++) {
                unsigned i = (k * 37) % N_STORM;
                const char *sys = k % 2 ? MLX5_SYS : HFI1_SYS;

                umockdev_testbed_uevent(h->testbed, sys, "change");
                events++;
                if (events >= n_events - N_STORM)
                        break;
                snprintf(devpath, sizeof(devpath), "/sys/devices/virtual/infiniband/flood%u", i);
                if (present[i]) {
                        umockdev_testbed_uevent(h->testbed, devpath, "remove");
                        umockdev_testbed_remove_device(h->testbed, devpath);
                        present[i] = false;
                } else {
                        storm_record(record, sizeof(record), i, k % 3 ? "4: ACTIVE" : "1: DOWN");
                        harness_add_device(h, record);
                        present[i] = true;
                }
                events++;
                if (k % 4 == 0) {
                        harness_write(h, k % 8 ? MLX5_SYS : HFI1_SYS, "ports/1/state",
                                      k % 16 < 8 ? "1: DOWN\n" : "4: ACTIVE\n");
                        flaps++;
                }
                if (k % 50 == 0) {
                        uint64_t rss = harness_daemon_rss_kib(h);
                        rss_peak = rss > rss_peak ? rss : rss_peak;
                }
        }
        for (unsigned i = 0; i < N_STORM; i++)
                if (present[i]) {
                        snprintf(devpath, sizeof(devpath), "/sys/devices/virtual/infiniband/flood%u", i);
                        umockdev_testbed_uevent(h->testbed, devpath, "remove");
                        umockdev_testbed_remove_device(h->testbed, devpath);
                        present[i] = false;
                        events++;
                }
        /* Every remaining storm device went: top up with change events on the fixtures. */
        for (unsigned k = 0; events < n_events; k++, events++)
                umockdev_testbed_uevent(h->testbed, k % 2 ? MLX5_SYS : HFI1_SYS, "change");
        /* The ports' final state, flapped one last time. */
        harness_write(h, MLX5_SYS, "ports/1/state", "4: ACTIVE\n");
        harness_write(h, HFI1_SYS, "ports/1/state", "1: DOWN\n");
        flaps += 2;

        /* The clients keep calling until the daemon has caught up. */
        expected = 4; /* mlx5_0, mlx5_1, hfi1_0, mlx4_0 */
        for (unsigned tries = 0; published_devices(h) != expected; tries++) {
                if (tries > 1200)
                        fail_msg("after the flood: %zu devices published, %u in sysfs", published_devices(h), expected);
                usleep(50000);
        }
        atomic_store(&stop, true);
        for (unsigned i = 0; i < n_clients; i++) {
                assert_int_equal(pthread_join(clients[i].thread, NULL), 0);
                calls += clients[i].calls;
                failures += clients[i].failures;
                max_latency = clients[i].max_latency_usec > max_latency ? clients[i].max_latency_usec : max_latency;
                if (clients[i].failures)
                        fprintf(stderr, "client %u: %lu of %lu calls failed, first: %s\n", i, clients[i].failures,
                                clients[i].calls, clients[i].first_failure);
        }
        printf("flood: %u clients, %lu calls answered (slowest %.0f ms), %lu failed; "
               "%u uevents and %u port flaps injected, caught up after %.1f s\n",
               n_clients, calls - failures, max_latency / 1000.0, failures, events, flaps,
               (double) (now_usec() - start) / 1e6);
        assert_int_equal(failures, 0);
        assert_true(calls >= n_clients);
        assert_int_equal(events, n_events);

        /* Let the last flap be polled, then: the tree a fresh daemon reads. */
        harness_settle(h, 500);
        harness_assert_property(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, "StateName", "ACTIVE");
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, "StateName", "DOWN");
        before = tree_snapshot(h);
        rss_after = harness_settled_rss_kib(h);
        printf("flood: daemon RSS %.1f MiB before, %.1f MiB at the peak sampled, %.1f MiB after\n", rss_before / 1024.0,
               rss_peak / 1024.0, rss_after / 1024.0);

        harness_restart_daemon(h, fast_poll);
        after = tree_snapshot(h);
        if (strcmp(before, after) != 0)
                fail_msg("the tree after the flood differs from a fresh daemon's:\n--- flooded\n%s\n--- fresh\n%s",
                         before, after);
        free(before);
        free(after);
        free(clients);

#ifndef SANITIZED_BUILD
        /* Nothing kept, nothing queued: back to the baseline, give or take
         * heap fragmentation (the allocator keeps some pages of a burst).
         * Under ASan or valgrind, memory is theirs to manage (LSan and
         * memcheck check for leaks there instead). */
        if (!harness_daemon_wrapped() && rss_after > rss_before + rss_before / 10 + 1024)
                fail_msg("RSS %" PRIu64 " KiB after the flood, %" PRIu64 " KiB before", rss_after, rss_before);
#endif
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_flood, flood_setup, harness_teardown_clean),
        };

        private_network = harness_private_network();
        return cmocka_run_group_tests(tests, NULL, NULL);
}
