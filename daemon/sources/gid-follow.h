/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

#include "basic/time-util.h"
#include "forward.h"

/* GID tables that follow addresses. The kernel fills a RoCE port's GID
 * table from the addresses of the netdevs above it, asynchronously, some
 * time after the address message (RTM_NEWADDR / RTM_DELADDR): after one
 * names a netdev, the GID tables of the ports whose port netdev it is or
 * whose GIDs name it are re-read at once and every GID_FOLLOW_TICK_USEC
 * until GID_FOLLOW_WINDOW_USEC after the last message that named it. So an
 * entry the kernel writes up to a second late is published within 2 s,
 * and a netdev's burst of messages costs one read per port and tick. Each
 * read goes through the reader pool (port_refresh_gids()). */

#define GID_FOLLOW_TICK_USEC   (200 * USEC_PER_MSEC)
#define GID_FOLLOW_WINDOW_USEC (1500 * USEC_PER_MSEC)
/* Netdevs followed at once; beyond, every RoCE and iWARP port is re-read. */
#define GID_FOLLOW_NETDEVS_MAX 64

typedef struct GidFollow GidFollow;

int gid_follow_new(Manager *m, GidFollow **ret);
GidFollow *gid_follow_free(GidFollow *f);

/* An address message named ifname (or a netdev below the one it named). */
void gid_follow_netdev(GidFollow *f, const char *ifname);
/* Address messages were lost: every RoCE and iWARP port is followed. */
void gid_follow_all(GidFollow *f);

/* Pure, for the tests: whether port p's GID table belongs to ifname (its
 * port netdev, or a name in its gid_attrs/ndevs). */
bool port_gids_name(const Port *p, const char *ifname);
