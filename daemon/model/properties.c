/* SPDX-License-Identifier: MIT */
#include "properties.h"

#include <assert.h>

#include "basic/util.h"

typedef enum FieldType {
        FIELD_STRING, /* char *, owned */
        FIELD_U32,
        FIELD_I32,
        FIELD_U64,
        FIELD_DOUBLE,
        FIELD_BOOL,
        FIELD_ATTR_LIST,
        FIELD_CUSTOM,  /* compared by .equal on the whole objects */
        FIELD_RELATED, /* made of other devices: marked by the manager when one comes or goes */
        FIELD_PARENT,  /* the object path of the object's Device, compared by the Device's own rows */
} FieldType;

typedef struct PropertyField {
        const char *name;
        FieldType type;
        size_t offset;
        bool (*equal)(const void *a, const void *b);
} PropertyField;

#define STRING(n, s, f)                                                                                                \
        { .name = (n), .type = FIELD_STRING, .offset = offsetof(s, f) }
#define U32(n, s, f)                                                                                                   \
        { .name = (n), .type = FIELD_U32, .offset = offsetof(s, f) }
#define I32(n, s, f)                                                                                                   \
        { .name = (n), .type = FIELD_I32, .offset = offsetof(s, f) }
#define U64(n, s, f)                                                                                                   \
        { .name = (n), .type = FIELD_U64, .offset = offsetof(s, f) }
#define DOUBLE(n, s, f)                                                                                                \
        { .name = (n), .type = FIELD_DOUBLE, .offset = offsetof(s, f) }
#define BOOL(n, s, f)                                                                                                  \
        { .name = (n), .type = FIELD_BOOL, .offset = offsetof(s, f) }
#define ATTR_LIST(n, s, f)                                                                                             \
        { .name = (n), .type = FIELD_ATTR_LIST, .offset = offsetof(s, f) }
#define CUSTOM(n, eq)                                                                                                  \
        { .name = (n), .type = FIELD_CUSTOM, .equal = (eq) }
#define RELATED(n)                                                                                                     \
        { .name = (n), .type = FIELD_RELATED }
#define PARENT(n)                                                                                                      \
        { .name = (n), .type = FIELD_PARENT }

/* Masks are uint32_t. Each table below has a row per enum value, in enum
 * order (designated initialisers; test-diff checks that none is empty), then
 * from index _*_PROP_MAX on the identity rows of the constant properties,
 * which have no bit. */
static_assert(_DEVICE_PROP_MAX <= 32 && _PORT_PROP_MAX <= 32 && _NETDEV_PROP_MAX <= 32 && _SRIOV_PROP_MAX <= 32,
              "a property mask has 32 bits");
static_assert(PROPERTY_NAMES_MAX >= 32, "PropertyNames holds every bit of a mask");

static bool netdev_names_equal(const void *x, const void *y) {
        const Device *a = x, *b = y;

        if (a->n_netdevs != b->n_netdevs)
                return false;
        for (size_t i = 0; i < a->n_netdevs; i++)
                if (!streq(a->netdevs[i].name, b->netdevs[i].name))
                        return false;
        return true;
}

/* Ports and PortNumbers: the ports' paths are the device's and their numbers. */
static bool port_numbers_equal(const void *x, const void *y) {
        const Device *a = x, *b = y;

        if (a->n_ports != b->n_ports)
                return false;
        for (size_t i = 0; i < a->n_ports; i++)
                if (a->ports[i].number != b->ports[i].number)
                        return false;
        return true;
}

/* Sriov: the device's own path under it when SR-IOV capable, "/" else. */
static bool sriov_path_equal(const void *x, const void *y) {
        const Device *a = x, *b = y;

        return a->sriov_capable == b->sriov_capable && (!a->sriov_capable || streq(a->name, b->name));
}

