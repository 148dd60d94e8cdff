/* SPDX-License-Identifier: MIT */
/* Port.PortGuid and Port.LinkHistory against the real rdmad: the GUIDs from
 * GID index 0; the history of State changes in memory, kept in the state
 * directory across a restart, a damaged file, a full disk and a directory
 * rdmad may not write; the writes of a flap storm, at most one a second per
 * port, the last one flushed later and nothing lost; rdmactl status's
 * summary and link lines from them. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "rdmactl-run.h"

#define FIXTURES HARNESS_FIXTURES("hfi1", "mlx4-vpi", "siw")

#define HFI1_0 "/org/rdmad1/device/hfi1_5f0"
#define MLX4_0 "/org/rdmad1/device/mlx4_5f0"
#define SIW0   "/org/rdmad1/device/siw0"

#define HFI1_SYS "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"

/* The files of the fixtures' ports: by port GUID, or by name and number
 * where GID 0 has no interface ID (siw0). */
#define HFI1_FILE      "link-history.guid.001175010165ab12"
#define MLX4_1_FILE    "link-history.guid.0002c90300a1b2c1"
#define MLX4_2_FILE    "link-history.guid.0202c9fffea1b2c2"
#define SIW0_FILE      "link-history.port.siw0.1"
#define WRITTEN_PREFIX "Link history written: "

/* The state directory of a test, the daemon's; removed in teardown. */
static char state_dir[64];
static char state_arg[96];

static uint64_t monotonic_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static void make_state_dir(void) {
        strcpy(state_dir, "/tmp/rdmad-state-XXXXXX");
        assert_non_null(mkdtemp(state_dir));
        assert_int_equal(chmod(state_dir, 0755), 0);
        harness_give_to_daemon(state_dir);
        snprintf(state_arg, sizeof(state_arg), "--state-dir=%s", state_dir);
}

static int start_with_state_dir(void **state, bool logged, const char *extra) {
        const char *args[] = { "--poll-interval=50", state_arg, extra, NULL };

        make_state_dir();
        *state = logged ? harness_start_logged(FIXTURES, args) : harness_start(FIXTURES, args);
        return 0;
}

static int state_setup(void **state) {
        return start_with_state_dir(state, false, NULL);
}

static int logged_state_setup(void **state) {
        return start_with_state_dir(state, true, "--log-level=debug");
}

static int memory_setup(void **state) {
        static const char *const args[] = { "--poll-interval=50", NULL };

        state_dir[0] = '\0';
        *state = harness_start_logged(FIXTURES, args);
        return 0;
}

static int teardown(void **state) {
        int r = harness_teardown_clean(state);
        char cmd[128];

        if (state_dir[0]) {
                snprintf(cmd, sizeof(cmd), "rm -rf '%s'", state_dir);
                (void) !system(cmd);
                state_dir[0] = '\0';
        }
        return r;
}

typedef struct Change {
        uint64_t usec;
        char old_state[32], new_state[32];
} Change;

#define CHANGES_MAX 40

/* Port.LinkHistory, decoded; the number of changes. */
static size_t get_history(Harness *h, const char *port, Change *ret) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *a, *b;
        uint64_t usec;
        size_t n = 0;
        int r;

        r = sd_bus_get_property(h->bus, RDMAD_BUS_NAME, port, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_HISTORY,
                                &error, &reply, "a(tss)");
        if (r < 0)
                fail_msg("Get LinkHistory of %s: %s", port, error.message ?: strerror(-r));
        assert_int_equal(sd_bus_message_enter_container(reply, 'a', "(tss)"), 1);
        while ((r = sd_bus_message_read(reply, "(tss)", &usec, &a, &b)) > 0) {
                assert_true(n < CHANGES_MAX);
                ret[n].usec = usec;
                snprintf(ret[n].old_state, sizeof(ret[n].old_state), "%s", a);
                snprintf(ret[n].new_state, sizeof(ret[n].new_state), "%s", b);
                n++;
        }
        assert_true(r >= 0);
        sd_bus_message_unref(reply);
        return n;
}

/* The changes a history file holds, -1 for no file (the format is
 * link-history.h's: a header, "usec old new" lines, an end line). */
