/* SPDX-License-Identifier: MIT */
/* common/client/inventory-follow.c against a made-up bus and rdmad on a
 * socketpair: the read, each signal into the inventory, org.rdmad1 leaving
 * and coming back with and without forgetting, a failed read, the lost
 * connection, and forged signals (another sender, a destination, a
 * NameOwnerChanged not from the bus driver) that change nothing. And the
 * decoding of a port's arrays of structs (Gids, LinkHistory), as a daemon
 * before GID netdevs, the current one and a newer one send them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/rdmad-api.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "bus-pair.h"
#include "client/inventory-follow.h"

#define DEVICE_PATH RDMAD_DEVICE_PREFIX "/mlx5_0"

typedef struct Fixture {
        BusPair pair;
        sd_bus_message *gmo; /* the last GetManagedObjects the made-up rdmad received */
        InventoryFollow *follow;
        unsigned loaded, failed, gone, appeared, disconnected;
        unsigned changes[3];
        int last_r;
        char *last_error, *last_owner;
        bool inventory_at_appeared;
        char owner[32]; /* the made-up rdmad's unique name; "" while it has none */
} Fixture;

/* The made-up rdmad takes a unique name: the bus writes it into each of its
 * messages. */
static void set_owner(Fixture *f, const char *owner) {
        snprintf(f->owner, sizeof(f->owner), "%s", owner);
        assert_true(sd_bus_set_sender(f->pair.server, *owner ? owner : ":1.1") >= 0);
}

static int on_server_message(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Fixture *f = userdata;

        /* What the bus driver answers. */
        if (sd_bus_message_is_method_call(m, DBUS_INTERFACE, "GetNameOwner")) {
                assert_string_equal(sd_bus_message_get_destination(m), DBUS_SERVICE_NAME);
                if (!*f->owner)
                        return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_NAME_HAS_NO_OWNER, "none");
                return sd_bus_reply_method_return(m, "s", f->owner);
        }
        if (!sd_bus_message_is_method_call(m, DBUS_OBJECT_MANAGER_INTERFACE, "GetManagedObjects"))
                return 0;
        assert_string_equal(sd_bus_message_get_path(m), RDMAD_ROOT_PATH);
        assert_string_equal(sd_bus_message_get_destination(m), RDMAD_BUS_NAME);
        sd_bus_message_unref(f->gmo);
        f->gmo = sd_bus_message_ref(m);
        return 1;
}

static void on_loaded(InventoryFollow *follow, int r, const sd_bus_error *e, void *userdata) {
        Fixture *f = userdata;

        if (r >= 0) {
                assert_null(e);
                assert_non_null(inventory_follow_inventory(follow));
                f->loaded++;
                return;
        }
        f->failed++;
        f->last_r = r;
        free(f->last_error);
        f->last_error = e ? strdup(e->name) : NULL;
}

static void on_changed(InventoryFollow *follow, InventoryChange change, const char *path, int r, void *userdata) {
        Fixture *f = userdata;

        assert_true(change <= INVENTORY_CHANGE_PROPERTIES);
        assert_string_equal(path, DEVICE_PATH);
        f->changes[change]++;
        f->last_r = r;
}

static void on_owner_changed(InventoryFollow *follow, const char *owner, int r, void *userdata) {
        Fixture *f = userdata;

        if (!owner) {
                assert_int_equal(r, 0); /* nothing was asked */
                f->gone++;
                return;
        }
        f->appeared++;
        f->last_r = r;
        free(f->last_owner);
        f->last_owner = strdup(owner);
        f->inventory_at_appeared = inventory_follow_inventory(follow) != NULL;
}

static void on_disconnected(InventoryFollow *follow, void *userdata) {
        ((Fixture *) userdata)->disconnected++;
}

static const InventoryFollowCallbacks callbacks = {
        .loaded = on_loaded,
        .changed = on_changed,
        .owner_changed = on_owner_changed,
        .disconnected = on_disconnected,
};

