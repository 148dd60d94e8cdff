/* SPDX-License-Identifier: MIT */
#pragma once

/* --attacks N: the attack table of one unprivileged user, `seconds` per
 * attack on N devices (tests/test-floods, beside this program). */
void bench_attacks(unsigned n, unsigned seconds);
