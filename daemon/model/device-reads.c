/* SPDX-License-Identifier: MIT */
/* The reading halves of the manager's jobs, on a reader thread. */
#include "device-reads.h"

#include <fcntl.h>
#include <stdio.h>

#include "basic/parse.h"
#include "basic/util.h"

DeviceRead *device_read_new(Manager *m, DeviceReadKind kind, const Device *d, const char *name,
                            const char *sysfs_path) {
        DeviceRead *r = calloc(1, sizeof(DeviceRead));

        if (!r)
                return NULL;
        r->manager = m;
        r->kind = kind;
        r->name = strdup(d ? d->name : name);
        r->sysfs_path = strdup(d ? d->sysfs_path : sysfs_path);
        if (!r->name || !r->sysfs_path) {
                device_read_free(r);
                return NULL;
        }
        return r;
}

static void port_read_clear(PortRead *p) {
        free(p->expected_state);
        file_values_clear(p->link, PORT_LINK_FILES);
        file_values_clear(p->unreported, PORT_UNREPORTED_FILES);
        gid_set_clear(&p->gids);
}

void device_read_free(void *arg) {
        DeviceRead *r = arg;

        if (!r)
                return;
        device_free(r->device);
        for (size_t i = 0; i < r->n_ports; i++)
                port_read_clear(&r->ports[i]);
        free(r->ports);
        file_values_clear(r->netdev_values, NETDEV_FILES);
        free(r->netdev);
        free(r->pci_path);
        free(r->old_name);
        free(r->name);
        free(r->sysfs_path);
        free(r);
}

PortRead *device_read_add_port(DeviceRead *r, const Port *p, unsigned what) {
        PortRead *ports, *pr;

        ports = reallocarray(r->ports, r->n_ports + 1, sizeof(PortRead));
        if (!ports)
                return NULL;
        r->ports = ports;
        pr = &r->ports[r->n_ports];
        *pr = (PortRead){ .number = p->number,
                          .what = what,
                          .ethernet = streq_ptr(p->link_layer, "Ethernet"),
                          .infiniband = streq_ptr(p->link_layer, "InfiniBand") };
        if (what & PORT_READ_STATE) {
                pr->expected_state = strdup(p->state ?: "");
                if (!pr->expected_state)
                        return NULL;
        }
        r->n_ports++;
        return pr;
}

/* The poll's kept descriptors of a device's state files: the lane's
 * context, touched only by the thread that runs the lane's job. */
typedef struct StateFds {
        size_t n;
        struct {
                uint32_t number;
                int fd;
        } * items;
} StateFds;

static void state_fds_free(void *p) {
        StateFds *s = p;

        if (!s)
                return;
        for (size_t i = 0; i < s->n; i++)
                if (s->items[i].fd >= 0)
                        close(s->items[i].fd);
        free(s->items);
        free(s);
}

static int *state_fd_slot(ReaderLane *lane, uint32_t number) {
        StateFds *s = reader_lane_context(lane);
        void *items;

        if (!s) {
                s = calloc(1, sizeof(StateFds));
                if (!s)
                        return NULL;
                reader_lane_set_context(lane, s, state_fds_free);
        }
        for (size_t i = 0; i < s->n; i++)
                if (s->items[i].number == number)
                        return &s->items[i].fd;
        items = reallocarray(s->items, s->n + 1, sizeof(*s->items));
        if (!items)
                return NULL;
        s->items = items;
        s->items[s->n].number = number;
        s->items[s->n].fd = -EBADF;
        return &s->items[s->n++].fd;
}

/* Whether the state file differs from what the model has: pread() of a
 * kept descriptor, the one read of a quiet tick. A failure also counts
 * (the link re-read by path decides) and closes the descriptor. */
