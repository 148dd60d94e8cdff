/* SPDX-License-Identifier: MIT */
/* From an egress netdev and a source address to a port's GID entry, in the
 * model (gid-resolve.h). */
#include "gid-resolve.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "basic/util.h"
#include "manager.h"
#include "sysfs.h"
#include "netdev.h"
#include "device.h"

void gid_format(const uint8_t g[16], char buf[static GID_TEXT_MAX]) {
        snprintf(buf, GID_TEXT_MAX, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", g[0],
                 g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

void gid_from_address(int family, const uint8_t addr[16], uint8_t ret[16]) {
        if (family == AF_INET) {
                memset(ret, 0, 10);
                ret[10] = ret[11] = 0xff;
                memcpy(ret + 12, addr, 4);
        } else
                memcpy(ret, addr, 16);
}

int ipoib_address_gid(const char *hwaddr, uint8_t ret[16]) {
        uint8_t bytes[20];
        const char *p = hwaddr;

        if (!hwaddr)
                return -EINVAL;
        for (size_t i = 0; i < sizeof(bytes); i++) {
                int hi, lo;

                if (i > 0 && *p++ != ':')
                        return -EINVAL;
                hi = unhexchar_lower((char) tolower((unsigned char) p[0]));
                lo = hi < 0 ? -1 : unhexchar_lower((char) tolower((unsigned char) p[1]));
                if (lo < 0)
                        return -EINVAL;
                bytes[i] = (uint8_t) (hi << 4 | lo);
                p += 2;
        }
        if (*p != '\0')
                return -EINVAL;
        memcpy(ret, bytes + 4, 16);
        return 0;
}

/* RoCE v2 before v1 (and before anything else a kernel may print). */
static int gid_type_rank(const char *type) {
        if (streq(type, "RoCE v2"))
                return 2;
        if (streq(type, "IB/RoCE v1"))
                return 1;
        return 0;
}

static const NetDev *find_netdev(Manager *m, const char *ifname) {
        for (size_t i = 0; i < m->n_devices; i++) {
                const NetDev *n = device_find_netdev(m->devices[i], ifname);

                if (n)
                        return n;
        }
        return NULL;
}

/* The port that holds gid (text), the netdev's own device first. */
static bool find_port_gid(Manager *m, const Device *first, const char *gid, GidMatch *ret) {
        for (size_t k = 0; k <= m->n_devices; k++) {
                const Device *d = k == 0 ? first : m->devices[k - 1];

                if (!d || (k > 0 && d == first))
                        continue;
                for (size_t j = 0; j < d->n_ports; j++)
                        for (size_t i = 0; i < d->ports[j].n_gids; i++)
                                if (strcasecmp(d->ports[j].gids[i].gid, gid) == 0) {
                                        ret->port = &d->ports[j];
                                        ret->gid = &d->ports[j].gids[i];
                                        return true;
                                }
        }
        return false;
}

GidResolveResult gid_resolve(Manager *m, const char *ifname, int family, const uint8_t source[16], GidMatch *ret) {
        const Port *named = NULL, *served;
        const NetDev *n;
        uint8_t g[16];
        int best = -1;

        assert(m);
        assert(ifname);
        assert(ret);
        *ret = (GidMatch){};
        gid_from_address(family, source, g);
        gid_format(g, ret->wanted);

        for (size_t k = 0; k < m->n_devices; k++) {
                const Device *d = m->devices[k];

                for (size_t j = 0; j < d->n_ports; j++) {
                        const Port *p = &d->ports[j];

                        if (!named && streq(p->netdev, ifname))
                                named = p;
                        for (size_t i = 0; i < p->n_gids; i++) {
                                const Gid *e = &p->gids[i];
                                int rank;

                                if (!streq(e->ndev, ifname))
                                        continue;
                                if (!named)
                                        named = p;
                                if (strcasecmp(e->gid, ret->wanted) != 0)
                                        continue;
                                /* In index order within a port: a later one wins only by its type. */
                                rank = gid_type_rank(e->type);
                                if (rank > best) {
                                        best = rank;
                                        ret->port = p;
                                        ret->gid = e;
                                }
                        }
                }
        }
        if (ret->gid)
                return GID_RESOLVE_FOUND;

        n = find_netdev(m, ifname);
        served = n && n->port > 0 ? device_find_port(n->device, n->port) : NULL;
        if (n && streq_ptr(attr_list_get(&n->attributes, "type"), ARPHRD_INFINIBAND_TEXT) &&
            ipoib_address_gid(attr_list_get(&n->attributes, "address"), g) >= 0) {
                ret->ipoib = true;
                gid_format(g, ret->wanted);
                if (find_port_gid(m, n->device, ret->wanted, ret))
                        return GID_RESOLVE_FOUND;
                ret->port = served ?: named;
                return GID_RESOLVE_NO_GID;
        }
        if (named || n) {
                ret->port = named ?: served;
                return GID_RESOLVE_NO_GID;
        }
        return GID_RESOLVE_NOT_RDMA;
}
