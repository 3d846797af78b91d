// Plays a three-seat game of Avalanche (the card game) to its end against a running server,
// with a TypeScript client generated from openapi/openapi.json by @hey-api/openapi-ts (what CI
// does: see .ci/run). Type-checked with `tsc --strict`: the client's types are the contract.
//
// Usage: node play_cards.js BASE_URL   (after tsc; the client is generated into ./generated)

import { createClient, type Client } from "./generated/client";
import {
  auditGame,
  createGame,
  createPlayer,
  getGame,
  joinGame,
  listLegalCommands,
  playCommand,
  streamGameEvents,
} from "./generated/sdk.gen";
import type { AvalancheView, EventOut, GameSummary, NewGame } from "./generated/types.gen";

// `options` are typed by `kind`: Vamanos's `target` is a number, and a game's options are its own.
export const vamanos: NewGame = { kind: "vamanos", seats: 3, options: { target: 60 } };
// @ts-expect-error Vamanos's target is a number, not a string
export const misspelt: NewGame = { kind: "vamanos", seats: 3, options: { target: "sixty" } };

const TABLE_COMMANDS: ReadonlyArray<string> = [
  "join",
  "resign",
  "offer_draw",
  "accept_draw",
  "decline_draw",
  "request_takeback",
  "accept_takeback",
  "decline_takeback",
  "claim_timeout",
];

function isTableCommand(command: { type: string }): boolean {
  return TABLE_COMMANDS.includes(command.type);
}

function check(condition: boolean, what: string): asserts condition {
  if (!condition) {
    throw new Error(`failed: ${what}`);
  }
}

/** The game's own view, once the summary says which game it is. */
function avalancheView(game: GameSummary): AvalancheView {
  check(game.kind === "avalanche" && game.view != null, "an Avalanche view");
  return game.view as AvalancheView;
}

// The server limits each player's commands (at most 40 at once, then 20 a second) and answers
// 429 with `Retry-After` beyond that. A well-behaved client waits as told and sends the same
// request again; this one counts how often it had to.
let rateLimited = 0;

const politeFetch: typeof fetch = async (input, init) => {
  const original = new Request(input, init);
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(original.clone());
    if (response.status !== 429 || attempt === 10) {
      return response;
    }
    const after = response.headers.get("Retry-After");
    check(after !== null && /^[0-9]+$/.test(after), "a 429 says when to try again");
    rateLimited += 1;
    await new Promise((resolve) => setTimeout(resolve, Number(after) * 1000));
  }
};

async function main(base: string): Promise<void> {
  const anonymous = createClient({ baseUrl: base, fetch: politeFetch });
  const seats: Client[] = [];
  for (const name of ["Ada", "Bea", "Cy"]) {
    const { data } = await createPlayer({ client: anonymous, body: { name }, throwOnError: true });
    // The token goes in the client's `auth`: every operation that takes it sends it.
    seats.push(createClient({ baseUrl: base, auth: data.token, fetch: politeFetch }));
  }

  const newGame: NewGame = { kind: "avalanche", seats: 3 };
  const { data: created } = await createGame({ client: seats[0], body: newGame, throwOnError: true });
  const id = created.id;
  for (const seat of seats.slice(1)) {
    await joinGame({ client: seat, path: { id }, body: {}, throwOnError: true });
  }

  // Each seat sees its own hand, and nobody else's.
  for (const [n, seat] of seats.entries()) {
    const { data: game } = await getGame({ client: seat, path: { id }, throwOnError: true });
    check(game.your_seat === n, `seat ${n} is seat ${n}`);
    const view = avalancheView(game);
    for (const other of view.seats) {
      check((other.hand != null) === (other.seat === n), `seat ${n} sees only its own hand`);
    }
  }

  let state = 7;
  const below = (n: number): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  let played = 0;
  for (let i = 0; i < 2000; i++) {
    const { data: game, response } = await getGame({ client: anonymous, path: { id }, throwOnError: true });
    if (game.status === "finished") {
      break;
    }
    const etag = response.headers.get("ETag");
    check(etag === `"${game.version}"`, "the ETag is the version");
    const seat = game.to_act[below(game.to_act.length)];
    const { data: legal } = await listLegalCommands({ client: seats[seat], path: { id }, throwOnError: true });
    // The list says its kind, and its commands are then Avalanche's (and the table's).
    check(legal.kind === "avalanche", "the legal list says its kind");
    const moves = legal.commands
      .map((offered) => offered.command)
      .filter((command) => !isTableCommand(command));
    check(moves.length > 0, `seat ${seat} has a move`);
    const { data: answer } = await playCommand({
      client: seats[seat],
      path: { id },
      headers: { "If-Match": etag, "Idempotency-Key": `move-${i}` },
      body: moves[below(moves.length)],
      throwOnError: true,
    });
    check(answer.version > game.version && !answer.replayed, "the command is recorded once");
    played += 1;
  }

  const { data: end } = await getGame({ client: anonymous, path: { id }, throwOnError: true });
  check(end.status === "finished", "the game ends");
  check(end.outcome != null && end.seed != null, "the outcome and the seed are public at the end");
  const { data: audit } = await auditGame({ client: anonymous, path: { id }, throwOnError: true });
  check(audit.valid, "the game passes its audit");

  // The stream of a finished game sends every event, then ends. Each server-sent event's
  // `data` is an EventOut as JSON: the client yields it parsed.
  const { stream } = await streamGameEvents({ client: anonymous, path: { id } });
  const streamed: EventOut[] = [];
  for await (const data of stream) {
    streamed.push(data as unknown as EventOut);
  }
  check(streamed.length === end.version, `the stream sent all ${end.version} events`);
  check(streamed[0].type === "created" && streamed[0].data.type === "created", "it begins with created");

  console.log(
    `game ${id}: ${played} commands by three seats, ${end.outcome.reason}; ` +
      `winners ${JSON.stringify(end.outcome.winners)}; waited ${rateLimited} times on 429; ` +
      `the generated TypeScript client works`,
  );
}

const base = process.argv[2];
if (!base) {
  console.error("usage: node play_cards.js BASE_URL");
  process.exit(2);
}
main(base).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
