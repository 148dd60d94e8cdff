/* SPDX-License-Identifier: MIT */
#include "bus-changes.h"

#include "basic/log.h"
#include "basic/util.h"
#include "model.h"

static size_t slot_of(const PendingChanges *c, const void *object, ModelObjectKind kind) {
        uint64_t h = ((uint64_t) (uintptr_t) object ^ (uint64_t) kind) * UINT64_C(0x9e3779b97f4a7c15);

        return (size_t) (h >> 32) & (c->n_slots - 1);
}

/* The slot of the object's change, or the empty slot where it would go. */
static size_t *find_slot(const PendingChanges *c, const void *object, ModelObjectKind kind) {
        for (size_t i = slot_of(c, object, kind);; i = (i + 1) & (c->n_slots - 1)) {
                size_t *slot = &c->slots[i];

                if (*slot == 0 || (c->changes[*slot - 1].object == object && c->changes[*slot - 1].kind == kind))
                        return slot;
        }
}

/* Twice the slots of the changes (dropped ones included), so that probes stay short. */
static int reindex(PendingChanges *c, size_t n_changes) {
        size_t n = 64, *slots;

        while (n < 2 * n_changes)
                n *= 2;
        if (n <= c->n_slots && c->slots)
                return 0;
        slots = calloc(n, sizeof(size_t));
        if (!slots)
                return -ENOMEM;
        free(c->slots);
        c->slots = slots;
        c->n_slots = n;
        for (size_t i = 0; i < c->n; i++)
                if (c->changes[i].object)
                        *find_slot(c, c->changes[i].object, c->changes[i].kind) = i + 1;
        return 0;
}

void pending_changes_add(PendingChanges *c, ModelObjectKind kind, const void *object, PropertyMask mask) {
        size_t *slot;

        assert(c);

        if (mask == 0 || !object || c->everything)
                return;
        if (reindex(c, c->n + 1) < 0 || ARRAY_RESERVE(c->changes, c->allocated, c->n + 1) < 0) {
                log_oom();
                c->everything = true;
                return;
        }
        slot = find_slot(c, object, kind);
        if (*slot == 0) {
                c->changes[c->n] = (PendingChange){ .object = object, .kind = kind };
                *slot = ++c->n;
        }
        c->changes[*slot - 1].mask |= mask;
}

static void drop(PendingChanges *c, ModelObjectKind kind, const void *object) {
        size_t *slot;

        if (c->n == 0)
                return;
        slot = find_slot(c, object, kind);
        /* The slot stays, pointing at a change no object matches: probes go on past it. */
        if (*slot != 0)
                c->changes[*slot - 1] = (PendingChange){};
}

void pending_changes_drop_device(PendingChanges *c, const Device *d) {
        assert(c);
        assert(d);

        drop(c, MODEL_DEVICE, d);
        drop(c, MODEL_SRIOV, d);
        for (size_t i = 0; i < d->n_ports; i++)
                drop(c, MODEL_PORT, &d->ports[i]);
        for (size_t i = 0; i < d->n_netdevs; i++)
                drop(c, MODEL_NETDEV, d->netdevs[i]);
}

void pending_changes_drop_netdev(PendingChanges *c, const NetDev *n) {
        assert(c);
        assert(n);
        drop(c, MODEL_NETDEV, n);
}

static const Device *owner_of(const PendingChange *x) {
        switch (x->kind) {
        case MODEL_PORT:
                return ((const Port *) x->object)->device;
        case MODEL_NETDEV:
                return ((const NetDev *) x->object)->device;
        default:
                return x->object;
        }
}

/* Within a device: the device, its ports, its netdevs, its SR-IOV control. */
static int kind_rank(ModelObjectKind kind) {
        return kind == MODEL_DEVICE ? 0 : kind == MODEL_PORT ? 1 : kind == MODEL_NETDEV ? 2 : 3;
}

static int change_compare(const void *a, const void *b) {
        const PendingChange *x = a, *y = b;
        int k;

        if (!x->object || !y->object)
                return !x->object - !y->object;
        k = strcmp(owner_of(x)->name, owner_of(y)->name);
        if (k != 0)
                return k;
        if (x->kind != y->kind)
                return kind_rank(x->kind) - kind_rank(y->kind);
        if (x->kind == MODEL_PORT) {
                uint32_t p = ((const Port *) x->object)->number, q = ((const Port *) y->object)->number;
                return p < q ? -1 : p > q;
        }
        if (x->kind == MODEL_NETDEV)
                return strcmp(((const NetDev *) x->object)->name, ((const NetDev *) y->object)->name);
        return 0;
}

void pending_changes_sort(PendingChanges *c) {
        assert(c);

        if (c->n < 2)
                return;
        qsort(c->changes, c->n, sizeof(PendingChange), change_compare);
        /* The index points at the old places: it is cleared with the changes after the emission. */
}

void pending_changes_clear(PendingChanges *c) {
        assert(c);

        if (c->n > 0 && c->slots)
                memset(c->slots, 0, c->n_slots * sizeof(size_t));
        c->n = 0;
        c->everything = false;
        /* The arrays stay for the next iteration's few changes; a burst's go back. */
        if (c->allocated > 256) {
                c->changes = mfree(c->changes);
                c->allocated = 0;
                c->slots = mfree(c->slots);
                c->n_slots = 0;
        }
}

void pending_changes_done(PendingChanges *c) {
        pending_changes_clear(c);
        c->changes = mfree(c->changes);
        c->slots = mfree(c->slots);
        c->allocated = c->n_slots = 0;
}
