/* SPDX-License-Identifier: MIT */
/* A port's whole life: loaded with its device, re-read on the device's
 * lane, the result applied on the loop, derived, compared, stamped and
 * reported. */
#include "port.h"

#include <fcntl.h>
#include <stdio.h>

#include "basic/log.h"
#include "basic/parse.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "manager.h"
#include "port-gids.h"
#include "properties.h"
#include "read-job.h"
#include "reader-pool.h"

/* ---------- Port.LinkHistory: its State changes, kept in the state directory ---------- */

static int port_history_key(const Port *p, char ret[static LINK_HISTORY_KEY_MAX]) {
        char guid[PORT_GUID_MAX];

        return link_history_key(port_guid(p, guid), p->device->name, p->number, ret);
}

void device_history_load(HistoryStore *store, Device *d) {
        if (!store)
                return;
        for (size_t i = 0; i < d->n_ports; i++) {
                Port *p = &d->ports[i];
                char key[LINK_HISTORY_KEY_MAX];
                LinkHistory h;

                if (p->history || port_history_key(p, key) < 0)
                        continue;
                history_store_load(store, key, &h);
                if (h.n == 0)
                        continue;
                p->history = malloc(sizeof(LinkHistory));
                if (!p->history) {
                        log_oom();
                        continue;
                }
                *p->history = h;
        }
}

static int port_history_record(HistoryStore *store, Port *p, uint64_t usec, const char *old_state) {
        char key[LINK_HISTORY_KEY_MAX];
        int r;

        if (!p->history) {
                p->history = calloc(1, sizeof(LinkHistory));
                if (!p->history)
                        return log_oom();
        }
        link_history_add(p->history, usec, old_state, p->state_name);
        if (!store)
                return 0;
        r = port_history_key(p, key);
        if (r < 0)
                return log_debug_errno(r, "%s port %u: no file name for its link history: %m", p->device->name,
                                       p->number),
                       0;
        r = history_store_save(store, key, p->history);
        if (r < 0)
                log_oom();
        return 0;
}

/* A new char * field of Port goes here (properties.h, STRING_AT()). */
static const size_t port_strings[] = {
        offsetof(Port, state),           offsetof(Port, state_name), offsetof(Port, phys_state),
        offsetof(Port, phys_state_name), offsetof(Port, rate),       offsetof(Port, rate_unit),
        offsetof(Port, rate_info),       offsetof(Port, link_width), offsetof(Port, link_speed),
        offsetof(Port, link_layer),      offsetof(Port, transport),  offsetof(Port, netdev),
        offsetof(Port, gid_ndev),
};

void port_clear(Port *p) {
        strings_free(port_strings, ELEMENTSOF(port_strings), p);
        gids_free(p->gids, p->n_gids);
        attr_list_clear(&p->attributes);
        free(p->history);
        *p = (Port){};
}

/* Every field that derives from the port's attribute map, which holds the
 * raw file contents. */
static int port_derive(void *object) {
        Port *p = object;
        const AttrList *a = &p->attributes;
        const char *raw, *name;
        RateInfo rate;

        assert(p->device); /* its node type decides iWARP */

        raw = attr_list_get(a, "state") ?: "";
        (void) parse_port_state(raw, &p->state_num, &name);
        if (derive_str(&p->state, raw) < 0 || derive_str(&p->state_name, name) < 0)
                return -ENOMEM;

        raw = attr_list_get(a, "phys_state") ?: "";
        (void) parse_port_phys_state(raw, &p->phys_state_num, &name);
        if (derive_str(&p->phys_state, raw) < 0 || derive_str(&p->phys_state_name, name) < 0)
                return -ENOMEM;

        /* Unreadable without a link (EINVAL): "" and 0. */
        raw = attr_list_get(a, "rate") ?: "";
        (void) parse_rate(raw, &rate);
        p->rate_speed = rate.speed;
        if (derive_str(&p->rate, raw) < 0 || derive_str(&p->rate_unit, rate.unit) < 0 ||
            derive_str(&p->rate_info, rate.info) < 0 || derive_str(&p->link_width, rate.width) < 0 ||
            derive_str(&p->link_speed, rate.speed_name) < 0)
                return -ENOMEM;

        if (derive_str(&p->link_layer, link_layer_normalize(attr_list_get(a, "link_layer"))) < 0 ||
            derive_str(&p->transport, transport_from(p->device->node_type_num, p->link_layer)) < 0)
                return -ENOMEM;

        p->lid = attr_u32(a, "lid");
        p->sm_lid = attr_u32(a, "sm_lid");
        p->lid_mask_count = attr_u32(a, "lid_mask_count");
        p->sm_sl = attr_u32(a, "sm_sl");
        p->cap_mask = attr_u32(a, "cap_mask");
        return 0;
}

