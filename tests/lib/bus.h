/* SPDX-License-Identifier: MIT */
#pragma once

/* The private system bus: dbus-daemon or dbus-broker, with the project's
 * installed policy. */

#include <stdbool.h>
#include <sys/types.h>

typedef struct Harness Harness;

/* The bus. Both kinds read one configuration, <tmpdir>/bus/system.conf, of
 * the shape of Debian's /usr/share/dbus-1/system.conf: everything denied by
 * default, holes punched by system.d/, which holds what a host has there:
 * systemd/org.rdmad1.conf (the project's policy, as installed) and polkitd's
 * org.freedesktop.PolicyKit1.conf. dbus-daemon is started with it directly;
 * dbus-broker through dbus-broker-launch, as systemd would: the harness binds
 * the listening socket and passes it (LISTEN_FDS=1, fd 3), and where there is
 * no journald gives the launcher a stand-in journal socket in the test's
 * private mount namespace (its lines in <tmpdir>/bus/journal.log).
 *
 * When set before harness_start(): one more policy file, a test's own named
 * minimal policy, installed as system.d/test-<name>: a path, or a bare name
 * of tests/lib/policies/. Reset by harness_teardown_clean(). */
extern const char *harness_bus_policy;

/* "dbus-daemon" or "dbus-broker", from RDMAD_TEST_BUS (default dbus-daemon);
 * fails the test on any other value. */
const char *harness_bus_name(void);
bool harness_bus_is_broker(void);

/* The uid of the connection that owns the bus name `name`. */
uid_t harness_name_owner_uid(Harness *h, const char *name);
