/* SPDX-License-Identifier: MIT */
/* The attacker of the floods: one user's child processes keeping calls in
 * flight on many connections, or connecting, calling and leaving. */
#include "attack.h"
#include "process.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <systemd/sd-bus.h>

#include "api/rdmad-api.h"

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

unsigned attack_n_devices;

void attack_port_path(unsigned device, unsigned port, char *buf, size_t size) {
        snprintf(buf, size, RDMAD_DEVICE_PREFIX "/mlx5_5f%u/port/%u", device, port);
}

void attack_drop_to(uid_t uid) {
        struct passwd *pw = getpwuid(uid);
        gid_t gid = pw ? pw->pw_gid : uid;

        if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
                _exit(2);
}

typedef struct Conn {
        sd_bus *bus;
        unsigned answers, errors;
        const Attack *attack;
        unsigned serial;
} Conn;

static int send_one(sd_bus *bus, const Attack *a, unsigned serial, sd_bus_message_handler_t callback, void *userdata) {
        sd_bus_message *m = NULL;
        char path[128];
        int r;

        attack_port_path(serial % attack_n_devices, 1 + serial % 2, path, sizeof(path));
        switch (a->kind) {
        case ATTACK_ALL_COUNTERS:
                r = sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                                   RDMAD_METHOD_GET_ALL_COUNTERS);
                break;
        case ATTACK_PORT_COUNTERS:
                r = sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, path, RDMAD_PORT_INTERFACE,
                                                   RDMAD_METHOD_GET_COUNTERS);
                break;
        case ATTACK_INTROSPECT:
                r = sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, RDMAD_DEVICE_PREFIX,
                                                   "org.freedesktop.DBus.Introspectable", "Introspect");
                break;
        case ATTACK_WAIT_FOR_STATE:
                r = sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, path, RDMAD_PORT_INTERFACE,
                                                   RDMAD_METHOD_WAIT_FOR_STATE);
                if (r >= 0)
                        r = sd_bus_message_append(m, "su", "DOWN", 60000);
                break;
        case ATTACK_SET_NUM_VFS:
                snprintf(path, sizeof(path), RDMAD_DEVICE_PREFIX "/mlx5_5f%u/sriov", serial % attack_n_devices);
                r = sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, path, RDMAD_SRIOV_INTERFACE,
                                                   RDMAD_METHOD_SET_NUM_VFS);
                if (r >= 0)
                        r = sd_bus_message_append(m, "u", 1);
                break;
        case ATTACK_RESCAN:
                r = sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                                   RDMAD_METHOD_RESCAN);
                break;
        case ATTACK_MANAGED_OBJECTS:
                r = sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                                   "org.freedesktop.DBus.ObjectManager", "GetManagedObjects");
                break;
        default:
                r = sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, path, "org.freedesktop.DBus.Properties",
                                                   "GetAll");
                if (r >= 0)
                        r = sd_bus_message_append(m, "s", RDMAD_PORT_INTERFACE);
                break;
        }
        if (r >= 0 && a->no_reply) {
                r = sd_bus_message_set_expect_reply(m, false);
                if (r >= 0)
                        r = sd_bus_send(bus, m, NULL);
        } else if (r >= 0)
                r = sd_bus_call_async(bus, NULL, m, callback, userdata, 120 * 1000000ULL);
        sd_bus_message_unref(m);
        return r;
}

/* No replies to wait for: a round of in_flight calls whenever the
 * connection has written what it had (the bus's pace, not ours). */
static void send_no_reply_round(Conn *c) {
        uint64_t queued = 0;

        if (sd_bus_get_n_queued_write(c->bus, &queued) >= 0 && queued > 0)
                return;
        for (unsigned k = 0; k < c->attack->in_flight; k++) {
                if (send_one(c->bus, c->attack, c->serial++, NULL, NULL) < 0)
                        _exit(5);
                c->answers++; /* made */
        }
}

static int on_answer(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Conn *c = userdata;

        c->answers++;
        c->errors += sd_bus_message_is_method_error(m, NULL);
        if (send_one(c->bus, c->attack, c->serial++, on_answer, c) < 0)
                _exit(5);
        return 0;
}

bool attack_parent_gone(int control) {
        struct pollfd p = { .fd = control, .events = POLLIN };
        return poll(&p, 1, 0) > 0;
}

