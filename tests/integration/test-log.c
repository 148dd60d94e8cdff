/* SPDX-License-Identifier: MIT */
/* What rdmad says and where: native journal entries with RDMA_* fields
 * when stderr is the journal, "<N>" lines on a pipe, plain lines on a
 * terminal (--dump); a second rdmad naming the first. The journal
 * is a datagram socket bound at /run/systemd/journal/socket inside a mount
 * namespace of the test's own (root only), where sd-journal sends. */
#include <errno.h>
#include <fcntl.h>
#include <sys/poll.h> /* <poll.h> is the daemon's poll.h here */
#include <pty.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "basic/log.h"
#include "harness.h"

#define HFI1_SYS "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"
#define HFI1_0   "/org/rdmad1/device/hfi1_5f0"

static const char *const fast_poll[] = { "--poll-interval=50", NULL };

static int journal_fd = -1; /* the fake journal's socket, -1 without root */

/* A private /run/systemd with a journal socket of ours. Needs root. */
static bool private_journal(void) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/run/systemd/journal/socket" };
        const char *run = access("/run/systemd", F_OK) == 0 ? "/run/systemd" : "/run";

        if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0) {
                fprintf(stderr, "test-log: not root: no private mount namespace for a journal socket\n");
                return false;
        }
        /* The kernel ignores source and type here; valgrind wants them to be strings. */
        assert_int_equal(mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL), 0);
        assert_int_equal(mount("tmpfs", run, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"), 0);
        (void) mkdir("/run/systemd", 0755);
        assert_int_equal(mkdir("/run/systemd/journal", 0755), 0);
        journal_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        assert_true(journal_fd >= 0);
        assert_int_equal(bind(journal_fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
        /* As journald's: every user may log, the daemon's user too. */
        assert_int_equal(chmod(sa.sun_path, 0666), 0);
        return true;
}

/* The next entry sent to the fake journal within timeout_ms, NULL if none:
 * "KEY=value\n" lines, as sd-journal writes fields without newlines. */
static char *journal_next(int timeout_ms) {
        struct pollfd p = { .fd = journal_fd, .events = POLLIN };
        char buf[65536];
        ssize_t n;

        if (poll(&p, 1, timeout_ms) <= 0)
                return NULL;
        n = recv(journal_fd, buf, sizeof(buf) - 1, 0);
        assert_true(n >= 0);
        buf[n] = '\0';
        return strdup(buf);
}

/* The next entry that has `field` ("RDMA_DEVICE=hfi1_0"), skipping others; fails after 20 s. */
static char *journal_wait_for(const char *field) {
        for (int i = 0; i < 200; i++) {
                char *e = journal_next(100), *at;

                if (!e)
                        continue;
                at = strstr(e, field);
                if (at && (at == e || at[-1] == '\n') && at[strlen(field)] == '\n')
                        return e;
                free(e);
        }
        fail_msg("no journal entry with %s", field);
        return NULL;
}

static void assert_field(const char *entry, const char *field) {
        size_t n = strlen(field);

        for (const char *line = entry; *line; line = strchr(line, '\n') + 1) {
                if (strncmp(line, field, n) == 0 && line[n] == '\n')
                        return;
                if (!strchr(line, '\n'))
                        break;
        }
        fail_msg("entry lacks %s:\n%s", field, entry);
}

/* A link state entry: its message and fields. */
static void assert_state_entry(const char *entry, const char *message, const char *state, const char *phys_state) {
        char field[128];

        assert_field(entry, message);
        assert_field(entry, "PRIORITY=6");
        assert_field(entry, "RDMA_PORT=1");
        assert_field(entry, "MESSAGE_ID=6c05c1e209f7416285733a4ed371ba8a");
        snprintf(field, sizeof(field), "RDMA_STATE=%s", state);
        assert_field(entry, field);
        snprintf(field, sizeof(field), "RDMA_PHYS_STATE=%s", phys_state);
        assert_field(entry, field);
}

static void flap_hfi1(Harness *h, const char *state, const char *phys_state) {
        harness_pause(h);
        harness_write(h, HFI1_SYS, "ports/1/state", state);
        harness_write(h, HFI1_SYS, "ports/1/phys_state", phys_state);
        harness_resume(h);
        harness_wait_signals(h, HFI1_0 "/port/1", "PropertiesChanged", 1);
}

static int pipe_setup(void **state) {
        harness_capture_daemon_log = true;
        *state = harness_start(HARNESS_FIXTURES("hfi1"), fast_poll);
        return 0;
}

/* The second rdmad runs as root, whom the installed bus policy refuses the
 * name outright (test-policy); this test's own policy lets root ask. */
static int second_instance_setup(void **state) {
        harness_bus_policy = "root-may-own-org.rdmad1.conf";
        return pipe_setup(state);
}

static int journal_setup(void **state) {
        harness_daemon_log_is_journal = journal_fd >= 0;
        pipe_setup(state);
        harness_daemon_log_is_journal = false;
        return 0;
}

static void test_log_target_follows_stderr(void **state) {
        assert_int_equal(log_target_for("8:17", 8, 17, 0), LOG_TARGET_JOURNAL);
        assert_int_equal(log_target_for("8:17", 8, 17, 1), LOG_TARGET_JOURNAL);
        /* $JOURNAL_STREAM inherited by a child whose stderr went elsewhere: not the journal. */
        assert_int_equal(log_target_for("8:17", 8, 18, 0), LOG_TARGET_PREFIXED);
        assert_int_equal(log_target_for("8:17", 8, 18, 1), LOG_TARGET_CONSOLE);
        assert_int_equal(log_target_for("8:17x", 8, 17, 0), LOG_TARGET_PREFIXED);
        assert_int_equal(log_target_for("", 8, 17, 0), LOG_TARGET_PREFIXED);
        assert_int_equal(log_target_for(NULL, 0, 0, 1), LOG_TARGET_CONSOLE);
        assert_int_equal(log_target_for(NULL, 0, 0, 0), LOG_TARGET_PREFIXED);
}

static void test_link_flap_is_a_journal_entry_with_fields(void **state) {
        Harness *h = *state;
        char *e, *log;

        if (journal_fd < 0) {
                fprintf(stderr, "skipping: needs root for a journal socket in a mount namespace\n");
                skip();
        }

        /* Start-up went to the journal too, with its priority and name, not to stderr. */
        e = journal_wait_for("MESSAGE=Ready on the system bus as org.rdmad1.");
        assert_field(e, "PRIORITY=6");
        assert_field(e, "SYSLOG_IDENTIFIER=rdmad");
        free(e);

        flap_hfi1(h, "1: DOWN\n", "3: Disabled\n");
        e = journal_wait_for("RDMA_DEVICE=hfi1_0");
        assert_state_entry(e, "MESSAGE=hfi1_0 port 1: ACTIVE -> DOWN (Disabled).", "DOWN", "Disabled");
        free(e);

        harness_clear_signals(h);
        flap_hfi1(h, "4: ACTIVE\n", "5: LinkUp\n");
        e = journal_wait_for("RDMA_DEVICE=hfi1_0");
        assert_state_entry(e, "MESSAGE=hfi1_0 port 1: DOWN -> ACTIVE (LinkUp).", "ACTIVE", "LinkUp");
        free(e);

        /* One entry per change: quiet ticks add none. */
        harness_observe(h, 300, "quiet poll ticks, which must log nothing");
        while ((e = journal_next(0))) {
                assert_null(strstr(e, "RDMA_DEVICE="));
                free(e);
        }
        log = harness_daemon_log(h);
        assert_null(strstr(log, "Ready on the system bus"));
        assert_null(strstr(log, "port 1:"));
        free(log);
}

static void test_link_flap_on_a_pipe_is_a_prefixed_line(void **state) {
        Harness *h = *state;
        char *log;

        flap_hfi1(h, "1: DOWN\n", "3: Disabled\n");
        harness_wait_log(h, "<6>hfi1_0 port 1: ACTIVE -> DOWN (Disabled).\n");
        log = harness_daemon_log(h);
        assert_non_null(strstr(log, "<6>Ready on the system bus as org.rdmad1.\n"));
        assert_non_null(strstr(log, "<6>hfi1_0 port 1: ACTIVE -> DOWN (Disabled).\n"));
        free(log);
}

/* Runs argv with stdout and stderr on a new terminal; what it printed. */
static char *run_on_terminal(char *const argv[], int *ret_status) {
        char buf[4096], *text = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&text, &size);
        int master, status;
        pid_t pid;
        ssize_t n;

        assert_non_null(out);
        pid = forkpty(&master, NULL, NULL, NULL);
        assert_true(pid >= 0);
        if (pid == 0) {
                execv(argv[0], argv);
                _exit(127);
        }
        while ((n = read(master, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
                if (n > 0)
                        fwrite(buf, 1, (size_t) n, out);
        close(master);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        *ret_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
        assert_int_equal(fclose(out), 0);
        return text;
}

static void test_dump_on_a_terminal_has_no_prefixes(void **state) {
        char *argv[] = { getenv("RDMAD_BINARY"), "--dump", NULL };
        char *out;
        int status;

        /* The testbed of the running harness, through the preload the test inherited. */
        out = run_on_terminal(argv, &status);
        assert_int_equal(status, 0);
        assert_non_null(strstr(out, "Found 1 RDMA device.\r\n"));
        assert_non_null(strstr(out, "device hfi1_0\r\n"));
        assert_non_null(strstr(out, "  PciAddress=0000:81:00.0\r\n"));
        assert_null(strstr(out, "<6>"));
        assert_null(strstr(out, "<3>"));
        free(out);
}

static void test_second_rdmad_names_the_owner(void **state) {
        Harness *h = *state;
        char cmd[512], expected[128], *out;
        int status;

        snprintf(cmd, sizeof(cmd), "%s", getenv("RDMAD_BINARY"));
        out = harness_run_command(h, cmd, &status);
        assert_int_equal(status, 1);
        snprintf(expected, sizeof(expected), "<3>org.rdmad1 is already owned by PID %d.\n", (int) h->daemon_pid);
        if (!strstr(out, expected))
                fail_msg("expected \"%s\" in:\n%s", expected, out);
        assert_null(strstr(out, "File exists"));
        /* Said before reading sysfs, not after the whole scan. */
        if (strstr(out, "RDMA device"))
                fail_msg("the second rdmad read sysfs before it named the owner:\n%s", out);
        free(out);
}

int main(void) {
        (void) private_journal();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_log_target_follows_stderr),
                cmocka_unit_test_setup_teardown(test_link_flap_is_a_journal_entry_with_fields, journal_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_link_flap_on_a_pipe_is_a_prefixed_line, pipe_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_dump_on_a_terminal_has_no_prefixes, pipe_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_second_rdmad_names_the_owner, second_instance_setup,
                                                harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
