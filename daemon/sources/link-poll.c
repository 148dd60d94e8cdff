/* SPDX-License-Identifier: MIT */
/* The link-state poll, the complement of the event sources: each tick hands
 * each device's due ports to its reader lane as one job, which reads their
 * state through kept descriptors, and re-reads a port's phys_state, rate
 * and LIDs when its state changed, or in its turn of the sweep. Ports that
 * an event source covers (LinkEvents "verbs" or "rtnetlink") are read
 * together in a round every slow period instead, except a verbs port
 * between link-up and ACTIVE (no event tells of INIT and ARMED), a port an
 * event just boosted and a port whose state just changed (it is re-read in
 * full once more: its settle mark). The timer is armed for what is due
 * next: the next tick while any port wants every tick, else the next slow
 * round. A pass hands out at most a batch of ports per dispatch and then
 * yields to the loop, so that events wait for a batch, not a round. A tick
 * without changes emits nothing; with no ports (or --poll-interval=0)
 * there is no timer.
 *
 * The poll's schedule and where a pass stopped are in LinkPoll; its marks
 * of the ports it watches more closely for a while (and of a device whose
 * turn is being read) hang off those objects (PollMark), which keep their
 * address across re-reads and take their marks with them when they go. */
#include "link-poll.h"

#include "basic/log.h"
#include "basic/util.h"
#include "port.h"
#include "manager.h"
#include "properties.h"
#include "reader-pool.h"
#include "read-job.h"
#include "device.h"

struct LinkPoll {
        Manager *manager;
        sd_event_source *timer;
        unsigned ticks;
        unsigned slow_rounds;
        uint64_t slow_next;  /* CLOCK_MONOTONIC µs of the next slow round */
        uint64_t retry_next; /* ... of the next retry of a deferred resync */
        /* A pass over the ports in progress: it yields to the loop after
         * each batch and goes on from here. */
        struct {
                bool active, slow;
                uint64_t usec; /* when the pass was due */
                unsigned tick, round, index;
                size_t device, port;
        } pass;
        unsigned batch; /* ports whose state is read per dispatch at most */
};

