/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <getopt.h>
#include <libudev.h>
#include <malloc.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <systemd/sd-daemon.h>

#include "basic/log.h"
#include "basic/options.h"
#include "basic/parse.h"
#include "basic/timespan.h"
#include "basic/util.h"
#include "bus-objects.h"
#include "bus-server.h"
#include "bus-util.h"
#include "enumerate.h"
#include "event-sources.h"
#include "history-store.h"
#include "link-poll.h"
#include "manager.h"
#include "reader-pool.h"
#include "sriov-intent.h"
#include "sysfs.h"

static void dump_attrs(const char *indent, const char *what, const AttrList *l) {
        for (size_t i = 0; i < l->n; i++)
                printf("%s%s %s=%s\n", indent, what, l->items[i].name, l->items[i].value);
}

/* A readable listing of the model, for checking what rdmad sees on a host. */
static void dump_device(const Device *d) {
        printf("device %s\n  SysfsPath=%s\n  DevicePath=%s\n  Driver=%s\n  NodeType=%s\n  Transport=%s\n"
               "  PciAddress=%s\n  NumaNode=%d\n  PhysicalFunction=%s\n"
               "  NodeGuid=%s\n  SysImageGuid=%s\n  FirmwareVersion=%s\n  HcaType=%s\n  HwRev=%s\n  BoardId=%s\n"
               "  NodeDescription=%s\n  SriovCapable=%s NumVfs=%u TotalVfs=%u\n",
               d->name, d->sysfs_path, d->device_path, d->driver, d->node_type, d->transport, d->pci_address,
               d->numa_node, d->physfn_path, d->node_guid, d->sys_image_guid, d->fw_ver, d->hca_type, d->hw_rev,
               d->board_id, d->node_desc, d->sriov_capable ? "yes" : "no", d->num_vfs, d->total_vfs);
        dump_attrs("  ", "attr", &d->attributes);
        dump_attrs("  ", "power", &d->power_attributes);
        for (size_t i = 0; i < d->n_ports; i++) {
                const Port *p = &d->ports[i];
                printf("  port %u\n    Transport=%s\n    State=%s (%u, %s)\n    PhysState=%s (%u, %s)\n"
                       "    Rate=%s (%g %s, %s; width %s, speed %s)\n    LinkLayer=%s\n    Lid=%u SmLid=%u "
                       "LidMaskCount=%u SmSl=%u CapMask=0x%08x\n    NetDev=%s\n",
                       p->number, p->transport, p->state, p->state_num, p->state_name, p->phys_state, p->phys_state_num,
                       p->phys_state_name, p->rate, p->rate_speed, p->rate_unit, p->rate_info, p->link_width,
                       p->link_speed, p->link_layer, p->lid, p->sm_lid, p->lid_mask_count, p->sm_sl, p->cap_mask,
                       p->netdev);
                for (size_t j = 0; j < p->n_gids; j++)
                        printf("    gid %u %s %s %s\n", p->gids[j].index, p->gids[j].gid, p->gids[j].type,
                               p->gids[j].ndev);
        }
        for (size_t i = 0; i < d->n_netdevs; i++) {
                const NetDev *n = d->netdevs[i];
                printf("  netdev %s DevPort=%u Port=%u OperState=%s Address=%s Mtu=%u\n", n->name, n->dev_port, n->port,
                       n->operstate, n->address, n->mtu);
        }
}

