#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A NOTIFY_SOCKET of the test's own: binds a unix datagram socket at PATH and
appends every message it receives to OUT, one line per message (newlines inside
a message become '|'), until it gets STOPPING=1 or TIMEOUT seconds pass. With
STAMPED, each message is also appended there after the milliseconds of the
monotonic clock it arrived at ("1234.5 WATCHDOG=1"), for tests of timing."""
import socket
import sys
import time

path, out, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
stamped = open(sys.argv[4], "a", buffering=1) if len(sys.argv) > 4 else None
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(path)
deadline = time.monotonic() + timeout
with open(out, "a", buffering=1) as f:
    f.write("LISTENING\n")
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        sock.settimeout(left)
        try:
            msg = sock.recv(4096).decode("utf-8", "replace")
        except socket.timeout:
            break
        line = msg.strip("\n").replace("\n", "|") + "\n"
        f.write(line)
        if stamped:
            stamped.write("%.1f %s" % (time.monotonic() * 1000, line))
        if "STOPPING=1" in msg.split("\n"):
            break