static void fixture_start(Fixture *f, const InventoryFollowOptions *o) {
        *f = (Fixture){};
        bus_pair_new(&f->pair);
        set_owner(f, ":1.7");
        assert_true(sd_bus_add_filter(f->pair.server, NULL, on_server_message, f) >= 0);
        f->follow = inventory_follow_new(o, &callbacks, f);
        assert_non_null(f->follow);
        assert_true(inventory_follow_start(f->follow, f->pair.client) >= 0);
}

static void fixture_stop(Fixture *f) {
        inventory_follow_free(f->follow);
        sd_bus_message_unref(f->gmo);
        bus_pair_free(&f->pair);
        free(f->last_error);
        free(f->last_owner);
}

/* Runs the loop until the made-up rdmad holds a GetManagedObjects (each
 * answer lets go of it). */
static sd_bus_message *wait_gmo(Fixture *f) {
        for (unsigned i = 0; !f->gmo && i < 1000; i++)
                assert_true(sd_event_run(f->pair.event, UINT64_MAX) >= 0);
        assert_non_null(f->gmo);
        return f->gmo;
}

/* Dispatches what is queued on both sides, without waiting. */
static void settle(Fixture *f) {
        for (unsigned i = 0; i < 100; i++)
                if (sd_event_run(f->pair.event, 0) == 0 && sd_event_run(f->pair.event, 0) == 0)
                        return;
}

static void append_device(sd_bus_message *m, const char *firmware) {
        assert_true(sd_bus_message_open_container(m, 'a', "{sa{sv}}") >= 0);
        assert_true(sd_bus_message_open_container(m, 'e', "sa{sv}") >= 0);
        assert_true(sd_bus_message_append(m, "s", RDMAD_DEVICE_INTERFACE) >= 0);
        assert_true(sd_bus_message_append(m, "a{sv}", 2, RDMAD_DEVICE_PROPERTY_NAME, "s", "mlx5_0",
                                          RDMAD_DEVICE_PROPERTY_FIRMWARE_VERSION, "s", firmware) >= 0);
        assert_true(sd_bus_message_close_container(m) >= 0);
        assert_true(sd_bus_message_close_container(m) >= 0);
}

static void reply_one_device(Fixture *f) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;

        assert_true(sd_bus_message_new_method_return(f->gmo, &reply) >= 0);
        assert_true(sd_bus_message_open_container(reply, 'a', "{oa{sa{sv}}}") >= 0);
        assert_true(sd_bus_message_open_container(reply, 'e', "oa{sa{sv}}") >= 0);
        assert_true(sd_bus_message_append(reply, "o", DEVICE_PATH) >= 0);
        append_device(reply, "1.0");
        assert_true(sd_bus_message_close_container(reply) >= 0);
        assert_true(sd_bus_message_close_container(reply) >= 0);
        assert_true(sd_bus_send(f->pair.server, reply, NULL) >= 0);
        f->gmo = sd_bus_message_unref(f->gmo);
        settle(f);
}

/* A NameOwnerChanged from sender (the bus driver, or a forger), to
 * destination (NULL: broadcast). */
static void send_owner_change(Fixture *f, const char *sender, const char *destination, const char *name,
                              const char *old_owner, const char *new_owner) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;

        assert_true(sd_bus_message_new_signal(f->pair.server, &m, DBUS_PATH, DBUS_INTERFACE, "NameOwnerChanged") >= 0);
        assert_true(sd_bus_message_set_sender(m, sender) >= 0);
        if (destination)
                assert_true(sd_bus_message_set_destination(m, destination) >= 0);
        assert_true(sd_bus_message_append(m, "sss", name, old_owner, new_owner) >= 0);
        assert_true(sd_bus_send(f->pair.server, m, NULL) >= 0);
        settle(f);
}

/* The bus driver's broadcast; org.rdmad1's new owner speaks from now on. */
static void emit_owner_change(Fixture *f, const char *name, const char *old_owner, const char *new_owner) {
        send_owner_change(f, DBUS_SERVICE_NAME, NULL, name, old_owner, new_owner);
        if (streq(name, RDMAD_BUS_NAME))
                set_owner(f, new_owner);
}

/* A FirmwareVersion change from sender (NULL: the made-up rdmad) to
 * destination (NULL: broadcast). */