static void help(void) {
        printf("%s [OPTIONS...]\n\n"
               "Publishes the host's RDMA devices, ports, netdevs and SR-IOV controls\n"
               "on the system bus as org.rdmad1.\n\n"
               "  -h --help               Show this help\n"
               "     --version            Show package version\n"
               "     --log-level=LEVEL    Log level: emerg, alert, crit, err, warning,\n"
               "                          notice, info (default), debug, or 0-7\n"
               "     --poll-interval=MS   Re-read port link state every MS milliseconds\n"
               "                          (default %u, 0 = off)\n"
               "     --read-timeout=SPAN  A device whose sysfs read has not returned after\n"
               "                          SPAN is unresponsive (default 5s, 0 = never)\n"
               "     --state-dir=DIR      Keep the ports' link histories in DIR (default:\n"
               "                          $STATE_DIRECTORY, as StateDirectory= sets it;\n"
               "                          empty: none kept)\n"
               "     --dump               Print the model read from sysfs and exit\n"
               "\nLimits (rdmad(8), \"Limits\"):\n"
               "     --poll-batch=N       Read at most N ports' states before letting the\n"
               "                          event loop run (default %u)\n"
               "     --gmo-unprivileged-share=PERCENT\n"
               "                          Time the GetManagedObjects replies to users other\n"
               "                          than root may keep the bus connection busy\n"
               "                          (default %u%%)\n"
               "     --gmo-wait-max=SPAN  A GetManagedObjects call not served after SPAN\n"
               "                          is answered Busy (default 20s)\n"
               "     --gmo-reply-max=BYTES\n"
               "                          Largest GetManagedObjects reply in bytes\n"
               "                          (default %u)\n"
               "\nFor tests, not for production (rdmad(8), \"Options for testing\"):\n"
               "     --gmo-builtin        Leave GetManagedObjects to sd-bus\n"
               "     --gmo-slice-objects=N\n"
               "                          Build GetManagedObjects N objects at a time\n"
               "     --gmo-unprivileged-pause=SPAN\n"
               "                          Pause SPAN after every unprivileged reply\n"
               "     --ignore-name-owner-changed\n"
               "                          Act as if the bus lost every NameOwnerChanged\n",
               program_invocation_short_name, POLL_INTERVAL_MS_DEFAULT, LINK_POLL_BATCH_DEFAULT,
               MANAGED_OBJECTS_UNPRIVILEGED_SHARE, MANAGED_OBJECTS_REPLY_MAX);
}

typedef struct Options {
        bool dump;
        uint32_t poll_interval_ms;
        uint64_t read_timeout_usec;
        const char *state_dir; /* NULL or "": link histories in memory only */
        uint32_t poll_batch;   /* 0: LINK_POLL_BATCH_DEFAULT */
        ManagedObjectsTuning gmo;
        bool ignore_name_owner_changed;
} Options;

