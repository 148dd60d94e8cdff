/* SPDX-License-Identifier: MIT */
#include "enumerate.h"

#include "basic/log.h"
#include "basic/util.h"
#include "device.h"

static void udev_enumerate_unrefp(struct udev_enumerate **e) {
        udev_enumerate_unref(*e);
}

void device_array_free(Device **devices, size_t n) {
        for (size_t i = 0; i < n; i++)
                device_free(devices[i]);
        free(devices);
}

int device_compare_by_name(const void *a, const void *b) {
        return strcmp((*(Device *const *) a)->name, (*(Device *const *) b)->name);
}

int enumerate_devices(struct udev *udev, Device ***ret, size_t *ret_n) {
        _cleanup_strv_free_ char **paths = NULL;
        Device **devices = NULL;
        size_t n_paths, n = 0;
        int r;

        r = enumerate_device_paths(udev, &paths, &n_paths);
        if (r < 0)
                return r;
        devices = calloc(n_paths + 1, sizeof(Device *));
        if (!devices)
                return log_oom();
        for (size_t i = 0; i < n_paths; i++) {
                r = device_load(paths[2 * i], paths[2 * i + 1], &devices[n]);
                if (errno_is_resource(r)) {
                        /* Not "gone": skipping it would unpublish it. */
                        device_array_free(devices, n);
                        return r;
                }
                if (r < 0) {
                        /* Gone between the scan and the read: the remove event follows. */
                        log_warning_errno(r, "Skipping %s: %m", paths[2 * i]);
                        continue;
                }
                n++;
        }

        if (n > 0)
                qsort(devices, n, sizeof(Device *), device_compare_by_name);
        *ret = devices;
        *ret_n = n;
        return 0;
}

int enumerate_device_paths(struct udev *udev, char ***ret, size_t *ret_n) {
        _cleanup_(udev_enumerate_unrefp) struct udev_enumerate *e = NULL;
        _cleanup_strv_free_ char **l = NULL;
        struct udev_list_entry *entry;
        size_t n = 0, allocated = 0;
        int r;

        /* A listing of directories and symlinks: nothing here reads a
         * device's attribute (libudev reads the "uevent" files, which the
         * driver core renders without asking the driver). */
        e = udev_enumerate_new(udev);
        if (!e)
                return -ENOMEM;
        r = udev_enumerate_add_match_subsystem(e, "infiniband");
        if (r < 0)
                return r;
        r = udev_enumerate_scan_devices(e);
        if (errno_is_resource(r))
                return r;
        if (r < 0)
                return log_error_errno(r, "Failed to enumerate infiniband devices: %m");

        udev_list_entry_foreach(entry, udev_enumerate_get_list_entry(e)) {
                const char *syspath = udev_list_entry_get_name(entry);
                const char *name = strrchr(syspath, '/');

                name = name ? name + 1 : syspath;
                if (strv_push_take(&l, &n, &allocated, strdup(syspath)) < 0 ||
                    strv_push_take(&l, &n, &allocated, strdup(name)) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(l);
        *ret_n = n / 2;
        return 0;
}
