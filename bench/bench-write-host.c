/* SPDX-License-Identifier: MIT */
/* Writes the benchmark's simulated host (write_host() of tests/lib/host.c: N
 * dual-port devices) under ROOT/sys, for a benchmark that bind-mounts it
 * on /sys (bench/bench-python.py).
 *
 *   bench-write-host ROOT N */
#include <stdio.h>
#include <stdlib.h>

#include "host.h"

int main(int argc, char *argv[]) {
        char *end;
        unsigned long n;

        if (argc != 3 || (n = strtoul(argv[2], &end, 10)) == 0 || *end || n > 65536) {
                fprintf(stderr, "usage: bench-write-host ROOT N\n");
                return 2;
        }
        write_host(argv[1], (unsigned) n);
        return 0;
}
