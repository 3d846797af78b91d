#!/usr/bin/env python3
r"""Writes openapi/examples.json: one real request and answer for every operation of the API.

It plays a short session against a running server (a fresh one, that takes mail over HTTP and
has no relay, so that mail is written as `.eml` files into `outbox/` under its `--data`; one
webhook delivers to this script, on 127.0.0.1), two players and a game of Avalanche Chess with
a fork, an import, tokens, a vacation and a webhook, and keeps what each operation was sent and
answered. Alice sets a mail address and confirms it with the code mailed to her; in a second
game her move is played by replying to the turn notice (`POST /v1/mail/inbound`, to the notice's
`Reply-To`), then she unsubscribes with the notice's link and turns her notices on again. The
mails are read from the server's outbox, hence its data directory as the second argument.
Long lists are cut to their first items so that the document stays readable; the contract
test (`tests/tests/openapi_contract.rs`) checks every example against its schema.

    data=$(mktemp -d)
    secret=$(openssl rand -hex 32)
    avalanche --addr 127.0.0.1:8080 --data "$data" --mail-inbound-secret "$secret" \
        --webhook-allow-http --webhook-allow-host example.com --webhook-allow-host 127.0.0.1 &
    python3 tools/capture_examples.py http://127.0.0.1:8080 "$data" "$secret" > openapi/examples.json

The third argument is the server's inbound secret (at least 32 bytes).
"""
import email
import email.policy
import email.utils
import http.server
import json
import pathlib
import queue
import re
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

BASE = sys.argv[1].rstrip("/") if len(sys.argv) > 1 else "http://127.0.0.1:8080"
OUTBOX = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "data") / "outbox"
INBOUND_SECRET = sys.argv[3] if len(sys.argv) > 3 else "inbound-secret"
examples = {}


def call(method, path, token=None, body=None, raw=False, timeout=10, content_type=None):
    """Sends `body` as JSON, or as it is (a string) with `content_type`."""
    if body is None:
        data = None
    elif content_type:
        data = body.encode()
    else:
        data = json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=data, method=method)
    if body is not None:
        request.add_header("Content-Type", content_type or "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    if raw or not text:
        return status, text
    return status, json.loads(text)


def first_stream_event(path, token, skip=()):
    """The stream never ends by itself: reads its first event (of a type not in `skip`) and
    hangs up. The event as the document declares it (`ServerSentEvent`, `ServerSentNotice`):
    its `id`, `event` and `data` fields."""
    request = urllib.request.Request(BASE + path)
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Accept", "text/event-stream")
    event = {}
    with urllib.request.urlopen(request, timeout=10) as response:
        while True:
            line = response.readline().decode().rstrip("\n")
            if not line:
                if event.get("event") not in skip:
                    return response.status, event
                event = {}
                continue
            field, _, value = line.partition(": ")
            event[field] = value


def first_stream_line(path, token, skip=()):
    """A stream as newline-delimited JSON: its first line (of a type not in `skip`), read
    and hung up on."""
    request = urllib.request.Request(BASE + path)
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Accept", "application/x-ndjson")
    with urllib.request.urlopen(request, timeout=10) as response:
        while True:
            line = response.readline().decode().strip()
            if not line:
                continue
            value = json.loads(line)
            if value.get("type") not in skip:
                return response.status, value


def keep_stream(operation, path, token, skip=()):
    """Records a stream's example, as server-sent events and as newline-delimited JSON."""
    status, event = first_stream_event(path, token, skip)
    keep(operation, status, event)
    _, line = first_stream_line(path, token, skip)
    examples[operation]["media"] = {
        "text/event-stream": event,
        "application/x-ndjson": line,
    }


def notification_receiver():
    """An HTTP server on 127.0.0.1 that keeps each notification POSTed to it; its URL and the
    queue of bodies received."""
    received = queue.Queue()

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers["Content-Length"])
            received.put(json.loads(self.rfile.read(length)))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}/notify", received


def keep(operation, status, answer, request=None):
    """Records the operation's example: what it was sent and what it answered."""
    if status >= 300:
        sys.exit(f"{operation}: status {status}: {answer}")
    entry = {"status": str(status), "response": answer}
    if request is not None:
        entry["request"] = request
    examples[operation] = entry
    return answer