static long read_history_file(const char *name, Change *ret) {
        char path[256], line[256];
        long n = 0;
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", state_dir, name);
        f = fopen(path, "re");
        if (!f)
                return -1;
        assert_non_null(fgets(line, sizeof(line), f));
        assert_true(strncmp(line, "rdmad link history 1 ", 21) == 0);
        while (fgets(line, sizeof(line), f) && strncmp(line, "end ", 4) != 0) {
                assert_true(n < CHANGES_MAX);
                assert_int_equal(
                        sscanf(line, "%" SCNu64 " %31s %31s", &ret[n].usec, ret[n].old_state, ret[n].new_state), 3);
                n++;
        }
        fclose(f);
        return n;
}

static void assert_changes_equal(const Change *a, const Change *b, size_t n) {
        for (size_t i = 0; i < n; i++) {
                assert_int_equal(a[i].usec, b[i].usec);
                assert_string_equal(a[i].old_state, b[i].old_state);
                assert_string_equal(a[i].new_state, b[i].new_state);
        }
}

/* A write the poll cannot see half done (harness_write truncates first). */
static void write_paused(Harness *h, const char *name, const char *value) {
        harness_pause(h);
        harness_write(h, HFI1_SYS, name, value);
        harness_resume(h);
}

/* hfi1_0 port 1 goes DOWN and comes back: two State changes, seen by the poll. */
static void flap_hfi1(Harness *h, unsigned *changes) {
        char n[32];

        write_paused(h, "ports/1/state", "1: DOWN\n");
        snprintf(n, sizeof(n), "%u", ++*changes);
        harness_wait_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGES, n, 10000);
        write_paused(h, "ports/1/state", "4: ACTIVE\n");
        snprintf(n, sizeof(n), "%u", ++*changes);
        harness_wait_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGES, n, 10000);
}

typedef struct FileWait {
        const char *name;
        size_t n;
        const Change *last;
} FileWait;

/* The file holds n changes, the last one `last`. */
static bool file_has(Harness *h, const void *data, FILE *seen) {
        const FileWait *w = data;
        Change c[CHANGES_MAX];
        long n = read_history_file(w->name, c);

        fprintf(seen, "%ld changes in the file", n);

        return n == (long) w->n &&
               (n == 0 || (c[n - 1].usec == w->last->usec && strcmp(c[n - 1].new_state, w->last->new_state) == 0));
}

static void wait_file_has(Harness *h, const char *name, const Change *changes, size_t n) {
        FileWait w = { name, n, n > 0 ? &changes[n - 1] : NULL };

        harness_wait_for(h, file_has, &w, 10000, "%s/%s to hold the %zu changes of LinkHistory", state_dir, name, n);
}

/* ---- PortGuid ------------------------------------------------------------ */

/* The interface ID of GID 0, as sysfs prints node_guid; "" without one. */
static void test_port_guid_is_gid_0s_interface_id(void **state) {
        Harness *h = *state;

        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_PORT_GUID,
                                "0011:7501:0165:ab12");
        harness_assert_property(h, MLX4_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_PORT_GUID,
                                "0002:c903:00a1:b2c1");
        /* RoCE: the EUI-64 of the netdev's MAC address, as ibstat shows it. */
        harness_assert_property(h, MLX4_0 "/port/2", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_PORT_GUID,
                                "0202:c9ff:fea1:b2c2");
        /* siw0's GID 0 carries the MAC in its prefix: no interface ID. */
        harness_assert_property(h, SIW0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_PORT_GUID, "");
}

/* ---- in memory ------------------------------------------------------------ */

/* Without a state directory no history is kept (the contract: "none kept
 * without one"): LinkHistory stays empty and is never announced, while
 * StateChanges counts. */
static void test_history_without_state_dir_is_not_kept(void **state) {
        Harness *h = *state;
        Change c[CHANGES_MAX];
        unsigned changes = 0;

        assert_true(harness_log_has(h, "No state directory: no link history is kept."));
        assert_int_equal(get_history(h, HFI1_0 "/port/1", c), 0);
        harness_clear_signals(h);
        flap_hfi1(h, &changes);
        assert_int_equal(get_history(h, HFI1_0 "/port/1", c), 0);
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGES, "2");
        harness_wait_signals(h, HFI1_0 "/port/1", "PropertiesChanged", 2);
        for (size_t i = 0; i < h->n_signals; i++)
                assert_null(strstr(h->signals[i].body, RDMAD_PORT_PROPERTY_LINK_HISTORY));
}

/* With a state directory the history is kept: each change at
 * StateChangedUsec, oldest first, announced with the State change. */
