/* SPDX-License-Identifier: MIT */
/* What the benchmarks share besides tests/lib/: /proc figures of a
 * process, the host sizes of the command line. */
#include "bench-util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned long proc_status_value(pid_t pid, const char *key) {
        char path[64], line[256];
        unsigned long v = 0;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        while (f && fgets(line, sizeof(line), f))
                if (strncmp(line, key, strlen(key)) == 0) {
                        v = strtoul(line + strlen(key), NULL, 10);
                        break;
                }
        if (f)
                fclose(f);
        return v;
}

uint64_t proc_cpu_ns(pid_t pid) {
        char path[64];
        unsigned long long ns = 0;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/schedstat", (int) pid);
        f = fopen(path, "re");
        if (f) {
                if (fscanf(f, "%llu", &ns) != 1)
                        ns = 0;
                fclose(f);
        }
        return ns;
}

static unsigned long proc_switches(pid_t pid) {
        return proc_status_value(pid, "voluntary_ctxt_switches:") +
               proc_status_value(pid, "nonvoluntary_ctxt_switches:");
}

ProcWindow proc_window(pid_t pid, unsigned seconds) {
        uint64_t cpu0 = proc_cpu_ns(pid);
        unsigned long sw0 = proc_switches(pid);

        sleep(seconds);
        return (ProcWindow){
                .cpu = (double) (proc_cpu_ns(pid) - cpu0) / (seconds * 1e9) * 100,
                .wakeups = proc_switches(pid) - sw0,
        };
}

unsigned bench_parse_sizes(int argc, char *argv[], unsigned sizes[static 8], bool *quick, bool *idle_only) {
        unsigned n = 0;

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--quick") == 0)
                        *quick = true;
                else if (strcmp(argv[i], "--idle-only") == 0 && idle_only)
                        *idle_only = true;
                else if (n < 8)
                        sizes[n++] = (unsigned) strtoul(argv[i], NULL, 10);
        }
        if (n == 0) {
                sizes[n++] = 64;
                sizes[n++] = 512;
                sizes[n++] = 2048;
        }
        return n;
}
