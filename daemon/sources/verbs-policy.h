/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "forward.h"

/* The verbs source's decisions, pure (verbs-policy.c). Why rdmad opens no context for d
 * (a software device, no InfiniBand port), or NULL when it does. */
const char *verbs_skip_reason(const Device *d);
/* The wait before reopening a context after its n-th failure in a row (n ≥ 1). */
uint64_t verbs_retry_delay_usec(unsigned failures);