/* 0: go on; 1: done, exit successfully (--help, --version); <0: bad usage. */
static int parse_argv(int argc, char *argv[], Options *o) {
        enum {
                ARG_POLL_INTERVAL = ARG_PROGRAM,
                ARG_READ_TIMEOUT,
                ARG_DUMP,
                ARG_STATE_DIR,
                ARG_POLL_BATCH,
                ARG_GMO_UNPRIVILEGED_SHARE,
                ARG_GMO_WAIT_MAX,
                ARG_GMO_REPLY_MAX,
                ARG_GMO_BUILTIN,
                ARG_GMO_SLICE_OBJECTS,
                ARG_GMO_UNPRIVILEGED_PAUSE,
                ARG_IGNORE_NAME_OWNER_CHANGED,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                { "poll-interval", required_argument, NULL, ARG_POLL_INTERVAL },
                { "read-timeout", required_argument, NULL, ARG_READ_TIMEOUT },
                { "dump", no_argument, NULL, ARG_DUMP },
                { "state-dir", required_argument, NULL, ARG_STATE_DIR },
                { "poll-batch", required_argument, NULL, ARG_POLL_BATCH },
                { "gmo-unprivileged-share", required_argument, NULL, ARG_GMO_UNPRIVILEGED_SHARE },
                { "gmo-wait-max", required_argument, NULL, ARG_GMO_WAIT_MAX },
                { "gmo-reply-max", required_argument, NULL, ARG_GMO_REPLY_MAX },
                { "gmo-builtin", no_argument, NULL, ARG_GMO_BUILTIN },
                { "gmo-slice-objects", required_argument, NULL, ARG_GMO_SLICE_OBJECTS },
                { "gmo-unprivileged-pause", required_argument, NULL, ARG_GMO_UNPRIVILEGED_PAUSE },
                { "ignore-name-owner-changed", no_argument, NULL, ARG_IGNORE_NAME_OWNER_CHANGED },
                {},
        };
        uint32_t u;
        int c, r;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case ARG_POLL_INTERVAL:
                        if (parse_u32(optarg, &o->poll_interval_ms) < 0)
                                return log_error_errno(EINVAL, "Invalid poll interval: %s", optarg);
                        break;
                case ARG_READ_TIMEOUT:
                        /* A span as systemd writes one; "infinity" is 0, never. */
                        if (parse_timespan(optarg, &o->read_timeout_usec) < 0)
                                return log_error_errno(EINVAL, "Invalid read timeout: %s", optarg);
                        if (o->read_timeout_usec == TIMESPAN_INFINITY)
                                o->read_timeout_usec = 0;
                        break;
                case ARG_DUMP:
                        o->dump = true;
                        break;
                case ARG_STATE_DIR:
                        if (*optarg && optarg[0] != '/')
                                return log_error_errno(EINVAL, "--state-dir= takes an absolute path: %s", optarg);
                        o->state_dir = optarg;
                        break;
                case ARG_POLL_BATCH:
                        if (parse_u32(optarg, &o->poll_batch) < 0 || o->poll_batch == 0)
                                return log_error_errno(EINVAL, "Invalid poll batch (a number of ports > 0): %s",
                                                       optarg);
                        break;
                case ARG_GMO_UNPRIVILEGED_SHARE:
                        if (parse_u32(optarg, &u) < 0 || u < 1 || u > 100)
                                return log_error_errno(
                                        EINVAL, "Invalid GetManagedObjects share (a percentage, 1-100): %s", optarg);
                        o->gmo.unprivileged_share = u;
                        break;
                case ARG_GMO_WAIT_MAX:
                        if (parse_timespan(optarg, &o->gmo.wait_max_usec) < 0 || o->gmo.wait_max_usec == 0 ||
                            o->gmo.wait_max_usec == TIMESPAN_INFINITY)
                                return log_error_errno(EINVAL, "Invalid GetManagedObjects wait (a span > 0): %s",
                                                       optarg);
                        break;
                case ARG_GMO_REPLY_MAX:
                        if (parse_u32(optarg, &u) < 0 || u == 0)
                                return log_error_errno(EINVAL, "Invalid GetManagedObjects reply size (bytes > 0): %s",
                                                       optarg);
                        o->gmo.reply_max = u;
                        break;
                case ARG_GMO_BUILTIN:
                        o->gmo.builtin = true;
                        break;
                case ARG_GMO_SLICE_OBJECTS:
                        if (parse_u32(optarg, &o->gmo.slice_objects) < 0)
                                return log_error_errno(
                                        EINVAL, "Invalid GetManagedObjects slice (a number of objects): %s", optarg);
                        break;
                case ARG_GMO_UNPRIVILEGED_PAUSE:
                        if (parse_timespan(optarg, &o->gmo.unprivileged_pause_usec) < 0 ||
                            o->gmo.unprivileged_pause_usec == TIMESPAN_INFINITY)
                                return log_error_errno(EINVAL, "Invalid GetManagedObjects pause (a span): %s", optarg);
                        break;
                case ARG_IGNORE_NAME_OWNER_CHANGED:
                        o->ignore_name_owner_changed = true;
                        break;
                default:
                        r = parse_common_option(c, "rdmad", help);
                        if (r != 0)
                                return r;
                }
        return parse_no_arguments(argc, argv);
}

/* Never a reason not to start: without the directory, the histories are
 * kept in memory only. Its descriptor, for the records of VF changes in
 * flight, or -errno. */
static int open_state_dir(Manager *m, const Options *o) {
        /* Systemd's StateDirectory= sets $STATE_DIRECTORY (a list separated by
         * ':' when the unit names several: the first is ours). */
        const char *e = o->state_dir ? NULL : getenv("STATE_DIRECTORY");
        _cleanup_free_ char *env = e && e[0] == '/' ? strndup(e, strcspn(e, ":")) : NULL;
        const char *dir = o->state_dir ?: env;
        int r;

        if (!dir || !*dir) {
                log_info("No state directory: no link history is kept.");
                return -ENOENT;
        }
        /* From here on, histories are kept: on disk, or in memory when the
         * directory cannot be written (a full disk loses history, never an
         * answer). */
        m->keep_history = true;
        r = history_store_new(m->event, dir, &m->history);
        if (r < 0)
                log_warning_errno(
                        r, "Failed to open the state directory %s: %m. Link histories are kept in memory only.", dir);
        else
                log_debug("Link histories are kept in %s.", dir);
        r = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return r < 0 ? -errno : r;
}

