/* SPDX-License-Identifier: MIT */
#include "diff.h"

#include "util.h"

static void names_add(PropertyNames *p, const char *name) {
        if (p->n < PROPERTY_NAMES_MAX)
                p->names[p->n++] = name;
        p->names[p->n] = NULL;
}

static void names_init(PropertyNames *p) {
        p->n = 0;
        p->names[0] = NULL;
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

void device_changed_properties(const Device *a, const Device *b, PropertyNames *ret) {
        names_init(ret);
        if (!streq(a->node_desc, b->node_desc))
                names_add(ret, "NodeDescription");
        if (!netdev_names_equal(a, b))
                names_add(ret, "NetDevs");
        if (!attr_list_equal(&a->attributes, &b->attributes))
                names_add(ret, "Attributes");
        if (!attr_list_equal(&a->power_attributes, &b->power_attributes))
                names_add(ret, "PowerAttributes");
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

void port_changed_properties(const Port *a, const Port *b, PropertyNames *ret) {
        names_init(ret);
        if (!streq(a->state, b->state))
                names_add(ret, "State");
        if (a->state_num != b->state_num)
                names_add(ret, "StateNum");
        if (!streq(a->state_name, b->state_name))
                names_add(ret, "StateName");
        if (!streq(a->phys_state, b->phys_state))
                names_add(ret, "PhysState");
        if (a->phys_state_num != b->phys_state_num)
                names_add(ret, "PhysStateNum");
        if (!streq(a->phys_state_name, b->phys_state_name))
                names_add(ret, "PhysStateName");
        if (!streq(a->rate, b->rate))
                names_add(ret, "Rate");
        if (a->rate_speed != b->rate_speed)
                names_add(ret, "RateSpeed");
        if (!streq(a->rate_unit, b->rate_unit))
                names_add(ret, "RateUnit");
        if (!streq(a->rate_info, b->rate_info))
                names_add(ret, "RateInfo");
        if (!streq(a->link_layer, b->link_layer))
                names_add(ret, "LinkLayer");
        if (a->lid != b->lid)
                names_add(ret, "Lid");
        if (a->sm_lid != b->sm_lid)
                names_add(ret, "SmLid");
        if (a->lid_mask_count != b->lid_mask_count)
                names_add(ret, "LidMaskCount");
        if (a->sm_sl != b->sm_sl)
                names_add(ret, "SmSl");
        if (a->cap_mask != b->cap_mask)
                names_add(ret, "CapMask");
        if (!streq(a->netdev, b->netdev))
                names_add(ret, "NetDev");
        if (!gids_equal(a, b))
                names_add(ret, "Gids");
        if (!attr_list_equal(&a->attributes, &b->attributes))
                names_add(ret, "Attributes");
        if (a->state_changed_usec != b->state_changed_usec)
                names_add(ret, "StateChangedUsec");
}

void netdev_changed_properties(const NetDev *a, const NetDev *b, PropertyNames *ret) {
        names_init(ret);
        if (a->dev_port != b->dev_port)
                names_add(ret, "DevPort");
        if (a->port != b->port)
                names_add(ret, "Port");
        if (!streq(a->operstate, b->operstate))
                names_add(ret, "OperState");
        if (!streq(a->address, b->address))
                names_add(ret, "Address");
        if (a->mtu != b->mtu)
                names_add(ret, "Mtu");
        if (!attr_list_equal(&a->attributes, &b->attributes))
                names_add(ret, "Attributes");
}

void sriov_changed_properties(const Device *a, const Device *b, PropertyNames *ret) {
        names_init(ret);
        if (a->num_vfs != b->num_vfs)
                names_add(ret, "NumVfs");
}
