/* SPDX-License-Identifier: MIT */
/* A test verbs library, preloaded into rdmad in front of umockdev's: the
 * verbs calls rdmad makes, on the testbed, with the real <infiniband/verbs.h>
 * types. Controlled through the directory $RDMAD_VERBS_STUB_DIR:
 *
 *   log            what happened, a line each: "open NAME", "open-failed NAME
 *                  ERRNO", "close NAME got=N acked=N", and "reread NAME PORT"
 *                  for every open of a port's phys_state (a port re-read;
 *                  not with RDMAD_VERBS_STUB_NO_REREADS set, which the bench
 *                  sets: the log's writes are not the daemon's work).
 *   fail-NAME      "EACCES" or "ENODEV": ibv_open_device() of NAME fails so.
 *   broken-NAME    every context of NAME fails its first event read (EIO).
 *   hold-NAME      ibv_open_device() of NAME logs "opening NAME" and waits
 *                  until this file is gone (at most a minute) before it
 *                  opens: the test acts while the open runs.
 *   NAME.events    a FIFO (made on the first open): the context's async_fd.
 *                  The test writes StubEvent records into it; type
 *                  STUB_EVENT_READ_ERROR makes that read fail with EIO.
 *
 * The device list is the testbed's /sys/class/infiniband_verbs/<node>, each
 * named by its ibdev file, as libibverbs lists them; like libibverbs, the
 * listing also opens each device's node_type. */
#undef _FILE_OFFSET_BITS
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verbs-stub.h"

typedef struct StubDevice {
        struct ibv_device device;
        int refs; /* the lists and contexts that point to it */
} StubDevice;

typedef struct StubContext {
        struct ibv_context context;
        StubDevice *device;
        unsigned long got, acked;
        int fail_next; /* broken-NAME: the first read fails */
} StubContext;

/* The context whose event was handed out last and not yet acknowledged. */
static StubContext *unacked;

int openat(int dirfd, const char *path, int flags, ...);
int openat64(int dirfd, const char *path, int flags, ...);

static const char *stub_dir(void) {
        return getenv("RDMAD_VERBS_STUB_DIR");
}

static void stub_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void stub_log(const char *fmt, ...) {
        const char *dir = stub_dir();
        char path[PATH_MAX], line[512];
        va_list ap;
        int fd, n;

        if (!dir)
                return;
        va_start(ap, fmt);
        n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t) n >= sizeof(line) - 1)
                return;
        line[n++] = '\n';
        snprintf(path, sizeof(path), "%s/log", dir);
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0)
                return;
        /* One write, O_APPEND: lines never interleave. */
        (void) !write(fd, line, (size_t) n);
        close(fd);
}

/* The contents of <dir>/<prefix><name>, first word; "" if absent. */
static void stub_control(const char *prefix, const char *name, char *buf, size_t size) {
        char path[PATH_MAX];
        FILE *f;

        buf[0] = '\0';
        if (!stub_dir())
                return;
        snprintf(path, sizeof(path), "%s/%s%s", stub_dir(), prefix, name);
        f = fopen(path, "re");
        if (!f)
                return;
        if (!fgets(buf, (int) size, f))
                buf[0] = '\0';
        buf[strcspn(buf, " \n")] = '\0';
        fclose(f);
        if (!buf[0])
                snprintf(buf, size, "yes");
}

static void device_unref(StubDevice *d) {
        if (d && --d->refs == 0)
                free(d);
}

struct ibv_device **ibv_get_device_list(int *num_devices) {
        struct ibv_device **list = NULL;
        size_t n = 0;
        DIR *dir;
        struct dirent *de;

