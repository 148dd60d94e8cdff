/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "forward.h"
#include "model.h"

/* Which port GID carries a source address out of a netdev, from the
 * model's GID tables alone (nothing is read): RoCE, the entry whose
 * gid_attrs/ndevs names the netdev and whose GID is the source (an IPv4
 * one as its IPv4-mapped GID), "RoCE v2" before "IB/RoCE v1", the lowest
 * index among equals; IPoIB (the netdev's `type` 32), the port GID in
 * bytes 4..19 of its 20-byte hardware address. */

#define GID_TEXT_MAX           40 /* "0000:0000:0000:0000:0000:0000:0000:0000" */
#define ARPHRD_INFINIBAND_TEXT "32"

typedef enum GidResolveResult {
        GID_RESOLVE_FOUND,
        GID_RESOLVE_NOT_RDMA, /* no port names the netdev, and it is no IPoIB netdev of ours */
        GID_RESOLVE_NO_GID,   /* a port's netdev, but no entry holds the source */
} GidResolveResult;

typedef struct GidMatch {
        const Port *port; /* FOUND; NO_GID: the port whose netdev it is, when one is known */
        const Gid *gid;   /* FOUND */
        bool ipoib;
        char wanted[GID_TEXT_MAX]; /* the GID looked for */
} GidMatch;

GidResolveResult gid_resolve(Manager *m, const char *ifname, int family, const uint8_t source[16], GidMatch *ret);

/* Pure: a GID as the kernel prints it (eight groups of four lower-case hex digits). */
void gid_format(const uint8_t gid[16], char buf[static GID_TEXT_MAX]);
/* The GID of an IPv4 (::ffff:a.b.c.d) or IPv6 source address. */
void gid_from_address(int family, const uint8_t addr[16], uint8_t ret[16]);
/* Bytes 4..19 of an IPoIB hardware address ("80:00:02:08:fe:80:...", 20
 * bytes); -EINVAL when it is not one. */
int ipoib_address_gid(const char *hwaddr, uint8_t ret[16]);