static void send_firmware(Fixture *f, const char *sender, const char *destination, const char *firmware) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;

        assert_true(sd_bus_message_new_signal(f->pair.server, &m, DEVICE_PATH, DBUS_PROPERTIES_INTERFACE,
                                              "PropertiesChanged") >= 0);
        if (sender)
                assert_true(sd_bus_message_set_sender(m, sender) >= 0);
        if (destination)
                assert_true(sd_bus_message_set_destination(m, destination) >= 0);
        assert_true(sd_bus_message_append(m, "sa{sv}as", RDMAD_DEVICE_INTERFACE, 1,
                                          RDMAD_DEVICE_PROPERTY_FIRMWARE_VERSION, "s", firmware, 0) >= 0);
        assert_true(sd_bus_send(f->pair.server, m, NULL) >= 0);
        settle(f);
}

static void emit_firmware(Fixture *f, const char *firmware) {
        send_firmware(f, NULL, NULL, firmware);
}

static void test_follows_signals_and_keeps_the_model(void **state) {
        static const InventoryFollowOptions o = { .async_matches = true, .load_timeout_usec = 5 * USEC_PER_SEC };
        Fixture f;
        sd_bus_message *gmo;
        Inventory *inv;

        fixture_start(&f, &o);
        gmo = wait_gmo(&f);
        assert_int_equal(sd_bus_message_get_auto_start(gmo), 0);
        assert_int_equal(inventory_follow_load_calls(f.follow), 1);

        /* Before the answer: nothing to apply a change to, the read will have it. */
        emit_firmware(&f, "0.9");
        assert_int_equal(f.changes[INVENTORY_CHANGE_PROPERTIES], 0);
        assert_null(inventory_follow_inventory(f.follow));

        reply_one_device(&f);
        assert_int_equal(f.loaded, 1);
        inv = inventory_follow_inventory(f.follow);
        assert_int_equal(inv->n_devices, 1);
        assert_string_equal(inv->devices[0]->firmware_version, "1.0");

        emit_firmware(&f, "2.0");
        assert_int_equal(f.changes[INVENTORY_CHANGE_PROPERTIES], 1);
        assert_true(f.last_r >= 0);
        assert_string_equal(inventory_follow_inventory(f.follow)->devices[0]->firmware_version, "2.0");

        /* Health and its reason, as rdmad signals them, without reading the objects again. */
        assert_string_equal(inventory_follow_inventory(f.follow)->devices[0]->health, "");
        assert_true(sd_bus_emit_signal(f.pair.server, DEVICE_PATH, DBUS_PROPERTIES_INTERFACE, "PropertiesChanged",
                                       "sa{sv}as", RDMAD_DEVICE_INTERFACE, 2, RDMAD_DEVICE_PROPERTY_HEALTH, "s",
                                       "unresponsive", RDMAD_DEVICE_PROPERTY_HEALTH_REASON, "s",
                                       "ports/1/state: no answer for 5.0 s", 0) >= 0);
        settle(&f);
        assert_int_equal(f.changes[INVENTORY_CHANGE_PROPERTIES], 2);
        assert_string_equal(inventory_follow_inventory(f.follow)->devices[0]->health, "unresponsive");
        assert_string_equal(inventory_follow_inventory(f.follow)->devices[0]->health_reason,
                            "ports/1/state: no answer for 5.0 s");
        assert_int_equal(inventory_follow_load_calls(f.follow), 1);

        assert_true(sd_bus_emit_signal(f.pair.server, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE,
                                       "InterfacesRemoved", "oas", DEVICE_PATH, 1, RDMAD_DEVICE_INTERFACE) >= 0);
        settle(&f);
        assert_int_equal(f.changes[INVENTORY_CHANGE_REMOVED], 1);
        assert_int_equal(inventory_follow_inventory(f.follow)->n_devices, 0);

        {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;

                assert_true(sd_bus_message_new_signal(f.pair.server, &m, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE,
                                                      "InterfacesAdded") >= 0);
                assert_true(sd_bus_message_append(m, "o", DEVICE_PATH) >= 0);
                append_device(m, "3.0");
                assert_true(sd_bus_send(f.pair.server, m, NULL) >= 0);
                settle(&f);
        }
        assert_int_equal(f.changes[INVENTORY_CHANGE_ADDED], 1);
        assert_true(f.last_r >= 0);
        assert_string_equal(inventory_follow_inventory(f.follow)->devices[0]->firmware_version, "3.0");

        /* Someone else's name: not followed. */
        emit_owner_change(&f, "org.example.Other", ":1.7", "");
        assert_int_equal(f.gone, 0);

        /* Left: the last known model stays. */
        emit_owner_change(&f, RDMAD_BUS_NAME, ":1.7", "");
        assert_int_equal(f.gone, 1);
        assert_non_null(inventory_follow_inventory(f.follow));

        /* Back: read again, the old model kept until the answer replaces it. */
        emit_owner_change(&f, RDMAD_BUS_NAME, "", ":1.8");
        assert_int_equal(f.appeared, 1);
        assert_int_equal(f.last_r, 0);
        assert_string_equal(f.last_owner, ":1.8");
        assert_true(f.inventory_at_appeared);
        wait_gmo(&f);
        assert_int_equal(inventory_follow_load_calls(f.follow), 2);
        assert_true(sd_bus_reply_method_errorf(f.gmo, SD_BUS_ERROR_SERVICE_UNKNOWN, "gone again") >= 0);
        f.gmo = sd_bus_message_unref(f.gmo);
        settle(&f);
        assert_int_equal(f.failed, 1);
        assert_string_equal(f.last_error, SD_BUS_ERROR_SERVICE_UNKNOWN);
        assert_true(f.last_r < 0);
        assert_int_equal(inventory_follow_inventory(f.follow)->n_devices, 1);
        assert_int_equal(f.loaded, 1);
        assert_int_equal(f.disconnected, 0);

        fixture_stop(&f);
}

