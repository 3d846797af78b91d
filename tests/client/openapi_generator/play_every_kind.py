#!/usr/bin/env python3
"""Plays one game of every kind to its end against a running server with the client that
openapi-generator's `python` generator writes from openapi/openapi.json (what CI does: see
.ci/run). Nothing of the generated code is edited: every answer is read through the generated
models, every command posted through them, so a union the generator cannot tell apart fails
here.

Usage: play_every_kind.py PACKAGE BASE_URL
PACKAGE is the name the client was generated and installed under (`--package-name`).
"""
import importlib
import json
import sys

import urllib3

TABLE = {
    "join",
    "resign",
    "offer_draw",
    "accept_draw",
    "decline_draw",
    "request_takeback",
    "accept_takeback",
    "decline_takeback",
    "claim_timeout",
}

KINDS = [("avalanche-chess", 2), ("avalanche", 2), ("ski-runs", 3), ("vamanos", 2), ("altitude", 3)]

# What each kind's view holds, read through the kind's own model.
VIEW_FIELD = {
    "avalanche-chess": "fen",
    "avalanche": "seats",
    "ski-runs": "players",
    "vamanos": "players",
    "altitude": "players",
}


def configuration(client, base_url, token=None):
    config = client.Configuration(host=base_url, access_token=token)
    # The server answers 429 with `Retry-After` beyond its limits: wait as told and send the
    # same request again (nothing was played).
    config.retries = urllib3.util.Retry(
        total=10,
        connect=0,
        read=0,
        status_forcelist=[429],
        allowed_methods=None,
        respect_retry_after_header=True,
        raise_on_status=False,
    )
    return config


def one(union):
    """The variant a union's model read (a model of one shape is itself)."""
    return getattr(union, "actual_instance", None) or union


def check_view(kind, summary):
    game = one(summary)
    assert game.kind == kind, (kind, game.kind)
    view = one(game.view)
    value = getattr(view, VIEW_FIELD[kind])
    assert value is not None, f"a view of {kind} has its {VIEW_FIELD[kind]}"
    return game


def play_one(client, base_url, kind, seats, seed):
    anonymous = client.ApiClient(configuration(client, base_url))
    players = client.PlayersApi(anonymous)
    table = []
    for n in range(seats):
        created = players.create_player(sign_up=client.SignUp(name=f"{kind} {n}"))
        api = client.ApiClient(configuration(client, base_url, created.token))
        table.append((client.GamesApi(api), client.PlayApi(api)))
    # Vamanos to 60 points rather than the rules' 500: a shorter game, played to its end.
    options = {"target": 60} if kind == "vamanos" else {}
    new_game = client.NewGame.from_dict({"kind": kind, "seats": seats, "options": options})
    game = one(table[0][0].create_game(new_game=new_game))
    assert game.kind == kind
    for games, _ in table[1:]:
        answer = games.join_game(id=game.id, join_request=client.JoinRequest())
        assert all(one(event).kind == kind for event in answer.events), "each event says its kind"

    state = seed
    reader = client.GamesApi(anonymous)
    commands = 0
    while True:
        now = check_view(kind, reader.get_game(id=game.id))
        if now.status == "finished":
            break
        state = (state * 1103515245 + 12345) % 2147483648
        seat = now.to_act[state % len(now.to_act)]
        legal = one(table[seat][1].list_legal_commands(id=game.id))
        assert legal.kind == kind, "the legal list says its kind"
        own = [c for c in legal.commands if one(c.command).type not in TABLE]
        if commands >= 1500:
            own = [c for c in legal.commands if one(c.command).type == "resign"]
        assert own, f"seat {seat} has a command to play"
        state = (state * 1103515245 + 12345) % 2147483648
        chosen = own[state % len(own)]
        # The kind's command, posted as the request's `GameCommand`, both through the models.
        command = client.GameCommand.from_json(chosen.command.to_json())
        try:
            answer = table[seat][1].play_command(
                id=game.id, game_command=command, if_match=f'"{legal.version}"'
            )
        except client.ApiException as error:
            raise AssertionError(f"{chosen.notation}: {error.status} {error.body}") from error
        check_view(kind, answer.game)
        commands += 1

    finished = check_view(kind, table[0][0].get_game(id=game.id))
    replay = client.ReplayApi(anonymous)
    audit = replay.audit_game(id=game.id)
    assert audit.valid, f"the game of {kind} audits valid"
    log = one(replay.get_game_log(id=game.id))
    assert log.kind == kind and len(log.events) == finished.version, "the log holds every event"
    page = client.EventsApi(anonymous).list_game_events(id=game.id, limit=1000)
    assert len(page.events) == min(1000, finished.version), "a page of every event"
    at = one(replay.get_game_state_at(id=game.id, version=max(1, finished.version // 2)))
    assert at.kind == kind, "a state says its kind"
    outcome = json.dumps(finished.outcome.to_dict() if finished.outcome else None)
    return f"{kind}: {commands} commands, {finished.version} events, {outcome}"


def main(package, base_url):
    client = importlib.import_module(package)
    for i, (kind, seats) in enumerate(KINDS):
        print(play_one(client, base_url, kind, seats, 23 + i), flush=True)
    print("python (openapi-generator): every kind played to its end")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
