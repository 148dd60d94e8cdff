/* SPDX-License-Identifier: MIT */
/* Pure pieces of the live model: change masks, property names, the
 * attribute map updates of the poll, rtnetlink parsing. */
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bus-device.h"
#include "bus-objects.h"
#include "bus-netdev.h"
#include "bus-port.h"
#include "bus-sriov.h"
#include "properties.h"
#include "netlink.h"
#include "basic/parse.h"
#include "api/rdmad-api.h"
#include "basic/util.h"

static Port port_with(const char *state, const char *phys, const char *rate, uint32_t lid) {
        return (Port){
                .number = 1,
                .state = (char *) state,
                .state_name = (char *) "X",
                .phys_state = (char *) phys,
                .phys_state_name = (char *) "Y",
                .rate = (char *) rate,
                .rate_unit = (char *) "Gb/sec",
                .rate_info = (char *) "4X EDR",
                .link_width = (char *) "4X",
                .link_speed = (char *) "EDR",
                .link_layer = (char *) "InfiniBand",
                .transport = (char *) "InfiniBand",
                .netdev = (char *) "",
                .lid = lid,
        };
}

static void test_port_mask_names_exactly_what_changed(void **state) {
        Port a = port_with("4: ACTIVE", "5: LinkUp", "100 Gb/sec (4X EDR)", 5);
        Port b = a;

        assert_int_equal(port_changed_mask(&a, &b), 0);

        b.lid = 6;
        assert_int_equal(port_changed_mask(&a, &b), PROPERTY_BIT(PORT_PROP_LID));

        b = a;
        b.state = (char *) "1: DOWN";
        b.state_num = 1;
        b.phys_state = (char *) "3: Disabled";
        assert_int_equal(port_changed_mask(&a, &b), PROPERTY_BIT(PORT_PROP_STATE) | PROPERTY_BIT(PORT_PROP_STATE_NUM) |
                                                            PROPERTY_BIT(PORT_PROP_PHYS_STATE));

        b = a;
        b.rate_speed = 56;
        b.netdev = (char *) "ib0";
        b.state_changed_usec = 1;
        assert_int_equal(port_changed_mask(&a, &b), PROPERTY_BIT(PORT_PROP_RATE_SPEED) |
                                                            PROPERTY_BIT(PORT_PROP_NETDEV) |
                                                            PROPERTY_BIT(PORT_PROP_STATE_CHANGED_USEC));
}

/* What PropertiesChanged names for a bit: the row's name in rdmad-api.h. */
static void test_property_names_cover_every_bit(void **state) {
        static const struct {
                ModelObjectKind kind;
                unsigned max, bit;
                const char *name;
        } kinds[] = {
                { MODEL_PORT, _PORT_PROP_MAX, PORT_PROP_STATE, RDMAD_PORT_PROPERTY_STATE },
                { MODEL_PORT, _PORT_PROP_MAX, PORT_PROP_STATE_CHANGED_USEC, RDMAD_PORT_PROPERTY_STATE_CHANGED_USEC },
                { MODEL_DEVICE, _DEVICE_PROP_MAX, DEVICE_PROP_POWER_ATTRIBUTES,
                  RDMAD_DEVICE_PROPERTY_POWER_ATTRIBUTES },
                { MODEL_NETDEV, _NETDEV_PROP_MAX, NETDEV_PROP_MTU, RDMAD_NETDEV_PROPERTY_MTU },
                { MODEL_SRIOV, _SRIOV_PROP_MAX, SRIOV_PROP_NUM_VFS, RDMAD_SRIOV_PROPERTY_NUM_VFS },
        };

        assert_string_equal(RDMAD_PORT_PROPERTY_STATE, "State");
        for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
                for (unsigned bit = 0; bit < kinds[i].max; bit++)
                        assert_non_null(bus_property_name(kinds[i].kind, bit));
                assert_null(bus_property_name(kinds[i].kind, kinds[i].max));
                assert_string_equal(bus_property_name(kinds[i].kind, kinds[i].bit), kinds[i].name);
        }
}

/* What a property list (properties-*.h) says of each property, expanded
 * here as the vtables and properties.c expand it. */
typedef struct Listed {
        const char *name, *signature, *compare;
        int bit; /* -1: constant */
        bool by_field;
} Listed;

