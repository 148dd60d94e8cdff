/* SPDX-License-Identifier: MIT */
/* A port's GID table: its non-zero entries with their types and netdevs,
 * read at the port's load and re-read into a set of their own, which the
 * loop's apply takes; and the port GUID it shows. */
#include "port-gids.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>

#include "basic/parse.h"
#include "basic/util.h"
#include "port.h"
#include "properties.h"

void gids_free(Gid *gids, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(gids[i].gid);
                free(gids[i].type);
                free(gids[i].ndev);
        }
        free(gids);
}

const char *port_guid(const Port *p, char buf[static PORT_GUID_MAX]) {
        const char *g;
        bool zero = true;

        buf[0] = '\0';
        /* Sorted by index, zero GIDs left out: GID 0 is first, or absent. */
        if (p->n_gids == 0 || p->gids[0].index != 0)
                return buf;
        /* "fe80:0000:0000:0000:9803:9b03:009f:cfd6": eight groups of four hex digits. */
        g = p->gids[0].gid;
        if (strlen(g) != 39)
                return buf;
        for (size_t i = 0; i < 39; i++)
                if (i % 5 == 4 ? g[i] != ':' : !isxdigit((unsigned char) g[i]))
                        return buf;
        for (size_t i = 0; i < 19; i++) {
                buf[i] = (char) tolower((unsigned char) g[20 + i]);
                zero = zero && (buf[i] == '0' || buf[i] == ':');
        }
        buf[zero ? 0 : 19] = '\0';
        return buf;
}

static int gid_compare(const void *a, const void *b) {
        uint32_t x = ((const Gid *) a)->index, y = ((const Gid *) b)->index;
        return x < y ? -1 : x > y;
}

/* gid_attrs/<what>/<index> of a RoCE or iWARP port into *ret; "" on
 * InfiniBand ports (no such attributes) or when unreadable. */
static int port_read_gid_attr(int port_fd, bool is_infiniband, const char *what, uint32_t index, char **ret) {
        char path[64];
        int r;

        if (!is_infiniband) {
                snprintf(path, sizeof(path), "gid_attrs/%s/%u", what, index);
                r = sysfs_read_at(port_fd, path, ret);
                if (errno_is_resource(r))
                        return r;
        }
        if (!*ret && !(*ret = strdup("")))
                return -ENOMEM;
        return 0;
}

/* Non-zero entries of ports/<n>/gids with their types and netdevs; the first
 * netdev named in gid_attrs/ndevs, which is how virtual devices (rxe, siw)
 * show theirs. */
int port_load_gids(int port_fd, Port *p) {
        _cleanup_closedir_ DIR *d = NULL;
        size_t allocated = 0;
        bool is_infiniband = streq(p->link_layer, "InfiniBand");
        struct dirent *de;
        int fd, r;

        r = sysfs_opendir_at(port_fd, "gids", &d);
        if (r < 0)
                return errno_is_resource(r) ? r : 0;
        fd = dirfd(d);

        while ((de = readdir(d))) {
                _cleanup_free_ char *gid = NULL, *type = NULL, *ndev = NULL;
                uint32_t index;

                if (parse_decimal_u32(de->d_name, &index) < 0)
                        continue;
                r = sysfs_read_at(fd, de->d_name, &gid);
                if (errno_is_resource(r))
                        return r;
                if (r < 0 || gid_is_zero(gid))
                        continue;

                /* The kernel gives InfiniBand GIDs no type; RoCE ones say v1 or v2. */
                r = port_read_gid_attr(port_fd, is_infiniband, "types", index, &type);
                if (r < 0)
                        return r;
                r = port_read_gid_attr(port_fd, is_infiniband, "ndevs", index, &ndev);
                if (r < 0)
                        return r;

                if (ARRAY_RESERVE(p->gids, allocated, p->n_gids + 1) < 0)
                        return -ENOMEM;
                p->gids[p->n_gids++] =
                        (Gid){ .index = index, .gid = TAKE_PTR(gid), .type = TAKE_PTR(type), .ndev = TAKE_PTR(ndev) };
        }

        if (p->n_gids > 0)
                qsort(p->gids, p->n_gids, sizeof(Gid), gid_compare);
        ARRAY_SHRINK(p->gids, allocated, p->n_gids);

        for (size_t i = 0; i < p->n_gids; i++)
                if (*p->gids[i].ndev)
                        return str_set(&p->gid_ndev, p->gids[i].ndev);
        return 0;
}

void gid_set_clear(GidSet *s) {
        gids_free(s->gids, s->n_gids);
        free(s->gid_ndev);
        *s = (GidSet){};
}

int port_read_gids(const char *device_path, uint32_t number, bool infiniband, GidSet *ret) {
        _cleanup_close_ int fd = -EBADF;
        char dir[4096];
        Port fresh = {};
        int r;

        *ret = (GidSet){};
        snprintf(dir, sizeof(dir), "%s/ports/%u", device_path, number);
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return resource_errno_or_zero() ?: -ENOENT;
        fresh.link_layer = (char *) (infiniband ? "InfiniBand" : "Ethernet");
        fresh.gid_ndev = strdup("");
        if (!fresh.gid_ndev)
                return -ENOMEM;
        r = port_load_gids(fd, &fresh);
        *ret = (GidSet){ .gids = fresh.gids, .n_gids = fresh.n_gids, .gid_ndev = fresh.gid_ndev };
        if (r < 0)
                gid_set_clear(ret);
        return r;
}

int port_apply_gids(Port *p, GidSet *s, PropertyMask *ret_changed) {
        Port fresh = *p;

        fresh.gids = s->gids;
        fresh.n_gids = s->n_gids;
        fresh.gid_ndev = s->gid_ndev;
        *ret_changed = port_changed_mask(p, &fresh);
        if (*ret_changed == 0)
                return 0;
        /* The old table goes with s. */
        SWAP_VALUES(p->gids, s->gids);
        SWAP_VALUES(p->n_gids, s->n_gids);
        SWAP_VALUES(p->gid_ndev, s->gid_ndev);
        return 0;
}
