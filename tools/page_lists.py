#!/usr/bin/env python3
"""Pages through every `GET /v1/games?limit=200` of a store with a plain client and prints the
server's resident memory (VmRSS) before, at its highest (read every 10 pages) and after.

    python3 tools/page_lists.py BINARY DATA_DIR [--keep-alive] [server options...]

Starts BINARY (`avalanche`) on a free port over DATA_DIR; with --keep-alive every page goes
over one connection (http.client), otherwise one connection a page (urllib). Used for
BENCHMARKS.md ("Lists and memory") beside api/examples/lists.rs.
"""
import http.client
import json
import socket
import subprocess
import sys
import time
import urllib.request

binary, data = sys.argv[1], sys.argv[2]
keep_alive = "--keep-alive" in sys.argv[3:]
extra = [a for a in sys.argv[3:] if a != "--keep-alive"]
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
server = subprocess.Popen(
    [binary, "--addr", f"127.0.0.1:{port}", "--data", data] + extra,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
base = f"http://127.0.0.1:{port}"
for _ in range(500):
    try:
        urllib.request.urlopen(base + "/health")
        break
    except OSError:
        time.sleep(0.02)


def rss():
    with open(f"/proc/{server.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024


connection = http.client.HTTPConnection("127.0.0.1", port) if keep_alive else None


def page(after):
    path = "/v1/games?limit=200" + (f"&after={after}" if after else "")
    if connection:
        connection.request("GET", path)
        return json.loads(connection.getresponse().read())
    return json.load(urllib.request.urlopen(base + path))


start = rss()
peak = start
after = None
pages = 0
began = time.time()
while True:
    answer = page(after)
    pages += 1
    if pages % 10 == 0:
        peak = max(peak, rss())
    if answer["next"] is None:
        break
    after = answer["next"]
end = rss()
print(
    f"{'keep-alive' if keep_alive else 'a connection a page'} {' '.join(extra) or '(defaults)'}: "
    f"RSS at start {start} MB, highest {max(peak, end)} MB, after {end} MB; "
    f"{pages} pages in {time.time() - began:.1f} s"
)
server.send_signal(2)
server.wait()
