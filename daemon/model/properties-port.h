/* SPDX-License-Identifier: MIT */
#pragma once

/* org.rdmad1.Port's properties, in the order published (introspection,
 * GetAll): the one list of them. properties.h says what the columns are;
 * a new property is a row here, its name in api/rdmad-api.h, its field in
 * Port, what fills it in, and its lines in introspection/ and
 * man/org.rdmad1.5 (test-property-docs). */
#define PORT_PROPERTIES(X)                                                                                             \
        X(DEVICE, "o", CONST, PARENT, device, GET_FIELD, device_of)                                                    \
        X(NUMBER, "u", CONST, U32, number, FIELD, _)                                                                   \
        X(TRANSPORT, "s", CHANGE, STRING, transport, FIELD, _)                                                         \
        X(STATE, "s", CHANGE, STRING, state, FIELD, _)                                                                 \
        X(STATE_NUM, "u", CHANGE, U32, state_num, FIELD, _)                                                            \
        X(STATE_NAME, "s", CHANGE, STRING, state_name, FIELD, _)                                                       \
        X(PHYS_STATE, "s", CHANGE, STRING, phys_state, FIELD, _)                                                       \
        X(PHYS_STATE_NUM, "u", CHANGE, U32, phys_state_num, FIELD, _)                                                  \
        X(PHYS_STATE_NAME, "s", CHANGE, STRING, phys_state_name, FIELD, _)                                             \
        X(RATE, "s", CHANGE, STRING, rate, FIELD, _)                                                                   \
        X(RATE_SPEED, "d", CHANGE, DOUBLE, rate_speed, FIELD, _)                                                       \
        X(RATE_UNIT, "s", CHANGE, STRING, rate_unit, FIELD, _)                                                         \
        X(RATE_INFO, "s", CHANGE, STRING, rate_info, FIELD, _)                                                         \
        X(LINK_WIDTH, "s", CHANGE, STRING, link_width, FIELD, _)                                                       \
        X(LINK_SPEED, "s", CHANGE, STRING, link_speed, FIELD, _)                                                       \
        X(LINK_LAYER, "s", CHANGE, STRING, link_layer, FIELD, _)                                                       \
        X(LID, "u", CHANGE, U32, lid, FIELD, _)                                                                        \
        X(SM_LID, "u", CHANGE, U32, sm_lid, FIELD, _)                                                                  \
        X(LID_MASK_COUNT, "u", CHANGE, U32, lid_mask_count, FIELD, _)                                                  \
        X(SM_SL, "u", CHANGE, U32, sm_sl, FIELD, _)                                                                    \
        X(CAP_MASK, "u", CHANGE, U32, cap_mask, FIELD, _)                                                              \
        X(NETDEV, "o", CHANGE, STRING, netdev, GET, netdev)                                                            \
        X(GIDS, "a(usss)", CHANGE, CUSTOM, gids_equal, GET, gids)                                                      \
        X(ATTRIBUTES, "a{ss}", CHANGE, ATTR_LIST, attributes, FIELD, _)                                                \
        X(STATE_CHANGED_USEC, "t", CHANGE, U64, state_changed_usec, FIELD, _)                                          \
        X(STATE_CHANGES, "t", CHANGE, U64, state_changes, FIELD, _)                                                    \
        X(LINK_EVENTS, "s", CHANGE, STRING, link_events, FIELD, _)                                                     \
        X(PORT_GUID, "s", CHANGE, CUSTOM, port_guid_equal, GET, port_guid)                                             \
        X(LINK_HISTORY, "a(tss)", CHANGE, RELATED, _, GET, link_history)
