/* SPDX-License-Identifier: MIT */
#pragma once

/* polkitd on the private bus, with the project's policy. */

#include <stdbool.h>
#include <stdio.h>

typedef struct Harness Harness;

/* Starts the real polkitd on the private bus, inside its own mount
 * namespace with the project's policy bind-mounted over
 * /usr/share/polkit-1/actions. Returns false (with a message) when that is
 * not possible here: not root, or no polkitd. */
bool harness_start_polkit(Harness *h);
void harness_stop_polkit(Harness *h);

/* In a test that needs polkitd: skips it, saying why, where polkitd could not start. */
#define HARNESS_REQUIRE_POLKIT(have_polkit)                                                                            \
        do {                                                                                                           \
                if (!(have_polkit)) {                                                                                  \
                        fprintf(stderr, "skipping: needs root to run polkitd in its own mount namespace\n");           \
                        skip();                                                                                        \
                }                                                                                                      \
        } while (0)
