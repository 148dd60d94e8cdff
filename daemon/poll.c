/* SPDX-License-Identifier: MIT */
/* The link-state poll, the complement of the event sources: each tick reads
 * the state of the ports no event covers through a kept descriptor, all of
 * them in a few system calls (batch-read.h), and re-reads a port's
 * phys_state, rate and LIDs when its state changed, or in its turn of the
 * sweep. Ports that an event source covers (LinkEvents "verbs" or
 * "rtnetlink") are read together in a round every slow period instead,
 * except a verbs port between link-up and ACTIVE (no event tells of INIT
 * and ARMED), a port an event just boosted and a port whose state just
 * changed (it is re-read in full once more, see Port.poll_settle). The timer is armed for what
 * is due next: the next tick while any port wants every tick, else the
 * next slow round. A pass reads at most a batch of states per dispatch and
 * then yields to the loop, so that events wait for a batch, not a round.
 * A tick without changes allocates nothing and emits nothing; with no
 * ports (or --poll-interval=0) there is no timer. */
#include "poll.h"

#include "batch-read.h"
#include "device-reads.h"
#include "log.h"
#include "manager.h"
#include "test-knobs.h"
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

/* The slow period of the ports an event source covers: their state is read
 * at least this far apart, to catch what no event reports (DOWN -> INIT).
 * All of them in one round, so that a host whose ports are all covered
 * wakes once per slow period instead of once per tick. */
#define SLOW_PERIOD_MS 10000

/* A covered port is swept in one slow round of SLOW_SWEEP_ROUNDS (30 min at
 * the default 10 s), and only of the files no event reports: phys_state
 * and rate (port_refresh_unreported()). The by-path opens of the sweep are
 * most of what an idle host costs (BENCHMARKS.md, "Verbs events"). */
#define SLOW_SWEEP_ROUNDS 180

bool poll_port_every_tick(const Port *p) {
        assert(p);

        if (p->poll_boost > 0 || p->poll_settle || !p->link_events || streq(p->link_events, "poll"))
                return true;
        if (streq(p->link_events, "verbs"))
                /* INIT (2) and ARMED (3): the steps to ACTIVE send no event. */
                return p->state_num == 2 || p->state_num == 3;
        return false;
}

static bool port_covered(const Port *p) {
        return p->link_events && !streq(p->link_events, "poll");
}

static uint64_t poll_slow_usec(const Manager *m) {
        return (uint64_t) (m->poll_interval_ms > SLOW_PERIOD_MS ? m->poll_interval_ms : SLOW_PERIOD_MS) * 1000;
}

static bool manager_wants_ticks(Manager *m) {
        for (size_t i = 0; i < m->n_devices; i++)
                for (size_t j = 0; j < m->devices[i]->n_ports; j++)
                        if (poll_port_every_tick(&m->devices[i]->ports[j]))
                                return true;
        return false;
}

/* The next expiry: the next tick while a port wants every tick, else the
 * next slow round. */
static void poll_arm(Manager *m, sd_event_source *s, uint64_t usec) {
        uint64_t next = manager_wants_ticks(m) ? usec + (uint64_t) m->poll_interval_ms * 1000 : m->poll_slow_next;
        int r;

        r = sd_event_source_set_time(s, next);
        if (r < 0)
                log_error_errno(r, "Failed to set the poll timer's next tick: %m");
        r = sd_event_source_set_enabled(s, SD_EVENT_ON);
        if (r < 0)
                log_error_errno(r, "Failed to re-enable the poll timer: %m");
}

/* The state of this many ports is read per dispatch at most: a pass over
 * thousands of ports yields to the loop between batches, so that an event
 * (a verbs PORT_ERR, a bus call) waits for one batch, not for the round. */
#define POLL_PORTS_PER_DISPATCH BATCH_READ_MAX

static void poll_pass_begin(Manager *m, uint64_t usec) {
        m->poll_pass.active = true;
        m->poll_pass.usec = usec;
        m->poll_pass.tick = m->poll_ticks++;
        m->poll_pass.round = m->poll_slow_rounds;
        m->poll_pass.index = 0;
        m->poll_pass.device = m->poll_pass.port = 0;
        /* Within the timer's accuracy of the slow round: that round is due. */
        m->poll_pass.slow = usec + 1000 >= m->poll_slow_next;
        if (m->poll_pass.slow) {
                m->poll_slow_rounds++;
                /* Fixed rate, from the scheduled time: no drift. */
                m->poll_slow_next = (usec > m->poll_slow_next ? usec : m->poll_slow_next) + poll_slow_usec(m);
        }
        /* Out of resources earlier and no event since: the sweep's turn to retry. */
        if (usec >= m->poll_retry_next) {
                m->poll_retry_next = usec + (uint64_t) SWEEP_TICKS * m->poll_interval_ms * 1000;
                manager_retry_resync(m);
        }
}

