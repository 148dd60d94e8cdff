/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "forward.h"

/* The devices of the table that share a PCI function, and the SR-IOV
 * relations between functions (pci-function.c): a VF's device points to
 * its PF's (Device.physical_function), and sriov_numvfs, the function's,
 * is read on the lane of one of its devices and published by each. */

/* The first device (by name) in the table on the PCI function pci_path:
 * what a VF on it calls its PhysicalFunction; NULL when there is none. */
Device *pci_function_first_device(Manager *m, const char *pci_path);

/* d came into the table (in_table) or left it (no longer in it): the VFs
 * and the PF it is related to point to their PF again and publish their
 * side of the relation. */
void pci_function_relate(Manager *m, Device *d, bool in_table);

/* The i-th device (by name) on a VF of the PF pf, counting from *i; NULL
 * when there is none. */
Device *pci_function_next_vf(Manager *m, const Device *pf, size_t *i);

/* Re-reads sriov_numvfs of the PCI function at pci_path, if a device is on it. */
int pci_function_read_num_vfs(Manager *m, const char *pci_path);

/* The PCI function at pci_path (a PF) has num_vfs VFs now: every device on
 * it publishes the count. */
void pci_function_set_num_vfs(Manager *m, const char *pci_path, uint32_t num_vfs);
