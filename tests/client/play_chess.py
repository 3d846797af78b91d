#!/usr/bin/env python3
"""Plays a short game of Avalanche Chess against a running server with a client generated
from openapi/openapi.json by openapi-python-client (what CI does: see .ci/run).

Usage: play_chess.py CLIENT_DIR BASE_URL
CLIENT_DIR is the generated package (generated with --meta none), BASE_URL the server.
"""
import importlib
import pathlib
import sys


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

    anonymous = client_mod.Client(base_url=base_url, raise_on_unexpected_status=True)
    players = []
    for name_ in ("White", "Black"):
        created = create_player.sync(client=anonymous, body=models.NewPlayer(name=name_))
        assert isinstance(created, models.PlayerCreated), created
        players.append(client_mod.AuthenticatedClient(
            base_url=base_url, token=created.token, raise_on_unexpected_status=True))

    game = create_game.sync(client=players[0], body=models.NewGameAvalancheChess(kind="avalanche-chess", seats=2))
    assert isinstance(game, models.AvalancheChessGameSummary), game
    answer = join_game.sync(id=game.id, client=players[1], body=models.JoinRequest())
    assert isinstance(answer, models.CommandAnswer), answer
    assert answer.game.status == models.Status.ACTIVE, answer.game.status

    # Six half-turns, each the first legal turn offered, then Black resigns.
    for half_turn in range(6):
        mover = players[half_turn % 2]
        offered = legal.sync(id=game.id, client=mover)
        assert isinstance(offered, models.AvalancheChessLegalList), offered
        turns = [c for c in offered.commands if c.command.to_dict().get("type") == "turn"]
        assert turns, "a legal turn is offered"
        result = play.sync(id=game.id, client=mover, body=turns[0].command)
        assert isinstance(result, models.CommandAnswer), result
        print(f"{half_turn + 1}: {turns[0].notation} -> version {result.version}")
    resign = next(c for c in legal.sync(id=game.id, client=players[1]).commands
                  if c.command.to_dict().get("type") == "resign")
    play.sync(id=game.id, client=players[1], body=resign.command)
    final = get_game.sync(id=game.id, client=anonymous)
    assert final.status == models.Status.FINISHED, final.status
    assert final.outcome.winners == [0], final.outcome
    assert final.seed, "the seed is revealed at the end"
    print(f"game {game.id}: {final.outcome.reason}, seed revealed; the generated client works")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
