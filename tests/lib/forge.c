/* SPDX-License-Identifier: MIT */
#include "forge.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "basic/util.h"

sd_bus *forger_open(Harness *h, uid_t uid) {
        return harness_open_bus_as(uid);
}

static char **unique_names(sd_bus *bus) {
        sd_bus_message *reply = NULL;
        char **names = NULL, **unique;
        const char *self = NULL;
        size_t n = 0;

        assert_true(sd_bus_call_method(bus, DBUS_SERVICE_NAME, DBUS_PATH, DBUS_INTERFACE, "ListNames", NULL, &reply,
                                       "") >= 0);
        assert_true(sd_bus_message_read_strv(reply, &names) >= 0);
        sd_bus_message_unref(reply);
        assert_true(sd_bus_get_unique_name(bus, &self) >= 0);
        unique = calloc(strv_length(names) + 1, sizeof(char *));
        assert_non_null(unique);
        for (char **i = names; i && *i; i++)
                if ((*i)[0] == ':' && !streq(*i, self))
                        unique[n++] = strdup(*i);
        strv_free(names);
        return unique;
}

static bool send_one(sd_bus *forger, const char *destination, const char *path, const char *interface,
                     const char *member, const char *types, va_list ap) {
        sd_bus_message *m = NULL;
        bool sent;
        va_list aq;

        assert_true(sd_bus_message_new_signal(forger, &m, path, interface, member) >= 0);
        if (destination)
                assert_true(sd_bus_message_set_destination(m, destination) >= 0);
        va_copy(aq, ap);
        assert_true(sd_bus_message_appendv(m, types, aq) >= 0);
        va_end(aq);
        sent = sd_bus_send(forger, m, NULL) >= 0;
        sd_bus_message_unref(m);
        return sent;
}

size_t forge(sd_bus *forger, const char *path, const char *interface, const char *member, const char *types, ...) {
        char **names = unique_names(forger);
        size_t sent = 0;
        va_list ap;

        va_start(ap, types);
        sent += send_one(forger, NULL, path, interface, member, types, ap);
        for (char **i = names; *i; i++)
                sent += send_one(forger, *i, path, interface, member, types, ap);
        va_end(ap);
        strv_free(names);
        assert_true(sd_bus_flush(forger) >= 0);
        assert_true(sent > 0);
        return sent;
}

size_t forge_port_active(sd_bus *forger, const char *port_path) {
        return forge(forger, port_path, DBUS_PROPERTIES_INTERFACE, "PropertiesChanged", "sa{sv}as",
                     RDMAD_PORT_INTERFACE, 5, RDMAD_PORT_PROPERTY_STATE_NUM, "u", 4, RDMAD_PORT_PROPERTY_STATE_NAME,
                     "s", "ACTIVE", RDMAD_PORT_PROPERTY_PHYS_STATE_NUM, "u", 5, RDMAD_PORT_PROPERTY_PHYS_STATE_NAME,
                     "s", "LinkUp", RDMAD_PORT_PROPERTY_STATE_CHANGES, "t", UINT64_C(123456789), 0);
}

size_t forge_evil_device(sd_bus *forger) {
        size_t n;

        n = forge(forger, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE, "InterfacesAdded", "oa{sa{sv}}",
                  RDMAD_DEVICE_PREFIX "/evil0", 1, RDMAD_DEVICE_INTERFACE, 3, RDMAD_DEVICE_PROPERTY_NAME, "s", "evil0",
                  RDMAD_DEVICE_PROPERTY_FIRMWARE_VERSION, "s", "6.6.6 evil", RDMAD_DEVICE_PROPERTY_DRIVER, "s",
                  "mlx5_core");
        n += forge(forger, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE, "InterfacesAdded", "oa{sa{sv}}",
                   RDMAD_DEVICE_PREFIX "/evil0/port/1", 1, RDMAD_PORT_INTERFACE, 6, RDMAD_PORT_PROPERTY_NUMBER, "u", 1,
                   RDMAD_PORT_PROPERTY_DEVICE, "o", RDMAD_DEVICE_PREFIX "/evil0", RDMAD_PORT_PROPERTY_STATE_NUM, "u", 4,
                   RDMAD_PORT_PROPERTY_STATE_NAME, "s", "ACTIVE", RDMAD_PORT_PROPERTY_PHYS_STATE_NUM, "u", 5,
                   RDMAD_PORT_PROPERTY_PHYS_STATE_NAME, "s", "LinkUp");
        return n;
}

size_t forge_device_removed(sd_bus *forger, const char *device_path) {
        char port[256];
        size_t n;

        snprintf(port, sizeof(port), "%s/port/1", device_path);
        n = forge(forger, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE, "InterfacesRemoved", "oas", port, 1,
                  RDMAD_PORT_INTERFACE);
        n += forge(forger, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE, "InterfacesRemoved", "oas", device_path, 1,
                   RDMAD_DEVICE_INTERFACE);
        return n;
}

size_t forge_owner_change(sd_bus *forger, const char *name, const char *old_owner, const char *new_owner) {
        size_t n = forge(forger, DBUS_PATH, DBUS_INTERFACE, "NameOwnerChanged", "sss", name, old_owner, "");

        if (new_owner)
                n += forge(forger, DBUS_PATH, DBUS_INTERFACE, "NameOwnerChanged", "sss", name, "", new_owner);
        return n;
}

char *bus_name_owner(Harness *h, const char *name) {
        sd_bus_message *reply = NULL;
        const char *owner;
        char *copy;

        assert_true(sd_bus_call_method(h->bus, DBUS_SERVICE_NAME, DBUS_PATH, DBUS_INTERFACE, "GetNameOwner", NULL,
                                       &reply, "s", name) >= 0);
        assert_true(sd_bus_message_read(reply, "s", &owner) >= 0);
        copy = strdup(owner);
        sd_bus_message_unref(reply);
        return copy;
}
