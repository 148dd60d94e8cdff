/* SPDX-License-Identifier: MIT */
/* A hostile local user: the attack table's long versions. */
#include "bench-attacks.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

/* The same attacks as tests/integration/test-floods.c's test_attack_* rows,
 * which hold them (one engine, two lengths): run for `seconds` each on `n` devices.
 * Its lines are the figures; a row over its bound says so and goes on. */
void bench_attacks(unsigned n, unsigned seconds) {
        char self[4096], program[4200], devices[16], duration[16];
        ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
        pid_t pid;
        int status;

        assert_true(k > 0);
        self[k] = '\0';
        *strrchr(self, '/') = '\0';
        snprintf(program, sizeof(program), "%s/../tests/test-floods", self);
        snprintf(devices, sizeof(devices), "%u", n);
        snprintf(duration, sizeof(duration), "%u", seconds);
        printf("\n## Hostile local user: %u s per attack, N = %u\n\n", seconds, n);
        fflush(stdout);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                setenv("RDMAD_ATTACK_DEVICES", devices, 1);
                setenv("RDMAD_ATTACK_SECONDS", duration, 1);
                setenv("RDMAD_ATTACK_ONLY", "test_attack_*", 1);
                execl(program, program, NULL);
                _exit(127);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        printf("\n(the attacks' program exited with %d)\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
