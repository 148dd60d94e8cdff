/* SPDX-License-Identifier: MIT */
#include "sriov.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basic/parse.h"
#include "basic/util.h"
#include "sysfs.h"

static void reread(const SriovIo *io, const char *path, SriovResult *r) {
        r->after_known = io->read(io->userdata, path, &r->after) >= 0;
}

void sriov_set_num_vfs(const SriovIo *io, const char *path, uint32_t count, SriovResult *ret) {
        int k;

        *ret = (SriovResult){};
        k = io->read(io->userdata, path, &ret->before);
        if (k < 0) {
                ret->failed_step = SRIOV_STEP_READ;
                ret->error = k;
                return;
        }
        ret->after = ret->before;
        ret->after_known = true;
        if (ret->before == count)
                return; /* nothing to write */

        if (ret->before != 0) {
                ret->wrote = true;
                k = io->write(io->userdata, path, 0);
                if (k < 0) {
                        ret->failed_step = SRIOV_STEP_DISABLE;
                        ret->error = k;
                        reread(io, path, ret);
                        return;
                }
        }

        if (count != 0) {
                ret->wrote = true;
                k = io->write(io->userdata, path, count);
                if (k < 0) {
                        ret->failed_step = SRIOV_STEP_ENABLE;
                        ret->error = k;
                        /* The VFs were taken away for this: try to give them back. */
                        if (ret->before != 0) {
                                uint32_t now = 0;

                                ret->restore_attempted = true;
                                ret->restore_error = io->write(io->userdata, path, ret->before);
                                if (ret->restore_error >= 0) {
                                        ret->restore_error = io->read(io->userdata, path, &now);
                                        if (ret->restore_error >= 0 && now != ret->before)
                                                ret->restore_error = -EIO;
                                }
                                ret->restore_ok = ret->restore_error >= 0;
                        }
                        reread(io, path, ret);
                        return;
                }
        }

        /* A driver may enable fewer than asked: only the re-read counts. */
        reread(io, path, ret);
        if (!ret->after_known || ret->after != count)
                ret->failed_step = SRIOV_STEP_VERIFY;
}

static const char *errno_name(int e) {
        const char *n = strerrorname_np(e);
        return n ?: "unknown errno";
}

void sriov_result_message(const SriovResult *r, const char *device, uint32_t count, char *buf, size_t size) {
        char now[64];

        if (r->after_known)
                snprintf(now, sizeof(now), "NumVfs is now %u.", r->after);
        else
                snprintf(now, sizeof(now), "NumVfs is now unknown (cannot read sriov_numvfs).");

        switch (r->failed_step) {
        case SRIOV_STEP_NONE:
                snprintf(buf, size, "%s: %u VFs enabled.", device, count);
                break;
        case SRIOV_STEP_READ:
                snprintf(buf, size, "Cannot read the VF count of %s: %s (%s). Nothing was written.", device,
                         strerror(-r->error), errno_name(-r->error));
                break;
        case SRIOV_STEP_DISABLE:
                snprintf(buf, size, "Cannot disable the %u VFs of %s: %s (%s). %s", r->before, device,
                         strerror(-r->error), errno_name(-r->error), now);
                break;
        case SRIOV_STEP_ENABLE:
                if (!r->restore_attempted)
                        snprintf(buf, size, "Cannot enable %u VFs on %s: %s (%s). %s", count, device,
                                 strerror(-r->error), errno_name(-r->error), now);
                else if (r->restore_ok)
                        snprintf(buf, size,
                                 "Cannot enable %u VFs on %s: %s (%s). The previous %u VFs were restored. %s", count,
                                 device, strerror(-r->error), errno_name(-r->error), r->before, now);
                else
                        snprintf(buf, size,
                                 "Cannot enable %u VFs on %s: %s (%s). Restoring the previous %u VFs failed too: "
                                 "%s (%s). %s",
                                 count, device, strerror(-r->error), errno_name(-r->error), r->before,
                                 strerror(-r->restore_error), errno_name(-r->restore_error), now);
                break;
        case SRIOV_STEP_VERIFY:
                if (r->after_known)
                        snprintf(buf, size, "%u VFs requested on %s, the driver enabled %u. %s", count, device,
                                 r->after, now);
                else
                        snprintf(buf, size, "%u VFs requested on %s; %s", count, device, now);
                break;
        }
}

/* Blocking, unlike the event loop's reads: this runs in the worker, and a
 * driver may make the read wait. */
static int sysfs_io_read(void *userdata, const char *path, uint32_t *ret) {
        _cleanup_close_ int fd = -EBADF;
        char buf[64];
        ssize_t n;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                return negative_errno();
        n = (ssize_t) sysfs_trim_trailing_space(buf, (size_t) n);
        buf[n] = '\0';
        return parse_u32(buf, ret);
}

static int sysfs_io_write(void *userdata, const char *path, uint32_t value) {
        _cleanup_close_ int fd = -EBADF;
        char buf[16];
        int len;
        ssize_t n;

        /* O_TRUNC: sysfs ignores it; a plain file (a test tree) needs it. */
        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        len = snprintf(buf, sizeof(buf), "%u\n", value);
        n = write(fd, buf, (size_t) len);
        if (n < 0)
                return negative_errno();
        if (n != len)
                return -EIO;
        return 0;
}

const SriovIo sriov_sysfs_io = {
        .read = sysfs_io_read,
        .write = sysfs_io_write,
};
