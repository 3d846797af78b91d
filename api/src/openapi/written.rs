//! The schemas written here rather than derived: the table's events (generic over the engine),
//! the server's own commands, `NewGame` (one variant per kind) and a problem's `details`.

use super::schema_ref;
use domain::KindInfo;
use serde_json::{json, Value};

/// The table's events, one variant each, and the game's own events wrapped in `game`. The
/// table's event type is generic over the engine, so its variants are written here; the
/// contract test checks every stored event of a played game of each kind against them.
pub(super) fn game_event(game_events: &[Value]) -> Value {
    let seat = || json!({ "$ref": "#/components/schemas/usize", "description": "The seat." });
    let version = |what: &str| json!({ "type": "integer", "format": "int64", "minimum": 0, "description": what });
    let hex =
        |what: &str| json!({ "type": "string", "pattern": "^[0-9a-f]{64}$", "description": what });
    let variant = |tag: &str, description: &str, properties: Value, required: &[&str]| {
        let mut properties = properties;
        if let Value::Object(map) = &mut properties {
            map.insert("type".into(), json!({ "type": "string", "enum": [tag] }));
        }
        let mut required: Vec<&str> = required.to_vec();
        required.push("type");
        json!({
            "type": "object",
            "description": description,
            "properties": properties,
            "required": required,
        })
    };
    let seat_only = |tag: &str, description: &str| {
        variant(tag, description, json!({ "seat": seat() }), &["seat"])
    };
    json!({
        "title": "GameEvent",
        "description": "A stored event as the caller may see it: one of the table's own, or `game` with an event of the game's rules (`{\"type\": \"game\", \"event\": <the game's Event>}`, with what the caller may not see removed). Every type is stored forever with the same shape.",
        "oneOf": [
            variant("created", "The game was created: its kind, setup and the public commitment to its secret seed.", json!({
                "kind": { "type": "string", "description": "The game id of the rules." },
                "setup": {
                    "type": "object",
                    "description": "How the game was set up.",
                    "properties": {
                        "variant": { "type": ["string", "null"], "description": "The variant, if the game has variants." },
                        "options": { "$ref": "#/components/schemas/GameOptions", "description": "The game's own options, every field given." },
                        "seats": { "type": "integer", "minimum": 0, "description": "The number of seats." },
                        "revision": { "type": "integer", "format": "int32", "minimum": 1, "description": "The revision of the game's rules it is played under; absent for revision 1." },
                    },
                    "required": ["variant", "options", "seats"],
                },
                "commitment": hex("SHA-256 of the game's secret seed."),
                "time_control": { "$ref": "#/components/schemas/TimeControl", "description": "How long each move may take; absent for an untimed game." },
            }), &["kind", "setup", "commitment"]),
            variant("seat_taken", "A player took a seat.", json!({
                "seat": seat(),
                "player": { "type": "string", "description": "The player's id." },
            }), &["seat", "player"]),
            variant("started", "Every seat is taken: play begins (the deal follows as game events).", json!({}), &[]),
            variant("game", "An event of the game's own rules, with what the caller may not see removed.", json!({
                "event": { "anyOf": game_events, "description": "The `Event` of the game's kind." },
            }), &["event"]),
            seat_only("resigned", "A seat resigned."),
            seat_only("draw_offered", "A seat offered a draw."),
            seat_only("draw_declined", "A seat declined the draw offered."),
            seat_only("draw_accepted", "A seat accepted the draw offered: the game ends drawn."),
            variant("takeback_requested", "A seat asked to take the game back to `version`: to just before its last `turns` turns (absent in a request stored before takebacks were counted in turns, which stood until answered).", json!({
                "seat": seat(),
                "version": version("The version to go back to."),
                "turns": { "type": "integer", "format": "int32", "minimum": 1, "description": "How many of the requester's turns it takes back; such a request is withdrawn when its requester moves again." },
            }), &["seat", "version"]),
            seat_only("takeback_withdrawn", "The requester withdrew its pending takeback request (`withdraw_takeback`), or moved again."),
            seat_only("takeback_accepted", "A seat accepted the takeback asked for."),
            seat_only("takeback_declined", "A seat declined the takeback asked for: play goes on here."),
            variant("takeback_agreed", "Every other seat accepted: play goes on in a fork at `version`; this game ends.", json!({
                "version": version("The version the fork goes on from."),
            }), &["version"]),
            variant("clock_set", "The seats' clocks from now on, in seat order (timed games only).", json!({
                "clocks": { "type": "array", "items": { "$ref": "#/components/schemas/SeatClock" }, "description": "Each seat's clock, in seat order." },
            }), &["clocks"]),
            seat_only("timed_out", "A seat let its deadline pass: recorded by the server or claimed by an opponent."),
            seat_only("vacation_started", "The player at `seat` went on vacation: the seat's clock stands still."),
            seat_only("vacation_ended", "The player at `seat` came back from vacation: the seat's clock runs again."),
            variant("record_broken", "An imported record breaks at `half_turn`: the game stops before it (imported with `up_to_error`); `finished` follows.", json!({
                "half_turn": { "type": "integer", "format": "int32", "minimum": 1, "description": "The record's half-turn the rules refuse, from 1." },
                "text": { "type": "string", "description": "That half-turn as the record writes it." },
                "reason": { "type": "string", "description": "Why the rules refuse it." },
            }), &["half_turn", "text", "reason"]),
            variant("annotated", "The comments and annotation glyphs of an imported record, by the half-turn they follow: its export writes them again.", json!({
                "notes": { "type": "array", "items": record_note(), "description": "In the record's order." },
            }), &["notes"]),
            variant("said", "A player said something: to the table (a seat), or in the spectators' room (one who watches without a seat). It changes nothing of the game. Its text is sealed under a key of its own; readers of the events get `text` (the seated are not shown the spectators' room's), or `hidden` once the message was hidden; the game's log (`/log`) keeps only `sealed`.", json!({
                "seat": seat(),
                "player": { "type": "string", "description": "The player's id." },
                "room": { "$ref": "#/components/schemas/MessageRoom" },
                "message": { "type": "string", "description": "The message's id." },
                "text": { "type": "string", "description": "What was said (absent when hidden, or not for this reader)." },
                "hidden": { "type": "boolean", "description": "`true`: the message was hidden, its text is gone." },
                "sealed": { "type": "string", "description": "The game's log only: the text sealed under the message's own key, in hex." },
            }), &["player", "room", "message"]),
            variant("hidden", "Message `message` was hidden: its key is deleted, its text can no longer be read anywhere.", json!({
                "message": { "type": "string", "description": "The message's id." },
            }), &["message"]),
            variant("finished", "The game ended.", json!({
                "outcome": { "$ref": "#/components/schemas/Outcome" },
            }), &["outcome"]),
            variant("seed_revealed", "The seed, revealed once the game has ended, so that anyone can check every deal.", json!({
                "seed": hex("The secret seed, 32 bytes in hex: its SHA-256 is the commitment."),
                "earlier": { "type": "array", "items": hex("An earlier commitment's seed."), "description": "The seeds of the stream's earlier commitments, oldest first (a fork by takeback in a game with hidden cards); absent when there were none." },
            }), &["seed"]),
            variant("forked", "This game is a fork: its events up to here are a copy of game `parent`'s up to `version`.", json!({
                "parent": { "type": "string", "description": "The parent game's id." },
                "version": version("The last version of the parent copied."),
                "players": { "type": "array", "items": { "type": ["string", "null"] }, "description": "Who holds each seat from here on." },
                "analysis": { "type": "boolean", "description": "An analysis fork: one player at every seat, everything shown." },
                "commitment": hex("A fork by takeback in a game with hidden cards: the commitment to the fork's own fresh seed."),
            }), &["parent", "version", "players"]),
        ],
    })
}