#define LISTED_BIT_CHANGE(bit) bit
#define LISTED_BIT_CONST(bit)  -1
#define LISTED_FIELD_FIELD     true
#define LISTED_FIELD_GET       false
#define LISTED_FIELD_GET_FIELD false
#define LISTED(prefix, names, id, signature, emits, compare, field, bus, getter)                                       \
        { names##id, signature, #compare, LISTED_BIT_##emits(prefix##id), LISTED_FIELD_##bus },
#define DEVICE_LISTED(...) LISTED(DEVICE_PROP_, RDMAD_DEVICE_PROPERTY_, __VA_ARGS__)
#define PORT_LISTED(...)   LISTED(PORT_PROP_, RDMAD_PORT_PROPERTY_, __VA_ARGS__)
#define NETDEV_LISTED(...) LISTED(NETDEV_PROP_, RDMAD_NETDEV_PROPERTY_, __VA_ARGS__)
#define SRIOV_LISTED(...)  LISTED(SRIOV_PROP_, RDMAD_SRIOV_PROPERTY_, __VA_ARGS__)

static const Listed device_listed[] = { DEVICE_PROPERTIES(DEVICE_LISTED) };
static const Listed port_listed[] = { PORT_PROPERTIES(PORT_LISTED) };
static const Listed netdev_listed[] = { NETDEV_PROPERTIES(NETDEV_LISTED) };
static const Listed sriov_listed[] = { SRIOV_PROPERTIES(SRIOV_LISTED) };

static bool is_property(const sd_bus_vtable *v) {
        return v->type == _SD_BUS_VTABLE_PROPERTY || v->type == _SD_BUS_VTABLE_WRITABLE_PROPERTY;
}

/* The signature sd-bus reads a FIELD of this comparison as; NULL: any. */
static const char *field_signature(const char *compare) {
        static const char *const map[][2] = {
                { "STRING", "s" }, { "U32", "u" },    { "I32", "i" },
                { "U64", "t" },    { "DOUBLE", "d" }, { "ATTR_LIST", "a{ss}" },
        };

        for (size_t i = 0; i < ELEMENTSOF(map); i++)
                if (streq(compare, map[i][0]))
                        return map[i][1];
        return NULL;
}

/* The vtable has the list's properties, in its order, and nothing else; the
 * bits follow the rows, each named by bus_property_name(). */
static void assert_list_published(const char *interface, const Listed *list, size_t n, const sd_bus_vtable *vtable,
                                  ModelObjectKind kind, int max) {
        const uint64_t emits = SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION;
        const sd_bus_vtable *v = vtable;
        int n_bits = 0;

        for (size_t i = 0; i < n; i++) {
                const Listed *l = &list[i];
                bool constant = l->bit < 0;

                for (size_t j = 0; j < i; j++)
                        if (streq(list[j].name, l->name))
                                fail_msg("%s.%s is listed twice", interface, l->name);

                while (v->type != _SD_BUS_VTABLE_END && !is_property(v))
                        v++;
                if (v->type == _SD_BUS_VTABLE_END)
                        fail_msg("%s.%s is listed but not in the vtable", interface, l->name);
                if (!streq(v->x.property.member, l->name) || !streq(v->x.property.signature, l->signature))
                        fail_msg("%s: the vtable has %s %s where the list has %s %s", interface, v->x.property.member,
                                 v->x.property.signature, l->name, l->signature);
                if (constant != !!(v->flags & SD_BUS_VTABLE_PROPERTY_CONST) || constant == !!(v->flags & emits))
                        fail_msg("%s.%s: flags 0x%llx, listed as %s", interface, l->name, (unsigned long long) v->flags,
                                 constant ? "CONST" : "CHANGE");
                if (l->by_field != (!v->x.property.get || streq(l->compare, "ATTR_LIST")))
                        fail_msg("%s.%s: getter and the list's FIELD/GET disagree", interface, l->name);
                if (l->by_field && field_signature(l->compare) && !streq(field_signature(l->compare), l->signature))
                        fail_msg("%s.%s: a %s field is not read as %s", interface, l->name, l->compare, l->signature);
                v++;

                if (!constant) {
                        /* The bits follow the rows: the list's order is the only one kept. */
                        assert_int_equal(l->bit, n_bits);
                        assert_string_equal(bus_property_name(kind, l->bit), l->name);
                        n_bits++;
                }
        }
        for (; v->type != _SD_BUS_VTABLE_END; v++)
                if (is_property(v))
                        fail_msg("%s.%s is in the vtable but not in the list", interface, v->x.property.member);
        assert_int_equal(n_bits, max);
        assert_null(bus_property_name(kind, max));
}

static void test_property_lists_are_published(void **state) {
        assert_list_published("Device", device_listed, ELEMENTSOF(device_listed), device_object.vtable, MODEL_DEVICE,
                              _DEVICE_PROP_MAX);
        assert_list_published("Port", port_listed, ELEMENTSOF(port_listed), port_object.vtable, MODEL_PORT,
                              _PORT_PROP_MAX);
        assert_list_published("NetDev", netdev_listed, ELEMENTSOF(netdev_listed), netdev_object.vtable, MODEL_NETDEV,
                              _NETDEV_PROP_MAX);
        assert_list_published("Sriov", sriov_listed, ELEMENTSOF(sriov_listed), sriov_object.vtable, MODEL_SRIOV,
                              _SRIOV_PROP_MAX);
}

static void test_identity_change_means_reannounce(void **state) {
        Port pa = port_with("4: ACTIVE", "5: LinkUp", "", 0), pb = pa;
        Device a = { .name = "mlx5_0",
                     .sysfs_path = "/s",
                     .device_path = "/p",
                     .driver = "mlx5_core",
                     .node_type = "CA",
                     .transport = "RoCE",
                     .pci_address = "0000:5e:00.0",
                     .physfn_path = "",
                     .node_guid = "g",
                     .sys_image_guid = "g",
                     .fw_ver = "1",
                     .hca_type = "MT4119",
                     .hw_rev = "0",
                     .board_id = "b",
                     .node_desc = "d",
                     .ports = &pa,
                     .n_ports = 1 };
        Device b = a;

        b.ports = &pb;
        assert_false(device_identity_changed(&a, &b));
        b.node_desc = "other";
        assert_false(device_identity_changed(&a, &b)); /* changes in place */
        assert_int_equal(device_changed_mask(&a, &b), PROPERTY_BIT(DEVICE_PROP_NODE_DESCRIPTION));
        b.fw_ver = "2"; /* firmware update: the device is re-announced */
        assert_true(device_identity_changed(&a, &b));
        b = a;
        pb.number = 2;
        b.ports = &pb;
        assert_true(device_identity_changed(&a, &b));
        b = a;
        b.num_vfs = 4;
        assert_false(device_identity_changed(&a, &b));
        assert_int_equal(sriov_changed_mask(&a, &b), PROPERTY_BIT(SRIOV_PROP_NUM_VFS));
        /* The PCI function's place is constant; a VF's relations change only by other devices. */
        b = a;
        b.physfn_path = "/pf";
        assert_true(device_identity_changed(&a, &b));
        assert_int_equal(device_changed_mask(&a, &b), 0);
        b = a;
        b.numa_node = 1;
        assert_true(device_identity_changed(&a, &b));
        /* The Sriov object's constants and its existence. */
        b = a;
        b.total_vfs = 8;
        assert_true(device_identity_changed(&a, &b));
        b = a;
        b.sriov_capable = true;
        assert_true(device_identity_changed(&a, &b));
        b = a;
        b.transport = "mixed";
        assert_true(device_identity_changed(&a, &b));
        /* A port's own identity rows; its changeable ones change in place. */
        assert_false(port_identity_changed(&pa, &pa));
        pb = pa;
        pb.state = "1: DOWN";
        assert_false(port_identity_changed(&pa, &pb));
        pb.number = 2;
        assert_true(port_identity_changed(&pa, &pb));
}

static void test_attr_list_set_keeps_order(void **state) {
        AttrList l = {};

        assert_int_equal(attr_list_set(&l, "state", "4: ACTIVE"), 0);
        assert_int_equal(attr_list_set(&l, "lid", "0x5"), 0);
        assert_int_equal(attr_list_set(&l, "rate", "100 Gb/sec (4X EDR)"), 0);
        assert_int_equal(attr_list_set(&l, "cap_mask", "0x0"), 0);
        assert_int_equal(l.n, 4);
        assert_string_equal(l.items[0].name, "cap_mask");
        assert_string_equal(l.items[1].name, "lid");
        assert_string_equal(l.items[2].name, "rate");
        assert_string_equal(l.items[3].name, "state");

        assert_int_equal(attr_list_set(&l, "state", "1: DOWN"), 0);
        assert_string_equal(attr_list_get(&l, "state"), "1: DOWN");
        assert_int_equal(l.n, 4);

        assert_int_equal(attr_list_set(&l, "rate", NULL), 0); /* unreadable now: gone from the map */
        assert_int_equal(l.n, 3);
        assert_null(attr_list_get(&l, "rate"));
        assert_string_equal(attr_list_get(&l, "state"), "1: DOWN");
        assert_int_equal(attr_list_set(&l, "nothing", NULL), 0);
        assert_int_equal(l.n, 3);
        attr_list_clear(&l);
}

static void test_port_state_from_name(void **state) {
        assert_string_equal(port_state_from_name("ACTIVE"), "ACTIVE");
        assert_string_equal(port_state_from_name("active"), "ACTIVE");
        assert_string_equal(port_state_from_name("Active_Defer"), "ACTIVE_DEFER");
        assert_string_equal(port_state_from_name("nop"), "NOP");
        assert_null(port_state_from_name("UP"));
        assert_null(port_state_from_name(""));
        assert_null(port_state_from_name("LinkUp")); /* a physical state, not a port state */
}

typedef struct Names {
        char seen[8][32];
        int n;
} Names;

static void collect(const char *ifname, void *userdata) {
        Names *n = userdata;
        if (n->n < 8)
                strncpy(n->seen[n->n++], ifname, 31);
}

static size_t put_link(uint8_t *buf, uint16_t type, const char *ifname) {
        struct nlmsghdr *h = (struct nlmsghdr *) buf;
        struct ifinfomsg *ifi;
        struct rtattr *a;
        size_t name_len = ifname ? strlen(ifname) + 1 : 0;

        h->nlmsg_type = type;
        h->nlmsg_flags = 0;
        ifi = NLMSG_DATA(h);
        memset(ifi, 0, sizeof(*ifi));
        ifi->ifi_index = 7;
        h->nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
        /* An unrelated attribute first (IFLA_MTU), then the name. */
        a = (struct rtattr *) (buf + NLMSG_ALIGN(h->nlmsg_len));
        a->rta_type = IFLA_MTU;
        a->rta_len = RTA_LENGTH(4);
        memset(RTA_DATA(a), 0, 4);
        h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
        if (ifname) {
                a = (struct rtattr *) (buf + h->nlmsg_len);
                a->rta_type = IFLA_IFNAME;
                a->rta_len = RTA_LENGTH(name_len);
                memcpy(RTA_DATA(a), ifname, name_len);
                h->nlmsg_len += RTA_ALIGN(a->rta_len);
        }
        return NLMSG_ALIGN(h->nlmsg_len);
}

static void test_rtnl_parse_link_names(void **state) {
        uint8_t buf[1024] __attribute__((aligned(4))) = {};
        size_t len = 0;
        Names n = {};

        len += put_link(buf + len, RTM_NEWLINK, "ens1f0np0");
        len += put_link(buf + len, RTM_NEWADDR, "ignored");
        len += put_link(buf + len, RTM_DELLINK, "ib0");
        len += put_link(buf + len, RTM_NEWLINK, NULL); /* no name: counted, no callback */
        assert_int_equal(rtnl_parse_link_names(buf, len, collect, &n), 3);
        assert_int_equal(n.n, 2);
        assert_string_equal(n.seen[0], "ens1f0np0");
        assert_string_equal(n.seen[1], "ib0");

        /* Truncated: nothing read past the end. */
        n = (Names){};
        assert_true(rtnl_parse_link_names(buf, 10, collect, &n) >= 0);
        assert_int_equal(n.n, 0);

        /* A link message too short for its header. */
        ((struct nlmsghdr *) buf)->nlmsg_len = NLMSG_LENGTH(2);
        assert_int_equal(rtnl_parse_link_names(buf, NLMSG_ALIGN(NLMSG_LENGTH(2)), collect, &n), -EBADMSG);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_port_mask_names_exactly_what_changed),
                cmocka_unit_test(test_property_names_cover_every_bit),
                cmocka_unit_test(test_property_lists_are_published),
                cmocka_unit_test(test_identity_change_means_reannounce),
                cmocka_unit_test(test_attr_list_set_keeps_order),
                cmocka_unit_test(test_port_state_from_name),
                cmocka_unit_test(test_rtnl_parse_link_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
