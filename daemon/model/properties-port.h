/* SPDX-License-Identifier: MIT */
#pragma once

/* org.rdmad1.Port's properties, in the order published (introspection,
 * GetAll): the one list of them. properties.h says what the columns are;
 * a new property is a row here, its field in Port, what fills it in, and
 * its lines in introspection/ and man/org.rdmad1.5 (test-property-docs). */
#define PORT_PROPERTIES(X)                                                                                             \
        X(DEVICE, "Device", "o", CONST, _, PARENT, device, GET_FIELD, device_of)                                       \
        X(NUMBER, "Number", "u", CONST, _, U32, number, FIELD, _)                                                      \
        X(TRANSPORT, "Transport", "s", CHANGE, 13, STRING, transport, FIELD, _)                                        \
        X(STATE, "State", "s", CHANGE, 0, STRING, state, FIELD, _)                                                     \
        X(STATE_NUM, "StateNum", "u", CHANGE, 1, U32, state_num, FIELD, _)                                             \
        X(STATE_NAME, "StateName", "s", CHANGE, 2, STRING, state_name, FIELD, _)                                       \
        X(PHYS_STATE, "PhysState", "s", CHANGE, 3, STRING, phys_state, FIELD, _)                                       \
        X(PHYS_STATE_NUM, "PhysStateNum", "u", CHANGE, 4, U32, phys_state_num, FIELD, _)                               \
        X(PHYS_STATE_NAME, "PhysStateName", "s", CHANGE, 5, STRING, phys_state_name, FIELD, _)                         \
        X(RATE, "Rate", "s", CHANGE, 6, STRING, rate, FIELD, _)                                                        \
        X(RATE_SPEED, "RateSpeed", "d", CHANGE, 7, DOUBLE, rate_speed, FIELD, _)                                       \
        X(RATE_UNIT, "RateUnit", "s", CHANGE, 8, STRING, rate_unit, FIELD, _)                                          \
        X(RATE_INFO, "RateInfo", "s", CHANGE, 9, STRING, rate_info, FIELD, _)                                          \
        X(LINK_WIDTH, "LinkWidth", "s", CHANGE, 10, STRING, link_width, FIELD, _)                                      \
        X(LINK_SPEED, "LinkSpeed", "s", CHANGE, 11, STRING, link_speed, FIELD, _)                                      \
        X(LINK_LAYER, "LinkLayer", "s", CHANGE, 12, STRING, link_layer, FIELD, _)                                      \
        X(LID, "Lid", "u", CHANGE, 14, U32, lid, FIELD, _)                                                             \
        X(SM_LID, "SmLid", "u", CHANGE, 15, U32, sm_lid, FIELD, _)                                                     \
        X(LID_MASK_COUNT, "LidMaskCount", "u", CHANGE, 16, U32, lid_mask_count, FIELD, _)                              \
        X(SM_SL, "SmSl", "u", CHANGE, 17, U32, sm_sl, FIELD, _)                                                        \
        X(CAP_MASK, "CapMask", "u", CHANGE, 18, U32, cap_mask, FIELD, _)                                               \
        X(NETDEV, "NetDev", "o", CHANGE, 19, STRING, netdev, GET, netdev)                                              \
        X(GIDS, "Gids", "a(usss)", CHANGE, 20, CUSTOM, gids_equal, GET, gids)                                          \
        X(ATTRIBUTES, "Attributes", "a{ss}", CHANGE, 21, ATTR_LIST, attributes, FIELD, _)                              \
        X(STATE_CHANGED_USEC, "StateChangedUsec", "t", CHANGE, 22, U64, state_changed_usec, FIELD, _)                  \
        X(STATE_CHANGES, "StateChanges", "t", CHANGE, 23, U64, state_changes, FIELD, _)                                \
        X(LINK_EVENTS, "LinkEvents", "s", CHANGE, 24, STRING, link_events, FIELD, _)                                   \
        X(PORT_GUID, "PortGuid", "s", CHANGE, 25, CUSTOM, port_guid_equal, GET, port_guid)                             \
        X(LINK_HISTORY, "LinkHistory", "a(tss)", CHANGE, 26, RELATED, _, GET, link_history)