static void test_forgets_on_owner_change(void **state) {
        /* async: a synchronous GetNameOwner would wait for the made-up bus
         * that this thread serves. */
        static const InventoryFollowOptions o = {
                .auto_start = true,
                .async_matches = true,
                .forget_on_owner_change = true,
                .load_timeout_usec = 5 * USEC_PER_SEC,
        };
        Fixture f;

        fixture_start(&f, &o);
        assert_int_equal(sd_bus_message_get_auto_start(wait_gmo(&f)), 1);
        reply_one_device(&f);
        assert_int_equal(f.loaded, 1);

        /* Replaced without a gap: forgotten at once, read in full again. */
        emit_owner_change(&f, RDMAD_BUS_NAME, ":1.7", ":1.9");
        assert_int_equal(f.appeared, 1);
        assert_false(f.inventory_at_appeared);
        assert_null(inventory_follow_inventory(f.follow));
        assert_int_equal(sd_bus_message_get_auto_start(wait_gmo(&f)), 1);
        reply_one_device(&f);
        assert_int_equal(f.loaded, 2);
        assert_int_equal(inventory_follow_load_calls(f.follow), 2);

        /* Left: forgotten; its changes are not applied to anything. */
        emit_owner_change(&f, RDMAD_BUS_NAME, ":1.9", "");
        assert_int_equal(f.gone, 1);
        assert_null(inventory_follow_inventory(f.follow));
        emit_firmware(&f, "4.0");
        assert_int_equal(f.changes[INVENTORY_CHANGE_PROPERTIES], 0);

        /* A reply that is not an a{oa{sa{sv}}}: the read failed, no bus error. */
        emit_owner_change(&f, RDMAD_BUS_NAME, "", ":1.10");
        wait_gmo(&f);
        assert_true(sd_bus_reply_method_return(f.gmo, "s", "not objects") >= 0);
        f.gmo = sd_bus_message_unref(f.gmo);
        settle(&f);
        assert_int_equal(f.failed, 1);
        assert_null(f.last_error);
        assert_true(f.last_r < 0);
        assert_null(inventory_follow_inventory(f.follow));

        /* The connection goes. */
        f.pair.server = sd_bus_flush_close_unref(f.pair.server);
        for (unsigned i = 0; !f.disconnected && i < 1000; i++)
                assert_true(sd_event_run(f.pair.event, UINT64_MAX) >= 0);
        assert_int_equal(f.disconnected, 1);

        fixture_stop(&f);
}

