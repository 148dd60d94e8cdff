/* SPDX-License-Identifier: MIT */
#include "diff.h"

#include "util.h"

static void names_from_mask(uint32_t mask, const char *const *table, unsigned n_table, PropertyNames *ret) {
        ret->n = 0;
        for (unsigned i = 0; i < n_table && ret->n < PROPERTY_NAMES_MAX; i++)
                if (mask & (1u << i))
                        ret->names[ret->n++] = table[i];
        ret->names[ret->n] = NULL;
}

void device_property_names(uint32_t mask, PropertyNames *ret) {
        static const char *const table[] = { "NodeDescription", "NetDevs", "Attributes", "PowerAttributes" };
        names_from_mask(mask, table, ELEMENTSOF(table), ret);
}

void port_property_names(uint32_t mask, PropertyNames *ret) {
        static const char *const table[] = {
                "State",     "StateNum",  "StateName", "PhysState",    "PhysStateNum",     "PhysStateName",
                "Rate",      "RateSpeed", "RateUnit",  "RateInfo",     "LinkLayer",        "Lid",
                "SmLid",     "LidMaskCount", "SmSl",   "CapMask",      "NetDev",           "Gids",
                "Attributes", "StateChangedUsec", "StateChanges",
        };
        names_from_mask(mask, table, ELEMENTSOF(table), ret);
}

void netdev_property_names(uint32_t mask, PropertyNames *ret) {
        static const char *const table[] = { "DevPort", "Port", "OperState", "Address", "Mtu", "Attributes" };
        names_from_mask(mask, table, ELEMENTSOF(table), ret);
}

void sriov_property_names(uint32_t mask, PropertyNames *ret) {
        static const char *const table[] = { "NumVfs" };
        names_from_mask(mask, table, ELEMENTSOF(table), ret);
}

bool device_identity_changed(const Device *a, const Device *b) {
        if (!streq(a->name, b->name) || !streq(a->sysfs_path, b->sysfs_path) ||
            !streq(a->device_path, b->device_path) || !streq(a->driver, b->driver) ||
            !streq(a->node_type, b->node_type) || !streq(a->transport, b->transport) ||
            !streq(a->node_guid, b->node_guid) || !streq(a->sys_image_guid, b->sys_image_guid) ||
            !streq(a->fw_ver, b->fw_ver) || !streq(a->hca_type, b->hca_type) || !streq(a->hw_rev, b->hw_rev) ||
            !streq(a->board_id, b->board_id) || a->sriov_capable != b->sriov_capable ||
            a->total_vfs != b->total_vfs || a->n_ports != b->n_ports)
                return true;

        for (size_t i = 0; i < a->n_ports; i++)
                if (a->ports[i].number != b->ports[i].number)
                        return true;
        return false;
}

static bool netdev_names_equal(const Device *a, const Device *b) {
        if (a->n_netdevs != b->n_netdevs)
                return false;
        for (size_t i = 0; i < a->n_netdevs; i++)
                if (!streq(a->netdevs[i].name, b->netdevs[i].name))
                        return false;
        return true;
}

uint32_t device_changed_mask(const Device *a, const Device *b) {
        uint32_t m = 0;

        if (!streq(a->node_desc, b->node_desc))
                m |= DEVICE_NODE_DESCRIPTION;
        if (!netdev_names_equal(a, b))
                m |= DEVICE_NETDEVS;
        if (!attr_list_equal(&a->attributes, &b->attributes))
                m |= DEVICE_ATTRIBUTES;
        if (!attr_list_equal(&a->power_attributes, &b->power_attributes))
                m |= DEVICE_POWER_ATTRIBUTES;
        return m;
}

static bool gids_equal(const Port *a, const Port *b) {
        if (a->n_gids != b->n_gids)
                return false;
        for (size_t i = 0; i < a->n_gids; i++)
                if (a->gids[i].index != b->gids[i].index || !streq(a->gids[i].gid, b->gids[i].gid) ||
                    !streq(a->gids[i].type, b->gids[i].type))
                        return false;
        return true;
}

uint32_t port_changed_mask(const Port *a, const Port *b) {
        uint32_t m = 0;

        if (!streq(a->state, b->state))
                m |= PORT_STATE;
        if (a->state_num != b->state_num)
                m |= PORT_STATE_NUM;
        if (!streq(a->state_name, b->state_name))
                m |= PORT_STATE_NAME;
        if (!streq(a->phys_state, b->phys_state))
                m |= PORT_PHYS_STATE;
        if (a->phys_state_num != b->phys_state_num)
                m |= PORT_PHYS_STATE_NUM;
        if (!streq(a->phys_state_name, b->phys_state_name))
                m |= PORT_PHYS_STATE_NAME;
        if (!streq(a->rate, b->rate))
                m |= PORT_RATE;
        if (a->rate_speed != b->rate_speed)
                m |= PORT_RATE_SPEED;
        if (!streq(a->rate_unit, b->rate_unit))
                m |= PORT_RATE_UNIT;
        if (!streq(a->rate_info, b->rate_info))
                m |= PORT_RATE_INFO;
        if (!streq(a->link_layer, b->link_layer))
                m |= PORT_LINK_LAYER;
        if (a->lid != b->lid)
                m |= PORT_LID;
        if (a->sm_lid != b->sm_lid)
                m |= PORT_SM_LID;
        if (a->lid_mask_count != b->lid_mask_count)
                m |= PORT_LID_MASK_COUNT;
        if (a->sm_sl != b->sm_sl)
                m |= PORT_SM_SL;
        if (a->cap_mask != b->cap_mask)
                m |= PORT_CAP_MASK;
        if (!streq(a->netdev, b->netdev))
                m |= PORT_NETDEV;
        if (!gids_equal(a, b))
                m |= PORT_GIDS;
        if (!attr_list_equal(&a->attributes, &b->attributes))
                m |= PORT_ATTRIBUTES;
        if (a->state_changed_usec != b->state_changed_usec)
                m |= PORT_STATE_CHANGED_USEC;
        if (a->state_changes != b->state_changes)
                m |= PORT_STATE_CHANGES;
        return m;
}

uint32_t netdev_changed_mask(const NetDev *a, const NetDev *b) {
        uint32_t m = 0;

        if (a->dev_port != b->dev_port)
                m |= NETDEV_DEV_PORT;
        if (a->port != b->port)
                m |= NETDEV_PORT;
        if (!streq(a->operstate, b->operstate))
                m |= NETDEV_OPER_STATE;
        if (!streq(a->address, b->address))
                m |= NETDEV_ADDRESS;
        if (a->mtu != b->mtu)
                m |= NETDEV_MTU;
        if (!attr_list_equal(&a->attributes, &b->attributes))
                m |= NETDEV_ATTRIBUTES;
        return m;
}

uint32_t sriov_changed_mask(const Device *a, const Device *b) {
        return a->num_vfs != b->num_vfs ? SRIOV_NUM_VFS : 0;
}
