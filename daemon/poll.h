/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

#include "forward.h"

/* The link-state poll timer: on when there are ports and an interval, off
 * otherwise. Called after every change of the device table. */
int poll_update(Manager *m);

/* Whether the poll reads the port's state every tick (no event covers it,
 * or it is between link-up and ACTIVE, or a link event boosted it), or
 * only on the slow period. */
bool poll_port_every_tick(const Port *p);

/* A port may want every tick now (an event boosted it, it left ACTIVE, its
 * device lost its events): brings a timer armed for the slow round forward
 * to the next tick. */
void poll_wake(Manager *m);
