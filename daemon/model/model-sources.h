/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "forward.h"

/* How the model tells its event sources (the poll, the verbs contexts:
 * daemon/sources/) what became of the device table, without knowing them:
 * the sources library fills it in (event-sources.h), as the bus layer fills
 * in ModelEvents. The model links nothing of the sources. Every member may
 * be NULL: a model without sources (tests, --dump) reads on request only. */
typedef struct ModelSources {
        /* A device is in the table now, or leaves it (first thing: a verbs
         * context held open would stall the kernel's unregistration). */
        void (*device_added)(Device *d, void *userdata);
        void (*device_removing)(Device *d, void *userdata);
        /* The table changed: the poll's timer is armed, or not, again. */
        int (*table_changed)(void *userdata);
        /* What a re-read changed of a port (PROPERTY_BIT(PORT_PROP_*)). */
        void (*port_changed)(Port *p, PropertyMask changed, void *userdata);
        /* A device lost its verbs events: its ports want the poll's every tick. */
        void (*uncovered)(void *userdata);
        /* The poll's turn of a device has been read (or will never be). */
        void (*turn_done)(Device *d, void *userdata);
        /* manager_free(), before anything of the model goes: the sources let
         * go of the loop and of their state. */
        void (*detach)(void *userdata);
} ModelSources;