DEFINE_OBJECT_KIND(port, Port, PORT);

/* "4: ACTIVE" or "4", with or without its newline: anything else ("", a
 * torn or garbled read) is no state, and never a transition. */
bool port_state_parses(const char *value) {
        char buf[64];
        const char *name;
        uint32_t num;
        size_t len = strcspn(value, "\n");

        if (len == 0 || len >= sizeof(buf))
                return false;
        memcpy(buf, value, len);
        buf[len] = '\0';
        return parse_port_state(buf, &num, &name) >= 0;
}

/* The port's state did not parse in a full read: the state it had, kept. */
int port_keep_state(Port *p, const Port *old) {
        const char *state = attr_list_get(&old->attributes, "state");
        PropertyMask changed;
        int r;

        if (!p->state_unparsed || !state)
                return 0;
        r = attr_list_set(&p->attributes, "state", state);
        if (r < 0)
                return r;
        p->state_unparsed = false;
        return object_update(&port_kind, p, &changed);
}

static int port_load(int ports_fd, const char *dirname, Port *p) {
        _cleanup_close_ int fd = -EBADF;
        PropertyMask changed;
        int r;

        r = parse_decimal_u32(dirname, &p->number);
        if (r < 0)
                return r;
        if (str_set(&p->netdev, "") < 0 || str_set(&p->gid_ndev, "") < 0)
                return -ENOMEM;

        fd = openat(ports_fd, dirname, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                r = resource_errno_or_zero();
                if (r < 0)
                        return r;
                log_debug_errno(errno, "Failed to open port directory %s: %m", dirname);
        } else {
                r = sysfs_read_attributes_at(fd, ".", &p->attributes);
                if (errno_is_resource(r))
                        return r;
                /* A state that does not parse is a failed read: left out
                 * here, and the applying side keeps the port's last one. */
                if (attr_list_get(&p->attributes, "state") &&
                    !port_state_parses(attr_list_get(&p->attributes, "state"))) {
                        r = attr_list_set(&p->attributes, "state", NULL);
                        if (r < 0)
                                return r;
                        p->state_unparsed = true;
                        reader_read_failed(fd, "state", -EBADMSG);
                }
        }

        /* A port with nothing readable still gets "" and 0 everywhere. */
        r = object_update(&port_kind, p, &changed);
        if (r < 0)
                return r;
        p->link_events = port_link_events(p);

        return fd >= 0 ? port_load_gids(fd, p) : 0;
}

/* What the poll timer re-reads of a port: IB ports change state without any
 * event. A re-read of an Ethernet port opens 3 files instead of 7. */
static const PolledFile port_link_files[] = {
        { "state", .parses = port_state_parses },
        { "phys_state" },
        { "rate" },
        { "lid", .infiniband_addressing = true },
        { "sm_lid", .infiniband_addressing = true },
        { "lid_mask_count", .infiniband_addressing = true },
        { "sm_sl", .infiniband_addressing = true },
};

const char *port_link_events(const Port *p) {
        assert(p);

        if (streq_ptr(p->link_layer, "Ethernet"))
                return "rtnetlink";
        return p->device && p->device->verbs_covered ? "verbs" : "poll";
}

