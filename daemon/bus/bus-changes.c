/* SPDX-License-Identifier: MIT */
#include "bus-changes.h"

#include "basic/log.h"
#include "basic/util.h"
#include "model.h"

/* The index where name is or would go in the sorted devices. */
static size_t devices_lower_bound(const PendingChanges *c, const char *name) {
        size_t lo = 0, hi = c->n_devices;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (strcmp(c->devices[mid].name, name) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

static PendingDevice *pending_device(PendingChanges *c, const char *name) {
        size_t i = devices_lower_bound(c, name);
        char *copy;

        if (i < c->n_devices && streq(c->devices[i].name, name))
                return &c->devices[i];
        copy = strdup(name);
        if (!copy || ARRAY_RESERVE(c->devices, c->allocated, c->n_devices + 1) < 0) {
                free(copy);
                return NULL;
        }
        memmove(c->devices + i + 1, c->devices + i, (c->n_devices - i) * sizeof(*c->devices));
        c->devices[i] = (PendingDevice){ .name = copy };
        c->n_devices++;
        return &c->devices[i];
}

static uint32_t *pending_port(PendingDevice *d, uint32_t number) {
        size_t i = 0;

        while (i < d->n_ports && d->ports[i].number < number)
                i++;
        if (i < d->n_ports && d->ports[i].number == number)
                return &d->ports[i].mask;
        if (ARRAY_RESERVE(d->ports, d->allocated_ports, d->n_ports + 1) < 0)
                return NULL;
        memmove(d->ports + i + 1, d->ports + i, (d->n_ports - i) * sizeof(*d->ports));
        d->ports[i] = (PendingPort){ .number = number };
        d->n_ports++;
        return &d->ports[i].mask;
}

static uint32_t *pending_netdev(PendingDevice *d, const char *name) {
        size_t i = 0;
        char *copy;

        while (i < d->n_netdevs && strcmp(d->netdevs[i].name, name) < 0)
                i++;
        if (i < d->n_netdevs && streq(d->netdevs[i].name, name))
                return &d->netdevs[i].mask;
        copy = strdup(name);
        if (!copy || ARRAY_RESERVE(d->netdevs, d->allocated_netdevs, d->n_netdevs + 1) < 0) {
                free(copy);
                return NULL;
        }
        memmove(d->netdevs + i + 1, d->netdevs + i, (d->n_netdevs - i) * sizeof(*d->netdevs));
        d->netdevs[i] = (PendingNetDev){ .name = copy };
        d->n_netdevs++;
        return &d->netdevs[i].mask;
}

void pending_changes_add(PendingChanges *c, ModelObjectKind kind, const void *object, uint32_t mask) {
        const Device *owner;
        PendingDevice *d;
        uint32_t *bits = NULL;

        assert(c);

        if (mask == 0 || c->everything)
                return;
        switch (kind) {
        case MODEL_DEVICE:
        case MODEL_SRIOV:
                owner = object;
                break;
        case MODEL_PORT:
                owner = ((const Port *) object)->device;
                break;
        case MODEL_NETDEV:
                owner = ((const NetDev *) object)->device;
                break;
        default:
                return;
        }

        d = pending_device(c, owner->name);
        if (d)
                switch (kind) {
                case MODEL_DEVICE:
                        bits = &d->device;
                        break;
                case MODEL_SRIOV:
                        bits = &d->sriov;
                        break;
                case MODEL_PORT:
                        bits = pending_port(d, ((const Port *) object)->number);
                        break;
                default:
                        bits = pending_netdev(d, ((const NetDev *) object)->name);
                        break;
                }
        if (!bits) {
                log_oom();
                c->everything = true;
                return;
        }
        *bits |= mask;
}

static void pending_device_done(PendingDevice *d) {
        for (size_t i = 0; i < d->n_netdevs; i++)
                free(d->netdevs[i].name);
        free(d->netdevs);
        free(d->ports);
        free(d->name);
}

void pending_changes_drop_device(PendingChanges *c, const char *device) {
        size_t i;

        assert(c);
        assert(device);

        i = devices_lower_bound(c, device);
        if (i >= c->n_devices || !streq(c->devices[i].name, device))
                return;
        pending_device_done(&c->devices[i]);
        memmove(c->devices + i, c->devices + i + 1, (c->n_devices - i - 1) * sizeof(*c->devices));
        c->n_devices--;
}

void pending_changes_drop_netdev(PendingChanges *c, const char *device, const char *netdev) {
        size_t i;

        assert(c);

        i = devices_lower_bound(c, device);
        if (i >= c->n_devices || !streq(c->devices[i].name, device))
                return;
        for (size_t j = 0; j < c->devices[i].n_netdevs; j++) {
                PendingDevice *d = &c->devices[i];

                if (!streq(d->netdevs[j].name, netdev))
                        continue;
                free(d->netdevs[j].name);
                memmove(d->netdevs + j, d->netdevs + j + 1, (d->n_netdevs - j - 1) * sizeof(*d->netdevs));
                d->n_netdevs--;
                return;
        }
}

void pending_changes_clear(PendingChanges *c) {
        assert(c);

        for (size_t i = 0; i < c->n_devices; i++)
                pending_device_done(&c->devices[i]);
        c->n_devices = 0;
        c->everything = false;
        /* The array stays for the next iteration's few changes; a burst's goes back. */
        if (c->allocated > 64) {
                c->devices = mfree(c->devices);
                c->allocated = 0;
        }
}

void pending_changes_done(PendingChanges *c) {
        pending_changes_clear(c);
        c->devices = mfree(c->devices);
        c->allocated = 0;
}
