/* SPDX-License-Identifier: MIT */
#include "state-file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

int state_file_write_atomic(int dir_fd, const char *name, const char *text, size_t len, mode_t mode) {
        char tmp[NAME_MAX + 1];
        size_t done = 0;
        int fd, r = 0;

        if ((size_t) snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= sizeof(tmp))
                return -ENAMETOOLONG;
        fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
        if (fd < 0)
                return -errno;
        while (done < len) {
                ssize_t k = write(fd, text + done, len - done);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0) {
                        r = k < 0 ? -errno : -EIO;
                        break;
                }
                done += (size_t) k;
        }
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        if (close(fd) < 0 && r >= 0 && errno != EINTR)
                r = -errno;
        if (r >= 0 && renameat(dir_fd, tmp, dir_fd, name) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlinkat(dir_fd, tmp, 0);
                return r;
        }
        /* The rename itself on disk. */
        (void) fsync(dir_fd);
        return 0;
}