static const char *firmware_now(Fixture *f) {
        return inventory_follow_inventory(f->follow)->devices[0]->firmware_version;
}

static void test_forged_signals_change_nothing(void **state) {
        static const InventoryFollowOptions o = { .async_matches = true, .load_timeout_usec = 5 * USEC_PER_SEC };
        Fixture f;

        fixture_start(&f, &o);
        wait_gmo(&f);
        reply_one_device(&f);
        assert_int_equal(f.loaded, 1);
        assert_string_equal(inventory_follow_owner(f.follow), ":1.7");

        /* Another connection's broadcast, and a signal sent to us by name
         * (what sender= in a match rule does not keep out). */
        send_firmware(&f, ":1.66", NULL, "6.6.6 evil");
        send_firmware(&f, ":1.66", ":1.2", "6.6.6 evil");
        send_firmware(&f, ":1.7", ":1.2", "6.6.6 evil");
        assert_int_equal(f.changes[INVENTORY_CHANGE_PROPERTIES], 0);
        assert_string_equal(firmware_now(&f), "1.0");

        /* A NameOwnerChanged not broadcast by the bus driver: rdmad neither
         * leaves nor gets a new owner. */
        send_owner_change(&f, ":1.66", NULL, RDMAD_BUS_NAME, ":1.7", "");
        send_owner_change(&f, ":1.66", ":1.2", RDMAD_BUS_NAME, ":1.7", ":1.66");
        send_owner_change(&f, DBUS_SERVICE_NAME, ":1.2", RDMAD_BUS_NAME, ":1.7", ":1.66");
        assert_int_equal(f.gone, 0);
        assert_int_equal(f.appeared, 0);
        assert_int_equal(inventory_follow_load_calls(f.follow), 1);
        assert_string_equal(inventory_follow_owner(f.follow), ":1.7");
        send_firmware(&f, ":1.66", NULL, "6.6.6 evil");
        assert_string_equal(firmware_now(&f), "1.0");

        /* The real owner is still believed. */
        emit_firmware(&f, "2.0");
        assert_int_equal(f.changes[INVENTORY_CHANGE_PROPERTIES], 1);
        assert_string_equal(firmware_now(&f), "2.0");

        /* A real owner change: the old owner is not believed any more. */
        emit_owner_change(&f, RDMAD_BUS_NAME, ":1.7", ":1.9");
        assert_int_equal(f.appeared, 1);
        assert_string_equal(inventory_follow_owner(f.follow), ":1.9");
        wait_gmo(&f);
        reply_one_device(&f);
        send_firmware(&f, ":1.7", NULL, "old owner");
        assert_string_equal(firmware_now(&f), "1.0");
        emit_firmware(&f, "3.0");
        assert_string_equal(firmware_now(&f), "3.0");

        fixture_stop(&f);
}

#define PORT_PATH DEVICE_PATH "/port/1"

/* An object's interfaces ("a{sa{sv}}") with a port whose Gids have the
 * signature gids ("a(uss)", "a(usss)", ...), read into inv. */