/* Keeps connections × in_flight calls in flight until the parent closes `control`. */
static void run_in_flight(const Attack *a, unsigned index, int report, int control) {
        Conn *conns = calloc(a->connections, sizeof(Conn));
        struct pollfd *fds = calloc(a->connections, sizeof(struct pollfd));
        unsigned answers = 0, errors = 0;
        char line[128];

        if (!conns || !fds)
                _exit(3);
        for (unsigned i = 0; i < a->connections; i++) {
                conns[i] = (Conn){ .attack = a, .serial = index * 1000 + i };
                if (sd_bus_open_system(&conns[i].bus) < 0)
                        _exit(4);
                if (a->no_reply)
                        send_no_reply_round(&conns[i]);
                else
                        for (unsigned k = 0; k < a->in_flight; k++)
                                if (send_one(conns[i].bus, a, conns[i].serial++, on_answer, &conns[i]) < 0)
                                        _exit(5);
                (void) sd_bus_flush(conns[i].bus);
        }
        if (write(report, "r", 1) != 1)
                _exit(6);
        while (!attack_parent_gone(control)) {
                for (unsigned i = 0; i < a->connections; i++) {
                        int k;

                        while ((k = sd_bus_process(conns[i].bus, NULL)) > 0)
                                ;
                        if (k < 0)
                                _exit(7);
                        if (a->no_reply)
                                send_no_reply_round(&conns[i]);
                        fds[i] = (struct pollfd){ .fd = sd_bus_get_fd(conns[i].bus),
                                                  .events = (short) sd_bus_get_events(conns[i].bus) };
                }
                (void) poll(fds, a->connections, 10);
        }
        for (unsigned i = 0; i < a->connections; i++) {
                answers += conns[i].answers;
                errors += conns[i].errors;
                sd_bus_close_unref(conns[i].bus);
        }
        snprintf(line, sizeof(line), "%u %u\n", answers, errors);
        (void) !write(report, line, strlen(line));
        free(conns);
        free(fds);
}

/* Connect, call, close, again, until the parent closes `control`. */
static void run_hit_and_run(const Attack *a, unsigned index, int report, int control) {
        unsigned calls = 0;
        char line[128];

        if (write(report, "r", 1) != 1)
                _exit(6);
        while (!attack_parent_gone(control)) {
                sd_bus *bus = NULL;

                if (sd_bus_open_system(&bus) < 0)
                        continue; /* the bus's per-user limit for a moment */
                (void) send_one(bus, a, index * 100000 + calls++, NULL, NULL);
                (void) sd_bus_flush(bus);
                sd_bus_close_unref(bus);
                if (a->pause_ms)
                        usleep(a->pause_ms * 1000);
        }
        snprintf(line, sizeof(line), "%u 0\n", calls);
        (void) !write(report, line, strlen(line));
}

/* The parent's ends of every attacker's pipes: a later attacker closes
 * them, or the first would never see its control pipe close. */
static int parent_fds[4 * MAX_PROCESSES];
static unsigned n_parent_fds;

void attack_close_parent_fds(void) {
        for (unsigned k = 0; k < n_parent_fds; k++)
                close(parent_fds[k]);
}

static void parent_fd_add(int fd) {
        assert_true(n_parent_fds < ELEMENTSOF(parent_fds));
        parent_fds[n_parent_fds++] = fd;
}

static void parent_fd_close(int fd) {
        for (unsigned i = 0; i < n_parent_fds; i++)
                if (parent_fds[i] == fd) {
                        parent_fds[i] = parent_fds[--n_parent_fds];
                        break;
                }
        close(fd);
}

void attacker_start(Attacker *at, const Attack *a, uid_t uid) {
        assert_true(a->processes <= MAX_PROCESSES);
        *at = (Attacker){ .n = a->processes };
        for (unsigned i = 0; i < a->processes; i++) {
                int report[2], control[2];
                char c;

                assert_int_equal(pipe2(report, O_CLOEXEC), 0);
                assert_int_equal(pipe2(control, O_CLOEXEC), 0);
                at->pids[i] = fork();
                assert_true(at->pids[i] >= 0);
                if (at->pids[i] == 0) {
                        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                        close(report[0]);
                        close(control[1]);
                        attack_close_parent_fds();
                        attack_drop_to(uid);
                        if (a->hit_and_run)
                                run_hit_and_run(a, i, report[1], control[0]);
                        else
                                run_in_flight(a, i, report[1], control[0]);
                        _exit(0);
                }
                close(report[1]);
                close(control[0]);
                at->reports[i] = report[0];
                at->controls[i] = control[1];
                parent_fd_add(report[0]);
                parent_fd_add(control[1]);
                /* Connected, and its first calls sent. */
                if (harness_read_within(report[0], &c, 1, 0, "an attacker to connect and send") != 1)
                        fail_msg("attacker %u did not start", i);
        }
}

/* Stops the processes; returns how many calls they had answered (hit-and-run: made). */
unsigned long attacker_stop(Attacker *at, unsigned long *ret_errors) {
        unsigned long answers = 0, errors = 0;

        for (unsigned i = 0; i < at->n; i++)
                parent_fd_close(at->controls[i]);
        for (unsigned i = 0; i < at->n; i++) {
                char line[128] = "";
                unsigned a = 0, e = 0;
                ssize_t k = harness_read_within(at->reports[i], line, sizeof(line) - 1, 0, "an attacker's report");
                int status;

                if (k > 0 && sscanf(line, "%u %u", &a, &e) == 2) {
                        answers += a;
                        errors += e;
                }
                status = harness_waitpid_within(at->pids[i], 0, "an attacker, stopped");
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        fail_msg("attacker %u exited with status %d", i, status);
                parent_fd_close(at->reports[i]);
        }
        if (ret_errors)
                *ret_errors = errors;
        return answers;
}