/* "journalctl MESSAGE_ID=..." finds every VF change a stopped rdmad left half done. */
#define RDMAD_MESSAGE_SRIOV_INTERRUPTED "MESSAGE_ID=3f0d7a1e5c2b4e8f9a6d4c1b2e7f8a90"

/* A VF change that a killed rdmad left between its writes: said once, with
 * what the function has now, and forgotten. Never applied again: whoever
 * asked for it may no longer want it. */
static void report_interrupted_vf_changes(Manager *m, int state_fd) {
        _cleanup_free_ SriovIntent *intents = NULL;
        size_t n;
        int r;

        r = sriov_intents_take(state_fd, &intents, &n);
        if (r < 0)
                return (void) log_warning_errno(r,
                                                "Failed to read the records of VF changes in the state directory: %m");
        for (size_t i = 0; i < n; i++) {
                char device[300], asked[64], now[64] = "RDMA_SRIOV_NUMVFS=";
                const Device *d = NULL;

                for (size_t k = 0; k < m->n_devices && !d; k++)
                        if (m->devices[k]->sriov_capable && streq(m->devices[k]->device_path, intents[i].pci_path))
                                d = m->devices[k];
                snprintf(device, sizeof(device), "RDMA_DEVICE=%s", intents[i].device);
                snprintf(asked, sizeof(asked), "RDMA_SRIOV_ASKED=%u", intents[i].count);
                if (d)
                        snprintf(now, sizeof(now), "RDMA_SRIOV_NUMVFS=%u", d->num_vfs);
                log_struct(LOG_WARNING,
                           (const char *const[]){ RDMAD_MESSAGE_SRIOV_INTERRUPTED, device, asked, now, NULL },
                           "%s: a change to %u VFs was interrupted (rdmad stopped between its writes); %s%s%s. Not "
                           "applied again: call SetNumVfs to have it.",
                           intents[i].device, intents[i].count, d ? "it has " : "its PCI function is gone",
                           d ? now + strlen("RDMA_SRIOV_NUMVFS=") : "", d ? " VFs now" : "");
        }
}

static int on_sighup(sd_event_source *source, const struct signalfd_siginfo *si, void *userdata) {
        BusServer *s = userdata;
        int r;

        log_info("SIGHUP: rescanning.");
        r = manager_rescan(s->manager);
        if (r < 0)
                log_error_errno(r, "Rescan failed: %m");
        return 0;
}

/* What SIGTERM stops: the sources first, so that nothing of ours holds up
 * a device's removal while we exit, then the bus. */
typedef struct Stopping {
        EventSources *sources;
        BusServer *server;
} Stopping;

