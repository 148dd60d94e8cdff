/* SPDX-License-Identifier: MIT */
#pragma once

/* Counters as rdmad gives them; the table of every port as Manager.GetAllCounters() returns them:
 * a(sua{st}), (device name, port number, {file name: value}). Port 0
 * carries a device's device-wide hw_counters. */

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

typedef struct CounterSample {
        char *name;
        uint64_t value;
} CounterSample;

typedef struct PortCounters {
        char *device;
        uint32_t port;
        CounterSample *counters;
        size_t n_counters;
} PortCounters;

typedef struct CounterTable {
        PortCounters *ports;
        size_t n_ports;
} CounterTable;

/* Appends one port's counters (copies the strings). */
int counter_table_add(CounterTable *t, const char *device, uint32_t port, const CounterSample *counters, size_t n);

/* Reads a GetAllCounters reply into an empty table. */
int counter_table_read(CounterTable *t, sd_bus_message *reply);

/* Appends one port read from a GetCounters reply (a{st}). */
int counter_table_read_port(CounterTable *t, const char *device, uint32_t port, sd_bus_message *reply);

/* The entry of a port, or of a counter by file name; NULL when absent. */
const PortCounters *counter_table_find(const CounterTable *t, const char *device, uint32_t port);
const CounterSample *port_counters_find(const PortCounters *p, const char *name);

void counter_table_clear(CounterTable *t);
