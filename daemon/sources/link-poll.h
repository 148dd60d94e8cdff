/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "forward.h"

/* The link-state poll (link-poll.c): its timer and its schedule; its marks
 * of the ports it watches every tick for a while are on the ports (PollMark). */
typedef struct LinkPoll LinkPoll;

/* The state of this many ports is read per dispatch at most: a pass over
 * thousands of ports yields to the loop between batches, so that an event
 * (a verbs PORT_ERR, a bus call) waits for one batch, not for the round. */
#define LINK_POLL_BATCH_DEFAULT 256

/* m may be NULL for a poll that only answers for ports (tests). */
int link_poll_new(Manager *m, LinkPoll **ret);
LinkPoll *link_poll_free(LinkPoll *p);

/* rdmad --poll-batch=N: this many ports a dispatch instead (N > 0). */
void link_poll_set_batch(LinkPoll *p, unsigned batch);

/* The timer: on when there are ports and an interval, off otherwise.
 * Called after every change of the device table. */
int link_poll_update(LinkPoll *p);

/* Whether the poll reads the port's state every tick (no event covers it,
 * or it is between link-up and ACTIVE, or a link event boosted it, or its
 * state just changed), or only on the slow period. */
bool link_poll_port_every_tick(const LinkPoll *p, const Port *port);

/* A port may want every tick now (it left ACTIVE, its device lost its
 * events): brings a timer armed for the slow round forward to the next tick. */
void link_poll_wake(LinkPoll *p);

/* What a re-read changed of a port (PROPERTY_BIT(PORT_PROP_*)): a state
 * change marks it to be re-read in full once more at the next tick. */
void link_poll_port_changed(LinkPoll *p, Port *port, PropertyMask changed);

/* The poll's turn of the device has been read (or will never be): its next
 * turn may be queued. ModelSources.turn_done itself: the mark is the
 * device's, no state of the poll is needed. */
void link_poll_turn_done(Device *d, void *userdata);

/* A link event of its netdev: the port is read every tick for ticks ticks
 * (the driver may update the port after the netdev). */
void link_poll_port_boost(LinkPoll *p, Port *port, unsigned ticks);
