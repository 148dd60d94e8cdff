/* SPDX-License-Identifier: MIT */
#include "polkitd.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
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

static bool name_has_owner(Harness *h, const char *name) {
        sd_bus_message *reply = NULL;
        int has = 0;

        if (sd_bus_call_method(h->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", NULL, &reply, "s", name) >= 0)
                (void) sd_bus_message_read(reply, "b", &has);
        sd_bus_message_unref(reply);
        return has;
}

bool harness_start_polkit(Harness *h) {
        char actions[128], policy[256], script[640];
        char *argv[] = { "unshare", "--mount", "--propagation", "private", "sh", "-c", script, NULL };
        uint64_t deadline;

        if (geteuid() != 0) {
                fprintf(stderr, "harness: not root: polkitd cannot be started in a mount namespace\n");
                return false;
        }
        if (access(POLKITD, X_OK) < 0) {
                fprintf(stderr, "harness: %s not found (Debian package polkitd)\n", POLKITD);
                return false;
        }

        snprintf(actions, sizeof(actions), "%s/polkit-actions", h->tmpdir);
        assert_int_equal(mkdir(actions, 0755), 0);
        snprintf(policy, sizeof(policy), "cp '%s' '%s/'", POLICY_FILE, actions);
        assert_int_equal(system(policy), 0);
        /* polkitd switches to its user polkitd itself, the only one the
         * installed bus policy lets own org.freedesktop.PolicyKit1. */
        snprintf(script, sizeof(script), "mount --bind '%s' /usr/share/polkit-1/actions && exec %s --no-debug", actions,
                 POLKITD);
        h->polkit_pid = spawn(argv, -1);

        deadline = now_ms() + 20000;
        while (!name_has_owner(h, "org.freedesktop.PolicyKit1")) {
                int status;

                if (waitpid(h->polkit_pid, &status, WNOHANG) == h->polkit_pid) {
                        h->polkit_pid = 0;
                        fail_msg("polkitd exited (wait status 0x%x)", status);
                }
                if (now_ms() > deadline)
                        fail_msg("polkitd did not appear on the bus");
                usleep(20000);
        }
        return true;
}

void harness_stop_polkit(Harness *h) {
        if (h->polkit_pid > 0)
                stop_process(h->polkit_pid, 5000);
        h->polkit_pid = 0;
}
