/* SPDX-License-Identifier: MIT */
/* A netdev's whole life: found through its device's PCI function or its
 * ports' GIDs, matched to its port, re-read on the device's lane, applied
 * on the loop and reported; kept across its device's re-reads. */
#include "netdev.h"

#include <fcntl.h>
#include <stdio.h>

#include "basic/log.h"
#include "basic/utf8.h"
#include "basic/util.h"
#include "manager.h"
#include "properties.h"
#include "read-job.h"

static const size_t netdev_strings[] = {
        offsetof(NetDev, name),
        offsetof(NetDev, operstate),
        offsetof(NetDev, address),
};

static int netdev_derive(void *object) {
        NetDev *n = object;
        const AttrList *a = &n->attributes;

        if (derive_str(&n->operstate, attr_list_get(a, "operstate") ?: "") < 0 ||
            derive_str(&n->address, attr_list_get(a, "address") ?: "") < 0)
                return -ENOMEM;
        n->mtu = attr_u32(a, "mtu");
        n->dev_port = attr_u32(a, "dev_port");
        return 0;
}

DEFINE_OBJECT_KIND(netdev, NetDev, NETDEV);

/* What a link event makes us re-read of a netdev. */
static const PolledFile netdev_files[] = {
        { "operstate" }, { "mtu" }, { "address" }, { "carrier" }, { "dev_port" },
};

int netdev_read(const char *name, FileValue *values) {
        char dir[4096];

        snprintf(dir, sizeof(dir), "/sys/class/net/%s", name);
        return object_read_files(dir, netdev_files, NETDEV_FILES, false, values);
}

int netdev_apply(NetDev *n, const FileValue *values, PropertyMask *ret_changed) {
        return object_apply_files(&netdev_kind, n, netdev_files, NETDEV_FILES, values, ret_changed);
}

/* n->name is name made valid UTF-8 already. */
static int netdev_load(int net_fd, const char *name, NetDev *n) {
        _cleanup_close_ int fd = -EBADF;
        PropertyMask changed;
        int r;

        if (str_set(&n->operstate, "") < 0 || str_set(&n->address, "") < 0)
                return -ENOMEM;

        /* Gone (or a stale name in gid_attrs/ndevs): not a netdev of ours. */
        fd = openat(net_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                r = negative_errno();
                if (!errno_is_resource(r))
                        log_debug_errno(r, "Failed to open netdev %s: %m", name);
                return r;
        }

        r = sysfs_read_attributes_at(fd, ".", &n->attributes);
        if (errno_is_resource(r))
                return r;

        return object_update(&netdev_kind, n, &changed);
}

static int netdev_compare(const void *a, const void *b) {
        return strcmp((*(NetDev *const *) a)->name, (*(NetDev *const *) b)->name);
}

NetDev *netdev_free(NetDev *n) {
        if (n) {
                strings_free(netdev_strings, ELEMENTSOF(netdev_strings), n);
                attr_list_clear(&n->attributes);
                free(n);
        }
        return NULL;
}

static int device_add_netdev(Device *d, size_t *allocated, int net_fd, const char *name) {
        _cleanup_free_ char *sane = NULL;
        int r;

        if (!*name || strchr(name, '/') || streq(name, ".") || streq(name, ".."))
                return 0;
        /* Interface names are bytes to the kernel; the bus wants UTF-8. Named
         * twice (the ports' ndevs), or a second name that reads the same once
         * made valid UTF-8: one netdev. */
        sane = utf8_sanitize(name, strlen(name));
        if (!sane)
                return -ENOMEM;
        if (device_find_netdev(d, sane))
                return 0;

        if (ARRAY_RESERVE(d->netdevs, *allocated, d->n_netdevs + 1) < 0)
                return -ENOMEM;
        d->netdevs[d->n_netdevs] = calloc(1, sizeof(NetDev));
        if (!d->netdevs[d->n_netdevs])
                return -ENOMEM;
        d->netdevs[d->n_netdevs]->name = TAKE_PTR(sane);
        r = netdev_load(net_fd, name, d->netdevs[d->n_netdevs]);
        if (r < 0 && !errno_is_resource(r)) { /* gone */
                d->netdevs[d->n_netdevs] = netdev_free(d->netdevs[d->n_netdevs]);
                return 0;
        }
        d->n_netdevs++; /* out of resources too: freed with the device */
        return r;
}

/* The netdevs of a PCI function are its net/ children; a virtual device
 * (rxe, siw) has no parent, so the ports' gid_attrs/ndevs name them. */