def mail_to(address, wanted, timeout=15):
    """The first mail of the outbox to `address` that `wanted(mail)` accepts, waited for (the
    server writes its mail a moment after the request that causes it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in sorted(OUTBOX.glob("*.eml")):
            with open(path, "rb") as file:
                mail = email.message_from_binary_file(file, policy=email.policy.default)
            if mail["To"] == address and wanted(mail):
                return mail
        time.sleep(0.2)
    sys.exit(f"no such mail to {address} in {OUTBOX}")


def choose(gid, token, move):
    """A legal turn of `token`'s seat that plays `move`, else its first legal command."""
    return choose_entry(gid, token, move)["command"]


def choose_entry(gid, token, move):
    """As `choose`, the legal entry: the command and its notation."""
    _, legal = call("GET", f"/v1/games/{gid}/legal", token)
    entries = legal["commands"]
    return next((e for e in entries if e["command"].get("move") == move), entries[0])


def cut(items, n=2):
    return items[:n]


def main():
    alice_body = {"name": "Alice"}
    status, alice = call("POST", "/v1/players", body=alice_body)
    keep("createPlayer", status, alice, alice_body)
    _, bruno = call("POST", "/v1/players", body={"name": "Bruno"})
    a, b = alice["token"], bruno["token"]
    url, received = notification_receiver()
    status, hook = call("POST", "/v1/players/me/webhooks", b, {"url": url})
    if status != 201:
        sys.exit(f"a webhook to {url}: {status} {hook}")

    # Alice's mail address, confirmed with the code mailed to it.
    address = "alice@example.org"
    email_body = {"address": address}
    status, info = call("PUT", "/v1/players/me/email", a, email_body)
    keep("setMyEmail", status, info, email_body)
    code_mail = mail_to(address, lambda m: "code" in m["Subject"])
    code = re.search(r"(\d+)\s*$", code_mail["Subject"]).group(1)
    code_body = {"code": code}
    status, info = call("POST", "/v1/players/me/email/confirm", a, code_body)
    keep("confirmMyEmail", status, info, code_body)

    status, me = call("GET", "/v1/players/me", a)
    keep("getCurrentPlayer", status, me)
    status, kinds = call("GET", "/v1/kinds")
    keep("listKinds", status, kinds)

    new_game = {"kind": "avalanche-chess", "variant": "standard", "seats": 2}
    status, game = call("POST", "/v1/games", a, new_game)
    keep("createGame", status, game, new_game)
    gid = game["id"]
    status, listed = call("GET", "/v1/games?status=open&kind=avalanche-chess&limit=1")
    keep("listGames", status, listed)
    # Alice invites Bob to the open game (mailed only if Bob takes invitations by mail).
    invitation = {"player_id": bruno["player"]["id"]}
    status, invited = call("POST", f"/v1/games/{gid}/invitations", a, invitation)
    keep("invitePlayer", status, invited, invitation)
    status, joined = call("POST", f"/v1/games/{gid}/join", b, {})
    keep("joinGame", status, joined, {})

    status, legal = call("GET", f"/v1/games/{gid}/legal", a)
    legal["commands"] = cut(legal["commands"], 3)
    keep("listLegalCommands", status, legal)

    answers = []
    for token, wanted in [(a, "e2e4"), (b, "e7e5"), (a, "g1f3")]:
        command = choose(gid, token, wanted)
        status, answer = call("POST", f"/v1/games/{gid}/commands", token, command)
        if status != 200:
            sys.exit(f"playCommand {command}: {status} {answer}")
        answers.append((status, answer, command))
    keep("playCommand", *answers[0][:2], answers[0][2])
    # Bruno's webhook was told when Alice's first turn made it his.
    notification = received.get(timeout=10)
    examples["receiveNotification"] = {"status": "200", "request": notification}

    status, got = call("GET", f"/v1/games/{gid}", a)
    keep("getGame", status, got)
    note = {"text": "Bruno answers e4 with e5: try the Scotch next time."}
    status, noted = call("PUT", f"/v1/games/{gid}/notes", a, note)
    keep("setMyNote", status, noted, note)
    status, noted = call("GET", f"/v1/games/{gid}/notes", a)
    keep("getMyNote", status, noted)
    message = {"text": "Good luck, Bruno: see you on Monday."}
    status, said = call("POST", f"/v1/games/{gid}/messages", a, message)
    keep("sayMessage", status, said, message)
    slip = {"text": "Sorry, that was for another game."}
    status, slipped = call("POST", f"/v1/games/{gid}/messages", a, slip)
    status, deleted = call("DELETE", f"/v1/games/{gid}/messages/{slipped['message']}", a)
    keep("deleteMyMessage", status, deleted)
    status, events = call("GET", f"/v1/games/{gid}/events?after=0&limit=3", a)
    keep("listGameEvents", status, events)
    version = answers[1][1]["events"][-1]["version"]
    status, state = call("GET", f"/v1/games/{gid}/states/{version}", a)
    keep("getGameStateAt", status, state)
    status, log = call("GET", f"/v1/games/{gid}/log")
    log["commands"] = cut(log["commands"], 3)
    keep("getGameLog", status, log)
    status, record = call("GET", f"/v1/games/{gid}/record", raw=True)
    keep("getGameRecord", status, record)
    status, audit = call("GET", f"/v1/games/{gid}/audit")
    keep("auditGame", status, audit)

    keep("streamGameEvents", *first_stream_event(f"/v1/games/{gid}/stream?after={version}", a))
    keep("streamGameEventsNdjson", *first_stream_line(f"/v1/games/{gid}/stream.ndjson?after={version}", a))
    # Bruno's stream of everything that concerns him, from the start: its first notice.
    keep_stream("streamMyNotices", "/v1/players/me/stream?after=0", b, skip=("keep_alive",))

    fork_body = {"version": version}
    status, fork = call("POST", f"/v1/games/{gid}/forks", a, fork_body)
    keep("createFork", status, fork, fork_body)
    status, forks = call("GET", f"/v1/games/{gid}/forks")
    keep("listForks", status, forks)

    # A record imports once its game has ended: Bruno resigns.
    status, resigned = call("POST", f"/v1/games/{gid}/commands", b, {"type": "resign"})
    if status != 200:
        sys.exit(f"resign: {status} {resigned}")
    _, record = call("GET", f"/v1/games/{gid}/record", raw=True)
    import_body = {"format": "record", "variant": "standard", "record": record}
    status, imported = call("POST", "/v1/imports", a, import_body)
    keep("importGame", status, imported, import_body)

    status, mine = call("GET", "/v1/players/me/games?limit=2", a)
    keep("listMyGames", status, mine)

    status, vacation = call("POST", "/v1/players/me/vacation", b)
    keep("startVacation", status, vacation)
    status, vacation = call("GET", "/v1/players/me/vacation", b)
    keep("getMyVacation", status, vacation)
    status, vacation = call("DELETE", "/v1/players/me/vacation", b)
    keep("endVacation", status, vacation)

    hook_body = {"url": "https://example.com/avalanche"}
    status, hook = call("POST", "/v1/players/me/webhooks", a, hook_body)
    keep("createWebhook", status, hook, hook_body)
    status, hooks = call("GET", "/v1/players/me/webhooks", a)
    keep("listWebhooks", status, hooks)
    status, enabled = call("POST", f"/v1/players/me/webhooks/{hook['id']}/enable", a)
    keep("enableWebhook", status, enabled)
    status, gone = call("DELETE", f"/v1/players/me/webhooks/{hook['id']}", a)
    keep("deleteWebhook", status, None)

    token_body = {"label": "phone"}
    status, issued = call("POST", "/v1/players/me/tokens", a, token_body)
    keep("issueToken", status, issued, token_body)
    status, tokens = call("GET", "/v1/players/me/tokens", a)
    keep("listMyTokens", status, tokens)
    status, _ = call("DELETE", "/v1/players/me/tokens/current", issued["token"])
    keep("revokeCurrentToken", status, None)
    _, laptop = call("POST", "/v1/players/me/tokens", a, {"label": "laptop"})
    call("POST", "/v1/players/me/tokens", a, {"label": "tablet"})
    status, _ = call("DELETE", f"/v1/players/me/tokens/{laptop['listed']['id']}", a)
    keep("revokeToken", status, None)
    status, revoked = call("DELETE", "/v1/players/me/tokens?keep=current", a)
    keep("revokeOtherTokens", status, revoked)

    # Alice replies by mail to the notice of her turn in a second game: her move is played.
    _, game = call("POST", "/v1/games", a, new_game)
    second = game["id"]
    call("POST", f"/v1/games/{second}/join", b, {})
    notice = mail_to(address, lambda m: second in (m["Reply-To"] or ""))
    reply_to = str(notice["Reply-To"])
    notation = choose_entry(second, a, "d2d4")["notation"]
    reply = (
        f"From: Alice <{address}>\r\n"
        f"To: {reply_to}\r\n"
        f"Subject: Re: {' '.join(str(notice['Subject']).split())}\r\n"
        f"Date: {email.utils.formatdate(usegmt=True)}\r\n"
        f"Message-ID: <reply-1@example.org>\r\n"
        f"In-Reply-To: {notice['Message-ID']}\r\n"
        f"References: {notice['Message-ID']}\r\n"
        "MIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "\r\n"
        f"{notation}\r\n"
        "\r\n"
        "> It is your move in avalanche-chess against Bruno (move 1).\r\n"
    )
    status, received = call(
        "POST", "/v1/mail/inbound", INBOUND_SECRET, reply, content_type="message/rfc822"
    )
    if received.get("outcome") != "played":
        sys.exit(f"receiveMail: {received}")
    keep("receiveMail", status, received, reply)

    # The notice's unsubscribe link: its page, then the one click (RFC 8058).
    link = str(notice["List-Unsubscribe"]).strip("<>")
    unsubscribe = urllib.parse.urlsplit(link).path
    status, page = call("GET", unsubscribe, raw=True)
    keep("unsubscribePage", status, page)
    one_click = "List-Unsubscribe=One-Click"
    form = "application/x-www-form-urlencoded"
    status, page = call("POST", unsubscribe, body=one_click, raw=True, content_type=form)
    keep("unsubscribe", status, page)
    notifications = {"your_turn": True, "offers": False, "game_finished": True, "clock": True,
                     "invited": True, "game_started": False}
    status, info = call("PUT", "/v1/players/me/notifications", a, notifications)
    keep("setMyNotifications", status, info, notifications)
    status, _ = call("DELETE", "/v1/players/me/email", a)
    keep("deleteMyEmail", status, None)

    # The club: a rated game won by Alice, her page, her games, the leaderboard; players found
    # by name; an open challenge, a direct one declined, one cancelled, one accepted (its game
    # starts); a rematch.
    rated = {"kind": "avalanche-chess", "seats": 2, "rated": True}
    _, won = call("POST", "/v1/games", a, rated)
    call("POST", f"/v1/games/{won['id']}/join", b, {})
    call("POST", f"/v1/games/{won['id']}/commands", b, {"type": "resign"})
    status, found = call("GET", "/v1/players?name=br")
    keep("searchPlayers", status, found)
    status, page = call("GET", f"/v1/players/{alice['player']['id']}")
    keep("getPlayer", status, page)
    status, games = call("GET", f"/v1/players/{alice['player']['id']}/games?rated=true&limit=2")
    keep("listPlayerGames", status, games)
    status, board = call("GET", "/v1/ratings/avalanche-chess.standard?limit=2")
    keep("getLeaderboard", status, board)
    open_body = {"kind": "avalanche-chess", "seats": 2, "rated": True,
                 "min_rating": 1300, "max_rating": 1700}
    status, challenge = call("POST", "/v1/challenges", a, open_body)
    keep("createChallenge", status, challenge, open_body)
    status, listed = call("GET", "/v1/challenges?kind=avalanche-chess")
    keep("listChallenges", status, listed)
    status, got = call("GET", f"/v1/challenges/{challenge['id']}")
    keep("getChallenge", status, got)
    status, accepted = call("POST", f"/v1/challenges/{challenge['id']}/accept", b, {})
    keep("acceptChallenge", status, accepted)
    direct = {"kind": "avalanche-chess", "seats": 2, "to": bruno["player"]["id"]}
    _, to_bruno = call("POST", "/v1/challenges", a, direct)
    status, declined = call("POST", f"/v1/challenges/{to_bruno['id']}/decline", b, {})
    keep("declineChallenge", status, declined)
    _, withdrawn = call("POST", "/v1/challenges", a, {"kind": "avalanche", "seats": 3})
    status, cancelled = call("DELETE", f"/v1/challenges/{withdrawn['id']}", a)
    keep("cancelChallenge", status, cancelled)
    status, rematch = call("POST", f"/v1/games/{won['id']}/rematch", b, {})
    keep("offerRematch", status, rematch)

    # Tournaments: Alice creates a round robin of two chess players, Bruno joins, a third
    # player joins and withdraws, Alice starts it; its list, page and audit.
    tournament_body = {"name": "Autumn cup", "kind": "avalanche-chess", "format": "round_robin",
                       "seats": 2, "entry_until": "2100-01-01T00:00:00Z",
                       "min_players": 2, "max_players": 8,
                       "time_control": {"type": "days_per_move", "days": 3}}
    status, cup = call("POST", "/v1/tournaments", a, tournament_body)
    keep("createTournament", status, cup, tournament_body)
    call("POST", f"/v1/tournaments/{cup['id']}/join", a, {})
    status, joined = call("POST", f"/v1/tournaments/{cup['id']}/join", b, {})
    keep("joinTournament", status, joined)
    _, carla = call("POST", "/v1/players", body={"name": "Carla"})
    c = carla["token"]
    call("POST", f"/v1/tournaments/{cup['id']}/join", c, {})
    status, left = call("POST", f"/v1/tournaments/{cup['id']}/withdraw", c, {})
    keep("withdrawFromTournament", status, left)
    status, started = call("POST", f"/v1/tournaments/{cup['id']}/start", a, {})
    keep("startTournament", status, started)
    status, listed = call("GET", "/v1/tournaments?status=running", a)
    keep("listTournaments", status, listed)
    status, got = call("GET", f"/v1/tournaments/{cup['id']}")
    keep("getTournament", status, got)
    status, audited = call("GET", f"/v1/tournaments/{cup['id']}/audit")
    keep("auditTournament", status, audited)
    status, log = call("GET", f"/v1/tournaments/{cup['id']}/export?format=json")
    log["events"] = log["events"][:3]
    keep("exportTournament", status, log)
    _, text = call("GET", f"/v1/tournaments/{cup['id']}/export?format=text", raw=True)
    examples["exportTournament"]["media"] = {"application/json": log, "text/plain": text}

    # A league: three new players in one division play it out (White resigns each game), and
    # its creator builds the next edition.
    members = {}
    for name in ("Dana", "Emil", "Fay"):
        _, member = call("POST", "/v1/players", body={"name": name})
        members[member["player"]["id"]] = member["token"]
    d = next(iter(members.values()))
    league_body = {"name": "Chess league", "kind": "avalanche-chess", "format": "league",
                   "seats": 2, "league": {"division_size": 4, "promoted": 1, "relegated": 1},
                   "entry_until": "2100-01-01T00:00:00Z", "min_players": 3, "max_players": 8}
    _, league = call("POST", "/v1/tournaments", d, league_body)
    for token in members.values():
        call("POST", f"/v1/tournaments/{league['id']}/join", token, {})
    _, league = call("POST", f"/v1/tournaments/{league['id']}/start", d, {})
    while league["status"] == "running":
        for table in league["rounds_played"][-1]["tables"]:
            if table["result"] is None:
                white = members[table["players"][0]]
                call("POST", f"/v1/games/{table['game']}/commands", white, {"type": "resign"})
        _, league = call("GET", f"/v1/tournaments/{league['id']}")
    next_body = {"entry_until": "2100-02-01T00:00:00Z", "starts_at": "2100-02-01T00:00:00Z"}
    status, edition = call("POST", f"/v1/tournaments/{league['id']}/next", d, next_body)
    keep("createNextEdition", status, edition, next_body)

    # Last, as it revokes every token Alice holds: she takes her account back by the link
    # mailed to her confirmed address; the page's button (a form's POST) gives her a new key,
    # a program's POST (JSON) another.
    # (Her address was deleted above: she gives one again and confirms it.)
    address = "alice.again@example.org"
    call("PUT", "/v1/players/me/email", a, {"address": address})
    code_mail = mail_to(address, lambda m: "code" in m["Subject"])
    code = re.search(r"(\d+)\s*$", code_mail["Subject"]).group(1)
    call("POST", "/v1/players/me/email/confirm", a, {"code": code})
    recovery_body = {"player_id": alice["player"]["id"]}
    status, asked = call("POST", "/v1/players/recovery", body=recovery_body)
    keep("askRecovery", status, asked, recovery_body)
    link_mail = mail_to(address, lambda m: "back" in m["Subject"])
    text = link_mail.get_body(preferencelist=("plain",)).get_content()
    link = next(w for w in text.split() if "/v1/recovery/" in w)
    path = link[link.index("/v1/recovery/"):]
    status, page = call("GET", path, raw=True)
    keep("recoveryPage", status, page)
    status, recovered = call("POST", path, body={})
    keep("recoverAccount", status, recovered)

    json.dump(examples, sys.stdout, indent=2, sort_keys=True)
    print()


main()
