/* SPDX-License-Identifier: MIT */
/* From a failed bus call, or memory run out, to a message and an exit status. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/bus-path.h"
#include "api/rdmad-api.h"
#include "basic/util.h"
#include "bus-errors.h"

static bool startswith(const char *s, const char *prefix) {
        return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* errno values with which connecting to the bus fails. */
static bool errno_is_unreachable(int r) {
        switch (-r) {
        case ENOENT:
        case ECONNREFUSED:
        case ECONNRESET:
        case ENOTCONN:
        case EPIPE:
        case ENOMEDIUM:
        case EHOSTDOWN:
        case ESHUTDOWN:
                return true;
        default:
                return false;
        }
}

BusFailure classify_bus_error(int r, const sd_bus_error *error) {
        const char *name = error && sd_bus_error_is_set(error) ? error->name : NULL;

        /* sd-bus describes local failures as "System.Error.<ERRNO>". */
        if (!name || startswith(name, "System.Error."))
                return errno_is_unreachable(r) ? BUS_FAILURE_UNREACHABLE : BUS_FAILURE_OTHER;
        if (streq(name, SD_BUS_ERROR_SERVICE_UNKNOWN) || streq(name, SD_BUS_ERROR_NAME_HAS_NO_OWNER) ||
            startswith(name, DBUS_ERROR_SPAWN_PREFIX) || startswith(name, "org.freedesktop.systemd1."))
                return BUS_FAILURE_NOT_RUNNING;
        /* NoReply is also sd-bus's word for its own call timeout: then rdmad
         * is there but slow (a driver creating VFs), not gone. */
        if (streq(name, SD_BUS_ERROR_NO_REPLY) && r == -ETIMEDOUT)
                return BUS_FAILURE_TIMEOUT;
        if (streq(name, SD_BUS_ERROR_NO_REPLY) || streq(name, SD_BUS_ERROR_DISCONNECTED))
                return BUS_FAILURE_WENT_AWAY;
        if (streq(name, RDMAD_ERROR_NO_SUCH_DEVICE) || streq(name, SD_BUS_ERROR_UNKNOWN_OBJECT))
                return BUS_FAILURE_NO_SUCH_DEVICE;
        if (streq(name, RDMAD_ERROR_TIMEOUT))
                return BUS_FAILURE_TIMEOUT;
        if (streq(name, SD_BUS_ERROR_ACCESS_DENIED) || streq(name, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED) ||
            streq(name, SD_BUS_ERROR_AUTH_FAILED))
                return BUS_FAILURE_PERMISSION;
        if (streq(name, RDMAD_ERROR_INVALID_ARGUMENT) || streq(name, SD_BUS_ERROR_INVALID_ARGS))
                return BUS_FAILURE_INVALID_ARGUMENT;
        if (streq(name, RDMAD_ERROR_NO_ROUTE))
                return BUS_FAILURE_NO_ROUTE;
        if (streq(name, RDMAD_ERROR_NOT_RDMA))
                return BUS_FAILURE_NOT_RDMA;
        if (streq(name, RDMAD_ERROR_NO_GID))
                return BUS_FAILURE_NO_GID;
        return BUS_FAILURE_OTHER;
}

int exit_status_for(BusFailure f) {
        switch (f) {
        case BUS_FAILURE_UNREACHABLE:
        case BUS_FAILURE_NOT_RUNNING:
        case BUS_FAILURE_WENT_AWAY:
                return EXIT_NOT_RUNNING;
        case BUS_FAILURE_NO_SUCH_DEVICE:
                return EXIT_NO_SUCH_DEVICE;
        case BUS_FAILURE_TIMEOUT:
                return EXIT_TIMEOUT;
        case BUS_FAILURE_PERMISSION:
                return EXIT_PERMISSION;
        case BUS_FAILURE_INVALID_ARGUMENT:
                return EXIT_USAGE;
        case BUS_FAILURE_NO_ROUTE:
                return EXIT_NO_ROUTE;
        case BUS_FAILURE_NOT_RDMA:
                return EXIT_NOT_RDMA;
        case BUS_FAILURE_NO_GID:
                return EXIT_NO_GID;
        case BUS_FAILURE_OTHER:
                break;
        }
        return EXIT_FAILURE_GENERIC;
}

/* One of our object paths as people name the object: "mlx5_0", "mlx5_0/1",
 * "mlx5_0 netdev ens1f0np0", "mlx5_0 SR-IOV"; NULL for any other text. */
