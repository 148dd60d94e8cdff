/* SPDX-License-Identifier: MIT */
#include "model.h"

#include <fcntl.h>
#include <stdio.h>

#include "log.h"
#include "parse.h"
#include "properties.h"
#include "utf8.h"
#include "util.h"

/* After a failed open: the error if it is a lack of resources (to be
 * retried), else 0 (the file or directory is not there, or not one). */
static int resource_errno_or_zero(void) {
        int r = negative_errno();
        return errno_is_resource(r) ? r : 0;
}

/* *ret = copy of the attribute, "" if the kernel did not let us read it. */
static int attr_dup(const AttrList *l, const char *name, char **ret) {
        const char *v = attr_list_get(l, name);
        char *s = strdup(v ?: "");

        if (!s)
                return -ENOMEM;
        free(*ret);
        *ret = s;
        return 0;
}

static uint32_t attr_u32(const AttrList *l, const char *name) {
        const char *v = attr_list_get(l, name);
        uint32_t u = 0;

        if (v && parse_u32(v, &u) < 0)
                log_debug("Ignoring unparsable %s=\"%s\".", name, v);
        return u;
}

static int str_set(char **p, const char *s) {
        return free_and_strdup(p, s ?: "");
}

/* The strings each object owns, listed once: freed by its clear, and by an
 * update for those that a re-derivation replaced, whether or not they are
 * published. A new char * field of Port, NetDev or Device goes here. */
static const size_t port_strings[] = {
        offsetof(Port, state),           offsetof(Port, state_name), offsetof(Port, phys_state),
        offsetof(Port, phys_state_name), offsetof(Port, rate),       offsetof(Port, rate_unit),
        offsetof(Port, rate_info),       offsetof(Port, link_width), offsetof(Port, link_speed),
        offsetof(Port, link_layer),      offsetof(Port, transport),  offsetof(Port, netdev),
        offsetof(Port, gid_ndev),
};

static const size_t netdev_strings[] = {
        offsetof(NetDev, name),
        offsetof(NetDev, operstate),
        offsetof(NetDev, address),
};

static const size_t device_strings[] = {
        offsetof(Device, name),           offsetof(Device, sysfs_path),  offsetof(Device, device_path),
        offsetof(Device, driver),         offsetof(Device, node_type),   offsetof(Device, transport),
        offsetof(Device, pci_address),    offsetof(Device, physfn_path), offsetof(Device, node_guid),
        offsetof(Device, sys_image_guid), offsetof(Device, fw_ver),      offsetof(Device, hca_type),
        offsetof(Device, hw_rev),         offsetof(Device, board_id),    offsetof(Device, node_desc),
};

#define STRING_AT(object, offset) (*(char **) ((uint8_t *) (object) + (offset)))

static void strings_free(const size_t *strings, size_t n, void *object) {
        for (size_t i = 0; i < n; i++)
                free(STRING_AT(object, strings[i]));
}

/* Frees the strings of `stale` that `kept`, another copy of the same object,
 * no longer points to. */
static void strings_free_replaced(const size_t *strings, size_t n, void *stale, const void *kept) {
        for (size_t i = 0; i < n; i++) {
                char **s = &STRING_AT(stale, strings[i]);

                if (*s != STRING_AT(kept, strings[i]))
                        *s = mfree(*s);
        }
}

static void port_clear(Port *p) {
        if (p->state_fd >= 0)
                close(p->state_fd);
        strings_free(port_strings, ELEMENTSOF(port_strings), p);
        for (size_t i = 0; i < p->n_gids; i++) {
                free(p->gids[i].gid);
                free(p->gids[i].type);
                free(p->gids[i].ndev);
        }
        free(p->gids);
        attr_list_clear(&p->attributes);
        *p = (Port){ .state_fd = -EBADF };
}

