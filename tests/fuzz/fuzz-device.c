/* SPDX-License-Identifier: MIT */
/* device_load() on a sysfs directory built from the input: every attribute
 * the model reads may be missing, a file with arbitrary bytes, a directory,
 * or a dangling link; port, GID and netdev directory names are arbitrary
 * too. Whatever loads must be safe to publish. */
#include <fcntl.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/utf8.h"
#include "fuzz.h"
#include "model.h"
#include "netdev.h"
#include "device.h"

typedef struct Input {
        const uint8_t *p;
        size_t n;
} Input;

static uint8_t take_byte(Input *in) {
        if (in->n == 0)
                return 0;
        in->n--;
        return *in->p++;
}

/* One length byte (0xff: two more, little endian), then that many bytes. */
static size_t take_blob(Input *in, const uint8_t **ret) {
        size_t len = take_byte(in);

        if (len == 0xff)
                len = take_byte(in) | (size_t) take_byte(in) << 8;
        if (len > in->n)
                len = in->n;
        *ret = in->p;
        in->p += len;
        in->n -= len;
        return len;
}

/* A directory entry name from the input: no '/', no NUL, not "." or "..". */
static void take_name(Input *in, char *buf, size_t size) {
        const uint8_t *b;
        size_t len = take_blob(in, &b), k = 0;

        for (size_t i = 0; i < len && k + 1 < size; i++)
                buf[k++] = b[i] == '/' || b[i] == '\0' ? '_' : (char) b[i];
        buf[k] = '\0';
        if (k == 0 || !strcmp(buf, ".") || !strcmp(buf, ".."))
                snprintf(buf, size, "_");
}

static void make_parents(int root, const char *path) {
        char buf[512];

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *slash = strchr(buf, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = '\0';
                (void) mkdirat(root, buf, 0755);
                *slash = '/';
        }
}

enum { ABSENT, FILE_, DIRECTORY, DANGLING_LINK };

/* The input decides what `path` is; a file gets the next blob. */
static void make_entry(int root, Input *in, const char *path) {
        const uint8_t *content;
        size_t len;
        int fd;

        make_parents(root, path);
        switch (take_byte(in) % 4) {
        case ABSENT:
                break;
        case FILE_:
                len = take_blob(in, &content);
                fd = openat(root, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (fd >= 0) {
                        if (write(fd, content, len) < 0)
                                abort();
                        close(fd);
                }
                break;
        case DIRECTORY:
                (void) mkdirat(root, path, 0755);
                break;
        case DANGLING_LINK:
                (void) symlinkat("nonexistent/target", root, path);
                break;
        }
}

static const char *const device_files[] = {
        "node_type", "node_guid", "sys_image_guid",       "fw_ver", "hca_type", "hw_rev",
        "board_id",  "node_desc", "power/runtime_status",
};
static const char *const parent_files[] = { "sriov_totalvfs", "sriov_numvfs" };
static const char *const netdev_files[] = { "dev_port", "operstate", "address", "mtu" };
static const char *const port_files[] = {
        "state", "phys_state", "rate", "link_layer", "lid", "sm_lid", "lid_mask_count", "sm_sl", "cap_mask",
};

static void build_tree(int root, Input *in) {
        char name[64], path[512];

        /* The PCI function, the driver link, the netdev; then the device. */
        for (size_t i = 0; i < sizeof(parent_files) / sizeof(parent_files[0]); i++) {
                snprintf(path, sizeof(path), "pci/%s", parent_files[i]);
                make_entry(root, in, path);
        }
        take_name(in, name, sizeof(name));
        snprintf(path, sizeof(path), "../drivers/%s", name);
        make_parents(root, "pci/x");
        (void) symlinkat(path, root, "pci/driver");
        take_name(in, name, sizeof(name));
        for (size_t i = 0; i < sizeof(netdev_files) / sizeof(netdev_files[0]); i++) {
                snprintf(path, sizeof(path), "pci/net/%s/%s", name, netdev_files[i]);
                make_entry(root, in, path);
        }

        make_parents(root, "pci/infiniband/fuzz0/x");
        if (take_byte(in) & 1)
                (void) symlinkat("../../../pci", root, "pci/infiniband/fuzz0/device");
        for (size_t i = 0; i < sizeof(device_files) / sizeof(device_files[0]); i++) {
                snprintf(path, sizeof(path), "pci/infiniband/fuzz0/%s", device_files[i]);
                make_entry(root, in, path);
        }

        for (int port = 0; port < 2; port++) {
                char port_name[64];

                take_name(in, port_name, sizeof(port_name));
                for (size_t i = 0; i < sizeof(port_files) / sizeof(port_files[0]); i++) {
                        snprintf(path, sizeof(path), "pci/infiniband/fuzz0/ports/%s/%s", port_name, port_files[i]);
                        make_entry(root, in, path);
                }
                for (int gid = 0; gid < 2; gid++) {
                        static const char *const gid_dirs[] = { "gids", "gid_attrs/types", "gid_attrs/ndevs" };

                        take_name(in, name, sizeof(name));
                        for (size_t i = 0; i < 3; i++) {
                                snprintf(path, sizeof(path), "pci/infiniband/fuzz0/ports/%s/%s/%s", port_name,
                                         gid_dirs[i], name);
                                make_entry(root, in, path);
                        }
                }
        }
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path);
}

