/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "forward.h"

struct EventSources; /* event-sources.h */

/* Calls cb with the interface name of every RTM_NEWLINK / RTM_DELLINK
 * message in an rtnetlink datagram. Pure: the tests feed it buffers.
 * Returns the number of link messages seen, or -EBADMSG. */
int rtnl_parse_link_names(const void *buf, size_t len, void (*cb)(const char *ifname, void *userdata), void *userdata);

/* Calls cb with the interface index of every RTM_NEWADDR / RTM_DELADDR
 * message in an rtnetlink datagram. Returns the number of address messages
 * seen, or -EBADMSG. */
int rtnl_parse_addr_indexes(const void *buf, size_t len, void (*cb)(int ifindex, void *userdata), void *userdata);

/* Subscribes to rtnetlink link messages (each re-reads the netdev and the
 * ports behind it) and address messages (each has the GID tables that name
 * its netdev followed, gid-follow.h). */
int rtnl_start(struct EventSources *s);
