#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A NOTIFY_SOCKET of the test's own: binds a unix datagram socket at PATH and
appends every message it receives to OUT, one line per message (newlines inside
a message become '|'), until it gets STOPPING=1 or TIMEOUT seconds pass."""
import socket
import sys
import time

path, out, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
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
        f.write(msg.strip("\n").replace("\n", "|") + "\n")
        if "STOPPING=1" in msg.split("\n"):
            break