/* Goes on with the pass at the next loop iteration, after what is pending. */
static void poll_pass_yield(Manager *m, sd_event_source *s, size_t device, size_t port, unsigned index) {
        uint64_t now;
        int r;

        m->poll_pass.device = device;
        m->poll_pass.port = port;
        m->poll_pass.index = index;
        r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (r >= 0)
                r = sd_event_source_set_time(s, now);
        if (r >= 0)
                r = sd_event_source_set_enabled(s, SD_EVENT_ON);
        if (r < 0)
                log_error_errno(r, "Failed to resume the poll's pass: %m");
}

/* A device's ports are read in one job on its lane; at most this many. */
#define POLL_TURNS_MAX 64

static void poll_submit(Manager *m, Device *d, PollTurn *turns, size_t n) {
        int r = manager_poll_device(m, d, turns, n);

        if (errno_is_resource(r))
                manager_defer_resync(m, r, d->name);
        else if (r < 0)
                log_warning_errno(r, "%s: cannot queue the poll's read: %m", d->name);
}

static int on_poll(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        unsigned long long per_dispatch = test_knob_or(test_knobs()->poll_ports_per_dispatch, POLL_PORTS_PER_DISPATCH);
        unsigned index, tick, round, read = 0;
        PollTurn turns[POLL_TURNS_MAX];
        bool slow;

        if (!m->poll_pass.active)
                poll_pass_begin(m, usec);
        tick = m->poll_pass.tick;
        round = m->poll_pass.round;
        slow = m->poll_pass.slow;
        index = m->poll_pass.index;

        for (size_t i = m->poll_pass.device; i < m->n_devices; i++) {
                Device *d = m->devices[i];
                /* An unresponsive device's turns are skipped: nothing more
                 * queues behind its stuck read. So is one whose last turn is
                 * still being read (a slow device). */
                bool readable = manager_device_readable(m, d, true);
                size_t n = 0;

                if (read > 0 && read >= per_dispatch) {
                        poll_pass_yield(m, s, i, 0, index);
                        return 0;
                }
                for (size_t j = i == m->poll_pass.device ? m->poll_pass.port : 0; j < d->n_ports; j++, index++) {
                        Port *p = &d->ports[j];
                        bool covered, watch, sweep;
                        unsigned what = 0;

                        covered = port_covered(p);
                        watch = slow || poll_port_every_tick(p);
                        if (p->poll_boost > 0)
                                p->poll_boost--;
                        if (!readable)
                                continue;
                        /* Ticks come every period while an uncovered port exists. */
                        sweep = covered ? slow && index % SLOW_SWEEP_ROUNDS == round % SLOW_SWEEP_ROUNDS
                                        : index % SWEEP_TICKS == tick % SWEEP_TICKS;
                        if (p->poll_settle || (sweep && !covered)) {
                                /* By path, the state too; a new change settles again. */
                                p->poll_settle = false;
                                what = PORT_READ_LINK;
                        } else {
                                if (sweep)
                                        what |= PORT_READ_UNREPORTED;
                                if (watch)
                                        what |= PORT_READ_STATE;
                        }
                        if (what == 0)
                                continue;
                        read++;
                        turns[n++] = (PollTurn){ p, what };
                        if (n == ELEMENTSOF(turns)) {
                                poll_submit(m, d, turns, n);
                                n = 0;
                        }
                }
                if (n > 0)
                        poll_submit(m, d, turns, n);
        }

        m->poll_pass.active = false;
        poll_arm(m, s, m->poll_pass.usec);
        return 0;
}

void poll_wake(Manager *m) {
        uint64_t now, next;

        assert(m);

        if (!m->poll_event || m->poll_interval_ms == 0 || sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0 ||
            sd_event_source_get_time(m->poll_event, &next) < 0)
                return;
        now += (uint64_t) m->poll_interval_ms * 1000;
        if (next > now)
                (void) sd_event_source_set_time(m->poll_event, now);
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
                m->poll_pass.active = false;
                return 0;
        }

        if (m->poll_event) {
                int enabled;

                if (sd_event_source_get_enabled(m->poll_event, &enabled) >= 0 && enabled != SD_EVENT_OFF) {
                        /* A new device may be one no event covers. */
                        if (manager_wants_ticks(m))
                                poll_wake(m);
                        return 0;
                }
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
        m->poll_slow_next = now + poll_slow_usec(m);
        /* 1 ms accuracy: a change must be seen within the interval, not a quarter second later. */
        r = sd_event_add_time(m->event, &m->poll_event, CLOCK_MONOTONIC, now + (uint64_t) m->poll_interval_ms * 1000,
                              1000, on_poll, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add the poll timer: %m");
        (void) sd_event_source_set_description(m->poll_event, "link-poll");
        return sd_event_source_set_enabled(m->poll_event, SD_EVENT_ON);
}
