/* SPDX-License-Identifier: MIT */
/* A device's whole life: read from sysfs (its attributes, its parent PCI
 * function, SR-IOV; its ports in port.c, its netdevs in netdev.c) and read
 * again into the same objects. */
#include "device.h"

#include <fcntl.h>

#include "basic/log.h"
#include "basic/parse.h"
#include "basic/utf8.h"
#include "basic/util.h"
#include "manager.h"
#include "netdev.h"
#include "port.h"
#include "properties.h"
#include "rdma-drivers.h"
#include "read-job.h"
#include "reader-pool.h"

static const size_t device_strings[] = {
        offsetof(Device, name),           offsetof(Device, sysfs_path),  offsetof(Device, device_path),
        offsetof(Device, driver),         offsetof(Device, node_type),   offsetof(Device, transport),
        offsetof(Device, pci_address),    offsetof(Device, physfn_path), offsetof(Device, node_guid),
        offsetof(Device, sys_image_guid), offsetof(Device, fw_ver),      offsetof(Device, hca_type),
        offsetof(Device, hw_rev),         offsetof(Device, board_id),    offsetof(Device, node_desc),
        offsetof(Device, health_reason),
};

/* Every string of a device that was not set: "" (published as such). */
static int device_fill_strings(Device *d) {
        for (size_t i = 0; i < ELEMENTSOF(device_strings); i++) {
                char **s = &STRING_AT(d, device_strings[i]);
                if (!*s && !(*s = strdup("")))
                        return -ENOMEM;
        }
        return 0;
}

/* A device with its name and path (valid UTF-8) and nothing else; NULL without memory. */
static Device *device_alloc(const char *syspath, const char *name) {
        _cleanup_(device_freep) Device *d = calloc(1, sizeof(Device));

        if (!d)
                return NULL;
        d->numa_node = -1;
        d->name = utf8_sanitize(name, strlen(name));
        d->sysfs_path = utf8_sanitize(syspath, strlen(syspath));
        return d->name && d->sysfs_path ? TAKE_PTR(d) : NULL;
}

