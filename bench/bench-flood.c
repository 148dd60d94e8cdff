/* SPDX-License-Identifier: MIT */
/* A GetManagedObjects flood: 32 unprivileged clients loop GetManagedObjects
 * while root calls Get Port.State in a loop and a port flaps, timed to its
 * PropertiesChanged at a subscriber of its own. */
#include "bench-flood.h"

#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define FLOOD_CLIENTS 32

static void drop_privileges(void) {
        if (geteuid() == 0 &&
            (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0))
                _exit(3);
}

/* A flood client: unprivileged, its own connection, GetManagedObjects in a
 * loop; one byte to `fd` per answer ('r' a reply, 'e' an error). */
static void flood_client(int fd) {
        sd_bus *bus = NULL;

        drop_privileges();
        if (sd_bus_open_system(&bus) < 0)
                _exit(3);
        for (;;) {
                sd_bus_message *m = NULL, *reply = NULL;
                char c;

                if (sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                                   DBUS_OBJECT_MANAGER_INTERFACE, "GetManagedObjects") < 0)
                        _exit(3);
                c = sd_bus_call(bus, m, 300 * 1000000ULL, NULL, &reply) >= 0 ? 'r' : 'e';
                if (write(fd, &c, 1) != 1)
                        _exit(0);
                sd_bus_message_unref(m);
                sd_bus_message_unref(reply);
        }
}

/* A subscriber on its own connection: the CLOCK_MONOTONIC time of each
 * PropertiesChanged of `path` to fd. */
static int on_flap_signal(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        uint64_t t = now_usec();

        if (write(*(int *) userdata, &t, sizeof(t)) != sizeof(t))
                _exit(0);
        return 0;
}

static void flap_subscriber(int fd, const char *path, int ready_fd) {
        char match[512];
        sd_bus *bus = NULL;

        snprintf(match, sizeof(match),
                 "type='signal',sender='" RDMAD_BUS_NAME "',path='%s',interface='" DBUS_PROPERTIES_INTERFACE "',"
                 "member='PropertiesChanged'",
                 path);
        if (sd_bus_open_system(&bus) < 0 || sd_bus_add_match(bus, NULL, match, on_flap_signal, &fd) < 0)
                _exit(3);
        (void) !write(ready_fd, "x", 1);
        for (;;) {
                if (sd_bus_process(bus, NULL) > 0)
                        continue;
                if (sd_bus_wait(bus, UINT64_MAX) < 0)
                        _exit(0);
        }
}

static pid_t fork_or_die(void) {
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0)
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        return pid;
}

/* 32 unprivileged clients loop GetManagedObjects for `seconds`; meanwhile
 * root calls Get Port.State in a loop, and a port flaps every 1-2 s at a
 * random point of the poll period, timed to its PropertiesChanged at a
 * subscriber. */