/// A comment or an annotation glyph of an imported record, after one of its half-turns.
fn record_note() -> Value {
    json!({
        "type": "object",
        "properties": {
            "after": { "type": "integer", "format": "int32", "minimum": 0, "description": "The half-turn it follows, from 1; 0 before the first." },
            // A pattern, not an enum: generators make an enum's values into names, and these six
            // are punctuation only (openapi-generator's typescript-fetch writes no name at all).
            "glyph": { "type": "string", "pattern": "^(!|\\?|!!|\\?\\?|!\\?|\\?!)$",
                "description": "One of `!`, `?`, `!!`, `??`, `!?`, `?!`." },
            "comment": { "type": "string", "description": "The comment's text, without its braces." },
        },
        "required": ["after"],
    })
}

/// What is stored beside events besides players' commands: the server's own commands and the
/// command that makes a fork.
pub(super) fn server_command() -> Value {
    let variant = |tag: &str, description: &str, properties: Value, required: &[&str]| {
        let mut properties = properties;
        if let Value::Object(map) = &mut properties {
            map.insert("type".into(), json!({ "type": "string", "enum": [tag] }));
        }
        let mut required: Vec<&str> = required.to_vec();
        required.push("type");
        json!({ "type": "object", "description": description, "properties": properties, "required": required })
    };
    json!({
        "title": "ServerCommand",
        "description": "A command stored in a game's log that no player posts: the server's own (by `system`) and the one that makes a fork.",
        "oneOf": [
            variant("timeout", "Record every seat whose deadline has passed as timed out.", json!({}), &[]),
            variant("vacation", "`player` went on vacation (`away`) or came back: their seats' clocks stop or run again.", json!({
                "player": { "type": "string" },
                "away": { "type": "boolean" },
            }), &["player", "away"]),
            variant("reveal_seed", "Reveal the seed of a game superseded by a takeback, once its fork has ended.", json!({}), &[]),
            variant("record_breaks", "An imported record breaks at `half_turn` (`text`, as written) for `reason`: the game ends there without a winner.", json!({
                "half_turn": { "type": "integer", "format": "int32", "minimum": 1 },
                "text": { "type": "string" },
                "reason": { "type": "string" },
            }), &["half_turn", "text", "reason"]),
            variant("annotate", "Keep an imported record's comments and annotation glyphs.", json!({
                "notes": { "type": "array", "items": record_note() },
            }), &["notes"]),
            variant("say", "`player` says something (its text sealed as `sealed`): recorded as `said`.", json!({
                "player": { "type": "string" },
                "room": { "$ref": "#/components/schemas/MessageRoom" },
                "message": { "type": "string" },
                "sealed": { "type": "string" },
            }), &["player", "room", "message", "sealed"]),
            variant("hide", "Message `message` is hidden (its key deleted): recorded as `hidden`.", json!({
                "message": { "type": "string" },
            }), &["message"]),
            variant("fork", "Make this game a fork of `parent` at `version`.", json!({
                "parent": { "type": "string" },
                "version": { "type": "integer", "format": "int64", "minimum": 0 },
                "players": { "type": "array", "items": { "type": ["string", "null"] } },
                "analysis": { "type": "boolean" },
            }), &["parent", "version", "players", "analysis"]),
        ],
    })
}