static void check_string(const char *s) {
        fuzz_assert(s);
        fuzz_assert(utf8_is_valid_n(s, strlen(s)));
}

static void check_attributes(const AttrList *l) {
        for (size_t i = 0; i < l->n; i++) {
                check_string(l->items[i].name);
                check_string(l->items[i].value);
                if (i > 0)
                        fuzz_assert(strcmp(l->items[i - 1].name, l->items[i].name) < 0);
        }
}

/* What the bus would publish: valid UTF-8 everywhere, ports and GIDs in
 * order and unique, a port's netdev one of the device's. */
static void check_device(const Device *d) {
        const char *const strings[] = {
                d->name,           d->sysfs_path, d->device_path, d->driver, d->node_type, d->transport, d->node_guid,
                d->sys_image_guid, d->fw_ver,     d->hca_type,    d->hw_rev, d->board_id,  d->node_desc,
        };

        for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
                check_string(strings[i]);
        check_attributes(&d->attributes);
        check_attributes(&d->power_attributes);
        fuzz_assert(d->sriov_capable || d->num_vfs == 0);

        for (size_t i = 0; i < d->n_ports; i++) {
                const Port *p = &d->ports[i];

                fuzz_assert(p->device == d);
                if (i > 0)
                        fuzz_assert(d->ports[i - 1].number < p->number);
                check_string(p->state);
                check_string(p->state_name);
                check_string(p->phys_state);
                check_string(p->phys_state_name);
                check_string(p->rate);
                check_string(p->link_layer);
                check_string(p->netdev);
                check_string(p->gid_ndev);
                check_attributes(&p->attributes);
                for (size_t j = 0; j < p->n_gids; j++) {
                        check_string(p->gids[j].gid);
                        check_string(p->gids[j].type);
                        if (j > 0)
                                fuzz_assert(p->gids[j - 1].index < p->gids[j].index);
                }
                if (*p->netdev)
                        fuzz_assert(device_find_netdev(d, p->netdev));
        }
        for (size_t i = 0; i < d->n_netdevs; i++) {
                check_string(d->netdevs[i]->name);
                check_string(d->netdevs[i]->operstate);
                check_string(d->netdevs[i]->address);
                check_attributes(&d->netdevs[i]->attributes);
                if (i > 0)
                        fuzz_assert(strcmp(d->netdevs[i - 1]->name, d->netdevs[i]->name) < 0);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char tmp[32] = "/dev/shm/rdmad-fuzz-XXXXXX", syspath[128];
        Input in = { data, size };
        Device *d = NULL;
        int root, r;

        log_set_max_level(LOG_CRIT);
        /* tmpfs: five times the executions of a disk-backed /tmp. */
        if (!mkdtemp(tmp)) {
                strcpy(tmp, "/tmp/rdmad-fuzz-XXXXXX");
                if (!mkdtemp(tmp))
                        abort();
        }
        root = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
                abort();
        build_tree(root, &in);
        close(root);

        snprintf(syspath, sizeof(syspath), "%s/pci/infiniband/fuzz0", tmp);
        r = device_load(syspath, "fuzz0", &d);
        if (r >= 0) {
                check_device(d);
                if (getenv("FUZZ_VERBOSE")) /* what an input loads as, when reading a crash */
                        for (size_t i = 0; i < d->n_ports; i++)
                                fprintf(stderr, "%s port %u: %s / %s, %s, %s, %zu GIDs, netdev \"%s\", driver \"%s\"\n",
                                        d->name, d->ports[i].number, d->ports[i].state_name,
                                        d->ports[i].phys_state_name, d->ports[i].rate, d->transport, d->ports[i].n_gids,
                                        d->ports[i].netdev, d->driver);
                device_free(d);
        }
        if (nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0)
                abort();
        return 0;
}