void flood_table(Harness *h, unsigned n, unsigned seconds) {
        char get_path[256], flap_path[256], devpath[256], pci[256];
        size_t max_gets = 200000, n_gets = 0, n_flaps = 0, replies = 0, errors = 0, get_errors = 0;
        uint64_t *gets = calloc(max_gets, sizeof(uint64_t)), flaps[64], t0 = 0, next_flap, deadline;
        pid_t clients[FLOOD_CLIENTS], subscriber;
        int answers[2], arrivals[2], ready[2];
        bool flapping = false;
        unsigned flap_round = 0;
        char c;

        middle_port_path(n, get_path, sizeof(get_path));
        host_pci_path(n / 2 | 1, pci, sizeof(pci));
        snprintf(devpath, sizeof(devpath), "/sys/%s/infiniband/mlx5_%u", pci, n / 2 | 1);
        snprintf(flap_path, sizeof(flap_path), "/org/rdmad1/device/mlx5_5f%u/port/2", n / 2 | 1);
        harness_write(h, devpath, "ports/2/state", "4: ACTIVE\n");
        harness_observe(h, 1500, "the poll to see the port ACTIVE");
        assert_true(sd_bus_set_method_call_timeout(h->bus, 300 * 1000000ULL) >= 0);

        assert_int_equal(pipe2(answers, O_CLOEXEC | O_NONBLOCK), 0);
        assert_int_equal(pipe2(arrivals, O_CLOEXEC | O_NONBLOCK), 0);
        assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
        subscriber = fork_or_die();
        if (subscriber == 0)
                flap_subscriber(arrivals[1], flap_path, ready[1]);
        assert_int_equal(read(ready[0], &c, 1), 1);
        harness_observe(h, 200, "its match is in place");
        for (unsigned i = 0; i < FLOOD_CLIENTS; i++) {
                clients[i] = fork_or_die();
                if (clients[i] == 0)
                        flood_client(answers[1]);
        }

        srand(2);
        next_flap = now_usec() + 1000000 + (uint64_t) (rand() % 1000) * 1000;
        deadline = now_usec() + (uint64_t) seconds * 1000000;
        while (now_usec() < deadline || flapping) {
                uint64_t arrival, t;

                if (n_gets < max_gets && now_usec() < deadline) {
                        /* Not call_usec(): its default timeout of 25 s is what rdmad took without slices. */
                        uint64_t g = now_usec();
                        if (sd_bus_call_method(h->bus, RDMAD_BUS_NAME, get_path, DBUS_PROPERTIES_INTERFACE, "Get", NULL,
                                               NULL, "ss", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE) < 0)
                                get_errors++;
                        gets[n_gets++] = now_usec() - g;
                } else
                        usleep(1000);
                t = now_usec();
                if (!flapping && t >= next_flap && t < deadline && n_flaps < sizeof(flaps) / sizeof(flaps[0])) {
                        harness_write(h, devpath, "ports/2/state", flap_round++ % 2 ? "4: ACTIVE\n" : "1: DOWN\n");
                        t0 = now_usec();
                        flapping = true;
                } else if (flapping && read(arrivals[0], &arrival, sizeof(arrival)) == sizeof(arrival)) {
                        flaps[n_flaps++] = arrival - t0;
                        flapping = false;
                        next_flap = t + 1000000 + (uint64_t) (rand() % 1000) * 1000;
                } else if (flapping && t > t0 + 10 * 1000000ULL) {
                        fprintf(stderr, "bench: no PropertiesChanged 10 s after a flap under the flood\n");
                        flapping = false;
                }
                while (read(answers[0], &c, 1) == 1)
                        c == 'r' ? replies++ : errors++;
        }
        for (unsigned i = 0; i < FLOOD_CLIENTS; i++)
                kill(clients[i], SIGKILL);
        kill(subscriber, SIGKILL);
        for (unsigned i = 0; i < FLOOD_CLIENTS; i++)
                waitpid(clients[i], NULL, 0);
        waitpid(subscriber, NULL, 0);
        while (read(answers[0], &c, 1) == 1)
                c == 'r' ? replies++ : errors++;
        close(answers[0]);
        close(answers[1]);
        close(arrivals[0]);
        close(arrivals[1]);
        close(ready[0]);
        close(ready[1]);

        Stats get = stats(gets, n_gets), flap = n_flaps ? stats(flaps, n_flaps) : (Stats){};
        char s1[32], s2[32], s3[32], s4[32];
        printf("\n#### GetManagedObjects flood: %u unprivileged clients for %u s, N = %u\n\n", FLOOD_CLIENTS, seconds,
               n);
        printf("| measure | median | p99 | count | target |\n| --- | --- | --- | --- | --- |\n");
        printf("| root's Get Port.State | %s | %s | %zu (%zu failed) | p99 < 100 ms: %s |\n",
               fmt_usec(get.median, s1, sizeof(s1)), fmt_usec(get.p99, s2, sizeof(s2)), n_gets, get_errors,
               get.p99 < 100000 && get_errors == 0 ? "met" : "missed");
        printf("| port file → PropertiesChanged at a subscriber | %s | %s | %zu | ≤ poll 1000 ms + 100 ms: %s |\n",
               fmt_usec(flap.median, s3, sizeof(s3)), fmt_usec(flap.p99, s4, sizeof(s4)), n_flaps,
               n_flaps && flap.p99 <= 1100000 ? "met" : "missed");
        printf("| GetManagedObjects answered to the flood | %zu replies, %zu errors | | | |\n", replies, errors);
        fflush(stdout);
        free(gets);
}

void bench_flood(unsigned n, unsigned seconds) {
        /* BENCH_DAEMON_LOG=file: the daemon's debug log of the flood (restarted builds, dropped calls). */
        const char *log_path = getenv("BENCH_DAEMON_LOG");
        Harness *h;

        harness_capture_daemon_log = log_path != NULL;
        h = host_start(n, log_path ? (const char *const[]){ "--log-level=debug", NULL } : NULL);
        flood_table(h, n, seconds);
        if (log_path) {
                char *log = harness_daemon_log(h);
                FILE *f = fopen(log_path, "we");

                assert_non_null(f);
                fputs(log, f);
                fclose(f);
                free(log);
        }
        stop_daemon(h);
}