static bool state_changed(ReaderLane *lane, const char *sysfs_path, PortRead *p) {
        int *fd = lane ? state_fd_slot(lane, p->number) : NULL;
        char path[4096], buf[128];
        ssize_t n;

        if (!lane || !fd)
                return true;
        if (*fd < 0) {
                snprintf(path, sizeof(path), "%s/ports/%u/state", sysfs_path, p->number);
                *fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
                if (*fd < 0)
                        /* Unreadable: changed unless the model already has no state. */
                        return *p->expected_state != '\0';
        }
        reader_read_begin(*fd, "");
        n = pread(*fd, buf, sizeof(buf) - 1, 0);
        reader_read_end(*fd, "", n < 0 ? -errno : 0);
        if (n < 0) {
                *fd = (close(*fd), -EBADF);
                return true;
        }
        n = (ssize_t) sysfs_trim_trailing_space(buf, (size_t) n);
        if ((size_t) n != strlen(p->expected_state) || memcmp(buf, p->expected_state, (size_t) n) != 0) {
                /* A replaced file (a test tree) needs a new descriptor; sysfs does not mind. */
                *fd = (close(*fd), -EBADF);
                return true;
        }
        return false;
}

/* Whether the device's directory is gone (removed or renamed under us):
 * what was read of it then is not news, its uevent follows. */
static bool device_dir_gone(const char *sysfs_path) {
        return access(sysfs_path, F_OK) < 0 && errno == ENOENT;
}

static int read_port(ReaderLane *lane, const char *sysfs_path, PortRead *p) {
        int r;

        if ((p->what & PORT_READ_STATE) && !(p->what & PORT_READ_LINK) && state_changed(lane, sysfs_path, p))
                p->what |= PORT_READ_LINK;
        if (p->what & PORT_READ_LINK) {
                r = port_read_link(sysfs_path, p->number, p->ethernet, p->link);
                if (r < 0)
                        return r;
                p->done |= PORT_READ_LINK;
        } else if (p->what & PORT_READ_UNREPORTED) {
                r = port_read_unreported(sysfs_path, p->number, p->unreported);
                if (r < 0)
                        return r;
                p->done |= PORT_READ_UNREPORTED;
        }
        if (p->what & PORT_READ_GIDS) {
                r = port_read_gids(sysfs_path, p->number, p->infiniband, &p->gids);
                if (errno_is_resource(r))
                        return r;
                if (r >= 0)
                        p->done |= PORT_READ_GIDS;
        }
        return 0;
}

static int read_num_vfs(const char *pci_path, uint32_t *ret) {
        char path[4096], buf[64];
        size_t len;
        int r;

        snprintf(path, sizeof(path), "%s/sriov_numvfs", pci_path);
        r = sysfs_read_buf_at(AT_FDCWD, path, buf, sizeof(buf), &len);
        if (r < 0)
                return r;
        return parse_u32(buf, ret);
}

void device_read_run(ReaderLane *lane, void *arg) {
        DeviceRead *r = arg;
        bool news = false;

        switch (r->kind) {
        case DEVICE_READ_LOAD:
                r->error = device_load(r->sysfs_path, r->name, &r->device);
                break;
        case DEVICE_READ_PORTS:
                for (size_t i = 0; i < r->n_ports && r->error >= 0; i++) {
                        r->error = read_port(lane, r->sysfs_path, &r->ports[i]);
                        news = news || r->ports[i].done != 0;
                }
                /* Only what was read by path can be news of a departed
                 * device; a quiet tick's kept descriptors said "unchanged",
                 * and a path lookup per device and round was a quarter of
                 * an idle host's CPU. */
                if (r->error >= 0 && news && device_dir_gone(r->sysfs_path))
                        r->error = -ENOENT;
                break;
        case DEVICE_READ_NETDEV:
                r->error = netdev_read(r->netdev, r->netdev_values);
                break;
        case DEVICE_READ_NUM_VFS:
                r->error = read_num_vfs(r->pci_path, &r->num_vfs);
                break;
        }
}