static void test_history_with_state_dir_in_memory(void **state) {
        Harness *h = *state;
        Change c[CHANGES_MAX];
        unsigned changes = 0;
        char *usec;

        assert_int_equal(get_history(h, HFI1_0 "/port/1", c), 0);
        harness_clear_signals(h);
        flap_hfi1(h, &changes);
        assert_int_equal(get_history(h, HFI1_0 "/port/1", c), 2);
        assert_string_equal(c[0].old_state, "ACTIVE");
        assert_string_equal(c[0].new_state, "DOWN");
        assert_string_equal(c[1].old_state, "DOWN");
        assert_string_equal(c[1].new_state, "ACTIVE");
        assert_true(c[0].usec > 0 && c[0].usec <= c[1].usec);
        usec = harness_get_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGED_USEC,
                                    NULL);
        assert_int_equal(strtoull(usec, NULL, 10), c[1].usec);
        free(usec);
        /* Each change announced LinkHistory with StateChanges. */
        harness_wait_signals(h, HFI1_0 "/port/1", "PropertiesChanged", 2);
        for (size_t i = 0; i < h->n_signals; i++)
                if (strcmp(h->signals[i].path, HFI1_0 "/port/1") == 0)
                        assert_non_null(strstr(h->signals[i].body, "\"LinkHistory\": [("));
        /* Nobody else saw anything. */
        assert_int_equal(get_history(h, MLX4_0 "/port/1", c), 0);
}

/* ---- across a restart ------------------------------------------------------ */

/* The history is written to the state directory and read back at start,
 * equal to the microsecond; StateChanges counts from 0 again; the next
 * change goes after the kept ones. A port without a GUID is kept by name. */
static void test_history_survives_a_restart(void **state) {
        Harness *h = *state;
        Change before[CHANGES_MAX], after[CHANGES_MAX], file[CHANGES_MAX], siw[CHANGES_MAX];
        const char *args[] = { "--poll-interval=50", state_arg, NULL };
        const char *siw_sys = "/sys/devices/virtual/infiniband/siw0";
        unsigned changes = 0;

        flap_hfi1(h, &changes);
        flap_hfi1(h, &changes);
        assert_int_equal(get_history(h, HFI1_0 "/port/1", before), 4);
        /* siw0 goes down: one change, kept under its name. */
        harness_pause(h);
        harness_write(h, siw_sys, "ports/1/state", "1: DOWN\n");
        harness_resume(h);
        /* siw0 is iWARP over Ethernet: rtnetlink covers it, and its files
         * alone are read only in the poll's slow round. The change uevent
         * stands in for its netdev's event. */
        umockdev_testbed_uevent(h->testbed, siw_sys, "change");
        harness_wait_property(h, SIW0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGES, "1", 10000);
        assert_int_equal(get_history(h, SIW0 "/port/1", siw), 1);

        /* Stopped at once: what waited for its second is written on the way out. */
        harness_restart_daemon(h, args);
        assert_int_equal(read_history_file(HFI1_FILE, file), 4);
        assert_changes_equal(file, before, 4);
        assert_int_equal(read_history_file(SIW0_FILE, file), 1);
        assert_changes_equal(file, siw, 1);
        /* The ports that never changed have no file. */
        assert_int_equal(read_history_file(MLX4_1_FILE, file), -1);
        assert_int_equal(read_history_file(MLX4_2_FILE, file), -1);

        assert_int_equal(get_history(h, HFI1_0 "/port/1", after), 4);
        assert_changes_equal(after, before, 4);
        assert_int_equal(get_history(h, SIW0 "/port/1", after), 1);
        assert_changes_equal(after, siw, 1);
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGES, "0");

        /* Going on from what was kept. */
        changes = 0;
        flap_hfi1(h, &changes);
        assert_int_equal(get_history(h, HFI1_0 "/port/1", after), 6);
        assert_changes_equal(after, before, 4);
        assert_string_equal(after[4].new_state, "DOWN");
        assert_string_equal(after[5].new_state, "ACTIVE");
        wait_file_has(h, HFI1_FILE, after, 6);
}

/* ---- damaged files ------------------------------------------------------------ */

static void write_state_file(const char *name, const char *text, size_t len) {
        char path[256];
        int fd;

        snprintf(path, sizeof(path), "%s/%s", state_dir, name);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, len), (ssize_t) len);
        close(fd);
        harness_give_to_daemon(path);
}

static char *read_state_file(const char *name, size_t *ret_len) {
        char path[256], *text = calloc(1, 65536);
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "%s/%s", state_dir, name);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        n = read(fd, text, 65535);
        assert_true(n > 0);
        close(fd);
        *ret_len = (size_t) n;
        return text;
}