static int on_sigterm(sd_event_source *source, const struct signalfd_siginfo *si, void *userdata) {
        Stopping *st = userdata;

        log_info("%s: stopping.", si->ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
        event_sources_stop(st->sources);
        return bus_server_stop(st->server);
}

static int run(int argc, char *argv[]) {
        _cleanup_close_ int state_fd = -EBADF;
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_(bus_server_freep) BusServer *s = NULL;
        EventSources *sources = NULL; /* the manager's: freed with it */
        Stopping stopping;
        Options o = { .poll_interval_ms = POLL_INTERVAL_MS_DEFAULT, .read_timeout_usec = READ_TIMEOUT_USEC_DEFAULT };
        sigset_t mask;
        int r;

        log_open();
        /* One arena, before any reader thread: their allocations are freed
         * on the loop, and per-thread arenas would keep what a burst left. */
        (void) mallopt(M_ARENA_MAX, 1);
        /* No fastbins: the thousands of small blocks a poll's slow round
         * frees would wait there, and the next large allocation (a
         * PropertiesChanged being built) would merge them all at once, on
         * the loop: 0.3-2 ms every 10 s, measured. tcache still keeps a
         * few blocks of each size per thread. */
        (void) mallopt(M_MXFAST, 0);
        r = parse_argv(argc, argv, &o);
        if (r != 0)
                return r < 0 ? r : 0;

        r = manager_new(&m);
        if (r >= 0)
                r = event_sources_attach(m, &sources);
        if (r < 0)
                return log_error_errno(r, "Failed to set up: %m");
        m->poll_interval_ms = o.poll_interval_ms;
        if (o.poll_batch > 0)
                link_poll_set_batch(sources->poll, o.poll_batch);
        if (!o.dump) {
                r = bus_server_new(m, &s);
                if (r < 0)
                        return log_error_errno(r, "Failed to set up: %m");
                s->managed_objects.tuning = o.gmo;
                s->callers.ignore_name_owner_changed = o.ignore_name_owner_changed;
                /* A second rdmad says so before it reads anything. */
                r = bus_server_open(s);
                if (r < 0)
                        return r;

                /* The monitor starts before the enumeration, so nothing falls in between. */
                r = event_sources_start(sources);
                if (r < 0)
                        return r;
                /* From here on no read of a device's files runs on the loop. */
                r = manager_start_readers(m, o.read_timeout_usec);
                if (r < 0)
                        return log_error_errno(r, "Failed to start the readers: %m");
                state_fd = open_state_dir(m, &o);
        }

        r = manager_load(m);
        if (r < 0)
                return r;
        if (state_fd >= 0) {
                report_interrupted_vf_changes(m, state_fd);
                s->sriov_jobs.state_fd = state_fd;
        }

        if (o.dump) {
                for (size_t i = 0; i < m->n_devices; i++)
                        dump_device(m->devices[i]);
                return 0;
        }

        /* A descriptor per InfiniBand port stays open for the poll: thousands on an
         * SR-IOV host. The soft limit may go up to the hard one, as systemd's daemons do. */
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) >= 0 && rl.rlim_cur < rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                (void) setrlimit(RLIMIT_NOFILE, &rl);
        }

        /* Large buffers (a GetManagedObjects reply on a big host is megabytes) go
         * back to the kernel when freed, instead of staying in the heap. */
        (void) mallopt(M_MMAP_THRESHOLD, 128 * 1024);
        (void) mallopt(M_TRIM_THRESHOLD, 256 * 1024);

        /* A write to a closed pipe or socket is an error to handle, not a reason to die. */
        (void) signal(SIGPIPE, SIG_IGN);

        /* Signals arrive through the event loop, so they must be blocked. */
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        stopping = (Stopping){ .sources = sources, .server = s };
        r = sd_event_add_signal(m->event, NULL, SIGTERM, on_sigterm, &stopping);
        if (r < 0)
                return log_error_errno(r, "Failed to watch SIGTERM: %m");
        r = sd_event_add_signal(m->event, NULL, SIGINT, on_sigterm, &stopping);
        if (r < 0)
                return log_error_errno(r, "Failed to watch SIGINT: %m");
        r = sd_event_add_signal(m->event, NULL, SIGHUP, on_sighup, s);
        if (r < 0)
                return log_error_errno(r, "Failed to watch SIGHUP: %m");

        r = sd_bus_error_add_map(rdmad_error_map);
        if (r < 0)
                return log_error_errno(r, "Failed to register the error map: %m");

        /* The objects first, the name last: whoever finds the name finds them. */
        r = bus_objects_register(s);
        if (r < 0)
                return r;
        r = bus_server_connect(s);
        if (r < 0)
                return r;

        /* After the bus: a context's first events are published. */
        r = event_sources_run(sources);
        if (r < 0)
                return r;

        (void) sd_notifyf(false, "READY=1\nSTATUS=Publishing %zu RDMA device%s.", m->n_devices,
                          m->n_devices == 1 ? "" : "s");
        log_info("Ready on the system bus as %s.", RDMAD_BUS_NAME);

        r = sd_event_loop(m->event);
        (void) sd_notify(false, "STOPPING=1");
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m");
        /* sd_bus_set_exit_on_disconnect() exits the loop with a failure code. */
        return r == 0 ? 0 : -ECONNRESET;
}

int main(int argc, char *argv[]) {
        int r = run(argc, argv);

        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