/* No event reports these: a PhysState step while the link is down, a rate
 * change without a state change. */
static const PolledFile port_unreported_files[] = {
        { "phys_state" },
        { "rate" },
};

_Static_assert(ELEMENTSOF(port_link_files) == PORT_LINK_FILES, "PORT_LINK_FILES");
_Static_assert(ELEMENTSOF(port_unreported_files) == PORT_UNREPORTED_FILES, "PORT_UNREPORTED_FILES");
/* A read keeps either set of values in one array (PortRead.values). */
_Static_assert(PORT_UNREPORTED_FILES <= PORT_LINK_FILES, "PortRead.values holds the unreported files too");

/* A re-read of the link's files, or of the unreported ones only. */
int port_read_files(const char *device_path, uint32_t number, bool link, bool ethernet, FileValue *values) {
        char dir[4096];

        snprintf(dir, sizeof(dir), "%s/ports/%u", device_path, number);
        if (link)
                return object_read_files(dir, port_link_files, PORT_LINK_FILES, ethernet, values);
        return object_read_files(dir, port_unreported_files, PORT_UNREPORTED_FILES, false, values);
}

int port_apply_link(Port *p, const FileValue *values, PropertyMask *ret_changed) {
        return object_apply_files(&port_kind, p, port_link_files, PORT_LINK_FILES, values, ret_changed);
}

static int port_compare(const void *a, const void *b) {
        uint32_t x = ((const Port *) a)->number, y = ((const Port *) b)->number;
        return x < y ? -1 : x > y;
}

int device_load_ports(int dev_fd, Device *d) {
        _cleanup_closedir_ DIR *dir = NULL;
        size_t allocated = 0;
        struct dirent *de;
        int fd, r;

        r = sysfs_opendir_at(dev_fd, "ports", &dir);
        if (errno_is_resource(r))
                return r;
        if (r < 0)
                return log_debug_errno(r, "%s: no ports directory: %m", d->name), 0;
        fd = dirfd(dir);

        while ((de = readdir(dir))) {
                uint32_t number;

                if (parse_decimal_u32(de->d_name, &number) < 0)
                        continue;
                if (ARRAY_RESERVE(d->ports, allocated, d->n_ports + 1) < 0)
                        return -ENOMEM;
                d->ports[d->n_ports] = (Port){ .device = d };
                r = port_load(fd, de->d_name, &d->ports[d->n_ports]);
                d->n_ports++;
                if (r < 0)
                        return r;
        }

        if (d->n_ports > 0)
                qsort(d->ports, d->n_ports, sizeof(Port), port_compare);
        ARRAY_SHRINK(d->ports, allocated, d->n_ports);
        return 0;
}

/* ---------- a port's life after its load: re-read, applied, reported ---------- */

/* "journalctl MESSAGE_ID=..." finds every link state change of every port. */
#define RDMAD_MESSAGE_PORT_STATE "MESSAGE_ID=6c05c1e209f7416285733a4ed371ba8a"

/* One journal entry per observed change, with fields to select by, so that
 * "journalctl RDMA_DEVICE=mlx4_0" is the link history. */
static void port_log_state_change(const Port *p, const char *old_state_name) {
        char device[256], port[32], state[64], phys_state[64];

        snprintf(device, sizeof(device), "RDMA_DEVICE=%s", p->device->name);
        snprintf(port, sizeof(port), "RDMA_PORT=%u", p->number);
        snprintf(state, sizeof(state), "RDMA_STATE=%s", p->state_name);
        snprintf(phys_state, sizeof(phys_state), "RDMA_PHYS_STATE=%s", p->phys_state_name);
        log_struct(LOG_INFO, (const char *const[]){ RDMAD_MESSAGE_PORT_STATE, device, port, state, phys_state, NULL },
                   "%s port %u: %s -> %s (%s).", p->device->name, p->number, old_state_name, p->state_name,
                   p->phys_state_name);
}