static size_t count(const char *haystack, const char *needle) {
        size_t n = 0;

        for (const char *p = haystack; (p = strstr(p, needle)); p++)
                n++;
        return n;
}

/* Truncated, altered, garbage, not a file: each port starts empty with one
 * warning that names its file; rdmad starts and answers; the next change
 * makes a good file again. */
static void test_damaged_files_give_empty_histories_and_one_warning_each(void **state) {
        Harness *h = *state;
        const char *args[] = { "--poll-interval=50", state_arg, NULL };
        Change c[CHANGES_MAX];
        unsigned changes = 0;
        size_t len;
        char *good, *log, path[256], *digit;

        /* A good file, from a first run. */
        flap_hfi1(h, &changes);
        harness_stop_daemon(h);
        good = read_state_file(HFI1_FILE, &len);

        /* hfi1_0's with one digit of a time changed (only the checksum can
         * tell), mlx4_0 port 1's cut short (its end line gone), port 2's
         * garbage, siw0's a directory. */
        {
                char *body = strchr(good, '\n') + 1, text[4096];
                int n = snprintf(text, sizeof(text), "rdmad link history 1 %s\n%s", MLX4_1_FILE, body);

                write_state_file(MLX4_1_FILE, text, (size_t) n - 5);
        }
        digit = strchr(strchr(good, '\n') + 1, '1');
        assert_non_null(digit);
        *digit = '2';
        write_state_file(HFI1_FILE, good, len);
        write_state_file(MLX4_2_FILE, "\x01\x02 not a history\n", 17);
        snprintf(path, sizeof(path), "%s/%s", state_dir, SIW0_FILE);
        assert_int_equal(mkdir(path, 0755), 0);
        free(good);

        harness_capture_daemon_log = true;
        harness_start_daemon(h, args);
        harness_capture_daemon_log = false;
        harness_assert_daemon_answers(h);
        assert_int_equal(get_history(h, HFI1_0 "/port/1", c), 0);
        assert_int_equal(get_history(h, MLX4_0 "/port/1", c), 0);
        assert_int_equal(get_history(h, MLX4_0 "/port/2", c), 0);
        assert_int_equal(get_history(h, SIW0 "/port/1", c), 0);
        log = harness_daemon_log(h);
        assert_int_equal(count(log, HFI1_FILE ": the link history is truncated or damaged. Starting an empty one."), 1);
        assert_int_equal(count(log, MLX4_1_FILE ": the link history is truncated or damaged."), 1);
        assert_int_equal(count(log, MLX4_2_FILE ": the link history is truncated or damaged."), 1);
        assert_int_equal(count(log, SIW0_FILE ": the link history is truncated or damaged."), 1);
        free(log);

        /* The next change replaces the bad file with a good one. */
        changes = 0;
        flap_hfi1(h, &changes);
        assert_int_equal(get_history(h, HFI1_0 "/port/1", c), 2);
        wait_file_has(h, HFI1_FILE, c, 2);
        harness_restart_daemon(h, args);
        {
                Change again[CHANGES_MAX];

                assert_int_equal(get_history(h, HFI1_0 "/port/1", again), 2);
                assert_changes_equal(again, c, 2);
        }
}

/* ---- a disk that takes nothing ---------------------------------------------------- */

/* Full (ENOSPC from the fault injector) or not rdmad's to write (mode 0555):
 * every change is still in LinkHistory and on the bus, the writes fail with
 * one warning for the episode, no temporary file is left behind. */
static void assert_history_kept_in_memory(Harness *h, const char *warning) {
        Change c[CHANGES_MAX];
        unsigned changes = 0;
        char *log;

        flap_hfi1(h, &changes);
        harness_wait_log(h, warning);
        /* More changes, written after the first second: the same episode. */
        flap_hfi1(h, &changes);
        flap_hfi1(h, &changes);
        harness_wait_log_times(h, "Link history: a write failed", 2);
        assert_int_equal(get_history(h, HFI1_0 "/port/1", c), 6);
        assert_string_equal(c[5].new_state, "ACTIVE");
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_CHANGES, "6");
        harness_assert_daemon_answers(h);
        log = harness_daemon_log(h);
        assert_int_equal(count(log, warning), 1);
        free(log);
        assert_int_equal(read_history_file(HFI1_FILE, c), -1);
        assert_int_equal(read_history_file("." HFI1_FILE ".tmp", c), -1);
}

