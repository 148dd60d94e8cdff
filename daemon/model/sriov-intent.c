/* SPDX-License-Identifier: MIT */
#include "sriov-intent.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/parse.h"
#include "basic/util.h"
#include "state-file.h"
#include "sysfs.h"

#define INTENT_PREFIX ".intent"

/* "sriov-0000:5e:00.0.intent" for /sys/devices/.../0000:5e:00.0. */
static int intent_name(const char *pci_path, char *buf, size_t size) {
        const char *slash = strrchr(pci_path, '/');
        const char *base = slash ? slash + 1 : pci_path;

        if (!*base || strchr(base, '/') || base[0] == '.')
                return -EINVAL;
        if ((size_t) snprintf(buf, size, "sriov-%s" INTENT_PREFIX, base) >= size)
                return -ENAMETOOLONG;
        return 0;
}

int sriov_intent_record(int dirfd, const SriovIntent *intent) {
        char name[300], text[4600];
        int n, r;

        if (dirfd < 0)
                return 0;
        r = intent_name(intent->pci_path, name, sizeof(name));
        if (r < 0)
                return r;
        n = snprintf(text, sizeof(text), "device=%s\npci=%s\ncount=%u\nusec=%llu\n", intent->device, intent->pci_path,
                     intent->count, (unsigned long long) intent->usec);
        if (n < 0 || (size_t) n >= sizeof(text))
                return -ENAMETOOLONG;
        return state_file_write_atomic(dirfd, name, text, (size_t) n, 0600);
}

int sriov_intent_clear(int dirfd, const char *pci_path) {
        char name[300];
        int r;

        if (dirfd < 0)
                return 0;
        r = intent_name(pci_path, name, sizeof(name));
        if (r < 0)
                return r;
        if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
                return -errno;
        (void) fsync(dirfd);
        return 0;
}

static int intent_parse(const char *text, SriovIntent *ret) {
        SriovIntent in = {};
        unsigned have = 0;

        for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
                size_t len = strcspn(l, "\n");
                const char *eq = memchr(l, '=', len);
                char value[4096];
                size_t vlen;

                if (!eq)
                        return -EBADMSG;
                vlen = len - (size_t) (eq + 1 - l);
                if (vlen >= sizeof(value))
                        return -EBADMSG;
                memcpy(value, eq + 1, vlen);
                value[vlen] = '\0';
                if (eq - l == 6 && strncmp(l, "device", 6) == 0 && vlen < sizeof(in.device)) {
                        memcpy(in.device, value, vlen + 1);
                        have |= 1;
                } else if (eq - l == 3 && strncmp(l, "pci", 3) == 0 && vlen < sizeof(in.pci_path)) {
                        memcpy(in.pci_path, value, vlen + 1);
                        have |= 2;
                } else if (eq - l == 5 && strncmp(l, "count", 5) == 0 && parse_decimal_u32(value, &in.count) >= 0)
                        have |= 4;
                else if (eq - l == 4 && strncmp(l, "usec", 4) == 0) {
                        char *end;

                        errno = 0;
                        in.usec = strtoull(value, &end, 10);
                        if (errno || *end || !*value)
                                return -EBADMSG;
                        have |= 8;
                }
        }
        if (have != 15)
                return -EBADMSG;
        *ret = in;
        return 0;
}

int sriov_intents_take(int dirfd, SriovIntent **ret, size_t *ret_n) {
        _cleanup_free_ SriovIntent *list = NULL;
        _cleanup_closedir_ DIR *d = NULL;
        size_t n = 0;
        struct dirent *de;
        int r;

        *ret = NULL;
        *ret_n = 0;
        if (dirfd < 0)
                return 0;
        r = sysfs_opendir_at(dirfd, ".", &d);
        if (r < 0)
                return r;
        while ((de = readdir(d))) {
                size_t len = strlen(de->d_name);
                char text[5000];
                SriovIntent in, *grown;
                ssize_t k;
                int f;

                if (strncmp(de->d_name, "sriov-", 6) != 0 || len <= strlen(INTENT_PREFIX) ||
                    strcmp(de->d_name + len - strlen(INTENT_PREFIX), INTENT_PREFIX) != 0)
                        continue;
                f = openat(dirfd, de->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
                k = f >= 0 ? read(f, text, sizeof(text) - 1) : -1;
                if (f >= 0)
                        close(f);
                (void) unlinkat(dirfd, de->d_name, 0);
                if (k <= 0)
                        continue;
                text[k] = '\0';
                if (intent_parse(text, &in) < 0)
                        continue;
                grown = reallocarray(list, n + 1, sizeof(SriovIntent));
                if (!grown)
                        return -ENOMEM;
                list = grown;
                list[n++] = in;
        }
        *ret = TAKE_PTR(list);
        *ret_n = n;
        return 0;
}
