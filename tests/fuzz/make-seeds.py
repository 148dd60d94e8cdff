#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/ from the real sysfs formats
(drivers/infiniband/core/sysfs.c and the fixtures in tests/data). Run it
again after changing the input format of a target; inputs of fixed crashes
(regress-*) are kept as they are."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    d = os.path.join(HERE, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# fuzz-parsers: one attribute value each, as the kernel prints them, and the
# malformed ones the daemon must refuse.
PARSER_SEEDS = [
    '0: NOP', '1: DOWN', '2: INIT', '3: ARMED', '4: ACTIVE', '5: ACTIVE_DEFER', '9: FUTURE',
    '1: Sleep', '2: Polling', '3: Disabled', '4: PortConfigurationTraining', '5: LinkUp',
    '6: LinkErrorRecovery', '7: Phy Test',
    '1: CA', '2: switch', '3: router', '4: RNIC', '5: usNIC', '6: usNIC UDP', '7: unspecified',
    '2.5 Gb/sec (1X SDR)', '14 Gb/sec (1X FDR)', '56 Gb/sec (4X FDR)', '40 Gb/sec (4X FDR10)',
    '100 Gb/sec (4X EDR)', '200 Gb/sec (4X HDR)', '400 Gb/sec (4X NDR)', '800 Gb/sec (4X XDR)',
    '53.125 Gb/sec (1X HDR)', '300 Gb/sec (12X EDR)', '10 Gb/sec (4X)', '2.5 Gb/sec', 'garbage',
    '0', '1', '4294967295', '4294967296', '-1', '0x', '0x1f', '0xFFFFFFFF', '0x100000000', '007', '',
    'fe80:0000:0000:0000:0002:c903:0010:1c71', '0000:0000:0000:0000:0000:0000:0000:0000',
    'InfiniBand', 'Ethernet', 'Unspecified', 'active', 'ACTIVE_DEFER', 'IB/RoCE v1', 'RoCE v2',
]

# fuzz-utf8: text, every length of sequence, and each way of being invalid.
UTF8_SEEDS = [
    b'MT4119 ConnectX-5', 'héllo wörld'.encode(), '€ ☃ 𝄞'.encode(), b'\xef\xbf\xbd',
    b'bad \xff byte', b'\xc0\xaf overlong', b'\xed\xa0\x80 surrogate', b'\xf4\x90\x80\x80 too big',
    b'trunc \xe2\x82', b'nul\x00inside', b'\x80\x80\x80', b'',
]


def rtnl_link(msg_type, ifname, extra_attrs=b''):
    """One RTM_NEWLINK/RTM_DELLINK message with IFLA_IFNAME."""
    def rta(t, payload):
        length = 4 + len(payload)
        return struct.pack('=HH', length, t) + payload + b'\0' * ((4 - length % 4) % 4)
    ifi = struct.pack('=BxHiII', 0, 1, 3, 0x1043, 0)  # family, type, index, flags, change
    attrs = extra_attrs + rta(3, ifname.encode() + b'\0')  # IFLA_IFNAME = 3
    body = ifi + attrs
    return struct.pack('=IHHII', 16 + len(body), msg_type, 0, 0, 0) + body


def blob(data):
    data = data if isinstance(data, bytes) else data.encode()
    if len(data) < 0xff:
        return bytes([len(data)]) + data
    return b'\xff' + struct.pack('<H', len(data)) + data


ABSENT, FILE, DIRECTORY, DANGLING = 0, 1, 2, 3


def entry(value):
    """value: None (absent), a string (file), DIRECTORY or DANGLING."""
    if value is None:
        return bytes([ABSENT])
    if value is DIRECTORY or value is DANGLING:
        return bytes([value])
    return bytes([FILE]) + blob(value)


def device(totalvfs, numvfs, driver, netdev, netdev_files, link, device_files, ports):
    """The input of fuzz-device, in the order build_tree() consumes it."""
    out = entry(totalvfs) + entry(numvfs) + blob(driver) + blob(netdev)
    out += b''.join(entry(v) for v in netdev_files)
    out += bytes([1 if link else 0])
    out += b''.join(entry(v) for v in device_files)
    for name, files, gids in ports:
        out += blob(name) + b''.join(entry(v) for v in files)
        for gid_name, gid, gid_type, ndev in gids:
            out += blob(gid_name) + entry(gid) + entry(gid_type) + entry(ndev)
    return out


