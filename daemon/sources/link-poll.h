/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "forward.h"

/* The link-state poll (link-poll.c): its timer, its schedule and the marks of
 * the ports it watches every tick for a while, all its own. */
typedef struct Poll Poll;

/* m may be NULL for a poll that only keeps marks (tests). */
int poll_new(Manager *m, Poll **ret);
Poll *poll_free(Poll *p);

/* The timer: on when there are ports and an interval, off otherwise.
 * Called after every change of the device table. */
int poll_update(Poll *p);

/* Whether the poll reads the port's state every tick (no event covers it,
 * or it is between link-up and ACTIVE, or a link event boosted it, or its
 * state just changed), or only on the slow period. */
bool poll_port_every_tick(const Poll *p, const Port *port);

/* A port may want every tick now (it left ACTIVE, its device lost its
 * events): brings a timer armed for the slow round forward to the next tick. */
void poll_wake(Poll *p);

/* What a re-read changed of a port (PROPERTY_BIT(PORT_PROP_*)): a state
 * change marks it to be re-read in full once more at the next tick. */
void poll_port_changed(Poll *p, const Port *port, PropertyMask changed);

/* The poll's turn of the device has been read (or will never be): its next
 * turn may be queued. */
void poll_turn_done(Poll *p, const char *device);

/* A link event of its netdev: the port is read every tick for ticks ticks
 * (the driver may update the port after the netdev). */
void poll_port_boost(Poll *p, const Port *port, unsigned ticks);
