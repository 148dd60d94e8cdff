/* SPDX-License-Identifier: MIT */
/* The fresh scan: what a scraper reads for the same answers as rdmad's,
 * the reference of start-up and GetManagedObjects. */
#include "bench-scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

static size_t read_file_at(int dirfd, const char *name) {
        char buf[4096];
        int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return 0;
        n = read(fd, buf, sizeof(buf));
        close(fd);
        return n > 0 ? (size_t) n : 0;
}

static size_t read_dir_files(int dirfd, const char *sub) {
        int fd = openat(dirfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        size_t total = 0;
        struct dirent *de;
        DIR *d;

        if (fd < 0)
                return 0;
        d = fdopendir(fd);
        while ((de = readdir(d))) {
                struct stat st;
                if (de->d_name[0] == '.' || fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISREG(st.st_mode))
                        continue;
                total += read_file_at(fd, de->d_name);
        }
        closedir(d);
        return total;
}

/* Every attribute rdmad publishes, read once: device, power, ports, used
 * GIDs with types and netdevs, the parent's SR-IOV files and netdevs. */
static size_t fresh_scan(void) {
        DIR *class = opendir("/sys/class/infiniband");
        struct dirent *de;
        size_t total = 0;

        assert_non_null(class);
        while ((de = readdir(class))) {
                char path[512], target[512];
                int dev, ports;
                DIR *pd;
                struct dirent *pe;

                if (de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), "/sys/class/infiniband/%s", de->d_name);
                dev = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (dev < 0)
                        continue;
                total += read_dir_files(dev, ".");
                total += read_dir_files(dev, "power");
                ports = openat(dev, "ports", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                pd = ports >= 0 ? fdopendir(ports) : NULL;
                while (pd && (pe = readdir(pd))) {
                        int port, gids;
                        DIR *gd;
                        struct dirent *ge;

                        if (pe->d_name[0] == '.')
                                continue;
                        port = openat(ports, pe->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        total += read_dir_files(port, ".");
                        gids = openat(port, "gids", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        gd = gids >= 0 ? fdopendir(gids) : NULL;
                        while (gd && (ge = readdir(gd))) {
                                char buf[64], sub[300];
                                int fd;
                                ssize_t n;

                                if (ge->d_name[0] == '.')
                                        continue;
                                fd = openat(gids, ge->d_name, O_RDONLY | O_CLOEXEC);
                                n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : 0;
                                if (fd >= 0)
                                        close(fd);
                                if (n <= 0 || strncmp(buf, "0000:0000:0000:0000:0000:0000:0000:0000", 39) == 0)
                                        continue;
                                total += (size_t) n;
                                snprintf(sub, sizeof(sub), "gid_attrs/types/%s", ge->d_name);
                                total += read_file_at(port, sub);
                                snprintf(sub, sizeof(sub), "gid_attrs/ndevs/%s", ge->d_name);
                                total += read_file_at(port, sub);
                        }
                        if (gd)
                                closedir(gd);
                        close(port);
                }
                if (pd)
                        closedir(pd);
                if (readlinkat(dev, "device", target, sizeof(target)) > 0) {
                        int parent = openat(dev, "device", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        int net = openat(parent, "net", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        DIR *nd = net >= 0 ? fdopendir(net) : NULL;

                        total += read_file_at(parent, "sriov_totalvfs") + read_file_at(parent, "sriov_numvfs");
                        total += readlinkat(parent, "driver", target, sizeof(target)) > 0;
                        while (nd && (pe = readdir(nd)))
                                if (pe->d_name[0] != '.')
                                        total += read_dir_files(net, pe->d_name);
                        if (nd)
                                closedir(nd);
                        close(parent);
                }
                close(dev);
        }
        closedir(class);
        return total;
}

/* One fresh scan of the host, timed. */
uint64_t timed_scan_usec(unsigned n) {
        uint64_t t0 = now_usec();

        assert_true(fresh_scan() > 0 || n == 0);
        return now_usec() - t0;
}
