/* SPDX-License-Identifier: MIT */
/* The link-state poll: the kernel sends no event when an InfiniBand port
 * changes state, so each tick reads every InfiniBand port's state through a
 * kept descriptor, all of them in a few system calls (batch-read.h), and
 * re-reads a port's phys_state, rate and LIDs when its state changed, or in
 * its turn of the sweep. A tick without changes allocates nothing and emits
 * nothing; with no ports (or --poll-interval=0) there is no timer. */
#include "poll.h"

#include "batch-read.h"
#include "log.h"
#include "manager.h"
#include "util.h"

static bool manager_has_ports(Manager *m) {
        for (size_t i = 0; i < m->n_devices; i++)
                if (m->devices[i]->n_ports > 0)
                        return true;
        return false;
}

/* Each port is re-read in full by path once every SWEEP_TICKS ticks (2 min at
 * the default 1 s): what changes without a state change (the SM moving a LID,
 * a disabled port starting to poll, a link narrowing its width) shows within
 * that. Those by-path opens are most of the idle CPU, so the sweep is spread
 * thin (BENCHMARKS.md, "Idle"). */
#define SWEEP_TICKS 120

static void refresh_port(Manager *m, Port *p) {
        int r = manager_refresh_port(m, p);

        if (r < 0 && !errno_is_resource(r))
                log_warning_errno(r, "%s port %u: cannot re-read link state: %m", p->device->name, p->number);
}

/* Reads the queued ports' state files and re-reads the ports that changed. */
static void check_batch(Manager *m, BatchRead *b, Port **ports) {
        batch_read_run(b);
        for (size_t i = 0; i < b->n; i++)
                if (port_state_read_changed(ports[i], b->buf[i], b->result[i]))
                        refresh_port(m, ports[i]);
        batch_read_clear(b);
}

static int on_poll(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        unsigned slice = m->poll_ticks++ % SWEEP_TICKS, index = 0;
        Port *batch_ports[BATCH_READ_MAX];
        BatchRead *b;
        int r;

        /* Out of resources earlier and no event since: the sweep's turn to retry. */
        if (slice == 0)
                manager_retry_resync(m);

        /* Allocated once; without it (no memory), one pread() per port. */
        if (!m->poll_reads && batch_read_new(&m->poll_reads) < 0)
                log_oom();
        b = m->poll_reads;

        for (size_t i = 0; i < m->n_devices; i++) {
                Device *d = m->devices[i];

                for (size_t j = 0; j < d->n_ports; j++, index++) {
                        Port *p = &d->ports[j];
                        bool sweep = index % SWEEP_TICKS == slice;
                        bool watch = !streq(p->link_layer, "Ethernet") || p->poll_boost > 0;
                        int fd;

                        if (p->poll_boost > 0)
                                p->poll_boost--;
                        if (sweep) {
                                refresh_port(m, p);
                                continue;
                        }
                        if (!watch)
                                continue;
                        if (!b) {
                                if (port_link_changed(p))
                                        refresh_port(m, p);
                                continue;
                        }

                        fd = port_state_fd(p);
                        if (fd < 0) {
                                /* Unreadable: changed unless the model already has no state. */
                                if (*p->state)
                                        refresh_port(m, p);
                                continue;
                        }
                        batch_ports[batch_read_add(b, fd)] = p;
                        if (batch_read_full(b))
                                check_batch(m, b, batch_ports);
                }
        }
        if (b)
                check_batch(m, b, batch_ports);

        /* Fixed rate, from the scheduled time: no drift. */
        r = sd_event_source_set_time(s, usec + (uint64_t) m->poll_interval_ms * 1000);
        if (r < 0)
                log_error_errno(r, "Failed to set the poll timer's next tick: %m");
        r = sd_event_source_set_enabled(s, SD_EVENT_ON);
        if (r < 0)
                log_error_errno(r, "Failed to re-enable the poll timer: %m");
        return 0;
}

int poll_update(Manager *m) {
        uint64_t now;
        bool want;
        int r;

        assert(m);
        assert(m->event);

        want = m->poll_interval_ms > 0 && manager_has_ports(m);
        if (!want) {
                if (m->poll_event)
                        (void) sd_event_source_set_enabled(m->poll_event, SD_EVENT_OFF);
                return 0;
        }

        if (m->poll_event) {
                int enabled;

                if (sd_event_source_get_enabled(m->poll_event, &enabled) >= 0 && enabled != SD_EVENT_OFF)
                        return 0;
                r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
                if (r < 0)
                        return r;
                r = sd_event_source_set_time(m->poll_event, now + (uint64_t) m->poll_interval_ms * 1000);
                if (r < 0)
                        return r;
                return sd_event_source_set_enabled(m->poll_event, SD_EVENT_ON);
        }

        r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (r < 0)
                return r;
        /* 1 ms accuracy: a change must be seen within the interval, not a quarter second later. */
        r = sd_event_add_time(m->event, &m->poll_event, CLOCK_MONOTONIC, now + (uint64_t) m->poll_interval_ms * 1000,
                              1000, on_poll, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add the poll timer: %m");
        (void) sd_event_source_set_description(m->poll_event, "link-poll");
        return sd_event_source_set_enabled(m->poll_event, SD_EVENT_ON);
}