PropertyMask port_stamp(Port *p, PropertyMask mask, const char *old_state_name) {
        Manager *m = p->device->manager;

        if (mask & PORT_STATE_MASK) {
                p->state_changed_usec = now_usec(CLOCK_REALTIME);
                mask |= PROPERTY_BIT(PORT_PROP_STATE_CHANGED_USEC);
                port_log_state_change(p, old_state_name);
        }
        if (mask &
            (PROPERTY_BIT(PORT_PROP_STATE) | PROPERTY_BIT(PORT_PROP_STATE_NUM) | PROPERTY_BIT(PORT_PROP_STATE_NAME))) {
                p->state_changes++;
                mask |= PROPERTY_BIT(PORT_PROP_STATE_CHANGES);
                if (m->keep_history && port_history_record(m->history, p, p->state_changed_usec, old_state_name) >= 0)
                        mask |= PROPERTY_BIT(PORT_PROP_LINK_HISTORY);
        }
        return mask;
}

/* What a port's re-read changed, applied: stamped, reported, and the
 * sources told (an Ethernet port's netdev, the poll's schedule). */
static void port_report_changed(Port *p, PropertyMask changed, const char *old_state_name) {
        Manager *m = p->device->manager;

        if (changed != 0)
                model_report(m, MODEL_PORT, p, port_stamp(p, changed, old_state_name));
        if (m->sources.port_changed)
                m->sources.port_changed(p, changed, m->sources_userdata);
}

/* A read of some of a device's ports: what to read of each, and what was. */
typedef struct PortRead {
        Port *port; /* the loop's: apply only */
        uint32_t number;
        unsigned what, done;
        bool ethernet, infiniband;
        char *expected_state;              /* PORT_READ_STATE: the model's state */
        FileValue values[PORT_LINK_FILES]; /* the link's files, or the unreported ones */
        GidSet gids;
} PortRead;

typedef struct PortsJob {
        ReadJob job;
        PortRead *ports;
        size_t n_ports;
} PortsJob;

static void ports_job_free(ReadJob *j) {
        PortsJob *pj = (PortsJob *) j;

        for (size_t i = 0; i < pj->n_ports; i++) {
                PortRead *p = &pj->ports[i];

                free(p->expected_state);
                file_values_clear(p->values, PORT_LINK_FILES);
                gid_set_clear(&p->gids);
        }
        free(pj->ports);
}

/* The poll's kept descriptors of a device's state files: the lane's
 * context, touched only by the thread that runs the lane's job. */
typedef struct StateFds {
        size_t n;
        struct {
                uint32_t number;
                int fd;
        } * items;
} StateFds;

static void state_fds_free(void *p) {
        StateFds *s = p;

        if (!s)
                return;
        for (size_t i = 0; i < s->n; i++)
                closep(&s->items[i].fd);
        free(s->items);
        free(s);
}

static int *state_fd_slot(ReaderLane *lane, uint32_t number) {
        StateFds *s = reader_lane_context(lane);
        void *items;

        if (!s) {
                s = calloc(1, sizeof(StateFds));
                if (!s)
                        return NULL;
                reader_lane_set_context(lane, s, state_fds_free);
        }
        for (size_t i = 0; i < s->n; i++)
                if (s->items[i].number == number)
                        return &s->items[i].fd;
        items = reallocarray(s->items, s->n + 1, sizeof(*s->items));
        if (!items)
                return NULL;
        s->items = items;
        s->items[s->n].number = number;
        s->items[s->n].fd = -EBADF;
        return &s->items[s->n++].fd;
}

/* Whether the state file differs from what the model has: pread() of a
 * kept descriptor, the one read of a quiet tick. A failure also counts
 * (the link re-read by path decides) and closes the descriptor. */