        if (num_devices)
                *num_devices = 0;
        dir = opendir("/sys/class/infiniband_verbs");
        list = calloc(1, sizeof(*list));
        if (!list) {
                if (dir)
                        closedir(dir);
                errno = ENOMEM;
                return NULL;
        }
        while (dir && (de = readdir(dir))) {
                char path[PATH_MAX], name[IBV_SYSFS_NAME_MAX] = "";
                struct ibv_device **grown;
                StubDevice *d;
                FILE *f;

                if (strncmp(de->d_name, "uverbs", 6) != 0 || strlen(de->d_name) > 32)
                        continue;
                snprintf(path, sizeof(path), "/sys/class/infiniband_verbs/%s/ibdev", de->d_name);
                f = fopen(path, "re");
                if (!f)
                        continue;
                if (!fgets(name, sizeof(name), f))
                        name[0] = '\0';
                fclose(f);
                name[strcspn(name, "\n")] = '\0';
                if (!name[0])
                        continue;
                grown = realloc(list, (n + 2) * sizeof(*list));
                d = calloc(1, sizeof(StubDevice));
                if (!grown || !d) {
                        free(d);
                        list = grown ?: list;
                        break;
                }
                list = grown;
                d->refs = 1;
                d->device.node_type = IBV_NODE_CA;
                d->device.transport_type = IBV_TRANSPORT_IB;
                snprintf(d->device.name, sizeof(d->device.name), "%s", name);
                snprintf(d->device.dev_name, sizeof(d->device.dev_name), "%.32s", de->d_name);
                snprintf(d->device.dev_path, sizeof(d->device.dev_path), "/sys/class/infiniband_verbs/%.32s",
                         de->d_name);
                snprintf(d->device.ibdev_path, sizeof(d->device.ibdev_path), "/sys/class/infiniband/%.63s", name);
                /* As libibverbs does for each device it lists: a read of
                 * the device's own sysfs (a sick device's can hang). */
                snprintf(path, sizeof(path), "%s/node_type", d->device.ibdev_path);
                f = fopen(path, "re");
                if (f) {
                        char type[64];

                        if (!fgets(type, sizeof(type), f))
                                type[0] = '\0';
                        fclose(f);
                }
                list[n++] = &d->device;
                list[n] = NULL;
        }
        if (dir)
                closedir(dir);
        if (num_devices)
                *num_devices = (int) n;
        return list;
}

void ibv_free_device_list(struct ibv_device **list) {
        for (size_t i = 0; list && list[i]; i++)
                device_unref((StubDevice *) list[i]);
        free(list);
}

const char *ibv_get_device_name(struct ibv_device *device) {
        return device->name;
}

struct ibv_context *ibv_open_device(struct ibv_device *device) {
        StubDevice *d = (StubDevice *) device;
        char fail[32], broken[32], path[PATH_MAX];
        StubContext *c;
        int fd;

        stub_control("fail-", device->name, fail, sizeof(fail));
        if (fail[0]) {
                int error = strcmp(fail, "ENODEV") == 0 ? ENODEV : EACCES;

                stub_log("open-failed %s %d", device->name, error);
                errno = error;
                return NULL;
        }
        if (!stub_dir()) {
                errno = ENODEV;
                return NULL;
        }
        snprintf(path, sizeof(path), "%s/hold-%s", stub_dir(), device->name);
        if (access(path, F_OK) == 0) {
                stub_log("opening %s", device->name);
                for (int i = 0; i < 6000 && access(path, F_OK) == 0; i++)
                        usleep(10 * 1000);
        }
        snprintf(path, sizeof(path), "%s/%s.events", stub_dir(), device->name);
        if (mkfifo(path, 0666) < 0 && errno != EEXIST)
                return NULL;
        (void) chmod(path, 0666);
        /* O_RDWR: a FIFO that is never at end of file, whoever writes. */
        fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        /* Room for a storm of records queued while rdmad is stopped. */
        (void) fcntl(fd, F_SETPIPE_SZ, 1024 * 1024);
        c = calloc(1, sizeof(StubContext));
        if (!c) {
                close(fd);
                errno = ENOMEM;
                return NULL;
        }
        stub_control("broken-", device->name, broken, sizeof(broken));
        c->fail_next = broken[0] != '\0';
        if (c->fail_next) {
                StubEvent ev = { .type = STUB_EVENT_READ_ERROR };
                (void) !write(fd, &ev, sizeof(ev));
        }
        d->refs++;
        c->device = d;
        c->context.device = device;
        c->context.cmd_fd = -1;
        c->context.async_fd = fd;
        stub_log("open %s", device->name);
        return &c->context;
}

