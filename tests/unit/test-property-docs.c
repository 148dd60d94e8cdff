/* SPDX-License-Identifier: MIT */
/* The documentation of each interface against its property list
 * (daemon/model/properties-*.h): introspection/<interface>.xml lists exactly the
 * list's properties, in its order, with its types and constancy (test-bus
 * compares the file with what the daemon introspects); org.rdmad1(5)'s
 * section of the interface names exactly them. */
#include <glib.h>
#include <gio/gio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "properties-device.h"
#include "properties-netdev.h"
#include "properties-port.h"
#include "properties-sriov.h"
#include "api/rdmad-api.h"

typedef struct Documented {
        const char *name, *signature;
        bool constant;
} Documented;

#define DOCUMENTED_CONST_CHANGE                      false
#define DOCUMENTED_CONST_CONST                       true
#define DOCUMENTED(names, id, signature, emits, ...) { names##id, signature, DOCUMENTED_CONST_##emits },
#define DEVICE_DOCUMENTED(...)                       DOCUMENTED(RDMAD_DEVICE_PROPERTY_, __VA_ARGS__)
#define PORT_DOCUMENTED(...)                         DOCUMENTED(RDMAD_PORT_PROPERTY_, __VA_ARGS__)
#define NETDEV_DOCUMENTED(...)                       DOCUMENTED(RDMAD_NETDEV_PROPERTY_, __VA_ARGS__)
#define SRIOV_DOCUMENTED(...)                        DOCUMENTED(RDMAD_SRIOV_PROPERTY_, __VA_ARGS__)

static const Documented device_documented[] = { DEVICE_PROPERTIES(DEVICE_DOCUMENTED) };
static const Documented port_documented[] = { PORT_PROPERTIES(PORT_DOCUMENTED) };
static const Documented netdev_documented[] = { NETDEV_PROPERTIES(NETDEV_DOCUMENTED) };
static const Documented sriov_documented[] = { SRIOV_PROPERTIES(SRIOV_DOCUMENTED) };

static const struct {
        const char *interface;
        const Documented *list;
        size_t n;
} interfaces[] = {
        { RDMAD_DEVICE_INTERFACE, device_documented, G_N_ELEMENTS(device_documented) },
        { RDMAD_PORT_INTERFACE, port_documented, G_N_ELEMENTS(port_documented) },
        { RDMAD_NETDEV_INTERFACE, netdev_documented, G_N_ELEMENTS(netdev_documented) },
        { RDMAD_SRIOV_INTERFACE, sriov_documented, G_N_ELEMENTS(sriov_documented) },
};

static GDBusInterfaceInfo *load_interface(const char *interface) {
        g_autofree char *path = g_strdup_printf("%s/%s.xml", INTROSPECTION_DIR, interface);
        g_autofree char *xml = NULL;
        g_autoptr(GDBusNodeInfo) node = NULL;
        GError *error = NULL;

        if (!g_file_get_contents(path, &xml, NULL, &error))
                fail_msg("%s: %s", path, error->message);
        node = g_dbus_node_info_new_for_xml(xml, &error);
        if (!node)
                fail_msg("%s: %s", path, error->message);
        if (!node->interfaces || !node->interfaces[0] || node->interfaces[1] ||
            strcmp(node->interfaces[0]->name, interface) != 0)
                fail_msg("%s does not document %s alone", path, interface);
        return g_dbus_interface_info_ref(node->interfaces[0]);
}

static void test_introspection_files_match_the_lists(void **state) {
        for (size_t k = 0; k < G_N_ELEMENTS(interfaces); k++) {
                GDBusInterfaceInfo *info = load_interface(interfaces[k].interface);
                const char *interface = interfaces[k].interface;
                size_t i;

                for (i = 0; info->properties && info->properties[i]; i++) {
                        GDBusPropertyInfo *p = info->properties[i];
                        const Documented *d = &interfaces[k].list[i];
                        GDBusAnnotationInfo **a = p->annotations;
                        bool constant;

                        if (i >= interfaces[k].n)
                                fail_msg("%s.%s is documented but not listed", interface, p->name);
                        if (strcmp(p->name, d->name) != 0)
                                fail_msg("%s: property %zu is %s in the file, %s in the list", interface, i, p->name,
                                         d->name);
                        if (strcmp(p->signature, d->signature) != 0)
                                fail_msg("%s.%s is %s in the file, %s in the list", interface, p->name, p->signature,
                                         d->signature);
                        if (p->flags != G_DBUS_PROPERTY_INFO_FLAGS_READABLE)
                                fail_msg("%s.%s is not read-only in the file", interface, p->name);
                        /* sd-bus annotates a constant property, and an emitting one not at all. */
                        constant = a && a[0] && !a[1] &&
                                   strcmp(a[0]->key, "org.freedesktop.DBus.Property.EmitsChangedSignal") == 0 &&
                                   strcmp(a[0]->value, "const") == 0;
                        if (constant != d->constant || (!constant && a && a[0]))
                                fail_msg("%s.%s: the file's annotations say %s, the list %s", interface, p->name,
                                         constant ? "const" : "not const", d->constant ? "CONST" : "CHANGE");
                }
                if (i < interfaces[k].n)
                        fail_msg("%s.%s is listed but not documented in the file", interface,
                                 interfaces[k].list[i].name);
                g_dbus_interface_info_unref(info);
        }
}

