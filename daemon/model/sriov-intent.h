/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* A VF change in flight, recorded in the state directory before the first
 * write and removed after the last: SetNumVfs writes 0, then the count, and
 * a rdmad killed between the two leaves the function with no VFs. The next
 * rdmad finds the record, says so (rdmad(8), "SR-IOV"), and removes it; it
 * never applies it again by itself. One file per PCI function,
 * "sriov-<PCI address>.intent", written atomically (temporary file, fsync,
 * rename). */

typedef struct SriovIntent {
        char device[256];    /* the ibdev name when it started */
        char pci_path[4096]; /* the PF's sysfs directory */
        uint32_t count;      /* asked for */
        uint64_t usec;       /* CLOCK_REALTIME when it started */
} SriovIntent;

/* On the worker thread, before the first write; dirfd < 0: nothing. */
int sriov_intent_record(int dirfd, const SriovIntent *intent);
/* ... and after the last one. */
int sriov_intent_clear(int dirfd, const char *pci_path);

/* At start-up: the records a killed rdmad left, taken out of the directory
 * (removed); a record that does not parse is removed and left out.
 * Caller frees *ret. */
int sriov_intents_take(int dirfd, SriovIntent **ret, size_t *ret_n);