static int full_disk_setup(void **state) {
        setenv("RDMAD_FAULT_ENOSPC", "link-history", 1);
        harness_daemon_preload = FAULT_INJECT;
        start_with_state_dir(state, true, "--log-level=debug");
        harness_daemon_preload = NULL;
        unsetenv("RDMAD_FAULT_ENOSPC");
        return 0;
}

static void test_full_disk_loses_history_not_answers(void **state) {
        assert_history_kept_in_memory(*state, "Failed to write the link history");
        assert_true(harness_log_has(*state, "No space left on device"));
}

static int read_only_setup(void **state) {
        start_with_state_dir(state, true, "--log-level=debug");
        /* rdmad runs as its own user (as root) or as the test's: 0555 stops
         * it either way. */
        assert_int_equal(chmod(state_dir, 0555), 0);
        return 0;
}

static void test_unwritable_state_dir_loses_history_not_answers(void **state) {
        assert_history_kept_in_memory(*state, "Failed to write the link history");
        assert_true(harness_log_has(*state, "Permission denied"));
}

/* A state directory that cannot even be opened: rdmad starts, says so, and
 * keeps the histories in memory. */
static int missing_dir_setup(void **state) {
        static const char *const args[] = { "--poll-interval=50", "--state-dir=/proc/self/no-such-dir/rdmad", NULL };

        state_dir[0] = '\0';
        *state = harness_start_logged(FIXTURES, args);
        return 0;
}

static void test_unopenable_state_dir_still_starts(void **state) {
        Harness *h = *state;
        Change c[CHANGES_MAX];
        unsigned changes = 0;

        assert_true(harness_log_has(h, "Failed to open the state directory /proc/self/no-such-dir/rdmad: "));
        assert_true(harness_log_has(h, "Link histories are kept in memory only."));
        flap_hfi1(h, &changes);
        assert_int_equal(get_history(h, HFI1_0 "/port/1", c), 2);
}

/* ---- rdmactl status ---------------------------------------------------------------- */

/* The summary's line of port: "hfi1_0/1 ACTIVE LinkUp 100 Gb/sec (4X EDR) -
 * 2 3 s ago", columns padded: its state, its flaps, its last change's end. */
static void assert_summary(const char *out, const char *port, const char *state, unsigned flaps, const char *ago) {
        char start[64], line[256], word[64];
        const char *p, *end;
        unsigned n;

        snprintf(start, sizeof(start), "\n%s ", port);
        p = strstr(out, start);
        if (!p)
                fail_msg("no line for %s in:\n%s", port, out);
        end = strchr(p + 1, '\n');
        assert_non_null(end);
        snprintf(line, sizeof(line), "%.*s", (int) (end - p - 1), p + 1);
        assert_int_equal(sscanf(line, "%*s %63s", word), 1);
        assert_string_equal(word, state);
        /* FLAPS is the number after the netdev column: the one before the last change. */
        p = strstr(line, strcmp(ago, "never") == 0 ? " never" : ago);
        if (!p || strcmp(p, strcmp(ago, "never") == 0 ? " never" : ago) != 0)
                fail_msg("%s: the last change is not \"%s\": %s", port, ago, line);
        if (strcmp(ago, "never") != 0)
                while (p > line && p[-1] != ' ') /* back over the number of "N s ago" */
                        p--;
        while (p > line && p[-1] == ' ')
                p--;
        while (p > line && p[-1] != ' ')
                p--;
        assert_int_equal(sscanf(p, "%u", &n), 1);
        if (n != flaps)
                fail_msg("%s: %u flaps, not %u: %s", port, n, flaps, line);
}

/* The summary after a restart: the flaps counted since rdmad started (0),
 * the last change from the kept history ("N s ago", not "never"); the
 * detail lists the kept changes newest first; the JSON carries them too. */