static bool state_changed(ReaderLane *lane, const char *sysfs_path, PortRead *p) {
        int *fd = lane ? state_fd_slot(lane, p->number) : NULL;
        char path[4096], buf[128];
        ssize_t n;

        if (!lane || !fd)
                return true;
        if (*fd < 0) {
                snprintf(path, sizeof(path), "%s/ports/%u/state", sysfs_path, p->number);
                *fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
                if (*fd < 0)
                        /* Unreadable: changed unless the model already has no state. */
                        return *p->expected_state != '\0';
        }
        reader_read_begin(*fd, "");
        n = pread(*fd, buf, sizeof(buf) - 1, 0);
        reader_read_end(*fd, "", n < 0 ? -errno : 0);
        if (n < 0) {
                *fd = (close(*fd), -EBADF);
                return true;
        }
        n = (ssize_t) sysfs_trim_trailing_space(buf, (size_t) n);
        if ((size_t) n != strlen(p->expected_state) || memcmp(buf, p->expected_state, (size_t) n) != 0) {
                /* A replaced file (a test tree) needs a new descriptor; sysfs does not mind. */
                *fd = (close(*fd), -EBADF);
                return true;
        }
        return false;
}

/* Whether the device's directory is gone (removed or renamed under us):
 * what was read of it then is not news, its uevent follows. */
static bool device_dir_gone(const char *sysfs_path) {
        return access(sysfs_path, F_OK) < 0 && errno == ENOENT;
}

static int port_read(ReaderLane *lane, const char *sysfs_path, PortRead *p) {
        int r;

        if ((p->what & PORT_READ_STATE) && !(p->what & PORT_READ_LINK) && state_changed(lane, sysfs_path, p))
                p->what |= PORT_READ_LINK;
        if (p->what & (PORT_READ_LINK | PORT_READ_UNREPORTED)) {
                bool link = p->what & PORT_READ_LINK;

                r = port_read_files(sysfs_path, p->number, link, p->ethernet, p->values);
                if (r < 0)
                        return r;
                p->done |= link ? PORT_READ_LINK : PORT_READ_UNREPORTED;
        }
        if (p->what & PORT_READ_GIDS) {
                r = port_read_gids(sysfs_path, p->number, p->infiniband, &p->gids);
                if (errno_is_resource(r))
                        return r;
                if (r >= 0)
                        p->done |= PORT_READ_GIDS;
        }
        return 0;
}

static void ports_job_run(ReaderLane *lane, void *arg) {
        PortsJob *pj = arg;
        ReadJob *j = &pj->job;
        bool news = false;

        for (size_t i = 0; i < pj->n_ports && j->error >= 0; i++) {
                j->error = port_read(lane, j->sysfs_path, &pj->ports[i]);
                news = news || pj->ports[i].done != 0;
        }
        /* Only what was read by path can be news of a departed device; a
         * quiet tick's kept descriptors said "unchanged", and a path lookup
         * per device and round was a quarter of an idle host's CPU. */
        if (j->error >= 0 && news && device_dir_gone(j->sysfs_path))
                j->error = -ENOENT;
}

static void ports_job_apply(ReadJob *j, const ReaderResult *res) {
        PortsJob *pj = (PortsJob *) j;

        /* Its directory went meanwhile (a removal, a rename): the uevent says what happened. */
        if (j->error == -ENOENT)
                return;
        if (errno_is_resource(j->error))
                resync_defer(j->manager, j->error, j->name);
        for (size_t i = 0; i < pj->n_ports; i++) {
                PortRead *pr = &pj->ports[i];
                Port *p = pr->port;
                char old_state_name[64];
                PropertyMask changed = 0, more = 0;
                int k = 0;

                if (pr->done == 0)
                        continue;
                /* The old name goes with the old string when the port is re-derived. */
                snprintf(old_state_name, sizeof(old_state_name), "%s", p->state_name);
                if (pr->done & PORT_READ_LINK)
                        k = port_apply_link(p, pr->values, &changed);
                else if (pr->done & PORT_READ_UNREPORTED)
                        k = object_apply_files(&port_kind, p, port_unreported_files, PORT_UNREPORTED_FILES, pr->values,
                                               &changed);
                if (k >= 0 && (pr->done & PORT_READ_GIDS))
                        k = port_apply_gids(p, &pr->gids, &more);
                if (errno_is_resource(k))
                        resync_defer(j->manager, k, j->name);
                port_report_changed(p, changed | more, old_state_name);
        }
}