int device_load_netdevs(int parent_fd, Device *d) {
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
                qsort(d->netdevs, d->n_netdevs, sizeof(NetDev *), netdev_compare);
        ARRAY_SHRINK(d->netdevs, allocated, d->n_netdevs);
        for (size_t i = 0; i < d->n_netdevs; i++)
                d->netdevs[i]->device = d;

        /* Port N's netdev has dev_port N-1; failing that, the one its GIDs name.
         * Sorted by name, so "ib0" wins over its child "ib0.8001". */
        for (size_t i = 0; i < d->n_ports; i++) {
                Port *p = &d->ports[i];
                NetDev *match = NULL;

                for (size_t j = 0; j < d->n_netdevs && !match; j++)
                        if (p->number > 0 && d->netdevs[j]->dev_port == p->number - 1 && d->netdevs[j]->port == 0)
                                match = d->netdevs[j];
                for (size_t j = 0; j < d->n_netdevs && !match; j++)
                        if (streq(d->netdevs[j]->name, p->gid_ndev) && d->netdevs[j]->port == 0)
                                match = d->netdevs[j];
                if (match) {
                        match->port = p->number;
                        if (str_set(&p->netdev, match->name) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}

static size_t netdev_index(const Device *d, const char *name) {
        size_t i = 0;

        assert(d);
        assert(name);
        while (i < d->n_netdevs && !streq(d->netdevs[i]->name, name))
                i++;
        return i;
}

const NetDev *device_find_netdev(const Device *d, const char *name) {
        size_t i = netdev_index(d, name);
        return i < d->n_netdevs ? d->netdevs[i] : NULL;
}

/* ---------- a netdev's life after its load: re-read, applied, reported ---------- */

typedef struct NetDevJob {
        ReadJob job;
        NetDev *target; /* the loop's: its reads are cancelled when it goes */
        char *netdev;   /* its name, for the thread */
        FileValue values[NETDEV_FILES];
} NetDevJob;

static void netdev_job_free(ReadJob *j) {
        NetDevJob *nj = (NetDevJob *) j;

        file_values_clear(nj->values, NETDEV_FILES);
        free(nj->netdev);
}

static void netdev_job_run(ReaderLane *lane, void *arg) {
        NetDevJob *nj = arg;

        nj->job.error = netdev_read(nj->netdev, nj->values);
}

void netdev_report_changed(NetDev *n, PropertyMask mask) {
        assert(n);
        model_report(n->device->manager, MODEL_NETDEV, n, mask);
}

static void netdev_job_apply(ReadJob *j, const ReaderResult *res) {
        NetDevJob *nj = (NetDevJob *) j;
        PropertyMask changed = 0;
        int k = j->error;

        if (k >= 0)
                k = netdev_apply(nj->target, nj->values, &changed);
        if (errno_is_resource(k))
                resync_defer(j->manager, k, nj->netdev);
        else if (k >= 0)
                netdev_report_changed(nj->target, changed);
}

static const ReadJobKind netdev_job_kind = {
        .size = sizeof(NetDevJob),
        .run = netdev_job_run,
        .apply = netdev_job_apply,
        .free = netdev_job_free,
};

int netdev_refresh(NetDev *n) {
        NetDevJob *nj;

        assert(n);
        if (!device_readable(n->device))
                return 0;
        nj = (NetDevJob *) read_job_new(&netdev_job_kind, n->device->manager, n->device, NULL, NULL);
        if (nj)
                nj->target = n;
        if (!nj || !(nj->netdev = strdup(n->name))) {
                read_job_free((ReadJob *) nj);
                return -ENOMEM;
        }
        return read_job_submit(&nj->job, n->device->lane);
}

static bool netdev_job_reads(void *arg, void *netdev) {
        ReadJob *j = arg;
        return j->kind == &netdev_job_kind && ((NetDevJob *) j)->target == netdev;
}

/* n goes while its device stays: its reads in flight would apply to it. */
static void netdev_cancel_reads(NetDev *n) {
        if (n->device->lane)
                reader_lane_cancel(n->device->lane, netdev_job_reads, n);
}

/* fresh's netdevs become d's: one of a name d has already keeps its
 * address and takes the new values, and the old values go to fresh in its
 * place; the ones that went are announced first (d still holds them), the
 * new ones once d holds them. The old array is fresh's, freed with it. */
int device_take_netdevs(Device *d, Device *fresh, PropertyMask *masks) {
        Manager *m = d->manager;
        _cleanup_free_ NetDev **added = calloc(fresh->n_netdevs + 1, sizeof(NetDev *));
        size_t n_added = 0;

        if (!added)
                return -ENOMEM;
        for (size_t i = 0; i < d->n_netdevs; i++) {
                if (netdev_index(fresh, d->netdevs[i]->name) < fresh->n_netdevs)
                        continue;
                netdev_cancel_reads(d->netdevs[i]);
                if (m->events.netdev_removing)
                        m->events.netdev_removing(d->netdevs[i], m->events_userdata);
        }
        for (size_t i = 0; i < fresh->n_netdevs; i++) {
                size_t j = netdev_index(d, fresh->netdevs[i]->name);
                NetDev *kept;

                if (j == d->n_netdevs) {
                        fresh->netdevs[i]->device = d;
                        added[n_added++] = fresh->netdevs[i];
                        continue;
                }
                kept = d->netdevs[j];
                masks[i] = netdev_changed_mask(kept, fresh->netdevs[i]);
                SWAP_VALUES(*kept, *fresh->netdevs[i]);
                kept->device = d;
                SWAP_VALUES(d->netdevs[j], fresh->netdevs[i]);
        }
        SWAP_VALUES(d->netdevs, fresh->netdevs);
        SWAP_VALUES(d->n_netdevs, fresh->n_netdevs);
        for (size_t i = 0; i < n_added; i++)
                if (m->events.netdev_added)
                        m->events.netdev_added(added[i], m->events_userdata);
        return 0;
}