/* The man page's words set in bold by .B (all its arguments) and .BR (its
 * odd ones), from `.SH <interface>` to its first .TP (a method) or the next
 * .SH: a property list in prose. */
static GPtrArray *man_bold_words(const char *man, const char *interface) {
        g_autofree char *heading = g_strdup_printf(".SH %s", interface);
        g_auto(GStrv) lines = g_strsplit(man, "\n", -1);
        GPtrArray *words = g_ptr_array_new_with_free_func(g_free);
        size_t i;

        for (i = 0; lines[i] && strcmp(lines[i], heading) != 0; i++)
                ;
        if (!lines[i])
                fail_msg("org.rdmad1(5) has no section %s", interface);
        for (i++; lines[i] && !g_str_has_prefix(lines[i], ".SH") && !g_str_has_prefix(lines[i], ".TP"); i++) {
                g_auto(GStrv) args = NULL;
                bool alternate;

                if (g_str_has_prefix(lines[i], ".B "))
                        alternate = false;
                else if (g_str_has_prefix(lines[i], ".BR "))
                        alternate = true;
                else
                        continue;
                if (!g_shell_parse_argv(lines[i], NULL, &args, NULL))
                        fail_msg("org.rdmad1(5): cannot split %s", lines[i]);
                for (size_t j = 1; args[j]; j++)
                        if (!alternate || j % 2 == 1)
                                g_ptr_array_add(words, g_strdup(args[j]));
        }
        return words;
}

static bool is_method_of_any(GDBusInterfaceInfo **all, const char *name) {
        for (size_t k = 0; all[k]; k++)
                if (g_dbus_interface_info_lookup_method(all[k], name))
                        return true;
        return false;
}

static void test_man_page_names_the_lists(void **state) {
        GDBusInterfaceInfo *all[G_N_ELEMENTS(interfaces) + 2] = {};
        g_autofree char *man = NULL;
        GError *error = NULL;

        if (!g_file_get_contents(MAN_PAGE, &man, NULL, &error))
                fail_msg("%s: %s", MAN_PAGE, error->message);
        for (size_t k = 0; k < G_N_ELEMENTS(interfaces); k++)
                all[k] = load_interface(interfaces[k].interface);
        all[G_N_ELEMENTS(interfaces)] = load_interface(RDMAD_MANAGER_INTERFACE);

        for (size_t k = 0; k < G_N_ELEMENTS(interfaces); k++) {
                g_autoptr(GPtrArray) words = man_bold_words(man, interfaces[k].interface);
                const char *interface = interfaces[k].interface;

                for (size_t i = 0; i < interfaces[k].n; i++) {
                        bool found = false;

                        for (size_t j = 0; j < words->len && !found; j++)
                                found = strcmp(words->pdata[j], interfaces[k].list[i].name) == 0;
                        if (!found)
                                fail_msg("org.rdmad1(5), %s: %s is not named", interface, interfaces[k].list[i].name);
                }
                /* A name in bold is a property of the section's interface, a
                 * method of one (SetNumVfs) or a value or a page in lower case. */
                for (size_t j = 0; j < words->len; j++) {
                        const char *w = words->pdata[j];
                        bool listed = false;

                        if (!g_ascii_isupper(w[0]) || is_method_of_any(all, w))
                                continue;
                        for (size_t i = 0; i < interfaces[k].n && !listed; i++)
                                listed = strcmp(w, interfaces[k].list[i].name) == 0;
                        if (!listed)
                                fail_msg("org.rdmad1(5), %s: %s is not a property of the list", interface, w);
                }
        }
        for (size_t k = 0; all[k]; k++)
                g_dbus_interface_info_unref(all[k]);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_introspection_files_match_the_lists),
                cmocka_unit_test(test_man_page_names_the_lists),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
