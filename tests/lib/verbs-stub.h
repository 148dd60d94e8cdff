/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/* What a test writes into a stub context's NAME.events FIFO (verbs-stub.c). */
typedef struct StubEvent {
        uint32_t type; /* enum ibv_event_type, or STUB_EVENT_READ_ERROR */
        uint32_t port;
} StubEvent;

#define STUB_EVENT_READ_ERROR UINT32_C(0xffffffff)
