/* SPDX-License-Identifier: MIT */
/* What the scenarios of bench share: the rows of the tables, the daemon on
 * a simulated host, a timed call and a timed port flap, another rdmad
 * timed in turns with this one, and the do-nothing service beside it. */
#include "bench-common.h"

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

#include "bench-names.h"

/* ---------- the tables ---------- */

void table_head(void) {
        printf("| measure | rdmad median | rdmad p99 | reference | ref. median | ref. p99 | target |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- |\n");
}

void row(const char *what, Stats a, const char *ref, Stats b, const char *verdict) {
        char s1[32], s2[32], s3[32], s4[32];

        printf("| %s | %s | %s | %s | %s | %s | %s |\n", what, fmt_usec(a.median, s1, sizeof(s1)),
               a.p99 > 0 ? fmt_usec(a.p99, s2, sizeof(s2)) : "", ref,
               b.median > 0 ? fmt_usec(b.median, s3, sizeof(s3)) : "", b.p99 > 0 ? fmt_usec(b.p99, s4, sizeof(s4)) : "",
               verdict);
}

/* ---------- the daemon on a host ---------- */

void host_write(Harness *h, unsigned n) {
        char *root = umockdev_testbed_get_root_dir(h->testbed);

        write_host(root, n);
        g_free(root);
}

Harness *host_start(unsigned n, const char *const *args) {
        Harness *h = harness_start(NULL, NULL);

        host_write(h, n);
        harness_restart_daemon(h, args);
        return h;
}

void stop_daemon(Harness *h) {
        int status = harness_stop(h);

        if (status != 0) {
                fprintf(stderr, "bench: rdmad did not exit cleanly: wait status 0x%x\n", status);
                exit(EXIT_FAILURE);
        }
}

void middle_port_path(unsigned n, char *buf, size_t size) {
        snprintf(buf, size, "/org/rdmad1/device/mlx5_5f%u/port/1", n / 2);
}

uint64_t call_usec(Harness *h, const char *dest, const char *path, const char *iface, const char *member,
                   const char *types, ...) {
        sd_bus_message *m = NULL, *reply = NULL;
        uint64_t t0, t;
        va_list ap;

        assert_true(sd_bus_message_new_method_call(h->bus, &m, dest, path, iface, member) >= 0);
        va_start(ap, types);
        if (types)
                assert_true(sd_bus_message_appendv(m, types, ap) >= 0);
        va_end(ap);
        t0 = now_usec();
        assert_true(sd_bus_call(h->bus, m, 0, NULL, &reply) >= 0);
        t = now_usec() - t0;
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        return t;
}

Stats flap_port(Harness *h, unsigned device, size_t runs, void (*after_write)(unsigned device, bool up)) {
        uint64_t *a = calloc(runs, sizeof(uint64_t)), t0;
        char devpath[512], pci[256];
        Stats s;

        assert_non_null(a);
        host_pci_path(device, pci, sizeof(pci));
        snprintf(devpath, sizeof(devpath), "/sys/%s/infiniband/mlx5_%u", pci, device);
        srand(1);
        for (size_t i = 0; i < runs;) {
                char *state = harness_read(h, devpath, "ports/1/state");
                bool up = strncmp(state, "4:", 2) != 0; /* the other state than the file's */

                free(state);
                /* At a random point of the poll period, as a real link would change. */
                harness_observe(h, rand() % 1000, "a random point of the poll period");
                harness_clear_signals(h);
                harness_write(h, devpath, "ports/1/state", up ? "4: ACTIVE\n" : "1: DOWN\n");
                if (after_write) {
                        /* The write paused rdmad (SIGSTOP, then SIGCONT wakes each of
                         * its threads): the event comes when they are back at rest,
                         * as the kernel's comes to a daemon nothing stopped. */
                        harness_observe(h, 20, "rdmad at rest after the write's pause");
                        /* A slow round's read found the change first: no event's figure. */
                        if (harness_count_signals(h, NULL, "PropertiesChanged") > 0)
                                continue;
                }
                t0 = now_usec();
                if (after_write)
                        after_write(device, up);
                harness_wait_signals(h, NULL, "PropertiesChanged", 1);
                a[i++] = harness_find_signal(h, NULL, "PropertiesChanged")->usec - t0;
        }
        s = stats(a, runs);
        free(a);
        return s;
}