int ibv_close_device(struct ibv_context *context) {
        StubContext *c = (StubContext *) context;

        stub_log("close %s got=%lu acked=%lu", context->device->name, c->got, c->acked);
        if (unacked == c)
                unacked = NULL;
        close(context->async_fd);
        device_unref(c->device);
        free(c);
        return 0;
}

int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event) {
        StubContext *c = (StubContext *) context;
        StubEvent ev;
        ssize_t n = read(context->async_fd, &ev, sizeof(ev));

        if (n < 0)
                return -1;
        if (n != sizeof(ev) || ev.type == STUB_EVENT_READ_ERROR) {
                errno = EIO;
                return -1;
        }
        memset(event, 0, sizeof(*event));
        event->event_type = (enum ibv_event_type) ev.type;
        event->element.port_num = (int) ev.port;
        c->got++;
        /* A second event before the first is acknowledged: counted as never acknowledged. */
        unacked = c;
        return 0;
}

/* Acknowledges the event handed out last; one without an event before it
 * counts nowhere, so acked > got never hides a missing acknowledgement. */
void ibv_ack_async_event(struct ibv_async_event *event) {
        (void) event;
        if (unacked)
                unacked->acked++;
        unacked = NULL;
}

/* dirfd/path as an absolute path (the testbed's real one), or NULL. */
static const char *full_path(int dirfd, const char *path, char *buf, size_t size) {
        char link[64];
        ssize_t n;

        if (path[0] == '/' || dirfd == AT_FDCWD)
                return path;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
        n = readlink(link, buf, size - 1);
        if (n < 0)
                return NULL;
        buf[n] = '\0';
        return (size_t) snprintf(buf + n, size - (size_t) n, "/%s", path) < size - (size_t) n ? buf : NULL;
}

/* ".../infiniband/NAME/ports/N/phys_state" is a port re-read: logged. */
static void note_open(int dirfd, const char *path) {
        char buf[2 * PATH_MAX], name[IBV_SYSFS_NAME_MAX];
        const char *full, *s, *e;
        unsigned port;

        if (!stub_dir() || getenv("RDMAD_VERBS_STUB_NO_REREADS") || !strstr(path, "phys_state") ||
            !(full = full_path(dirfd, path, buf, sizeof(buf))))
                return;
        s = strstr(full, "/infiniband/");
        e = full + strlen(full) - strlen("/phys_state");
        if (!s || e <= s || strcmp(e, "/phys_state") != 0)
                return;
        s += strlen("/infiniband/");
        if (sscanf(s, "%63[^/]/ports/%u/phys_state", name, &port) == 2)
                stub_log("reread %s %u", name, port);
}

#define DEFINE_OPEN_WRAPPER(symbol)                                                                                    \
        int symbol(int dirfd, const char *path, int flags, ...) {                                                      \
                static int (*next)(int, const char *, int, ...);                                                       \
                int (*real)(int, const char *, int, ...) = __atomic_load_n(&next, __ATOMIC_RELAXED);                   \
                mode_t mode = 0;                                                                                       \
                int saved = errno;                                                                                     \
                if (flags & (O_CREAT | O_TMPFILE)) {                                                                   \
                        va_list ap;                                                                                    \
                        va_start(ap, flags);                                                                           \
                        mode = va_arg(ap, mode_t);                                                                     \
                        va_end(ap);                                                                                    \
                }                                                                                                      \
                if (!real) /* looked up once: rdmad's reads pay no lookup each */                                      \
                        __atomic_store_n(&next,                                                                        \
                                         real = (int (*)(int, const char *, int, ...)) dlsym(RTLD_NEXT, #symbol),      \
                                         __ATOMIC_RELAXED);                                                            \
                note_open(dirfd, path);                                                                                \
                errno = saved;                                                                                         \
                return real(dirfd, path, flags, mode);                                                                 \
        }

DEFINE_OPEN_WRAPPER(openat)
DEFINE_OPEN_WRAPPER(openat64)
