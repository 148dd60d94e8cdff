/* SPDX-License-Identifier: MIT */
#pragma once

/* Fuzz targets: built with libFuzzer under clang (-fsanitize=fuzzer), and
 * everywhere else with replay-main.c, which runs the corpus once as a
 * regression test (gcc, valgrind). */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A violated invariant is a crash: libFuzzer keeps the input. */
#define fuzz_assert(expr)                                                                                              \
        do {                                                                                                           \
                if (!(expr)) {                                                                                         \
                        fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__, #expr);                 \
                        abort();                                                                                       \
                }                                                                                                      \
        } while (0)