/// `NewGame`, one variant per kind: `kind` decides the type of `options`, the variants offered
/// and the number of seats.
pub(super) fn new_game(games: &[(KindInfo, String)]) -> Value {
    let variants: Vec<Value> = games
        .iter()
        .map(|(info, prefix)| {
            let mut properties = json!({
                "kind": { "type": "string", "enum": [info.id], "description": "The game id: see `GET /v1/kinds`." },
                "options": {
                    "oneOf": [{ "type": "null" }, schema_ref(&format!("{prefix}.Options"))],
                    "description": "The game's own options; any field left out (or all of them) takes its default.",
                },
                "seats": {
                    "type": "integer",
                    "minimum": info.min_seats,
                    "maximum": info.max_seats,
                    "description": format!("The number of seats (players): {}.", info.seat_range()),
                },
                "seat": {
                    "type": ["integer", "null"],
                    "minimum": 0,
                    "maximum": info.max_seats.saturating_sub(1),
                    "description": "The seat the creator takes (the first free one when absent): a game has seats 0 to `seats` - 1.",
                },
                "time_control": {
                    "oneOf": [{ "type": "null" }, schema_ref("TimeControl")],
                    "description": "How long each move may take: `none` (the default), `days_per_move` (1 to 14) or `seconds_per_move` (1 to 86400). A seat that lets its deadline pass loses on time.",
                },
            });
            // A game without variants takes none: the property is left out.
            if let (Some(default), Some(map)) = (info.variants.first(), properties.as_object_mut()) {
                map.insert("variant".into(), json!({
                    "oneOf": [{ "type": "null" }, { "type": "string", "enum": info.variants }],
                    "description": format!("A variant of the game; `{default}` when absent."),
                }));
            }
            json!({
                "type": "object",
                "description": format!("A new game of {}.", info.name),
                "additionalProperties": false,
                "properties": properties,
                "required": ["kind", "seats"],
            })
        })
        .collect();
    json!({
        "title": "NewGame",
        "description": "A new game. The creator takes a seat: `seat`, or the first one. `kind` decides what `options` are.",
        "example": { "kind": "avalanche-chess", "variant": "balanced", "seats": 2 },
        "oneOf": variants,
    })
}

/// The `details` of a problem, for programs: one object whose fields the problem's `code`
/// decides, since nothing in the details themselves would tell apart variants of a union.
pub(super) fn problem_details() -> Value {
    json!({
        "title": "ProblemDetails",
        "description": "More about a problem, for programs. Its `code` says which fields are there: `rate_limited` gives `limit` and `retry_after_seconds`; `illegal_record` the first failing half-turn of a record (`half_turn`, `text`, `fen`, `reason`); `audit_failed` the first divergence of an audit (`version`, `reason`, `expected`, `found`); `cursor_ahead` the stream's `end`.",
        "type": "object",
        "properties": {
            "limit": { "type": "string", "description": "`rate_limited`: the limit reached (the name of its setting)." },
            "retry_after_seconds": { "type": "integer", "minimum": 1, "description": "`rate_limited`: as `Retry-After`." },
            "half_turn": { "type": "integer", "minimum": 1, "description": "`illegal_record`: the number of the half-turn, from 1." },
            "text": { "type": "string", "description": "`illegal_record`: the half-turn as written in the record." },
            "fen": { "type": "string", "description": "`illegal_record`: the position before it." },
            "reason": { "type": "string", "description": "`illegal_record` and `audit_failed`: why, in words." },
            "version": { "type": "integer", "minimum": 0, "description": "`audit_failed`: the version of the first event that does not follow from the rules and the seed." },
            "expected": { "type": ["object", "null"], "description": "`audit_failed`: the event the rules give there, if any." },
            "found": { "type": ["object", "null"], "description": "`audit_failed`: the event stored there, if any, as it was found (it may not be an event at all)." },
            "end": { "type": "string", "pattern": "^[0-9]{1,20}$", "description": "`cursor_ahead`: the cursor of the stream's end now; resume from it (`after`) to be told what happens from now on." },
        },
    })
}
