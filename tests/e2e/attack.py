#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# A password-guessing flood for tests/e2e/bruteforce.sh and tests/bench/bruteforce-latency.sh:
#   attack.py PORT SECONDS STOPFILE [http|tls [SOURCE,...]]
# prints how its requests were answered ("401=N 429=N ...").
import http.client, base64, os, ssl, sys, threading, time, collections

# until STOPFILE exists, SECONDS at most; "tls" as a 4th argument: HTTPS; a 5th:
# the source addresses, one loop each (by default 127.0.0.2 to .9)
port, seconds, stopfile = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
user = os.environ.get("ATTACK_USER", "alice")
tls = len(sys.argv) > 4 and sys.argv[4] == "tls"
sources = sys.argv[5].split(",") if len(sys.argv) > 5 else [f"127.0.0.{i}" for i in range(2, 10)]
codes = collections.Counter()
lock = threading.Lock()

def guess(loop, src):
    # one kept-alive connection per loop, a new one when the server closes it
    end, n, c = time.monotonic() + seconds, 0, None
    while time.monotonic() < end and not os.path.exists(stopfile):
        n += 1
        cred = base64.b64encode(f"{user}:guess-{loop}-{n}".encode()).decode()
        try:
            if c is None and tls:
                c = http.client.HTTPSConnection(
                    "127.0.0.1", port, timeout=30, source_address=(src, 0),
                    context=ssl._create_unverified_context())
            elif c is None:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                               source_address=(src, 0))
            c.request("GET", "/metrics", headers={"Authorization": "Basic " + cred})
            r = c.getresponse()
            r.read()
            status = r.status
            if r.will_close:
                c.close()
                c = None
        except OSError:
            status = "error"
            if c is not None:
                c.close()
            c = None
        with lock:
            codes[status] += 1

threads = [threading.Thread(target=guess, args=(i, src)) for i, src in enumerate(sources)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(" ".join(f"{k}={v}" for k, v in sorted(codes.items(), key=str)))
