#!/usr/bin/env python3
"""Plays a short game of Avalanche Chess against a running server with a client generated
from openapi/openapi.json by openapi-python-client (what CI does: see .ci/run), driven by
each player's stream of notices (`GET /v1/players/me/stream`): a player plays when its stream
says `your_turn`, never by polling.

The generated client reads whole answers, not a stream: each player's stream is read line by
line from the generated client's own HTTP connection (its token included), and each line is
read with the generated model of its type (`PlayerStreamLineYourTurn`, ...). Nothing of the
generated code is edited.

Usage: play_chess.py CLIENT_DIR BASE_URL
CLIENT_DIR is the generated package (generated with --meta none), BASE_URL the server.
"""
import importlib
import json
import pathlib
import queue
import sys
import threading

import httpx

# How long a player waits for a notice: the server says it is alive every 15 s.
WAIT = 30


def line_models(models):
    """The generated model of each type of line: `your_turn` -> `PlayerStreamLineYourTurn`."""
    found = {}
    for name in dir(models):
        if name.startswith("PlayerStreamLine") and name != "PlayerStreamLine":
            model = getattr(models, name)
            tag = "".join("_" + c.lower() if c.isupper() else c for c in name[len("PlayerStreamLine"):])
            found[tag.lstrip("_")] = model
    assert "your_turn" in found and "keep_alive" in found, sorted(found)
    return found


class Notices:
    """A player's stream, read on a thread: each line as the generated model of its type."""

    def __init__(self, client, models):
        self.lines = queue.Queue()
        self.models = models
        # A copy of the generated client (the same base URL and token) on a connection of its
        # own, held open: a line comes at least every 15 s, so the read timeout is longer.
        http = client.with_timeout(httpx.Timeout(WAIT + 15)).get_httpx_client()
        self.response_context = http.stream(
            "GET", "/v1/players/me/stream", headers={"Accept": "application/x-ndjson"})
        threading.Thread(target=self.read, daemon=True).start()
        first = self.next()
        assert first.type_ == "keep_alive", first

    def read(self):
        with self.response_context as response:
            assert response.status_code == 200, response.status_code
            assert response.headers["content-type"].startswith("application/x-ndjson")
            for text in response.iter_lines():
                if not text:
                    continue
                line = json.loads(text)
                self.lines.put(self.models[line["type"]].from_dict(line))
        self.lines.put(None)

    def next(self):
        line = self.lines.get(timeout=WAIT)
        assert line is not None, "the stream ended"
        return line

    def wait_for(self, kind, game_id):
        """The next notice of type `kind` about game `game_id`; keep-alives and other notices
        are passed over (and returned with it, in order)."""
        seen = []
        while True:
            line = self.next()
            seen.append(line)
            if line.type_ == kind and getattr(line, "game_id", None) == game_id:
                return line, seen


def main(client_dir: str, base_url: str) -> None:
    package = pathlib.Path(client_dir)
    sys.path.insert(0, str(package.parent))
    name = package.name
    client_mod = importlib.import_module(f"{name}.client")
    models = importlib.import_module(f"{name}.models")
    create_player = importlib.import_module(f"{name}.api.players.create_player")
    create_game = importlib.import_module(f"{name}.api.games.create_game")
    join_game = importlib.import_module(f"{name}.api.games.join_game")
    get_game = importlib.import_module(f"{name}.api.games.get_game")
    legal = importlib.import_module(f"{name}.api.play.list_legal_commands")
    play = importlib.import_module(f"{name}.api.play.play_command")
    by_type = line_models(models)

    anonymous = client_mod.Client(base_url=base_url, raise_on_unexpected_status=True)
    players, streams = [], []
    for name_ in ("White", "Black"):
        created = create_player.sync(client=anonymous, body=models.SignUp(name=name_))
        assert isinstance(created, models.PlayerCreated), created
        client = client_mod.AuthenticatedClient(
            base_url=base_url, token=created.token, raise_on_unexpected_status=True)
        players.append(client)
        # Open before the game exists: every notice of it comes on the stream.
        streams.append(Notices(client, by_type))

    game = create_game.sync(client=players[0], body=models.NewGameAvalancheChess(kind="avalanche-chess", seats=2))
    assert isinstance(game, models.AvalancheChessGameSummary), game
    answer = join_game.sync(id=game.id, client=players[1], body=models.JoinRequest())
    assert isinstance(answer, models.CommandAnswer), answer
    for stream in streams:
        started, _ = stream.wait_for("game_started", game.id)
        assert isinstance(started, by_type["game_started"]), started

    # Seven half-turns, each played when the mover's stream says it is its turn (the first
    # legal turn offered), then Black resigns on its turn.
    for half_turn in range(8):
        seat = half_turn % 2
        mover, stream = players[seat], streams[seat]
        turn, _ = stream.wait_for("your_turn", game.id)
        assert isinstance(turn, by_type["your_turn"]), turn
        assert (turn.kind, turn.seat) == ("avalanche-chess", seat), turn
        offered = legal.sync(id=game.id, client=mover)
        assert isinstance(offered, models.AvalancheChessLegalList), offered
        assert offered.version == turn.version, (offered.version, turn.version)
        if half_turn == 7:
            resign = next(c for c in offered.commands if c.command.to_dict().get("type") == "resign")
            play.sync(id=game.id, client=mover, body=resign.command)
            print(f"{half_turn + 1}: told at version {turn.version}, resigned")
            break
        turns = [c for c in offered.commands if c.command.to_dict().get("type") == "turn"]
        assert turns, "a legal turn is offered"
        result = play.sync(id=game.id, client=mover, body=turns[0].command)
        assert isinstance(result, models.CommandAnswer), result
        print(f"{half_turn + 1}: told at version {turn.version}, {turns[0].notation} -> version {result.version}")
        # The other seat hears of the move before its turn.
        moved, _ = streams[1 - seat].wait_for("opponent_moved", game.id)
        assert moved.by_seat == seat and moved.version == result.version, moved
    for stream in streams:
        finished, _ = stream.wait_for("game_finished", game.id)
        assert finished.outcome.winners == [0], finished.outcome
    final = get_game.sync(id=game.id, client=anonymous)
    assert final.status == models.Status.FINISHED, final.status
    assert final.outcome.winners == [0], final.outcome
    assert final.seed, "the seed is revealed at the end"
    print(f"game {game.id}: {final.outcome.reason}, seed revealed; every turn came by the "
          "player's stream; the generated client works")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
