/* SPDX-License-Identifier: MIT */
/* rdmactl set-vfs DEVICE COUNT: SetNumVfs, with polkit's text agent running
 * while a password may be asked for. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "args.h"
#include "basic/util.h"
#include "bus-errors.h"
#include "client/inventory.h"
#include "rdmactl.h"
#include "target.h"
#include "verb-util.h"
#include "verbs.h"

#define PKTTYAGENT "/usr/bin/pkttyagent"

/* SetNumVfs: a password prompt and a driver creating VFs both take time. */
#define SET_NUM_VFS_CALL_USEC (300ULL * 1000000ULL)

/* When a person at a terminal may be asked for a password, run polkit's
 * text agent for the duration of the call, as systemctl does. */
static pid_t start_polkit_agent(const Options *o) {
        int pipefd[2];
        char notify[16], buf[1];
        pid_t pid;

        if (!o->ask_password || geteuid() == 0 || !isatty(STDIN_FILENO) || access(PKTTYAGENT, X_OK) < 0)
                return 0;
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return 0;
        pid = fork();
        if (pid < 0) {
                close(pipefd[0]);
                close(pipefd[1]);
                return 0;
        }
        if (pid == 0) {
                /* The agent reports on this descriptor (by closing it) once it is registered. */
                if (fcntl(pipefd[1], F_SETFD, 0) < 0)
                        _exit(EXIT_FAILURE);
                snprintf(notify, sizeof(notify), "%d", pipefd[1]);
                execl(PKTTYAGENT, PKTTYAGENT, "--notify-fd", notify, "--fallback", (char *) NULL);
                _exit(EXIT_FAILURE);
        }
        close(pipefd[1]);
        while (read(pipefd[0], buf, sizeof(buf)) < 0 && errno == EINTR)
                ;
        close(pipefd[0]);
        return pid;
}

static void stop_polkit_agent(pid_t pid) {
        if (pid <= 0)
                return;
        kill(pid, SIGTERM);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

static int get_sriov_counts(sd_bus *bus, const char *path, uint32_t *ret_num, uint32_t *ret_total) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r, status;

        r = sd_bus_get_property_trivial(bus, RDMAD_BUS_NAME, path, RDMAD_SRIOV_INTERFACE, RDMAD_SRIOV_PROPERTY_NUM_VFS,
                                        &error, 'u', ret_num);
        if (r >= 0 && ret_total)
                r = sd_bus_get_property_trivial(bus, RDMAD_BUS_NAME, path, RDMAD_SRIOV_INTERFACE,
                                                RDMAD_SRIOV_PROPERTY_TOTAL_VFS, &error, 'u', ret_total);
        if (r >= 0)
                return EXIT_OK;
        status = report_bus_error("reading NumVfs", r, &error);
        sd_bus_error_free(&error);
        return status;
}

static const char *vfs(uint32_t n) {
        return n == 1 ? "VF" : "VFs";
}

/* "2 -> 4 VFs": the kernel takes no new count while VFs exist, so rdmad
 * removed the existing ones first; the caller should know they went. */
static void print_vfs_change(const char *device, uint32_t before, uint32_t after, uint32_t total) {
        if (before == after)
                printf("%s: SR-IOV already has %" PRIu32 " %s (of %" PRIu32 "); nothing changed.\n", device, after,
                       vfs(after), total);
        else if (before > 0 && after > 0)
                printf("%s: SR-IOV %" PRIu32 " -> %" PRIu32 " %s (the %" PRIu32 " existing VF%s removed first).\n",
                       device, before, after, vfs(after), before, before == 1 ? " was" : "s were");
        else
                printf("%s: SR-IOV %" PRIu32 " -> %" PRIu32 " %s (of %" PRIu32 ").\n", device, before, after,
                       vfs(after), total);
}

/* polkit's refusal, with what to do about it: without polkit on the bus only
 * root may (rdmad authorizes uid 0 itself); with it, polkit said no. */
static int report_refusal(const char *device, int r, const sd_bus_error *error) {
        const char *message = error && error->message ? error->message : "";

        if (classify_bus_error(r, error) != BUS_FAILURE_PERMISSION)
                return report_bus_error(RDMAD_METHOD_SET_NUM_VFS, r, error);
        if (strncmp(message, "Cannot ask polkit", strlen("Cannot ask polkit")) == 0)
                fprintf(stderr,
                        "rdmactl: permission denied: polkit is not there to authorize changing the VFs of %s: run as "
                        "root, or start polkit (systemctl start polkit).\n",
                        device);
        else if (sd_bus_error_has_name(error, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED))
                fprintf(stderr,
                        "rdmactl: not authorized to change the VFs of %s without authenticating: run as root, or from "
                        "a terminal without --no-ask-password.\n",
                        device);
        else
                fprintf(stderr,
                        "rdmactl: not authorized to change the VFs of %s (%s): run as root, or ask an administrator "
                        "to allow org.rdmad1.set-num-vfs in polkit.\n",
                        device, message);
        return EXIT_PERMISSION;
}

/* set-vfs DEVICE COUNT; a netdev names its device. */
int verb_set_vfs(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const RdmaSriov *sriov;
        uint32_t count, before, after, total;
        Target t;
        pid_t agent;
        int status, r;

        status = load_inventory(bus, o, &inv);
        if (status != EXIT_OK)
                return status;
        status = target_parse(bus, inv, args, 1, 0, &t, NULL);
        if (status != EXIT_OK)
                return status;
        sriov = inventory_find_sriov(inv, t.device->sriov);
        if (!sriov) {
                const char *pf = inventory_device_name(inv, t.device->physical_function);

                if (pf)
                        fprintf(stderr,
                                "rdmactl: %s is a virtual function of %s; VFs are set on the physical function: "
                                "rdmactl set-vfs %s COUNT\n",
                                t.device->name, pf, pf);
                else
                        fprintf(stderr, "rdmactl: %s has no SR-IOV controls (its PCI function is not an SR-IOV PF).\n",
                                t.device->name);
                return EXIT_FAILURE_GENERIC;
        }
        r = parse_number_arg(args[1], UINT32_MAX, &count);
        if (r == -ERANGE)
                return usage_error("%s VFs are out of range; %s supports at most %" PRIu32 ".", args[1], t.device->name,
                                   sriov->total_vfs);
        if (r < 0)
                return usage_error("'%s' is not a number of VFs.", args[1]);
        status = get_sriov_counts(bus, sriov->path, &before, NULL);
        if (status != EXIT_OK)
                return status;

        r = sd_bus_message_new_method_call(bus, &call, RDMAD_BUS_NAME, sriov->path, RDMAD_SRIOV_INTERFACE,
                                           RDMAD_METHOD_SET_NUM_VFS);
        if (r >= 0)
                r = sd_bus_message_append(call, "u", count);
        /* polkit may then ask the caller's agent for a password instead of refusing outright. */
        if (r >= 0)
                r = sd_bus_message_set_allow_interactive_authorization(call, o->ask_password);
        if (r < 0)
                return report_bus_error(RDMAD_METHOD_SET_NUM_VFS, r, NULL);

        agent = start_polkit_agent(o);
        r = sd_bus_call(bus, call, SET_NUM_VFS_CALL_USEC, &error, NULL);
        stop_polkit_agent(agent);
        if (r < 0) {
                status = report_refusal(t.device->name, r, &error);
                sd_bus_error_free(&error);
                return status;
        }

        status = get_sriov_counts(bus, sriov->path, &after, &total);
        if (status != EXIT_OK)
                return status;
        print_vfs_change(t.device->name, before, after, total);
        return finish_output(EXIT_OK);
}