int device_new_placeholder(const char *syspath, const char *name, Device **ret) {
        _cleanup_(device_freep) Device *d = device_alloc(syspath, name);

        if (!d || device_fill_strings(d) < 0 || str_set(&d->transport, "unknown") < 0)
                return -ENOMEM;
        d->placeholder = true;
        *ret = TAKE_PTR(d);
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
                        log_debug_errno(errno, "%s: failed to open parent device: %m", d->name);
                }
        }

        if (parent_fd >= 0) {
                _cleanup_free_ char *total = NULL, *num = NULL;

                r = device_load_pci(parent_fd, d);
                if (r < 0)
                        return r;

                r = sysfs_readlink_basename_at(parent_fd, "driver", &d->driver);
                if (errno_is_resource(r))
                        return r;

                /* SR-IOV belongs to the PF: a VF has no sriov_totalvfs. And only
                 * to a PF that carries hardware RDMA: a soft device (siw, rxe)
                 * over a plain NIC has that NIC's function as its parent. */
                r = rdma_pci_driver(d->driver) ? sysfs_read_at(parent_fd, "sriov_totalvfs", &total) : -ENOENT;
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

        d = device_alloc(syspath, name);
        if (!d)
                return -ENOMEM;

        fd = open(syspath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();

        r = sysfs_read_attributes_at(fd, ".", &d->attributes);
        if (errno_is_resource(r))
                return r;
        if (r < 0)
                log_debug_errno(r, "%s: failed to list attributes: %m", name);
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

        if (str_set(&d->transport, device_transport(d)) < 0 || device_fill_strings(d) < 0)
                return -ENOMEM;

        *ret = TAKE_PTR(d);
        return 0;
}

Device *device_free(Device *d) {
        if (!d)
                return NULL;

        device_set_lane(d, NULL);
        strings_free(device_strings, ELEMENTSOF(device_strings), d);
        for (size_t i = 0; i < d->n_ports; i++)
                port_clear(&d->ports[i]);
        free(d->ports);
        for (size_t i = 0; i < d->n_netdevs; i++)
                netdev_free(d->netdevs[i]);
        free(d->netdevs);
        attr_list_clear(&d->attributes);
        attr_list_clear(&d->power_attributes);
        free(d);
        return NULL;
}

size_t device_port_index(const Device *d, uint32_t number) {
        size_t i;

        assert(d);
        for (i = 0; i < d->n_ports; i++)
                if (d->ports[i].number == number)
                        break;
        return i;
}

const Port *device_find_port(const Device *d, uint32_t number) {
        size_t i = device_port_index(d, number);
        return i < d->n_ports ? &d->ports[i] : NULL;
}

void device_set_lane(Device *d, ReaderLane *lane) {
        assert(d);
        if (reader_lane_owner(d->lane) == d)
                reader_lane_set_owner(d->lane, NULL);
        reader_lane_unref(d->lane);
        d->lane = lane;
        reader_lane_set_owner(lane, d);
}

/* What is the manager's (its table, the health, the lane, the verbs
 * coverage) stays with d, and so do its ports and netdevs. */
void device_update(Device *d, Device *fresh) {
        Manager *m = d->manager;
        PropertyMask device_mask, sriov_mask;
        _cleanup_free_ PropertyMask *port_masks = NULL, *netdev_masks = NULL;

        assert(d);
        assert(fresh);

        port_masks = calloc(d->n_ports + 1, sizeof(PropertyMask));
        netdev_masks = calloc(fresh->n_netdevs + 1, sizeof(PropertyMask));
        if (!port_masks || !netdev_masks) {
                /* Keep what the device had: the next event or the sweep re-reads it. */
                resync_defer(m, -ENOMEM, fresh->name);
                device_free(fresh);
                return;
        }

        fresh->verbs_covered = d->verbs_covered;
        device_mask = device_changed_mask(d, fresh);
        sriov_mask = sriov_changed_mask(d, fresh);
        /* The same port numbers in the same order: the identity says so. */
        for (size_t i = 0; i < d->n_ports; i++) {
                Port *p = &d->ports[i], *n = &fresh->ports[i];

                port_carry_over(n, p);
                if (port_keep_state(n, p) < 0)
                        log_oom();
                port_masks[i] = port_changed_mask(p, n);
                port_take_values(p, n);
                /* n holds the old values now, its state name among them. */
                port_masks[i] = port_stamp(p, port_masks[i], n->state_name);
        }
        if (device_take_netdevs(d, fresh, netdev_masks) < 0) {
                log_oom();
                resync_defer(m, -ENOMEM, fresh->name);
        }

        /* The device's own values trade places with fresh's; what is the
         * manager's (its table, health, lane, verbs coverage) and its ports
         * and netdevs stay, and fresh, freed, keeps its own (the old ports
         * and netdevs, the read's unused health reason, no lane). */
        SWAP_VALUES(d->manager, fresh->manager);
        SWAP_VALUES(d->ports, fresh->ports);
        SWAP_VALUES(d->n_ports, fresh->n_ports);
        SWAP_VALUES(d->netdevs, fresh->netdevs);
        SWAP_VALUES(d->n_netdevs, fresh->n_netdevs);
        SWAP_VALUES(d->health, fresh->health);
        SWAP_VALUES(d->health_reason, fresh->health_reason);
        SWAP_VALUES(d->lane, fresh->lane);
        SWAP_VALUES(d->verbs_covered, fresh->verbs_covered);
        SWAP_VALUES(d->poll, fresh->poll);
        SWAP_VALUES(d->physical_function, fresh->physical_function);
        SWAP_VALUES(*d, *fresh);
        device_free(fresh);

        model_report(m, MODEL_DEVICE, d, device_mask);
        model_report(m, MODEL_SRIOV, d, sriov_mask);
        for (size_t i = 0; i < d->n_ports; i++)
                model_report(m, MODEL_PORT, &d->ports[i], port_masks[i]);
        for (size_t i = 0; i < d->n_netdevs; i++)
                model_report(m, MODEL_NETDEV, d->netdevs[i], netdev_masks[i]);
}