static bool gids_equal(const void *x, const void *y) {
        const Port *a = x, *b = y;

        if (a->n_gids != b->n_gids)
                return false;
        for (size_t i = 0; i < a->n_gids; i++)
                if (a->gids[i].index != b->gids[i].index || !streq(a->gids[i].gid, b->gids[i].gid) ||
                    !streq(a->gids[i].type, b->gids[i].type) || !streq(a->gids[i].ndev, b->gids[i].ndev))
                        return false;
        return true;
}

static const PropertyField device_properties[] = {
        [DEVICE_PROP_NODE_DESCRIPTION] = STRING("NodeDescription", Device, node_desc),
        [DEVICE_PROP_NETDEVS] = CUSTOM("NetDevs", netdev_names_equal),
        [DEVICE_PROP_ATTRIBUTES] = ATTR_LIST("Attributes", Device, attributes),
        [DEVICE_PROP_POWER_ATTRIBUTES] = ATTR_LIST("PowerAttributes", Device, power_attributes),
        [DEVICE_PROP_PHYSICAL_FUNCTION] = RELATED("PhysicalFunction"),
        [DEVICE_PROP_VIRTUAL_FUNCTIONS] = RELATED("VirtualFunctions"),
        /* Not from sysfs but from how its reads went: marked by the manager too. */
        [DEVICE_PROP_HEALTH] = RELATED("Health"),
        [DEVICE_PROP_HEALTH_REASON] = RELATED("HealthReason"),

        [_DEVICE_PROP_MAX] = STRING("Name", Device, name),
        STRING("SysfsPath", Device, sysfs_path),
        STRING("DevicePath", Device, device_path),
        STRING("Driver", Device, driver),
        STRING("NodeType", Device, node_type),
        STRING("Transport", Device, transport),
        STRING("PciAddress", Device, pci_address),
        I32("NumaNode", Device, numa_node),
        STRING("NodeGuid", Device, node_guid),
        STRING("SysImageGuid", Device, sys_image_guid),
        STRING("FirmwareVersion", Device, fw_ver),
        STRING("HcaType", Device, hca_type),
        STRING("HwRev", Device, hw_rev),
        STRING("BoardId", Device, board_id),
        CUSTOM("Ports", port_numbers_equal),
        CUSTOM("PortNumbers", port_numbers_equal),
        BOOL("SriovCapable", Device, sriov_capable),
        CUSTOM("Sriov", sriov_path_equal),
};
static_assert(ELEMENTSOF(device_properties) > _DEVICE_PROP_MAX, "one row per DEVICE_PROP_* value, then identity");

static const PropertyField port_properties[] = {
        [PORT_PROP_STATE] = STRING("State", Port, state),
        [PORT_PROP_STATE_NUM] = U32("StateNum", Port, state_num),
        [PORT_PROP_STATE_NAME] = STRING("StateName", Port, state_name),
        [PORT_PROP_PHYS_STATE] = STRING("PhysState", Port, phys_state),
        [PORT_PROP_PHYS_STATE_NUM] = U32("PhysStateNum", Port, phys_state_num),
        [PORT_PROP_PHYS_STATE_NAME] = STRING("PhysStateName", Port, phys_state_name),
        [PORT_PROP_RATE] = STRING("Rate", Port, rate),
        [PORT_PROP_RATE_SPEED] = DOUBLE("RateSpeed", Port, rate_speed),
        [PORT_PROP_RATE_UNIT] = STRING("RateUnit", Port, rate_unit),
        [PORT_PROP_RATE_INFO] = STRING("RateInfo", Port, rate_info),
        [PORT_PROP_LINK_WIDTH] = STRING("LinkWidth", Port, link_width),
        [PORT_PROP_LINK_SPEED] = STRING("LinkSpeed", Port, link_speed),
        [PORT_PROP_LINK_LAYER] = STRING("LinkLayer", Port, link_layer),
        [PORT_PROP_TRANSPORT] = STRING("Transport", Port, transport),
        [PORT_PROP_LID] = U32("Lid", Port, lid),
        [PORT_PROP_SM_LID] = U32("SmLid", Port, sm_lid),
        [PORT_PROP_LID_MASK_COUNT] = U32("LidMaskCount", Port, lid_mask_count),
        [PORT_PROP_SM_SL] = U32("SmSl", Port, sm_sl),
        [PORT_PROP_CAP_MASK] = U32("CapMask", Port, cap_mask),
        [PORT_PROP_NETDEV] = STRING("NetDev", Port, netdev),
        [PORT_PROP_GIDS] = CUSTOM("Gids", gids_equal),
        [PORT_PROP_ATTRIBUTES] = ATTR_LIST("Attributes", Port, attributes),
        [PORT_PROP_STATE_CHANGED_USEC] = U64("StateChangedUsec", Port, state_changed_usec),
        [PORT_PROP_STATE_CHANGES] = U64("StateChanges", Port, state_changes),
        [PORT_PROP_LINK_EVENTS] = STRING("LinkEvents", Port, link_events),

        [_PORT_PROP_MAX] = PARENT("Device"),
        U32("Number", Port, number),
};
static_assert(ELEMENTSOF(port_properties) > _PORT_PROP_MAX, "one row per PORT_PROP_* value, then identity");