static void add_port(Fixture *f, Inventory *inv, const char *gids) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;

        assert_true(sd_bus_message_new_signal(f->pair.server, &m, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE,
                                              "InterfacesAdded") >= 0);
        assert_true(sd_bus_message_open_container(m, 'a', "{sa{sv}}") >= 0);
        assert_true(sd_bus_message_open_container(m, 'e', "sa{sv}") >= 0);
        assert_true(sd_bus_message_append(m, "s", RDMAD_PORT_INTERFACE) >= 0);
        assert_true(sd_bus_message_open_container(m, 'a', "{sv}") >= 0);
        assert_true(sd_bus_message_append(m, "{sv}", RDMAD_PORT_PROPERTY_NUMBER, "u", 1) >= 0);
        assert_true(sd_bus_message_open_container(m, 'e', "sv") >= 0);
        assert_true(sd_bus_message_append(m, "s", RDMAD_PORT_PROPERTY_GIDS) >= 0);
        assert_true(sd_bus_message_open_container(m, 'v', gids) >= 0);
        if (streq(gids, "a(uss)"))
                assert_true(sd_bus_message_append(m, gids, 2, 0, "fe80::1", "IB/RoCE v1", 1, "fe80::1", "RoCE v2") >=
                            0);
        else if (streq(gids, "a(usss)"))
                assert_true(sd_bus_message_append(m, gids, 1, 3, "::ffff:10.0.0.1", "RoCE v2", "ens1f0np0") >= 0);
        else
                assert_true(sd_bus_message_append(m, gids, 1, 4, "::1", "RoCE v2", "ens1f0np0", "more") >= 0);
        assert_true(sd_bus_message_close_container(m) >= 0);
        assert_true(sd_bus_message_close_container(m) >= 0);
        assert_true(sd_bus_message_append(m, "{sv}", RDMAD_PORT_PROPERTY_LINK_HISTORY, "a(tss)", 2, UINT64_C(100),
                                          "DOWN", "ACTIVE", UINT64_C(200), "ACTIVE", "DOWN\x1b") >= 0);
        assert_true(sd_bus_message_close_container(m) >= 0);
        assert_true(sd_bus_message_close_container(m) >= 0);
        assert_true(sd_bus_message_close_container(m) >= 0);
        assert_true(sd_bus_message_seal(m, 1, 0) >= 0);
        assert_true(inventory_add_object(inv, PORT_PATH, m) >= 0);
}

static void test_reads_port_arrays(void **state) {
        _cleanup_(inventory_freep) Inventory *inv = inventory_new(), *copy = inventory_new();
        Fixture f = {};
        RdmaPort *p;

        assert_non_null(inv);
        assert_non_null(copy);
        bus_pair_new(&f.pair);

        /* A daemon before GID netdevs: the netdev is empty. */
        add_port(&f, inv, "a(uss)");
        p = inventory_find_port(inv, PORT_PATH);
        assert_non_null(p);
        assert_int_equal(p->number, 1);
        assert_int_equal(p->n_gids, 2);
        assert_int_equal(p->gids[1].index, 1);
        assert_string_equal(p->gids[1].gid, "fe80::1");
        assert_string_equal(p->gids[1].type, "RoCE v2");
        assert_string_equal(p->gids[1].netdev, "");
        assert_int_equal(p->n_link_history, 2);
        assert_int_equal(p->link_history[1].usec, 200);
        assert_string_equal(p->link_history[1].old_state, "ACTIVE");

        /* The copy owns its arrays, and a printable inventory has no control character. */
        assert_true(inventory_copy_objects_at(copy, inv, PORT_PATH) >= 0);
        inventory_make_printable(copy);
        p = inventory_find_port(copy, PORT_PATH);
        assert_non_null(p);
        assert_int_equal(p->n_gids, 2);
        assert_ptr_not_equal(p->gids, inventory_find_port(inv, PORT_PATH)->gids);
        assert_string_equal(p->gids[0].type, "IB/RoCE v1");
        assert_string_equal(p->link_history[1].new_state, "DOWN?");
        assert_string_equal(inventory_find_port(inv, PORT_PATH)->link_history[1].new_state, "DOWN\x1b");

        /* The current daemon: a second announcement replaces the first. */
        add_port(&f, inv, "a(usss)");
        p = inventory_find_port(inv, PORT_PATH);
        assert_int_equal(p->n_gids, 1);
        assert_int_equal(p->gids[0].index, 3);
        assert_string_equal(p->gids[0].netdev, "ens1f0np0");

        /* A newer daemon's members it does not know: skipped, the rest still read. */
        add_port(&f, inv, "a(ussss)");
        p = inventory_find_port(inv, PORT_PATH);
        assert_int_equal(p->n_gids, 0);
        assert_int_equal(p->n_link_history, 2);

        /* The pair only made messages: nothing to flush (its handshake never ran). */
        sd_bus_close(f.pair.client);
        sd_bus_close(f.pair.server);
        bus_pair_free(&f.pair);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_forged_signals_change_nothing),
                cmocka_unit_test(test_follows_signals_and_keeps_the_model),
                cmocka_unit_test(test_forgets_on_owner_change),
                cmocka_unit_test(test_reads_port_arrays),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
