/* SPDX-License-Identifier: MIT */
#pragma once

/* org.rdmad1.Port's properties, in the order published (introspection,
 * GetAll): the one list of them. properties.h says what the columns are;
 * a new property is a row here, its field in Port, what fills it in, and
 * its lines in introspection/ and man/org.rdmad1.5 (test-property-docs). */
#define PORT_PROPERTIES(X)                                                                                             \
        X(DEVICE, "Device", "o", CONST, PARENT, device, GET_FIELD, device_of)                                          \
        X(NUMBER, "Number", "u", CONST, U32, number, FIELD, _)                                                         \
        X(TRANSPORT, "Transport", "s", CHANGE, STRING, transport, FIELD, _)                                            \
        X(STATE, "State", "s", CHANGE, STRING, state, FIELD, _)                                                        \
        X(STATE_NUM, "StateNum", "u", CHANGE, U32, state_num, FIELD, _)                                                \
        X(STATE_NAME, "StateName", "s", CHANGE, STRING, state_name, FIELD, _)                                          \
        X(PHYS_STATE, "PhysState", "s", CHANGE, STRING, phys_state, FIELD, _)                                          \
        X(PHYS_STATE_NUM, "PhysStateNum", "u", CHANGE, U32, phys_state_num, FIELD, _)                                  \
        X(PHYS_STATE_NAME, "PhysStateName", "s", CHANGE, STRING, phys_state_name, FIELD, _)                            \
        X(RATE, "Rate", "s", CHANGE, STRING, rate, FIELD, _)                                                           \
        X(RATE_SPEED, "RateSpeed", "d", CHANGE, DOUBLE, rate_speed, FIELD, _)                                          \
        X(RATE_UNIT, "RateUnit", "s", CHANGE, STRING, rate_unit, FIELD, _)                                             \
        X(RATE_INFO, "RateInfo", "s", CHANGE, STRING, rate_info, FIELD, _)                                             \
        X(LINK_WIDTH, "LinkWidth", "s", CHANGE, STRING, link_width, FIELD, _)                                          \
        X(LINK_SPEED, "LinkSpeed", "s", CHANGE, STRING, link_speed, FIELD, _)                                          \
        X(LINK_LAYER, "LinkLayer", "s", CHANGE, STRING, link_layer, FIELD, _)                                          \
        X(LID, "Lid", "u", CHANGE, U32, lid, FIELD, _)                                                                 \
        X(SM_LID, "SmLid", "u", CHANGE, U32, sm_lid, FIELD, _)                                                         \
        X(LID_MASK_COUNT, "LidMaskCount", "u", CHANGE, U32, lid_mask_count, FIELD, _)                                  \
        X(SM_SL, "SmSl", "u", CHANGE, U32, sm_sl, FIELD, _)                                                            \
        X(CAP_MASK, "CapMask", "u", CHANGE, U32, cap_mask, FIELD, _)                                                   \
        X(NETDEV, "NetDev", "o", CHANGE, STRING, netdev, GET, netdev)                                                  \
        X(GIDS, "Gids", "a(usss)", CHANGE, CUSTOM, gids_equal, GET, gids)                                              \
        X(ATTRIBUTES, "Attributes", "a{ss}", CHANGE, ATTR_LIST, attributes, FIELD, _)                                  \
        X(STATE_CHANGED_USEC, "StateChangedUsec", "t", CHANGE, U64, state_changed_usec, FIELD, _)                      \
        X(STATE_CHANGES, "StateChanges", "t", CHANGE, U64, state_changes, FIELD, _)                                    \
        X(LINK_EVENTS, "LinkEvents", "s", CHANGE, STRING, link_events, FIELD, _)                                       \
        X(PORT_GUID, "PortGuid", "s", CHANGE, CUSTOM, port_guid_equal, GET, port_guid)                                 \
        X(LINK_HISTORY, "LinkHistory", "a(tss)", CHANGE, RELATED, _, GET, link_history)