static const PropertyField netdev_properties[] = {
        [NETDEV_PROP_DEV_PORT] = U32("DevPort", NetDev, dev_port),
        [NETDEV_PROP_PORT] = U32("Port", NetDev, port),
        [NETDEV_PROP_OPER_STATE] = STRING("OperState", NetDev, operstate),
        [NETDEV_PROP_ADDRESS] = STRING("Address", NetDev, address),
        [NETDEV_PROP_MTU] = U32("Mtu", NetDev, mtu),
        [NETDEV_PROP_ATTRIBUTES] = ATTR_LIST("Attributes", NetDev, attributes),

        [_NETDEV_PROP_MAX] = STRING("Name", NetDev, name),
        PARENT("Device"),
};
static_assert(ELEMENTSOF(netdev_properties) > _NETDEV_PROP_MAX, "one row per NETDEV_PROP_* value, then identity");

static const PropertyField sriov_properties[] = {
        [SRIOV_PROP_NUM_VFS] = U32("NumVfs", Device, num_vfs),

        [_SRIOV_PROP_MAX] = PARENT("Device"),
        STRING("DevicePath", Device, device_path),
        U32("TotalVfs", Device, total_vfs),
};
static_assert(ELEMENTSOF(sriov_properties) > _SRIOV_PROP_MAX, "one row per SRIOV_PROP_* value, then identity");

#define FIELD(object, f, type) (*(type const *) ((const uint8_t *) (object) + (f)->offset))

static bool field_equal(const PropertyField *f, const void *a, const void *b) {
        switch (f->type) {
        case FIELD_STRING:
                return streq_ptr(FIELD(a, f, char *), FIELD(b, f, char *));
        case FIELD_U32:
                return FIELD(a, f, uint32_t) == FIELD(b, f, uint32_t);
        case FIELD_I32:
                return FIELD(a, f, int32_t) == FIELD(b, f, int32_t);
        case FIELD_U64:
                return FIELD(a, f, uint64_t) == FIELD(b, f, uint64_t);
        case FIELD_DOUBLE:
                return FIELD(a, f, double) == FIELD(b, f, double);
        case FIELD_BOOL:
                return FIELD(a, f, bool) == FIELD(b, f, bool);
        case FIELD_ATTR_LIST:
                return attr_list_equal(&FIELD(a, f, AttrList), &FIELD(b, f, AttrList));
        case FIELD_CUSTOM:
                return f->equal(a, b);
        case FIELD_RELATED:
                /* Two snapshots of one device have the same PCI identity (or it is
                 * re-announced); what changes is the other device. */
                return true;
        case FIELD_PARENT:
                /* Two snapshots of one object are of the same parent, or the parent's
                 * identity rows differ and it is re-announced with all its children. */
                return true;
        }
        assert(!"unknown field type");
        return false;
}