static int ports_job_add(PortsJob *pj, Port *p, unsigned what) {
        PortRead *pr;

        pr = reallocarray(pj->ports, pj->n_ports + 1, sizeof(PortRead));
        if (!pr)
                return -ENOMEM;
        pj->ports = pr;
        pr = &pj->ports[pj->n_ports++];
        *pr = (PortRead){ .port = p,
                          .number = p->number,
                          .what = what,
                          .ethernet = streq_ptr(p->link_layer, "Ethernet"),
                          .infiniband = streq_ptr(p->link_layer, "InfiniBand") };
        if ((what & PORT_READ_STATE) && !(pr->expected_state = strdup(p->state ?: "")))
                return -ENOMEM;
        return 0;
}

static const ReadJobKind ports_job_kind = {
        .size = sizeof(PortsJob),
        .run = ports_job_run,
        .apply = ports_job_apply,
        .free = ports_job_free,
};

/* The turns' ports of d, on its lane; nothing of a device that cannot be read now. */
static int ports_read(Device *d, const PollTurn *turns, size_t n, bool from_poll) {
        PortsJob *pj;

        if (!device_readable(d))
                return 0;
        pj = (PortsJob *) read_job_new(&ports_job_kind, d->manager, d, NULL, NULL);
        if (!pj)
                return -ENOMEM;
        pj->job.from_poll = from_poll;
        for (size_t i = 0; i < n; i++)
                if (ports_job_add(pj, turns[i].port, turns[i].what) < 0) {
                        read_job_free(&pj->job);
                        return -ENOMEM;
                }
        return read_job_submit(&pj->job, d->lane);
}

int device_poll_ports(Device *d, const PollTurn *turns, size_t n) {
        int r;

        assert(d);
        if (n == 0 || !device_readable(d))
                return 0;
        r = ports_read(d, turns, n, true);
        /* Queued on its lane: the poll hears of it again when it is applied. */
        return r < 0 ? r : d->manager->readers && d->lane ? 1 : 0;
}

int port_refresh(Port *p) {
        assert(p);
        return ports_read(p->device, &(PollTurn){ p, PORT_READ_LINK }, 1, false);
}

int port_refresh_gids(Port *p) {
        assert(p);
        return ports_read(p->device, &(PollTurn){ p, PORT_READ_GIDS }, 1, false);
}

void device_set_verbs_covered(Device *d, bool covered) {
        Manager *m = d->manager;

        assert(d);

        d->verbs_covered = covered;
        for (size_t i = 0; i < d->n_ports; i++) {
                Port *p = &d->ports[i];
                const char *e = port_link_events(p);

                if (!streq_ptr(p->link_events, e)) {
                        p->link_events = e;
                        model_report(m, MODEL_PORT, p, PROPERTY_BIT(PORT_PROP_LINK_EVENTS));
                }
        }
        /* Polled at the normal period again. */
        if (!covered && m->sources.uncovered)
                m->sources.uncovered(m->sources_userdata);
}

/* fresh, a new read of the port p, moved into p; what the port keeps of
 * itself (its device, its change count and time, its history) is fresh's
 * already (port_carry_over()), and fresh holds the old values, freed with it. */
void port_take_values(Port *p, Port *fresh) {
        SWAP_VALUES(*p, *fresh);
        p->device = fresh->device;
        fresh->history = NULL; /* p's */
}

/* What a port keeps across reads, into its new read, before the two are compared. */
void port_carry_over(Port *fresh, const Port *p) {
        fresh->state_changed_usec = p->state_changed_usec;
        fresh->state_changes = p->state_changes;
        fresh->history = p->history;
        fresh->poll = p->poll;
        fresh->link_events = port_link_events(fresh);
}