static void test_rdmactl_status_shows_the_kept_history(void **state) {
        Harness *h = *state;
        const char *args[] = { "--poll-interval=50", state_arg, NULL };
        Change c[CHANGES_MAX];
        unsigned changes = 0;
        char *out, *first, *second;

        flap_hfi1(h, &changes);
        out = rdmactl_run_ok(h, "status --no-color");
        assert_summary(out, "hfi1_0/1", "ACTIVE", 2, " s ago");
        assert_summary(out, "mlx4_0/1", "ACTIVE", 0, "never");
        free(out);

        harness_restart_daemon(h, args);
        assert_int_equal(get_history(h, HFI1_0 "/port/1", c), 2);
        out = rdmactl_run_ok(h, "status --no-color");
        /* No flap since this start, the last change from before it. */
        assert_summary(out, "hfi1_0/1", "ACTIVE", 0, " s ago");
        free(out);

        out = rdmactl_run_ok(h, "status --no-color hfi1_0/1");
        assert_non_null(strstr(out, "\n                     port GUID 0011:7501:0165:ab12\n"));
        first = strstr(out, " DOWN -> ACTIVE (");
        second = strstr(out, " ACTIVE -> DOWN (");
        assert_non_null(first);
        assert_non_null(second);
        assert_true(first < second); /* newest first */
        assert_non_null(strstr(out, "\n                     link 20"));
        free(out);

        out = rdmactl_run_ok(h, "status --json hfi1_0");
        assert_non_null(strstr(out, "\"port_guid\":\"0011:7501:0165:ab12\""));
        assert_non_null(strstr(out, "\"state_changes\":0"));
        {
                char expect[256];

                snprintf(expect, sizeof(expect),
                         "\"link_history\":[{\"usec\":%" PRIu64 ",\"old_state\":\"DOWN\",\"new_state\":\"ACTIVE\"},"
                         "{\"usec\":%" PRIu64 ",\"old_state\":\"ACTIVE\",\"new_state\":\"DOWN\"}]",
                         c[1].usec, c[0].usec);
                assert_non_null(strstr(out, expect));
        }
        free(out);
}

/* ---- a flap storm ----------------------------------------------------------------- */

/* 20 flaps as fast as the poll sees them: every change is on the bus at
 * once, the file is written at most once per second of the storm (the
 * daemon's own count in its debug log), the last write comes after the
 * storm and holds the last 32 changes, equal to LinkHistory. */
static void test_flap_storm_writes_at_most_once_a_second(void **state) {
        Harness *h = *state;
        Change c[CHANGES_MAX], file[CHANGES_MAX];
        char written[256], *log;
        unsigned changes = 0;
        uint64_t start, seconds;
        size_t writes, n;

        snprintf(written, sizeof(written), WRITTEN_PREFIX "%s/%s.", state_dir, HFI1_FILE);
        start = monotonic_usec();
        for (unsigned i = 0; i < 20; i++)
                flap_hfi1(h, &changes);
        n = get_history(h, HFI1_0 "/port/1", c);
        assert_int_equal(n, 32); /* the last 32 of 40 */
        assert_string_equal(c[31].new_state, "ACTIVE");
        /* The last change, written within a second of it: not lost. */
        wait_file_has(h, HFI1_FILE, c, 32);
        assert_int_equal(read_history_file(HFI1_FILE, file), 32);
        assert_changes_equal(file, c, 32);
        seconds = (monotonic_usec() - start) / 1000000 + 1;

        log = harness_daemon_log(h);
        writes = count(log, written);
        free(log);
        print_message("40 changes in %" PRIu64 " s: %zu writes of %s\n", seconds, writes, HFI1_FILE);
        /* One write a second at most (and the first at once): however slow
         * this host, never more writes than seconds + 1; and far fewer than
         * changes, or the bound did nothing. */
        assert_true(writes >= 1);
        assert_true(writes <= seconds + 1);
        assert_true(writes < 40);
        /* The other ports wrote nothing. */
        assert_int_equal(read_history_file(MLX4_1_FILE, file), -1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_port_guid_is_gid_0s_interface_id, memory_setup, teardown),
                cmocka_unit_test_setup_teardown(test_history_without_state_dir_is_not_kept, memory_setup, teardown),
                cmocka_unit_test_setup_teardown(test_history_with_state_dir_in_memory, state_setup, teardown),
                cmocka_unit_test_setup_teardown(test_history_survives_a_restart, state_setup, teardown),
                cmocka_unit_test_setup_teardown(test_damaged_files_give_empty_histories_and_one_warning_each,
                                                logged_state_setup, teardown),
                cmocka_unit_test_setup_teardown(test_full_disk_loses_history_not_answers, full_disk_setup, teardown),
                cmocka_unit_test_setup_teardown(test_unwritable_state_dir_loses_history_not_answers, read_only_setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_unopenable_state_dir_still_starts, missing_dir_setup, teardown),
                cmocka_unit_test_setup_teardown(test_rdmactl_status_shows_the_kept_history, state_setup, teardown),
                cmocka_unit_test_setup_teardown(test_flap_storm_writes_at_most_once_a_second, logged_state_setup,
                                                teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