static void netdev_clear(NetDev *n) {
        strings_free(netdev_strings, ELEMENTSOF(netdev_strings), n);
        attr_list_clear(&n->attributes);
        *n = (NetDev){};
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
static int port_load_gids(int port_fd, Port *p) {
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

                /* The contract gives InfiniBand GIDs no type; RoCE ones say v1 or v2. */
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

/* Puts a copy of value in *field unless it is equal already. The old string
 * is not freed: the update's snapshot has it (object_update()), which frees
 * it once the change is known. */
static int derive_str(char **field, const char *value) {
        char *s;

        if (streq_ptr(*field, value))
                return 0;
        s = strdup(value);
        if (!s)
                return -ENOMEM;
        *field = s;
        return 0;
}

/* Every field that derives from the port's attribute map, which holds the
 * raw file contents. */
static int port_derive(Port *p) {
        const AttrList *a = &p->attributes;
        const char *raw, *name;
        RateInfo rate;

        assert(p->device); /* its node type decides iWARP */

        raw = attr_list_get(a, "state") ?: "";
        (void) parse_port_state(raw, &p->state_num, &name);
        if (derive_str(&p->state, raw) < 0 || derive_str(&p->state_name, name) < 0)
                return -ENOMEM;

        raw = attr_list_get(a, "phys_state") ?: "";
        (void) parse_port_phys_state(raw, &p->phys_state_num, &name);
        if (derive_str(&p->phys_state, raw) < 0 || derive_str(&p->phys_state_name, name) < 0)
                return -ENOMEM;

        /* Unreadable without a link (EINVAL): "" and 0. */
        raw = attr_list_get(a, "rate") ?: "";
        (void) parse_rate(raw, &rate);
        p->rate_speed = rate.speed;
        if (derive_str(&p->rate, raw) < 0 || derive_str(&p->rate_unit, rate.unit) < 0 ||
            derive_str(&p->rate_info, rate.info) < 0 || derive_str(&p->link_width, rate.width) < 0 ||
            derive_str(&p->link_speed, rate.speed_name) < 0)
                return -ENOMEM;

        if (derive_str(&p->link_layer, link_layer_normalize(attr_list_get(a, "link_layer"))) < 0 ||
            derive_str(&p->transport, transport_from(p->device->node_type_num, p->link_layer)) < 0)
                return -ENOMEM;

        p->lid = attr_u32(a, "lid");
        p->sm_lid = attr_u32(a, "sm_lid");
        p->lid_mask_count = attr_u32(a, "lid_mask_count");
        p->sm_sl = attr_u32(a, "sm_sl");
        p->cap_mask = attr_u32(a, "cap_mask");
        return 0;
}

static int netdev_derive(NetDev *n) {
        const AttrList *a = &n->attributes;

        if (derive_str(&n->operstate, attr_list_get(a, "operstate") ?: "") < 0 ||
            derive_str(&n->address, attr_list_get(a, "address") ?: "") < 0)
                return -ENOMEM;
        n->mtu = attr_u32(a, "mtu");
        n->dev_port = attr_u32(a, "dev_port");
        return 0;
}

/* What the update and the refresh of a port or a netdev need to know of it. */
typedef struct ObjectKind {
        size_t size;
        const size_t *strings;
        size_t n_strings;
        size_t attributes_offset;
        uint32_t attributes_bit;
        int (*derive)(void *object);
        uint32_t (*changed_mask)(const void *a, const void *b);
} ObjectKind;

/* A shallow copy of any object of a kind, taken before re-deriving it. */
typedef union ObjectSnapshot {
        Port port;
        NetDev netdev;
} ObjectSnapshot;

static int port_derive_object(void *object) {
        return port_derive(object);
}

static uint32_t port_changed_object(const void *a, const void *b) {
        return port_changed_mask(a, b);
}

static int netdev_derive_object(void *object) {
        return netdev_derive(object);
}

static uint32_t netdev_changed_object(const void *a, const void *b) {
        return netdev_changed_mask(a, b);
}

static const ObjectKind port_kind = {
        .size = sizeof(Port),
        .strings = port_strings,
        .n_strings = ELEMENTSOF(port_strings),
        .attributes_offset = offsetof(Port, attributes),
        .attributes_bit = PROPERTY_BIT(PORT_PROP_ATTRIBUTES),
        .derive = port_derive_object,
        .changed_mask = port_changed_object,
};

static const ObjectKind netdev_kind = {
        .size = sizeof(NetDev),
        .strings = netdev_strings,
        .n_strings = ELEMENTSOF(netdev_strings),
        .attributes_offset = offsetof(NetDev, attributes),
        .attributes_bit = PROPERTY_BIT(NETDEV_PROP_ATTRIBUTES),
        .derive = netdev_derive_object,
        .changed_mask = netdev_changed_object,
};

/* Re-derives the object from its attribute map, and what that changed, by
 * comparison with the object before (properties.c). Used when loading and
 * when the poll has found a file with new contents. On failure the object is
 * as it was. */
static int object_update(const ObjectKind *k, void *object, uint32_t *ret_changed) {
        ObjectSnapshot before;
        int r;

        assert(k->size <= sizeof(before));
        memcpy(&before, object, k->size);
        r = k->derive(object);
        if (r < 0) {
                strings_free_replaced(k->strings, k->n_strings, object, &before);
                memcpy(object, &before, k->size);
                return r;
        }
        *ret_changed = k->changed_mask(&before, object);
        strings_free_replaced(k->strings, k->n_strings, &before, object);
        return 0;
}

static int port_load(int ports_fd, const char *dirname, Port *p) {
        _cleanup_close_ int fd = -EBADF;
        uint32_t changed;
        int r;

        r = parse_decimal_u32(dirname, &p->number);
        if (r < 0)
                return r;
        if (str_set(&p->netdev, "") < 0 || str_set(&p->gid_ndev, "") < 0)
                return -ENOMEM;

        fd = openat(ports_fd, dirname, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                r = resource_errno_or_zero();
                if (r < 0)
                        return r;
                log_debug_errno(errno, "Cannot open port directory %s: %m", dirname);
        } else {
                r = sysfs_read_attributes_at(fd, ".", &p->attributes);
                if (errno_is_resource(r))
                        return r;
        }

        /* A port with nothing readable still gets "" and 0 everywhere. */
        r = object_update(&port_kind, p, &changed);
        if (r < 0)
                return r;

        return fd >= 0 ? port_load_gids(fd, p) : 0;
}

/* A file the poll re-reads into an object's attribute map. */
typedef struct PolledFile {
        const char *name;
        /* InfiniBand addressing, which the kernel reports as 0 for good on an
         * Ethernet link layer (RoCE, iWARP): there the scan's values stand. */
        bool infiniband_addressing;
} PolledFile;

/* What the poll timer re-reads of a port: IB ports change state without any
 * event. A re-read of an Ethernet port opens 3 files instead of 7. */
static const PolledFile port_link_files[] = {
        { "state" },
        { "phys_state" },
        { "rate" },
        { "lid", .infiniband_addressing = true },
        { "sm_lid", .infiniband_addressing = true },
        { "lid_mask_count", .infiniband_addressing = true },
        { "sm_sl", .infiniband_addressing = true },
};

/* What a link event makes us re-read of a netdev. */
static const PolledFile netdev_files[] = {
        { "operstate" }, { "mtu" }, { "address" }, { "carrier" }, { "dev_port" },
};

/* Stores a freshly read raw value in an attribute map; 1 if it differed.
 * Allocates only when the contents changed. */
static int attr_list_refresh(AttrList *l, const char *name, int read_result, const char *buf, size_t len) {
        const char *cur = attr_list_get(l, name);
        _cleanup_free_ char *sanitized = NULL;
        int r;

        if (errno_is_resource(read_result))
                return read_result;
        if (read_result < 0) {
                if (!cur)
                        return 0;
                r = attr_list_set(l, name, NULL);
                return r < 0 ? r : 1;
        }
        if (cur && strlen(cur) == len && memcmp(cur, buf, len) == 0)
                return 0;
        if (!utf8_is_valid_n(buf, len)) {
                sanitized = utf8_sanitize(buf, len);
                if (!sanitized)
                        return -ENOMEM;
                if (cur && streq(cur, sanitized))
                        return 0;
        }
        r = attr_list_set(l, name, sanitized ?: buf);
        return r < 0 ? r : 1;
}

/* Re-reads dir/<file> into the object's attribute map for each of files (but
 * the InfiniBand addressing if skip_ib_addressing) and, if any differed,
 * re-derives the object: *ret_changed is what changed, with Attributes. */
static int object_refresh(const ObjectKind *k, void *object, const char *dir, const PolledFile *files, size_t n_files,
                          bool skip_ib_addressing, uint32_t *ret_changed) {
        AttrList *attributes = (AttrList *) ((uint8_t *) object + k->attributes_offset);
        char path[4096], buf[SYSFS_ATTR_MAX + 1];
        bool any = false;
        uint32_t changed;
        int r;

        *ret_changed = 0;
        for (size_t i = 0; i < n_files; i++) {
                size_t len = 0;

                if (skip_ib_addressing && files[i].infiniband_addressing)
                        continue;
                snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
                r = sysfs_read_buf_at(AT_FDCWD, path, buf, sizeof(buf), &len);
                r = attr_list_refresh(attributes, files[i].name, r, buf, len);
                if (r < 0)
                        return r;
                any = any || r > 0;
        }
        if (!any)
                return 0;

        r = object_update(k, object, &changed);
        if (r < 0)
                return r;
        *ret_changed = changed | k->attributes_bit;
        return 0;
}

int port_refresh_link(Port *p, uint32_t *ret_changed) {
        char dir[4096];
        int r;

        assert(p);
        assert(p->device);
        assert(ret_changed);

        snprintf(dir, sizeof(dir), "%s/ports/%u", p->device->sysfs_path, p->number);
        r = object_refresh(&port_kind, p, dir, port_link_files, ELEMENTSOF(port_link_files),
                           streq_ptr(p->link_layer, "Ethernet"), ret_changed);
        if (r < 0)
                return r;
        /* A state change seen by path: the kept descriptor may be of a file that
         * was replaced rather than rewritten (not sysfs, but a test tree); reopen it. */
        if ((*ret_changed & PROPERTY_BIT(PORT_PROP_STATE)) && p->state_fd >= 0)
                p->state_fd = (close(p->state_fd), -EBADF);
        return 0;
}

int port_state_fd(Port *p) {
        assert(p);

        if (p->state_fd < 0) {
                char path[4096];

                snprintf(path, sizeof(path), "%s/ports/%u/state", p->device->sysfs_path, p->number);
                p->state_fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
                if (p->state_fd < 0)
                        return -errno;
        }
        return p->state_fd;
}

int port_state_read_changed(Port *p, const char *buf, ssize_t n) {
        assert(p);

        if (n < 0) {
                /* Gone or refused: let the path-based re-read decide, and reopen next time. */
                if (p->state_fd >= 0)
                        p->state_fd = (close(p->state_fd), -EBADF);
                return 1;
        }
        n = (ssize_t) sysfs_trim_trailing_space(buf, (size_t) n);
        return (size_t) n != strlen(p->state) || memcmp(buf, p->state, (size_t) n) != 0;
}

int port_link_changed(Port *p) {
        char buf[128];
        ssize_t n;
        int fd;

        assert(p);

        fd = port_state_fd(p);
        if (fd < 0)
                /* Unreadable: changed unless the model already has no state. */
                return *p->state != '\0';
        n = pread(fd, buf, sizeof(buf) - 1, 0);
        return port_state_read_changed(p, buf, n < 0 ? -errno : n);
}

int netdev_refresh(NetDev *n, uint32_t *ret_changed) {
        char dir[4096];

        assert(n);
        assert(ret_changed);

        snprintf(dir, sizeof(dir), "/sys/class/net/%s", n->name);
        return object_refresh(&netdev_kind, n, dir, netdev_files, ELEMENTSOF(netdev_files), false, ret_changed);
}

static int port_compare(const void *a, const void *b) {
        uint32_t x = ((const Port *) a)->number, y = ((const Port *) b)->number;
        return x < y ? -1 : x > y;
}

static int device_load_ports(int dev_fd, Device *d) {
        _cleanup_closedir_ DIR *dir = NULL;
        size_t allocated = 0;
        struct dirent *de;
        int fd, r;

        r = sysfs_opendir_at(dev_fd, "ports", &dir);
        if (errno_is_resource(r))
                return r;
        if (r < 0)
                return log_debug_errno(r, "%s: no ports directory: %m", d->name), 0;
        fd = dirfd(dir);

        while ((de = readdir(dir))) {
                uint32_t number;

                if (parse_decimal_u32(de->d_name, &number) < 0)
                        continue;
                if (ARRAY_RESERVE(d->ports, allocated, d->n_ports + 1) < 0)
                        return -ENOMEM;
                d->ports[d->n_ports] = (Port){ .device = d, .state_fd = -EBADF };
                r = port_load(fd, de->d_name, &d->ports[d->n_ports]);
                d->n_ports++;
                if (r < 0)
                        return r;
        }

        if (d->n_ports > 0)
                qsort(d->ports, d->n_ports, sizeof(Port), port_compare);
        ARRAY_SHRINK(d->ports, allocated, d->n_ports);
        /* qsort moved the ports: nothing points into the array yet, but keep the back pointers right. */
        for (size_t i = 0; i < d->n_ports; i++)
                d->ports[i].device = d;
        return 0;
}

static int netdev_load(int net_fd, const char *name, NetDev *n) {
        _cleanup_close_ int fd = -EBADF;
        uint32_t changed;
        int r;

        /* Interface names are bytes to the kernel; the bus wants UTF-8. */
        free(n->name);
        n->name = utf8_sanitize(name, strlen(name));
        if (!n->name || str_set(&n->operstate, "") < 0 || str_set(&n->address, "") < 0)
                return -ENOMEM;

        /* Gone (or a stale name in gid_attrs/ndevs): not a netdev of ours. */
        fd = openat(net_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                r = negative_errno();
                if (!errno_is_resource(r))
                        log_debug_errno(r, "Cannot open netdev %s: %m", name);
                return r;
        }

        r = sysfs_read_attributes_at(fd, ".", &n->attributes);
        if (errno_is_resource(r))
                return r;

        return object_update(&netdev_kind, n, &changed);
}

static int netdev_compare(const void *a, const void *b) {
        return strcmp(((const NetDev *) a)->name, ((const NetDev *) b)->name);
}

static int device_add_netdev(Device *d, size_t *allocated, int net_fd, const char *name) {
        int r;

        if (!*name || strchr(name, '/') || streq(name, ".") || streq(name, ".."))
                return 0;
        for (size_t i = 0; i < d->n_netdevs; i++)
                if (streq(d->netdevs[i].name, name))
                        return 0;

        if (ARRAY_RESERVE(d->netdevs, *allocated, d->n_netdevs + 1) < 0)
                return -ENOMEM;
        d->netdevs[d->n_netdevs] = (NetDev){};
        r = netdev_load(net_fd, name, &d->netdevs[d->n_netdevs]);
        if (errno_is_resource(r)) {
                d->n_netdevs++; /* freed with the device */
                return r;
        }
        /* Gone, or a second name that reads the same once made valid UTF-8. */
        if (r < 0 || (d->n_netdevs > 0 && device_find_netdev(d, d->netdevs[d->n_netdevs].name))) {
                netdev_clear(&d->netdevs[d->n_netdevs]);
                return 0;
        }
        d->n_netdevs++;
        return 0;
}

/* The netdevs of a PCI function are its net/ children; a virtual device
 * (rxe, siw) has no parent, so the ports' gid_attrs/ndevs name them. */
static int device_load_netdevs(int parent_fd, Device *d) {
        size_t allocated = 0;
        int r;

        if (parent_fd >= 0) {
                _cleanup_closedir_ DIR *dir = NULL;
                struct dirent *de;

                r = sysfs_opendir_at(parent_fd, "net", &dir);
                if (errno_is_resource(r))
                        return r;
                while (r >= 0 && (de = readdir(dir))) {
                        if (de->d_name[0] == '.')
                                continue;
                        r = device_add_netdev(d, &allocated, dirfd(dir), de->d_name);
                        if (r < 0)
                                return r;
                }
        }

        if (d->n_netdevs == 0) {
                _cleanup_close_ int class_fd = open("/sys/class/net", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

                if (class_fd < 0 && (r = resource_errno_or_zero()) < 0)
                        return r;
                if (class_fd >= 0)
                        for (size_t i = 0; i < d->n_ports; i++) {
                                r = device_add_netdev(d, &allocated, class_fd, d->ports[i].gid_ndev);
                                if (r < 0)
                                        return r;
                        }
        }

        if (d->n_netdevs > 0)
                qsort(d->netdevs, d->n_netdevs, sizeof(NetDev), netdev_compare);
        ARRAY_SHRINK(d->netdevs, allocated, d->n_netdevs);
        for (size_t i = 0; i < d->n_netdevs; i++)
                d->netdevs[i].device = d;

        /* Port N's netdev has dev_port N-1; failing that, the one its GIDs name.
         * Sorted by name, so "ib0" wins over its child "ib0.8001". */
        for (size_t i = 0; i < d->n_ports; i++) {
                Port *p = &d->ports[i];
                NetDev *match = NULL;

                for (size_t j = 0; j < d->n_netdevs && !match; j++)
                        if (p->number > 0 && d->netdevs[j].dev_port == p->number - 1 && d->netdevs[j].port == 0)
                                match = &d->netdevs[j];
                for (size_t j = 0; j < d->n_netdevs && !match; j++)
                        if (streq(d->netdevs[j].name, p->gid_ndev) && d->netdevs[j].port == 0)
                                match = &d->netdevs[j];
                if (match) {
                        match->port = p->number;
                        if (str_set(&p->netdev, match->name) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}

/* The symlink dir_fd/name, relative to dir_path, as a normalised absolute
 * path in *ret (valid UTF-8). 0 and *ret untouched if there is no such link. */
static int read_link_path(int dir_fd, const char *dir_path, const char *name, char **ret) {
        _cleanup_free_ char *path = NULL;
        char buf[4096];
        ssize_t n;

        n = readlinkat(dir_fd, name, buf, sizeof(buf) - 1);
        if (n < 0)
                return resource_errno_or_zero();
        buf[n] = '\0';
        path = path_join_normalize(dir_path, buf);
        if (!path)
                return -ENOMEM;
        free(*ret);
        *ret = utf8_sanitize(path, strlen(path));
        return *ret ? 1 : -ENOMEM;
}

/* numa_node: "-1" when the platform has no NUMA information; -1 when absent or odd too. */
static int32_t numa_node_from(const char *s) {
        uint32_t u;

        if (!s || parse_decimal_u32(s, &u) < 0 || u > INT32_MAX)
                return -1;
        return (int32_t) u;
}

/* What identifies the parent PCI function: its address (the directory's
 * name, when its subsystem is pci), NUMA node and, for a VF, its PF. */
static int device_load_pci(int parent_fd, Device *d) {
        _cleanup_free_ char *subsystem = NULL, *numa = NULL;
        int r;

        r = sysfs_readlink_basename_at(parent_fd, "subsystem", &subsystem);
        if (errno_is_resource(r))
                return r;
        if (r >= 0 && streq(subsystem, "pci")) {
                const char *slash = strrchr(d->device_path, '/');
                if (str_set(&d->pci_address, slash ? slash + 1 : "") < 0)
                        return -ENOMEM;
        }

        r = sysfs_read_at(parent_fd, "numa_node", &numa);
        if (errno_is_resource(r))
                return r;
        d->numa_node = numa_node_from(numa);

        /* A VF's physfn points at its PF; the PF's virtfn<i> links are the
         * inverse, so VirtualFunctions is found from the VFs' side. */
        r = read_link_path(parent_fd, d->device_path, "physfn", &d->physfn_path);
        return r < 0 ? r : 0;
}

static int device_load_parent(int dev_fd, Device *d) {
        _cleanup_close_ int parent_fd = -EBADF;
        int r;

        if (str_set(&d->device_path, "") < 0 || str_set(&d->driver, "") < 0 || str_set(&d->pci_address, "") < 0 ||
            str_set(&d->physfn_path, "") < 0)
                return -ENOMEM;
        d->numa_node = -1;

        /* Virtual devices (rxe, siw) have no "device" link and no parent. */
        r = read_link_path(dev_fd, d->sysfs_path, "device", &d->device_path);
        if (r < 0)
                return r;
        if (r > 0) {
                parent_fd = openat(dev_fd, "device", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (parent_fd < 0) {
                        r = resource_errno_or_zero();
                        if (r < 0)
                                return r;
                        log_debug_errno(errno, "%s: cannot open parent device: %m", d->name);
                }
        }

        if (parent_fd >= 0) {
                _cleanup_free_ char *driver = NULL, *total = NULL, *num = NULL;

                r = device_load_pci(parent_fd, d);
                if (r < 0)
                        return r;

                r = sysfs_readlink_basename_at(parent_fd, "driver", &driver);
                if (errno_is_resource(r))
                        return r;
                if (r >= 0) {
                        free(d->driver);
                        d->driver = TAKE_PTR(driver);
                }

                /* SR-IOV belongs to the PF: a VF has no sriov_totalvfs. */
                r = sysfs_read_at(parent_fd, "sriov_totalvfs", &total);
                if (errno_is_resource(r))
                        return r;
                if (r >= 0) {
                        d->sriov_capable = true;
                        (void) parse_u32(total, &d->total_vfs);
                        r = sysfs_read_at(parent_fd, "sriov_numvfs", &num);
                        if (errno_is_resource(r))
                                return r;
                        if (r >= 0)
                                (void) parse_u32(num, &d->num_vfs);
                }
        }

        return device_load_netdevs(parent_fd, d);
}

const char *device_transport(const Device *d) {
        assert(d);

        if (d->n_ports == 0)
                return transport_from(d->node_type_num, NULL);
        for (size_t i = 1; i < d->n_ports; i++)
                if (!streq(d->ports[i].transport, d->ports[0].transport))
                        return "mixed"; /* a VPI card with an InfiniBand and an Ethernet port */
        return d->ports[0].transport;
}

int device_load(const char *syspath, const char *name, Device **ret) {
        _cleanup_(device_freep) Device *d = NULL;
        _cleanup_close_ int fd = -EBADF;
        const char *type_name;
        int r;

        assert(syspath);
        assert(name);
        assert(ret);

        d = calloc(1, sizeof(Device));
        if (!d)
                return -ENOMEM;

        d->name = utf8_sanitize(name, strlen(name));
        d->sysfs_path = utf8_sanitize(syspath, strlen(syspath));
        if (!d->name || !d->sysfs_path)
                return -ENOMEM;

        fd = open(syspath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();

        r = sysfs_read_attributes_at(fd, ".", &d->attributes);
        if (r < 0 && !errno_is_resource(r))
                log_debug_errno(r, "%s: cannot list attributes: %m", name);
        if (errno_is_resource(r))
                return r;
        r = sysfs_read_attributes_at(fd, "power", &d->power_attributes);
        if (errno_is_resource(r))
                return r;

        if (attr_dup(&d->attributes, "node_type", &d->node_type) < 0 ||
            attr_dup(&d->attributes, "node_guid", &d->node_guid) < 0 ||
            attr_dup(&d->attributes, "sys_image_guid", &d->sys_image_guid) < 0 ||
            attr_dup(&d->attributes, "fw_ver", &d->fw_ver) < 0 ||
            attr_dup(&d->attributes, "hca_type", &d->hca_type) < 0 ||
            attr_dup(&d->attributes, "hw_rev", &d->hw_rev) < 0 ||
            attr_dup(&d->attributes, "board_id", &d->board_id) < 0 ||
            attr_dup(&d->attributes, "node_desc", &d->node_desc) < 0)
                return -ENOMEM;

        /* NodeType is the name without its number: "1: CA" → "CA". */
        (void) parse_node_type(d->node_type, &d->node_type_num, &type_name);
        if (str_set(&d->node_type, type_name) < 0)
                return -ENOMEM;

        r = device_load_ports(fd, d);
        if (r < 0)
                return r;

        r = device_load_parent(fd, d);
        if (r < 0)
                return r;

        if (str_set(&d->transport, device_transport(d)) < 0)
                return -ENOMEM;

        *ret = TAKE_PTR(d);
        return 0;
}

Device *device_free(Device *d) {
        if (!d)
                return NULL;

        strings_free(device_strings, ELEMENTSOF(device_strings), d);
        for (size_t i = 0; i < d->n_ports; i++)
                port_clear(&d->ports[i]);
        free(d->ports);
        for (size_t i = 0; i < d->n_netdevs; i++)
                netdev_clear(&d->netdevs[i]);
        free(d->netdevs);
        attr_list_clear(&d->attributes);
        attr_list_clear(&d->power_attributes);
        free(d);
        return NULL;
}

const Port *device_find_port(const Device *d, uint32_t number) {
        assert(d);
        for (size_t i = 0; i < d->n_ports; i++)
                if (d->ports[i].number == number)
                        return &d->ports[i];
        return NULL;
}

const NetDev *device_find_netdev(const Device *d, const char *name) {
        assert(d);
        assert(name);
        for (size_t i = 0; i < d->n_netdevs; i++)
                if (streq(d->netdevs[i].name, name))
                        return &d->netdevs[i];
        return NULL;
}
