/* SPDX-License-Identifier: MIT */
/* Without libFuzzer: runs every file named on the command line (or found in
 * a directory named there) through the target once. The seed corpora and the
 * inputs of fixed crashes are regression tests for every build. */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path) {
        FILE *f = fopen(path, "rb");
        uint8_t *buf = NULL;
        size_t size = 0, allocated = 0;

        if (!f) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                return -1;
        }
        for (;;) {
                if (size == allocated) {
                        uint8_t *b = realloc(buf, allocated ? allocated * 2 : 4096);
                        if (!b) {
                                free(buf);
                                fclose(f);
                                return -1;
                        }
                        buf = b;
                        allocated = allocated ? allocated * 2 : 4096;
                }
                size_t k = fread(buf + size, 1, allocated - size, f);
                if (k == 0)
                        break;
                size += k;
        }
        fclose(f);
        (void) LLVMFuzzerTestOneInput(buf, size);
        free(buf);
        return 0;
}

static int run_path(const char *path, unsigned *count) {
        struct stat st;
        struct dirent **entries;
        int n, r = 0;

        if (stat(path, &st) < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                return -1;
        }
        if (!S_ISDIR(st.st_mode)) {
                (*count)++;
                return run_file(path);
        }
        n = scandir(path, &entries, NULL, alphasort);
        if (n < 0)
                return -1;
        for (int i = 0; i < n; i++) {
                char child[4096];

                if (entries[i]->d_name[0] != '.' && r >= 0) {
                        snprintf(child, sizeof(child), "%s/%s", path, entries[i]->d_name);
                        r = run_path(child, count);
                }
                free(entries[i]);
        }
        free(entries);
        return r;
}

int main(int argc, char **argv) {
        unsigned count = 0;

        for (int i = 1; i < argc; i++)
                if (run_path(argv[i], &count) < 0)
                        return EXIT_FAILURE;
        if (count == 0) {
                fprintf(stderr, "No inputs.\n");
                return EXIT_FAILURE;
        }
        printf("%u inputs, no failure.\n", count);
        return EXIT_SUCCESS;
}