static char *object_name(const char *path) {
        BusPath parsed;
        char *name = NULL;
        int r = -1;

        if (bus_path_parse(path, &parsed) <= 0)
                return NULL;
        switch (parsed.kind) {
        case BUS_PATH_DEVICE:
                r = asprintf(&name, "%s", parsed.device);
                break;
        case BUS_PATH_PORT:
                r = asprintf(&name, "%s/%" PRIu32, parsed.device, parsed.port);
                break;
        case BUS_PATH_NETDEV:
                r = asprintf(&name, "%s netdev %s", parsed.device, parsed.ifname);
                break;
        case BUS_PATH_SRIOV:
                r = asprintf(&name, "%s SR-IOV", parsed.device);
                break;
        }
        return r < 0 ? NULL : name;
}

char *message_unescape_paths(const char *message) {
        static const char prefix[] = RDMAD_DEVICE_PREFIX "/";
        static const char path_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/";
        char *out = NULL;
        size_t size = 0;
        FILE *f;

        if (!message)
                return NULL;
        f = open_memstream(&out, &size);
        if (!f)
                return NULL;
        for (const char *s = message; *s;) {
                const char *at = strstr(s, prefix);
                char path[4096], *name;
                size_t len;

                if (!at) {
                        fputs(s, f);
                        break;
                }
                fwrite(s, 1, (size_t) (at - s), f);
                len = strspn(at, path_chars);
                while (len > 0 && at[len - 1] == '/') /* a sentence's slash is not the path's */
                        len--;
                name = NULL;
                if (len < sizeof(path)) {
                        memcpy(path, at, len);
                        path[len] = '\0';
                        name = object_name(path);
                }
                if (name)
                        fputs(name, f);
                else
                        fwrite(at, 1, len, f);
                free(name);
                s = at + len;
        }
        if (fclose(f) != 0) {
                free(out);
                return NULL;
        }
        return out;
}

/* Where sd-bus looks for the system bus, as it does: the variable, else the standard socket. */
static const char *system_bus_address(void) {
        const char *e = secure_getenv("DBUS_SYSTEM_BUS_ADDRESS");

        return e && *e ? e : "unix:path=/run/dbus/system_bus_socket";
}

int report_bus_error(const char *what, int r, const sd_bus_error *error) {
        BusFailure f = classify_bus_error(r, error);
        _cleanup_free_ char *unescaped = error && sd_bus_error_is_set(error) && error->message && *error->message
                                                 ? message_unescape_paths(error->message)
                                                 : NULL;
        const char *message = unescaped ? unescaped
                              : error && sd_bus_error_is_set(error) && error->message && *error->message
                                      ? error->message
                                      : strerror(r < 0 ? -r : EIO);

        switch (f) {
        case BUS_FAILURE_UNREACHABLE:
                fprintf(stderr, "rdmactl: Failed to connect to the system bus at %s: %s.\n", system_bus_address(),
                        strerror(r < 0 ? -r : EIO));
                break;
        case BUS_FAILURE_NOT_RUNNING:
                fprintf(stderr, "rdmactl: rdmad is not running (" RDMAD_BUS_NAME " is not on the system bus): "
                                "systemctl start rdmad; journalctl -u rdmad\n");
                break;
        case BUS_FAILURE_WENT_AWAY:
                fprintf(stderr, "rdmactl: rdmad went away without answering %s.\n", what);
                break;
        case BUS_FAILURE_PERMISSION:
                fprintf(stderr, "rdmactl: permission denied: %s\n", message);
                break;
        case BUS_FAILURE_NO_SUCH_DEVICE:
        case BUS_FAILURE_TIMEOUT:
        case BUS_FAILURE_INVALID_ARGUMENT:
        case BUS_FAILURE_NO_ROUTE:
        case BUS_FAILURE_NOT_RDMA:
        case BUS_FAILURE_NO_GID:
                /* The daemon's own sentence says it best. */
                fprintf(stderr, "rdmactl: %s\n", message);
                break;
        case BUS_FAILURE_OTHER:
                fprintf(stderr, "rdmactl: %s failed: %s%s%s\n", what, message, error && error->name ? " " : "",
                        error && error->name ? error->name : "");
                break;
        }
        return exit_status_for(f);
}

int report_oom(void) {
        fputs("rdmactl: out of memory.\n", stderr);
        return EXIT_FAILURE_GENERIC;
}
