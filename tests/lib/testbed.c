/* SPDX-License-Identifier: MIT */
#include "testbed.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <ftw.h>
#include <sched.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <pwd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <cmocka.h>

#include "harness.h"
#include "harness-private.h"

/* In place, as the kernel changes a sysfs file (umockdev's set_attribute
 * replaces the file, which a descriptor kept open would not see). The
 * kernel's change is one step; truncating and writing are two, and a read
 * between them would see an empty file, a change the kernel never makes:
 * the daemon is paused around them unless the caller paused it already. */
void harness_write(Harness *h, const char *devpath, const char *name, const char *value) {
        char *root = umockdev_testbed_get_root_dir(h->testbed), path[1024];
        bool pause = h->daemon_pid > 0 && !h->daemon_paused;
        int fd;

        snprintf(path, sizeof(path), "%s%s/%s", root, devpath, name);
        g_free(root);
        if (pause)
                harness_pause(h);
        fd = open(path, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
                fail_msg("Cannot write %s: %m", path);
        assert_int_equal(write(fd, value, strlen(value)), (ssize_t) strlen(value));
        assert_int_equal(close(fd), 0);
        if (pause)
                harness_resume(h);
}

char *harness_read(Harness *h, const char *devpath, const char *name) {
        char *root = umockdev_testbed_get_root_dir(h->testbed), path[1024], *text;
        FILE *f;

        snprintf(path, sizeof(path), "%s%s/%s", root, devpath, name);
        g_free(root);
        f = fopen(path, "re");
        if (!f)
                fail_msg("Cannot read %s: %m", path);
        text = read_all(f);
        fclose(f);
        return text;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

void harness_remove(Harness *h, const char *path) {
        char *root = umockdev_testbed_get_root_dir(h->testbed), full[1024];

        snprintf(full, sizeof(full), "%s%s", root, path);
        g_free(root);
        if (nftw(full, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0)
                fail_msg("Cannot remove %s: %m", full);
}

void harness_add_device(Harness *h, const char *record) {
        GError *error = NULL;

        if (!umockdev_testbed_add_from_string(h->testbed, record, &error))
                fail_msg("Cannot add %s: %s", record, error->message);
        harness_grant_sriov(h);
}

/* A rename as the kernel makes it: the device directory and its link in
 * /sys/class/<class> renamed, `property` (the name udev reports) set, and
 * only "move" sent with DEVPATH_OLD, all while the daemon is paused. */
static void rename_in_class(Harness *h, const char *syspath, const char *class, const char *property,
                            const char *new_name) {
        char *root = umockdev_testbed_get_root_dir(h->testbed);
        const char *old_name = strrchr(syspath, '/') + 1;
        char from[512], to[512], new_syspath[512], link_target[512], old_devpath[512];
        ssize_t n;

        snprintf(new_syspath, sizeof(new_syspath), "%.*s%s", (int) (old_name - syspath), syspath, new_name);
        snprintf(old_devpath, sizeof(old_devpath), "%s", syspath + strlen("/sys"));

        harness_pause(h);
        snprintf(from, sizeof(from), "%s%s", root, syspath);
        snprintf(to, sizeof(to), "%s%s", root, new_syspath);
        assert_int_equal(rename(from, to), 0);
        snprintf(from, sizeof(from), "%s/sys/class/%s/%s", root, class, old_name);
        n = readlink(from, link_target, sizeof(link_target) - 1);
        assert_true(n > (ssize_t) strlen(old_name));
        snprintf(link_target + n - strlen(old_name), sizeof(link_target) - (size_t) n + strlen(old_name), "%s",
                 new_name);
        assert_int_equal(unlink(from), 0);
        snprintf(to, sizeof(to), "%s/sys/class/%s/%s", root, class, new_name);
        assert_int_equal(symlink(link_target, to), 0);
        g_free(root);
        umockdev_testbed_set_property(h->testbed, new_syspath, property, new_name);
        umockdev_testbed_set_property(h->testbed, new_syspath, "DEVPATH_OLD", old_devpath);
        umockdev_testbed_uevent(h->testbed, new_syspath, "move");
        harness_resume(h);
}

void harness_rename_device(Harness *h, const char *syspath, const char *new_name) {
        rename_in_class(h, syspath, "infiniband", "NAME", new_name);
}

void harness_rename_netdev(Harness *h, const char *syspath, const char *new_name) {
        rename_in_class(h, syspath, "net", "INTERFACE", new_name);
}

void harness_add_rxe5(Harness *h) {
        harness_add_device(h, "P: /devices/virtual/infiniband/rxe5\n"
                              "E: SUBSYSTEM=infiniband\n"
                              "E: NAME=rxe5\n"
                              "A: node_type=1: CA\\n\n"
                              "A: ports/1/state=4: ACTIVE\\n\n"
                              "A: ports/1/phys_state=5: LinkUp\\n\n"
                              "A: ports/1/link_layer=Ethernet\\n\n");
}

char *harness_fifo_numvfs(Harness *h, const char *devpath) {
        char *root = umockdev_testbed_get_root_dir(h->testbed), *fifo = NULL;

        assert_true(asprintf(&fifo, "%s%s/sriov_numvfs", root, devpath) > 0);
        g_free(root);
        assert_int_equal(unlink(fifo), 0);
        assert_int_equal(mkfifo(fifo, 0644), 0);
        harness_grant_sriov(h); /* the daemon's user may write it, as the real file */
        return fifo;
}

/* How long the test plays the slow driver before it gives up on the worker. */
static uint64_t fifo_bound_ms(void) {
        return harness_time_bound((uint64_t) HARNESS_WAIT_MS * 1000) / 1000;
}

void harness_fifo_serve_read(const char *fifo, const char *value) {
        uint64_t start = now_ms();
        int fd;

        /* Non-blocking: ENXIO until the worker opens its end to read. */
        while ((fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
                if (errno != ENXIO)
                        fail_msg("open %s: %m", fifo);
                if (now_ms() - start > fifo_bound_ms())
                        fail_msg("waited %.1f s for the worker to read %s; last seen: no reader",
                                 (now_ms() - start) / 1e3, fifo);
                usleep(1000);
        }
        assert_int_equal(fcntl(fd, F_SETFL, 0), 0);
        assert_int_equal(write(fd, value, strlen(value)), (ssize_t) strlen(value));
        /* Until the worker has taken it: a harness_fifo_expect_writes()
         * right after must not open the FIFO and read the value back. */
        for (;;) {
                int left = 0;

                assert_int_equal(ioctl(fd, FIONREAD, &left), 0);
                if (left == 0)
                        break;
                if (now_ms() - start > fifo_bound_ms())
                        fail_msg("waited %.1f s for the worker to read \"%s\" from %s; last seen: %d bytes unread",
                                 (now_ms() - start) / 1e3, value, fifo, left);
                usleep(1000);
        }
        close(fd);
}

/* The read end stays open throughout: closing it between two of the
 * worker's writes would make the second fail with EPIPE. */
void harness_fifo_expect_writes(const char *fifo, const char *expected) {
        size_t want = strlen(expected), got = 0;
        uint64_t start = now_ms();
        char buf[64];
        int fd;

        assert_true(want < sizeof(buf));
        /* Non-blocking: open at once, and every read bounded. */
        fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        assert_true(fd >= 0);
        while (got < want) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                ssize_t n;

                if (now_ms() - start > fifo_bound_ms()) {
                        buf[got] = '\0';
                        fail_msg("waited %.1f s for the worker to write \"%s\" to %s; last seen: \"%s\"",
                                 (now_ms() - start) / 1e3, expected, fifo, buf);
                }
                (void) poll(&p, 1, 10);
                n = read(fd, buf + got, want - got);
                if (n < 0 && errno != EAGAIN)
                        fail_msg("read %s: %m", fifo);
                if (n <= 0)
                        usleep(1000); /* no writer yet, or between two opens of the writer */
                else
                        got += (size_t) n;
        }
        close(fd);
        buf[got] = '\0';
        assert_string_equal(buf, expected);
}
