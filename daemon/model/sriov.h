/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Changing the number of VFs of a PCI physical function: the kernel refuses
 * N → M directly, so it is N → 0 → M, and a
 * failure says what the hardware is left with. Synchronous: the daemon runs
 * it in a worker thread. The I/O is injected so every path is testable. */

typedef struct SriovIo {
        int (*read)(void *userdata, const char *path, uint32_t *ret);   /* -errno */
        int (*write)(void *userdata, const char *path, uint32_t value); /* -errno */
        void *userdata;
} SriovIo;

typedef enum SriovStep {
        SRIOV_STEP_NONE,    /* success */
        SRIOV_STEP_READ,    /* reading the current count failed */
        SRIOV_STEP_DISABLE, /* writing 0 failed */
        SRIOV_STEP_ENABLE,  /* writing the count failed (after disabling) */
        SRIOV_STEP_VERIFY,  /* written, but the driver enabled another number */
} SriovStep;

typedef struct SriovResult {
        SriovStep failed_step;
        int error;        /* -errno of the failed step; 0 on success and on VERIFY */
        uint32_t before;  /* sriov_numvfs found first */
        uint32_t after;   /* sriov_numvfs read last (what the hardware has now) */
        bool after_known; /* false if even that read failed */
        bool wrote;       /* anything was written */
        bool restore_attempted;
        bool restore_ok;
        int restore_error;
} SriovResult;

void sriov_set_num_vfs(const SriovIo *io, const char *numvfs_path, uint32_t count, SriovResult *ret);

/* The D-Bus error message for a failed result: the kernel's errno (name and
 * text), the count the device is left with, whether a restore happened. */
void sriov_result_message(const SriovResult *r, const char *device, uint32_t count, char *buf, size_t size);

/* The real I/O: bounded read and a "%u\n" write of the sysfs file. */
extern const SriovIo sriov_sysfs_io;