def dev_files(node_type, guid, fw, hca, board, desc):
    return [node_type + '\n', guid + '\n', guid + '\n', fw + '\n', hca + '\n', '0\n', board + '\n',
            desc + '\n', 'active\n']


def port_files(state, phys, rate, ll, lid='0x0'):
    return [state + '\n', phys + '\n', rate + '\n', ll + '\n', lid + '\n', '0x0\n', '0\n', '0\n',
            '0x00010000\n']


ROCE_GIDS = [('0', 'fe80:0000:0000:0000:0e42:a1ff:fe5a:2b3c\n', 'IB/RoCE v1\n', 'ens1f0np0\n'),
             ('1', 'fe80:0000:0000:0000:0e42:a1ff:fe5a:2b3c\n', 'RoCE v2\n', 'ens1f0np0\n')]
IB_GIDS = [('0', 'fe80:0000:0000:0000:0002:c903:0010:1c71\n', 'IB/RoCE v1\n', DANGLING),
           ('1', '0000:0000:0000:0000:0000:0000:0000:0000\n', None, None)]
NETDEV = ['0\n', 'up\n', '0c:42:a1:5a:2b:3c\n', '1500\n']

DEVICE_SEEDS = {
    'mlx5-roce': device('8\n', '1\n', 'mlx5_core', 'ens1f0np0', NETDEV, True,
                        dev_files('1: CA', '0c42:a103:005a:2b3c', '16.35.2000', 'MT4119', 'MT_0000000012',
                                  'host mlx5_0'),
                        [('1', port_files('4: ACTIVE', '5: LinkUp', '100 Gb/sec (4X EDR)', 'Ethernet'), ROCE_GIDS),
                         ('2', port_files('1: DOWN', '3: Disabled', '40 Gb/sec (4X QDR)', 'Ethernet'), [])]),
    'mlx4-ib': device(None, None, 'mlx4_core', 'ib0', ['0\n', 'up\n', '80:00:02:08:fe:80\n', '2044\n'], True,
                      dev_files('1: CA', '0002:c903:0010:1c70', '2.42.5000', 'MT4099', 'MT_1090120019',
                                'host mlx4_0'),
                      [('1', port_files('4: ACTIVE', '5: LinkUp', '56 Gb/sec (4X FDR)', 'InfiniBand', '0x12'),
                        IB_GIDS)]),
    'siw': device(None, None, '', '', [None] * 4, False,
                  dev_files('4: RNIC', '0250:56ff:fe8a:0001', '0.0.0', '', '', 'siw_eth0'),
                  [('1', port_files('4: ACTIVE', '5: LinkUp', '2.5 Gb/sec', 'Ethernet'),
                    [('0', 'fe80:0000:0000:0000:0250:56ff:fe8a:0001\n', 'IB/RoCE v1\n', 'lo\n')])]),
    'hostile': device('4294967296\n', '-1\n', '..', '.', ['0x\n', '\xff\xfe', DIRECTORY, DANGLING], True,
                      [DIRECTORY, DANGLING, 'x' * 6000, '\xc3\x28 bad utf-8', 'nul\x00byte', '', None,
                       '\n\n\n', DIRECTORY],
                      [('0', port_files('9: FUTURE', '7: Phy Test', '10 Gb/sec (4X)', 'Unspecified'),
                        [('abc', 'fe80::1\n', DIRECTORY, DANGLING), ('4294967296', 'x\n', 'RoCE v2', 'eth0')]),
                       ('abc', [DIRECTORY] * 9, [('00', '1\n', '', '')])]),
}


def main():
    for i, s in enumerate(PARSER_SEEDS):
        write('fuzz-parsers', 'seed-%02d' % i, s)
    for i, s in enumerate(UTF8_SEEDS):
        write('fuzz-utf8', 'seed-%02d' % i, s)
    write('fuzz-netlink', 'seed-newlink', rtnl_link(16, 'ens1f0np0'))
    write('fuzz-netlink', 'seed-dellink', rtnl_link(17, 'ib0'))
    write('fuzz-netlink', 'seed-two', rtnl_link(16, 'eth0', struct.pack('=HH', 8, 4) + b'\x00\x05\x00\x00')
          + rtnl_link(16, 'eth1') + struct.pack('=IHHII', 16, 3, 0, 0, 0))
    write('fuzz-netlink', 'seed-short', struct.pack('=IHHII', 20, 16, 0, 0, 0) + b'\0\0\0\0')
    for name, data in DEVICE_SEEDS.items():
        write('fuzz-device', 'seed-' + name, data)


if __name__ == '__main__':
    main()
