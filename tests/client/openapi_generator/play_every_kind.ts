// Plays one game of every kind to its end against a running server with the client that
// openapi-generator's `typescript-fetch` generator writes from openapi/openapi.json with its
// default options (what CI does: see .ci/run). Nothing of the generated code is edited: every
// answer is read through the generated models (`...FromJSON`), every command posted through
// them (`...ToJSON`), so a union the generator cannot tell apart fails here.
//
// Usage: node build-fetch/openapi_generator/play_every_kind.js BASE_URL
// (after tsc -p tsconfig.fetch.json; the client is generated into ./generated-fetch)

import {
  Configuration,
  GamesApi,
  PlayApi,
  PlayersApi,
  ReplayApi,
  EventsApi,
  ResponseError,
  GameCommandFromJSON,
  LegalListToJSON,
  type GameCommand,
  type GameSummary,
  type LegalList,
  type NewGame,
} from "../generated-fetch";

function check(condition: boolean, what: string): asserts condition {
  if (!condition) {
    throw new Error(`failed: ${what}`);
  }
}

// The server limits each player's commands and answers 429 with `Retry-After` beyond that:
// a well-behaved client waits as told and sends the same request again.
let rateLimited = 0;
const politeFetch: typeof fetch = async (input, init) => {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(input, init);
    if (response.status !== 429 || attempt === 10) {
      return response;
    }
    const after = response.headers.get("Retry-After");
    check(after !== null && /^[0-9]+$/.test(after), "a 429 says when to try again");
    rateLimited += 1;
    await new Promise((resolve) => setTimeout(resolve, Number(after) * 1000));
  }
};

interface Seat {
  play: PlayApi;
  games: GamesApi;
}

const TABLE = new Set([
  "join",
  "resign",
  "offer_draw",
  "accept_draw",
  "decline_draw",
  "request_takeback",
  "accept_takeback",
  "decline_takeback",
  "claim_timeout",
]);

/** What the game's own view shows, read through the kind's own model. */
function describeView(game: GameSummary): string {
  check(game.view != null, "a game read alone has its view");
  switch (game.kind) {
    case "avalanche-chess":
      check(typeof game.view.fen === "string", "a chess view has its FEN");
      return game.view.fen;
    case "avalanche":
      check(Array.isArray(game.view.seats), "an Avalanche view has its seats");
      return `${game.view.seats.length} seats`;
    case "ski-runs":
      check(Array.isArray(game.view.players), "a Ski Runs view has its players");
      return `${game.view.players.length} players`;
    case "vamanos":
      check(Array.isArray(game.view.players), "a Vamanos view has its players");
      return `round ${game.view.round}`;
    case "altitude":
      check(Array.isArray(game.view.players), "an Altitude view has its players");
      return `${game.view.players.length} players`;
  }
}

async function playOne(base: string, kind: NewGame["kind"], seats: number, seed: number): Promise<string> {
  const anonymous = new Configuration({ basePath: base, fetchApi: politeFetch });
  const players = new PlayersApi(anonymous);
  const table: Seat[] = [];
  for (let n = 0; n < seats; n++) {
    const created = await players.createPlayer({ signUp: { name: `${kind} ${n}` } });
    const configuration = new Configuration({
      basePath: base,
      fetchApi: politeFetch,
      accessToken: created.token,
    });
    table.push({ play: new PlayApi(configuration), games: new GamesApi(configuration) });
  }
  // Vamanos to 60 points rather than the rules' 500: a shorter game, played to its end.
  const newGame = { kind, seats, options: kind === "vamanos" ? { target: 60 } : {} } as NewGame;
  const game = await table[0].games.createGame({ newGame });
  check(game.kind === kind, `the game is of ${kind}`);
  for (const seat of table.slice(1)) {
    const answer = await seat.games.joinGame({ id: game.id, joinRequest: {} });
    check(answer.events.every((e) => e.kind === kind), "each event says its kind");
  }

  let state = seed;
  const below = (n: number): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  const reader = new GamesApi(anonymous);
  let commands = 0;
  for (;;) {
    const now = await reader.getGame({ id: game.id });
    if (now.status === "finished") {
      break;
    }
    check(now.toAct.length > 0, "someone is to act in a running game");
    const seat = now.toAct[below(now.toAct.length)];
    const legal: LegalList = await table[seat].play.listLegalCommands({ id: game.id });
    check(legal.kind === kind, "the legal list says its kind");
    // The list as the wire has it again, written back by the kind's own models.
    const wire: { commands: Array<{ command: { type: string }; notation: string }> } =
      LegalListToJSON(legal);
    check(wire.commands.length === legal.commands.length, "every legal command is read");
    const own = wire.commands.filter((c) => !TABLE.has(c.command.type));
    // Long games end by resignation once they have shown enough.
    const choices = commands >= 1500 ? wire.commands.filter((c) => c.command.type === "resign") : own;
    check(choices.length > 0, `seat ${seat} has a command to play: ${JSON.stringify(wire)}`);
    const chosen = choices[below(choices.length)];
    // The kind's command, posted as the request's `GameCommand`, through its model.
    const command: GameCommand = GameCommandFromJSON(chosen.command);
    try {
      const answer = await table[seat].play.playCommand({
        id: game.id,
        gameCommand: command,
        ifMatch: `"${legal.version}"`,
      });
      check(answer.game.kind === kind, "the answer's game is of the kind");
      describeView(answer.game);
    } catch (error) {
      if (error instanceof ResponseError) {
        throw new Error(`${chosen.notation}: ${error.response.status} ${await error.response.text()}`);
      }
      throw error;
    }
    commands += 1;
  }
  const finished = await table[0].games.getGame({ id: game.id });
  const view = describeView(finished);
  const replay = new ReplayApi(anonymous);
  const audit = await replay.auditGame({ id: game.id });
  check(audit.valid === true, `the game of ${kind} audits valid`);
  const log = await replay.getGameLog({ id: game.id });
  check(log.kind === kind && log.events.length === finished.version, "the log holds every event");
  const page = await new EventsApi(anonymous).listGameEvents({ id: game.id, limit: 1000 });
  check(page.events.length === Math.min(1000, finished.version), "a page of every event");
  const at = await replay.getGameStateAt({ id: game.id, version: Math.ceil(finished.version / 2) });
  check(at.kind === kind, "a state says its kind");
  return `${kind}: ${commands} commands, ${finished.version} events, ${JSON.stringify(finished.outcome)} (${view})`;
}

async function main(base: string): Promise<void> {
  const kinds: Array<[NewGame["kind"], number]> = [
    ["avalanche-chess", 2],
    ["avalanche", 3],
    ["ski-runs", 2],
    ["vamanos", 3],
    ["altitude", 2],
  ];
  for (const [i, [kind, seats]] of kinds.entries()) {
    console.log(await playOne(base, kind, seats, 11 + i));
  }
  console.log(`typescript-fetch: every kind played to its end (${rateLimited} answers of 429 waited out)`);
}

main(process.argv[2] ?? "http://127.0.0.1:8080").catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
