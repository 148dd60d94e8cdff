/* SPDX-License-Identifier: MIT */
#include "pci-function.h"

#include <fcntl.h>
#include <stdio.h>

#include "basic/log.h"
#include "basic/parse.h"
#include "basic/util.h"
#include "manager.h"
#include "properties.h"
#include "read-job.h"
#include "sysfs.h"

Device *pci_function_first_device(Manager *m, const char *pci_path) {
        for (size_t i = 0; i < m->n_devices; i++)
                if (streq(m->devices[i]->device_path, pci_path))
                        return m->devices[i];
        return NULL;
}

/* A VF's RDMA device may appear long after its PF's: each side publishes
 * the relation when the other comes or goes. */
void pci_function_relate(Manager *m, Device *d, bool in_table) {
        /* The PF of the VFs on d's function, now that d came or went. */
        Device *pf = *d->device_path ? pci_function_first_device(m, d->device_path) : NULL;

        if (*d->physfn_path) {
                m->n_virtual_functions += in_table ? 1 : -1;
                d->physical_function = in_table ? pci_function_first_device(m, d->physfn_path) : NULL;
        }
        for (size_t i = 0; i < m->n_devices; i++) {
                Device *o = m->devices[i];

                if (o == d)
                        continue;
                if (*d->physfn_path && streq(o->device_path, d->physfn_path))
                        model_report(m, MODEL_DEVICE, o, PROPERTY_BIT(DEVICE_PROP_VIRTUAL_FUNCTIONS));
                if (*d->device_path && streq(o->physfn_path, d->device_path)) {
                        o->physical_function = pf;
                        model_report(m, MODEL_DEVICE, o, PROPERTY_BIT(DEVICE_PROP_PHYSICAL_FUNCTION));
                }
        }
}

Device *pci_function_next_vf(Manager *m, const Device *pf, size_t *i) {
        assert(m);
        assert(pf);
        assert(i);

        /* A VF has no VFs of its own. */
        if (!*pf->device_path || *pf->physfn_path || m->n_virtual_functions == 0)
                return NULL;
        for (; *i < m->n_devices; (*i)++)
                if (streq(m->devices[*i]->physfn_path, pf->device_path))
                        return m->devices[(*i)++];
        return NULL;
}

/* ---------- sriov_numvfs, read on the lane of a device on the function ---------- */

typedef struct NumVfsJob {
        ReadJob job;
        char *pci_path;
        uint32_t num_vfs;
} NumVfsJob;

static void num_vfs_job_free(ReadJob *j) {
        free(((NumVfsJob *) j)->pci_path);
}

static void num_vfs_job_run(ReaderLane *lane, void *arg) {
        NumVfsJob *nj = arg;
        ReadJob *j = &nj->job;
        char path[4096], buf[64];
        size_t len;
        int r;

        snprintf(path, sizeof(path), "%s/sriov_numvfs", nj->pci_path);
        r = sysfs_read_buf_at(AT_FDCWD, path, buf, sizeof(buf), &len);
        j->error = r < 0 ? r : parse_u32(buf, &nj->num_vfs);
}

static void num_vfs_job_apply(ReadJob *j, const ReaderResult *res) {
        NumVfsJob *nj = (NumVfsJob *) j;

        if (errno_is_resource(j->error))
                resync_defer(j->manager, j->error, nj->pci_path);
        else if (j->error >= 0)
                pci_function_set_num_vfs(j->manager, nj->pci_path, nj->num_vfs);
}

static const ReadJobKind num_vfs_job_kind = {
        .size = sizeof(NumVfsJob),
        .run = num_vfs_job_run,
        .apply = num_vfs_job_apply,
        .free = num_vfs_job_free,
};

int pci_function_read_num_vfs(Manager *m, const char *pci_path) {
        NumVfsJob *nj;

        assert(m);
        assert(pci_path);
        /* On the lane of the first device of that PCI function. */
        for (size_t i = 0; i < m->n_devices; i++) {
                Device *d = m->devices[i];

                if (!d->sriov_capable || !streq(d->device_path, pci_path))
                        continue;
                if (!device_readable(d))
                        return 0;
                nj = (NumVfsJob *) read_job_new(&num_vfs_job_kind, m, d, NULL, NULL);
                if (!nj || !(nj->pci_path = strdup(pci_path))) {
                        read_job_free((ReadJob *) nj);
                        return -ENOMEM;
                }
                return read_job_submit(&nj->job, d->lane);
        }
        return 0;
}

void pci_function_set_num_vfs(Manager *m, const char *pci_path, uint32_t num_vfs) {
        assert(m);
        assert(pci_path);

        for (size_t i = 0; i < m->n_devices; i++) {
                Device *d = m->devices[i];

                if (!d->sriov_capable || !streq(d->device_path, pci_path) || d->num_vfs == num_vfs)
                        continue;
                log_info("%s: %u VFs (was %u).", d->name, num_vfs, d->num_vfs);
                d->num_vfs = num_vfs;
                model_report(m, MODEL_SRIOV, d, PROPERTY_BIT(SRIOV_PROP_NUM_VFS));
        }
}