/* Rows [0, n_changing) are the bits of the mask. */
static uint32_t changed_mask(const PropertyField *table, size_t n_changing, const void *a, const void *b) {
        uint32_t mask = 0;

        assert(a);
        assert(b);
        for (size_t i = 0; i < n_changing; i++)
                if (!field_equal(&table[i], a, b))
                        mask |= PROPERTY_BIT(i);
        return mask;
}

/* Rows [n_changing, n) are the identity rows. */
static bool identity_changed(const PropertyField *table, size_t n_changing, size_t n, const void *a, const void *b) {
        assert(a);
        assert(b);
        for (size_t i = n_changing; i < n; i++)
                if (!field_equal(&table[i], a, b))
                        return true;
        return false;
}

static void names_from_mask(const PropertyField *table, size_t n_changing, uint32_t mask, PropertyNames *ret) {
        assert(ret);
        ret->n = 0;
        for (size_t i = 0; i < n_changing; i++)
                if (mask & PROPERTY_BIT(i))
                        ret->names[ret->n++] = table[i].name;
        ret->names[ret->n] = NULL;
}

static const char *property_to_string(const PropertyField *table, size_t n_changing, size_t p) {
        return p < n_changing ? table[p].name : NULL;
}

static const char *property_row(const PropertyField *table, size_t n_changing, size_t n, size_t i, bool *ret_identity) {
        if (i >= n)
                return NULL;
        if (ret_identity)
                *ret_identity = i >= n_changing;
        return table[i].name;
}

/* One set of accessors per interface, all over the same functions. */
#define DEFINE_PROPERTY_FUNCTIONS(kind, Kind, Object, table, max)                                                      \
        const char *kind##_property_to_string(Kind##Property p) {                                                      \
                return property_to_string(table, max, p);                                                              \
        }                                                                                                              \
        void kind##_property_names(uint32_t mask, PropertyNames *ret) {                                                \
                names_from_mask(table, max, mask, ret);                                                                \
        }                                                                                                              \
        uint32_t kind##_changed_mask(const Object *a, const Object *b) {                                               \
                return changed_mask(table, max, a, b);                                                                 \
        }                                                                                                              \
        const char *kind##_property_row(size_t i, bool *ret_identity) {                                                \
                return property_row(table, max, ELEMENTSOF(table), i, ret_identity);                                   \
        }                                                                                                              \
        static bool kind##_identity_rows_changed(const Object *a, const Object *b) {                                   \
                return identity_changed(table, max, ELEMENTSOF(table), a, b);                                          \
        }

DEFINE_PROPERTY_FUNCTIONS(device, Device, Device, device_properties, _DEVICE_PROP_MAX)
DEFINE_PROPERTY_FUNCTIONS(port, Port, Port, port_properties, _PORT_PROP_MAX)
DEFINE_PROPERTY_FUNCTIONS(netdev, NetDev, NetDev, netdev_properties, _NETDEV_PROP_MAX)
DEFINE_PROPERTY_FUNCTIONS(sriov, Sriov, Device, sriov_properties, _SRIOV_PROP_MAX)

bool port_identity_changed(const Port *a, const Port *b) {
        return port_identity_rows_changed(a, b);
}

bool netdev_identity_changed(const NetDev *a, const NetDev *b) {
        return netdev_identity_rows_changed(a, b);
}

bool device_identity_changed(const Device *a, const Device *b) {
        if (device_identity_rows_changed(a, b) || sriov_identity_rows_changed(a, b))
                return true;
        /* Not published itself, but what PhysicalFunction is found by: a VF
         * moved to another PF is another VF. */
        if (!streq(a->physfn_path, b->physfn_path))
                return true;

        /* The same port numbers (the Ports row), so the same ports in order. */
        for (size_t i = 0; i < a->n_ports; i++)
                if (port_identity_changed(&a->ports[i], &b->ports[i]))
                        return true;
        return false;
}