static bool link_poll_has_ports(Manager *m) {
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

/* The slow period of the ports an event source covers: their state is read
 * at least this far apart, to catch what no event reports (DOWN -> INIT).
 * All of them in one round, so that a host whose ports are all covered
 * wakes once per slow period instead of once per tick. */
#define SLOW_PERIOD_MS 10000

/* A covered port is swept in one slow round of SLOW_SWEEP_ROUNDS (30 min at
 * the default 10 s), and only of the files no event reports: phys_state
 * and rate (PORT_READ_UNREPORTED). The by-path opens of the sweep are
 * most of what an idle host costs (BENCHMARKS.md, "Verbs events"). */
#define SLOW_SWEEP_ROUNDS 180

/* A device's ports are read in one job on its lane; at most this many. */
#define POLL_TURNS_MAX 64

int link_poll_new(Manager *m, LinkPoll **ret) {
        LinkPoll *p;

        assert(ret);

        p = calloc(1, sizeof(LinkPoll));
        if (!p)
                return -ENOMEM;
        *p = (LinkPoll){ .manager = m, .batch = LINK_POLL_BATCH_DEFAULT };
        *ret = p;
        return 0;
}

void link_poll_set_batch(LinkPoll *p, unsigned batch) {
        assert(p);
        assert(batch > 0);

        p->batch = batch;
}

LinkPoll *link_poll_free(LinkPoll *p) {
        if (!p)
                return NULL;
        sd_event_source_disable_unref(p->timer);
        free(p);
        return NULL;
}

bool link_poll_port_every_tick(const LinkPoll *p, const Port *port) {
        assert(port);

        if (port->poll.boost > 0 || port->poll.settle || !port->link_events || streq(port->link_events, "poll"))
                return true;
        if (streq(port->link_events, "verbs"))
                /* INIT (2) and ARMED (3): the steps to ACTIVE send no event. */
                return port->state_num == 2 || port->state_num == 3;
        return false;
}

static bool link_poll_port_covered(const Port *p) {
        return p->link_events && !streq(p->link_events, "poll");
}

static uint64_t link_poll_slow_usec(const LinkPoll *p) {
        uint32_t ms = p->manager->poll_interval_ms;

        return (uint64_t) (ms > SLOW_PERIOD_MS ? ms : SLOW_PERIOD_MS) * 1000;
}

static bool link_poll_wants_ticks(LinkPoll *p) {
        Manager *m = p->manager;

        for (size_t i = 0; i < m->n_devices; i++)
                for (size_t j = 0; j < m->devices[i]->n_ports; j++)
                        if (link_poll_port_every_tick(p, &m->devices[i]->ports[j]))
                                return true;
        return false;
}

static void link_poll_arm(LinkPoll *p, uint64_t usec) {
        uint64_t next = link_poll_wants_ticks(p) ? usec + (uint64_t) p->manager->poll_interval_ms * 1000 : p->slow_next;
        int r;

        r = sd_event_source_set_time(p->timer, next);
        if (r < 0)
                log_error_errno(r, "Failed to set the poll timer's next tick: %m");
        r = sd_event_source_set_enabled(p->timer, SD_EVENT_ON);
        if (r < 0)
                log_error_errno(r, "Failed to re-enable the poll timer: %m");
}

static void link_poll_pass_begin(LinkPoll *p, uint64_t usec) {
        p->pass.active = true;
        p->pass.usec = usec;
        p->pass.tick = p->ticks++;
        p->pass.round = p->slow_rounds;
        p->pass.index = 0;
        p->pass.device = p->pass.port = 0;
        /* Within the timer's accuracy of the slow round: that round is due. */
        p->pass.slow = usec + 1000 >= p->slow_next;
        if (p->pass.slow) {
                p->slow_rounds++;
                /* Fixed rate, from the scheduled time: no drift. */
                p->slow_next = (usec > p->slow_next ? usec : p->slow_next) + link_poll_slow_usec(p);
        }
        /* Out of resources earlier and no event since: the sweep's turn to retry. */
        if (usec >= p->retry_next) {
                p->retry_next = usec + (uint64_t) SWEEP_TICKS * p->manager->poll_interval_ms * 1000;
                manager_retry_resync(p->manager);
        }
}

/* Goes on with the pass at the next loop iteration, after what is pending. */
static void link_poll_pass_yield(LinkPoll *p, size_t device, size_t port, unsigned index) {
        uint64_t now;
        int r;

        p->pass.device = device;
        p->pass.port = port;
        p->pass.index = index;
        r = sd_event_now(p->manager->event, CLOCK_MONOTONIC, &now);
        if (r >= 0)
                r = sd_event_source_set_time(p->timer, now);
        if (r >= 0)
                r = sd_event_source_set_enabled(p->timer, SD_EVENT_ON);
        if (r < 0)
                log_error_errno(r, "Failed to resume the poll's pass: %m");
}

static void link_poll_submit(LinkPoll *p, Device *d, PollTurn *turns, size_t n) {
        Manager *m = p->manager;
        int r = device_poll_ports(d, turns, n);

        if (r > 0) {
                /* Queued: no more turns of it until this one is read. */
                d->poll.busy = true;
        } else if (errno_is_resource(r))
                resync_defer(m, r, d->name);
        else if (r < 0)
                log_warning_errno(r, "%s: failed to queue the poll's read: %m", d->name);
}

static int on_link_poll(sd_event_source *s, uint64_t usec, void *userdata) {
        LinkPoll *p = userdata;
        Manager *m = p->manager;
        unsigned index, read = 0;
        PollTurn turns[POLL_TURNS_MAX];

        if (!p->pass.active)
                link_poll_pass_begin(p, usec);
        index = p->pass.index;

        for (size_t i = p->pass.device; i < m->n_devices; i++) {
                Device *d = m->devices[i];
                /* An unresponsive device's turns are skipped: nothing more
                 * queues behind its stuck read. So is one whose reads are
                 * still under way (a slow device); what its turn would have
                 * read is owed, and read at its next turn (a slow round's
                 * read of a covered port would otherwise wait for the next
                 * slow round). */
                bool busy, readable;
                size_t n = 0;

                /* A lane with nothing pending has no turn outstanding (a
                 * turn cancelled by a stuck read's recovery never comes back). */
                if (d->poll.busy && (!d->lane || reader_lane_pending(d->lane) == 0))
                        d->poll.busy = false;
                busy = device_readable(d) && d->poll.busy;
                readable = device_readable(d) && !busy;

                if (read > 0 && read >= p->batch) {
                        link_poll_pass_yield(p, i, 0, index);
                        return 0;
                }
                for (size_t j = i == p->pass.device ? p->pass.port : 0; j < d->n_ports; j++, index++) {
                        Port *port = &d->ports[j];
                        PollMark *mk = &port->poll;
                        bool covered, watch, sweep;
                        unsigned what = 0;

                        covered = link_poll_port_covered(port);
                        watch = p->pass.slow || link_poll_port_every_tick(p, port);
                        if (mk->boost > 0)
                                mk->boost--;
                        if (!readable && !busy)
                                continue;
                        /* Ticks come every period while an uncovered port exists. */
                        sweep = covered ? p->pass.slow && index % SLOW_SWEEP_ROUNDS == p->pass.round % SLOW_SWEEP_ROUNDS
                                        : index % SWEEP_TICKS == p->pass.tick % SWEEP_TICKS;
                        if (mk->settle || (sweep && !covered)) {
                                /* By path, the state too; a new change settles again. */
                                what = PORT_READ_LINK;
                        } else {
                                if (sweep)
                                        what |= PORT_READ_UNREPORTED;
                                if (watch)
                                        what |= PORT_READ_STATE;
                        }
                        if (!readable) {
                                /* Busy: a port read every tick is read at the next one anyway. */
                                if (what != 0 && (covered || what != PORT_READ_STATE))
                                        mk->owed |= what;
                                continue;
                        }
                        what |= mk->owed;
                        mk->owed = 0;
                        mk->settle = false;
                        if (what & PORT_READ_LINK)
                                /* By path: the state and everything unreported too. */
                                what = PORT_READ_LINK | (what & PORT_READ_GIDS);
                        if (what == 0)
                                continue;
                        read++;
                        turns[n++] = (PollTurn){ port, what };
                        if (n == ELEMENTSOF(turns)) {
                                link_poll_submit(p, d, turns, n);
                                n = 0;
                        }
                }
                if (n > 0)
                        link_poll_submit(p, d, turns, n);
        }

        p->pass.active = false;
        link_poll_arm(p, p->pass.usec);
        return 0;
}

void link_poll_wake(LinkPoll *p) {
        uint64_t now, next;

        if (!p || !p->timer || p->manager->poll_interval_ms == 0 ||
            sd_event_now(p->manager->event, CLOCK_MONOTONIC, &now) < 0 || sd_event_source_get_time(p->timer, &next) < 0)
                return;
        now += (uint64_t) p->manager->poll_interval_ms * 1000;
        if (next > now)
                (void) sd_event_source_set_time(p->timer, now);
}

void link_poll_turn_done(Device *d, void *userdata) {
        assert(d);
        d->poll.busy = false;
}

void link_poll_port_changed(LinkPoll *p, Port *port, PropertyMask changed) {
        assert(port);

        if (!p)
                return;
        /* The port's files are no snapshot: phys_state, rate or the LIDs may
         * settle a moment after the state. The next tick re-reads the port
         * once more, instead of leaving them stale until its sweep. */
        if (changed & PROPERTY_BIT(PORT_PROP_STATE))
                port->poll.settle = true;
        /* Left ACTIVE for INIT or ARMED, or settling: the timer may sleep till its slow round. */
        if (link_poll_port_every_tick(p, port))
                link_poll_wake(p);
}

void link_poll_port_boost(LinkPoll *p, Port *port, unsigned ticks) {
        assert(port);

        if (!p)
                return;
        port->poll.boost = ticks > UINT8_MAX ? UINT8_MAX : ticks;
        link_poll_wake(p);
}

int link_poll_update(LinkPoll *p) {
        Manager *m;
        uint64_t now, next;
        int r;

        assert(p);
        m = p->manager;
        assert(m->event);

        if (m->poll_interval_ms == 0 || !link_poll_has_ports(m)) {
                if (p->timer)
                        (void) sd_event_source_set_enabled(p->timer, SD_EVENT_OFF);
                p->pass.active = false;
                return 0;
        }

        r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (r < 0)
                return r;
        if (p->timer && sd_event_source_get_enabled(p->timer, NULL) > 0) {
                /* A new device may be one no event covers. */
                if (link_poll_wants_ticks(p))
                        link_poll_wake(p);
                return 0;
        }
        next = now + (uint64_t) m->poll_interval_ms * 1000;
        if (!p->timer) {
                p->slow_next = now + link_poll_slow_usec(p);
                /* 1 ms accuracy: a change must be seen within the interval, not a quarter second later. */
                r = sd_event_add_time(m->event, &p->timer, CLOCK_MONOTONIC, next, 1000, on_link_poll, p);
                if (r < 0)
                        return log_error_errno(r, "Failed to add the poll timer: %m");
                (void) sd_event_source_set_description(p->timer, "link-poll");
        }
        r = sd_event_source_set_time(p->timer, next);
        return r < 0 ? r : sd_event_source_set_enabled(p->timer, SD_EVENT_ON);
}