/* ---------- another rdmad beside this one ---------- */

void baseline_init(Baseline *b) {
        const char *baseline = getenv("BENCH_BASELINE_BINARY"), *self = getenv("RDMAD_BINARY");

        *b = (Baseline){};
        if (!baseline || !self)
                return;
        strcpy(b->dir, "/tmp/rdmad-bench-XXXXXX");
        assert_non_null(mkdtemp(b->dir));
        assert_true(asprintf(&b->link, "%s/rdmad-baseline", b->dir) > 0);
        assert_int_equal(symlink(baseline, b->link), 0);
        b->self = strdup(self);
        assert_non_null(b->self);
}

void baseline_restart(Harness *h, const Baseline *b, bool baseline, const char *const *args) {
        setenv("RDMAD_BINARY", baseline ? b->link : b->self, 1);
        harness_restart_daemon(h, args);
        setenv("RDMAD_BINARY", b->self, 1);
}

void baseline_done(Baseline *b) {
        if (!b->link)
                return;
        (void) unlink(b->link);
        (void) rmdir(b->dir);
        free(b->link);
        free(b->self);
}

/* ---------- the floor of a Get: a do-nothing sd-bus service ---------- */

pid_t floor_start(Harness *h) {
        const char *wrapper = getenv("RDMAD_TEST_WRAPPER");
        char exe[1024], *argv[40], *wrapper_copy = NULL;
        pid_t parent = getpid(), pid;
        ssize_t len;
        size_t n = 0;

        len = readlink("/proc/self/exe", exe, sizeof(exe) - 32);
        assert_true(len > 0);
        exe[len] = '\0';
        strcpy(strrchr(exe, '/') + 1, "bench-floor");

        argv[n++] = "umockdev-wrapper";
        if (wrapper && *wrapper) {
                wrapper_copy = strdup(wrapper);
                for (char *save = NULL, *t = strtok_r(wrapper_copy, " ", &save); t && n < 36;
                     t = strtok_r(NULL, " ", &save))
                        argv[n++] = t;
        }
        argv[n++] = exe;
        argv[n] = NULL;

        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                setpgid(0, 0);
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent)
                        _exit(127);
                unsetenv("LD_PRELOAD");
                execvp(argv[0], argv);
                fprintf(stderr, "bench: cannot execute %s: %m\n", argv[0]);
                _exit(127);
        }
        free(wrapper_copy);

        /* Ready when its name is on the bus. */
        for (unsigned i = 0; i < 60 * 50; i++) {
                sd_bus_message *reply = NULL;
                int has = 0;

                assert_true(sd_bus_call_method(h->bus, DBUS_SERVICE_NAME, DBUS_PATH, DBUS_INTERFACE, "NameHasOwner",
                                               NULL, &reply, "s", FLOOR_NAME) >= 0);
                assert_true(sd_bus_message_read(reply, "b", &has) >= 0);
                sd_bus_message_unref(reply);
                if (has)
                        return pid;
                assert_int_equal(waitpid(pid, NULL, WNOHANG), 0);
                usleep(20000);
        }
        fprintf(stderr, "bench: %s did not take its name\n", exe);
        exit(EXIT_FAILURE);
}

void floor_stop(pid_t pid) {
        int status = 0;

        kill(pid, SIGTERM);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (status != 0) {
                fprintf(stderr, "bench: bench-floor did not exit cleanly: wait status 0x%x\n", status);
                exit(EXIT_FAILURE);
        }
}
