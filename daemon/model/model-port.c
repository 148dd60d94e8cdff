/* SPDX-License-Identifier: MIT */
/* A device's ports: their files, GIDs and link state, read and re-read. */
#include "model.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>

#include "basic/log.h"
#include "basic/parse.h"
#include "basic/utf8.h"
#include "basic/util.h"
#include "model-object.h"
#include "properties.h"
#include "reader-pool.h"

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

static void gids_free(Gid *gids, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(gids[i].gid);
                free(gids[i].type);
                free(gids[i].ndev);
        }
        free(gids);
}

void port_clear(Port *p) {
        strings_free(port_strings, ELEMENTSOF(port_strings), p);
        gids_free(p->gids, p->n_gids);
        attr_list_clear(&p->attributes);
        free(p->history);
        *p = (Port){};
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

static int port_derive_object(void *object) {
        return port_derive(object);
}

static PropertyMask port_changed_object(const void *a, const void *b) {
        return port_changed_mask(a, b);
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

/* "4: ACTIVE" or "4", with or without its newline: anything else ("", a
 * torn or garbled read) is no state, and never a transition. */
bool port_state_parses(const char *value) {
        char buf[64];
        const char *name;
        uint32_t num;
        size_t len = strcspn(value, "\n");

        if (len == 0 || len >= sizeof(buf))
                return false;
        memcpy(buf, value, len);
        buf[len] = '\0';
        return parse_port_state(buf, &num, &name) >= 0;
}

/* The port's state did not parse in a full read: the state it had, kept. */
int port_keep_state(Port *p, const Port *old) {
        const char *state = attr_list_get(&old->attributes, "state");
        PropertyMask changed;
        int r;

        if (!p->state_unparsed || !state)
                return 0;
        r = attr_list_set(&p->attributes, "state", state);
        if (r < 0)
                return r;
        p->state_unparsed = false;
        return object_update(&port_kind, p, &changed);
}

static int port_load(int ports_fd, const char *dirname, Port *p) {
        _cleanup_close_ int fd = -EBADF;
        PropertyMask changed;
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
                /* A state that does not parse is a failed read: left out
                 * here, and the applying side keeps the port's last one. */
                if (attr_list_get(&p->attributes, "state") &&
                    !port_state_parses(attr_list_get(&p->attributes, "state"))) {
                        r = attr_list_set(&p->attributes, "state", NULL);
                        if (r < 0)
                                return r;
                        p->state_unparsed = true;
                        reader_read_failed(fd, "state", -EBADMSG);
                }
        }

        /* A port with nothing readable still gets "" and 0 everywhere. */
        r = object_update(&port_kind, p, &changed);
        if (r < 0)
                return r;
        p->link_events = port_link_events(p);

        return fd >= 0 ? port_load_gids(fd, p) : 0;
}

/* What the poll timer re-reads of a port: IB ports change state without any
 * event. A re-read of an Ethernet port opens 3 files instead of 7. */
static const PolledFile port_link_files[] = {
        { "state", .parses = port_state_parses },
        { "phys_state" },
        { "rate" },
        { "lid", .infiniband_addressing = true },
        { "sm_lid", .infiniband_addressing = true },
        { "lid_mask_count", .infiniband_addressing = true },
        { "sm_sl", .infiniband_addressing = true },
};

const char *port_link_events(const Port *p) {
        assert(p);

        if (streq_ptr(p->link_layer, "Ethernet"))
                return "rtnetlink";
        return p->device && p->device->verbs_covered ? "verbs" : "poll";
}

/* No event reports these: a PhysState step while the link is down, a rate
 * change without a state change. */
static const PolledFile port_unreported_files[] = {
        { "phys_state" },
        { "rate" },
};

_Static_assert(ELEMENTSOF(port_link_files) == PORT_LINK_FILES, "PORT_LINK_FILES");
_Static_assert(ELEMENTSOF(port_unreported_files) == PORT_UNREPORTED_FILES, "PORT_UNREPORTED_FILES");

int port_read_link(const char *device_path, uint32_t number, bool ethernet, FileValue *values) {
        char dir[4096];

        snprintf(dir, sizeof(dir), "%s/ports/%u", device_path, number);
        return object_read_files(dir, port_link_files, PORT_LINK_FILES, ethernet, values);
}

int port_apply_link(Port *p, const FileValue *values, PropertyMask *ret_changed) {
        return object_apply_files(&port_kind, p, port_link_files, PORT_LINK_FILES, values, ret_changed);
}

int port_read_unreported(const char *device_path, uint32_t number, FileValue *values) {
        char dir[4096];

        snprintf(dir, sizeof(dir), "%s/ports/%u", device_path, number);
        return object_read_files(dir, port_unreported_files, PORT_UNREPORTED_FILES, false, values);
}

int port_apply_unreported(Port *p, const FileValue *values, PropertyMask *ret_changed) {
        return object_apply_files(&port_kind, p, port_unreported_files, PORT_UNREPORTED_FILES, values, ret_changed);
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
        gids_free(p->gids, p->n_gids);
        free(p->gid_ndev);
        p->gids = TAKE_PTR(s->gids);
        p->n_gids = s->n_gids;
        s->n_gids = 0;
        p->gid_ndev = TAKE_PTR(s->gid_ndev);
        return 0;
}

static int port_compare(const void *a, const void *b) {
        uint32_t x = ((const Port *) a)->number, y = ((const Port *) b)->number;
        return x < y ? -1 : x > y;
}

int device_load_ports(int dev_fd, Device *d) {
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
                d->ports[d->n_ports] = (Port){ .device = d };
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
