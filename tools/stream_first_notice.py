#!/usr/bin/env python3
"""How long a new player waits for the first line of `GET /v1/players/me/stream?after=0` on a
store holding other players' games: the stream reads from the start of the log.

    python3 tools/stream_first_notice.py BINARY DATA_DIR [--fill GAMES] [--runs N]

Starts BINARY (`avalanche`) on a free port over DATA_DIR. With --fill, first plays GAMES short
games between two players (created, joined, resigned: four events and six notices each). Then,
`--runs` times, a new player joins a game and opens the stream from the start; it prints the
time from the request to the line that tells them their game started. Run it on the same
DATA_DIR with two builds to compare them. Used for BENCHMARKS.md ("A player's stream").
"""
import http.client
import json
import socket
import subprocess
import sys
import time
import urllib.request

binary, data = sys.argv[1], sys.argv[2]
args = sys.argv[3:]
fill = int(args[args.index("--fill") + 1]) if "--fill" in args else 0
runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 5
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
server = subprocess.Popen(
    [binary, "--addr", f"127.0.0.1:{port}", "--data", data,
     "--limit-players-per-hour", "0", "--limit-games-per-hour", "0",
     "--limit-open-seats", "0", "--limit-commands-per-second", "0"],
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
connection = http.client.HTTPConnection("127.0.0.1", port)


def call(method, path, token=None, body=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    connection.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = connection.getresponse()
    answer = response.read()
    assert response.status < 300, (path, response.status, answer)
    return json.loads(answer) if answer else None


def player(name):
    return call("POST", "/v1/players", body={"name": name})["token"]


def game(creator):
    return call("POST", "/v1/games", creator, {"kind": "avalanche-chess", "seats": 2})["id"]


try:
    if fill:
        ana, ben = player("Ana"), player("Ben")
        for n in range(fill):
            id = game(ana)
            call("POST", f"/v1/games/{id}/join", ben)
            call("POST", f"/v1/games/{id}/commands", ben, {"type": "resign"})
    time.sleep(1)  # the reindex of an older store, at start
    host = player("Host")
    for run in range(runs):
        new = player(f"New {run}")
        id = game(host)
        call("POST", f"/v1/games/{id}/join", new)
        stream = http.client.HTTPConnection("127.0.0.1", port)
        began = time.monotonic()
        stream.request("GET", "/v1/players/me/stream?after=0",
                       headers={"Authorization": f"Bearer {new}"})
        lines = stream.getresponse()
        while True:
            line = json.loads(lines.readline())
            if line["type"] == "game_started":
                break
        print(f"first notice after {(time.monotonic() - began) * 1000:.1f} ms")
        stream.close()
finally:
    server.terminate()
    server.wait()
