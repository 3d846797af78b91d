//! The player's stream (`GET /v1/players/me/stream`): its lines as one union by `type`, with a
//! `discriminator` and an explicit `mapping`, as newline-delimited JSON and as server-sent
//! events. Written here: each line is a notice (the webhook's `Notification`, with its
//! cursor) or a signal of the stream itself, and the contract test checks every line a real
//! stream sends against these schemas.

use super::operations::for_each_operation;
use super::schema_ref;
use app::webhooks::notification::NotificationType;
use serde_json::{json, Map, Value};

/// The union of the lines.
pub(super) const LINE: &str = "PlayerStreamLine";

/// A line's cursor: `P` or `F.N`.
fn cursor() -> Value {
    json!({
        "type": "string",
        "pattern": "^[0-9]{1,20}(\\.[0-9]{1,20})?$",
        "description": "Where this line stands in the stream: send it back as `after` (or `Last-Event-ID`) to go on after this line. Opaque: compare cursors only for equality.",
        "examples": ["1042", "1043.2"],
    })
}

/// What a notice of `kind` holds beyond the fields every notice has, and which of them it
/// always holds.
fn particular(kind: NotificationType) -> (&'static str, Value, &'static [&'static str]) {
    let by_seat = || json!({ "$ref": "#/components/schemas/usize", "description": "The seat that moved, offered the draw, or asked for (or withdrew) the takeback." });
    match kind {
        // Mailed only; never a line of the stream (not in `NotificationType::ALL`).
        NotificationType::Invited => (
            "Another player invited you to take a seat in an open game (by mail only).",
            json!({ "by_seat": by_seat() }),
            &[],
        ),
        NotificationType::Challenged => (
            "Another player challenged you to a game: `game_id` is the challenge's id (`c-...`), `kind` its game; accept it with `POST /v1/challenges/{id}/accept`, or decline it.",
            json!({}),
            &[],
        ),
        NotificationType::GameStarted => (
            "One of your games started: every seat is taken, or it appeared started (a fork, such as the game a takeback goes on in).",
            json!({}),
            &[],
        ),
        NotificationType::YourTurn => (
            "It is your turn: a seat of yours must act now and none had to before; or, in a game where seats act at once (Vamanos), it still must after another seat's move (`by_seat`), which moved the game's version on: act on this `version`.",
            json!({ "by_seat": { "$ref": "#/components/schemas/usize", "description": "When the turn is told again: the seat whose move moved the version on while yours still had to act." } }),
            &[],
        ),
        NotificationType::OpponentMoved => (
            "Another seat played a move of the game.",
            json!({ "by_seat": by_seat() }),
            &["by_seat"],
        ),
        NotificationType::Message => (
            "Another seat said something at the table (`by_seat`; absent for a player who spoke after leaving their seat). A message hidden by the time it would be told is not told, nor one of a player you muted.",
            json!({
                "by_seat": by_seat(),
                "message": { "type": "string", "description": "The message's id, as its `said` event names it." },
                "text": { "type": "string", "description": "What was said: plain text, never HTML." },
            }),
            &["message", "text"],
        ),
        NotificationType::DrawOffered => (
            "Another seat offered you a draw.",
            json!({ "by_seat": by_seat() }),
            &["by_seat"],
        ),
        NotificationType::TakebackRequested => (
            "Another seat asked to take the game back; you may accept or decline.",
            json!({
                "by_seat": by_seat(),
                "takeback_to_version": { "type": "integer", "minimum": 0, "description": "The version the game goes back to if every other seat accepts." },
            }),
            &["by_seat", "takeback_to_version"],
        ),
        NotificationType::TakebackWithdrawn => (
            "The seat that asked for a takeback moved before everyone answered: its request is withdrawn.",
            json!({ "by_seat": by_seat() }),
            &["by_seat"],
        ),
        NotificationType::DrawDeclined => (
            "The seat you offered a draw declined it by answering: play goes on.",
            json!({ "by_seat": by_seat() }),
            &["by_seat"],
        ),
        NotificationType::TakebackDeclined => (
            "A seat declined the takeback you asked for: play goes on.",
            json!({ "by_seat": by_seat() }),
            &["by_seat"],
        ),
        NotificationType::GameFinished => (
            "One of your games ended (also when a takeback supersedes it by a fork).",
            json!({ "outcome": { "$ref": "#/components/schemas/Outcome", "description": "How the game ended." } }),
            &[],
        ),
        NotificationType::RoundPaired => (
            "A round of a tournament you are in was paired: `game_id` is the tournament's id (`t-...`) and `version` its version; `tournament` names the round, your `table`, its `players` in seat order and your `game` (started by the tournament; `seat` is yours in it), or says you have a `bye`. A table with a player who withdrew has no `game`: it is won by forfeit.",
            json!({ "tournament": tournament() }),
            &["tournament"],
        ),
        NotificationType::RoundClosed => (
            "A round of a tournament you played in closed: every table of it has its result (`tournament.round`). The next round's pairing, or the end, follows.",
            json!({ "tournament": tournament() }),
            &["tournament"],
        ),
        NotificationType::TournamentFinished => (
            "A tournament you played in finished: `tournament.rank` and `tournament.points` are yours in its final standings (a league's rank counts within your `division`).",
            json!({ "tournament": tournament() }),
            &["tournament"],
        ),
        NotificationType::NextEdition => (
            "A league you played in has its next edition, and you are entered in it: `game_id` and `tournament.id` are the new edition's, `tournament.previous` the edition before.",
            json!({ "tournament": tournament() }),
            &["tournament"],
        ),
        NotificationType::ClockLow => (
            "Your seat's clock has a quarter of its time for the move left, or less.",
            json!({ "deadline": { "type": "string", "format": "date-time", "description": "When your seat's clock runs out." } }),
            &["deadline"],
        ),
    }
}

/// A tournament's notice's `tournament`.
fn tournament() -> Value {
    json!({ "$ref": "#/components/schemas/TournamentNotice", "description": "The tournament, and the round, table, game, rank or edition the notice tells of." })
}

/// The variant of a notice of `kind`.
fn notice(kind: NotificationType) -> Value {
    let tag = kind.as_str();
    let (description, extra, extra_required) = particular(kind);
    let mut properties = json!({
        "type": { "type": "string", "const": tag },
        "cursor": cursor(),
        "id": { "type": "string", "description": "`<game_id>:<version>:<player_id>:<type>`: the same notice has the same id on every stream, webhook and mail." },
        "game_id": { "type": "string", "description": "The game; a challenge's notice names the challenge (`c-...`), a tournament's the tournament (`t-...`)." },
        "kind": { "type": "string", "description": "The kind of game, such as `avalanche-chess`." },
        "version": { "type": "integer", "minimum": 0, "description": "The game's version once what this tells of was recorded: send it as `If-Match` to play on it. A tournament's notice: the tournament's version." },
        "player_id": { "type": "string", "description": "You." },
        "seat": { "$ref": "#/components/schemas/usize", "description": "Your seat in the game (a tournament's `round_paired`: at your table; 0 in its other notices)." },
        "occurred_at": { "type": "string", "format": "date-time", "description": "When what this tells of was recorded." },
    });
    if let (Some(properties), Value::Object(extra)) = (properties.as_object_mut(), extra) {
        properties.extend(extra);
    }
    let mut required = vec![
        "type",
        "cursor",
        "id",
        "game_id",
        "kind",
        "version",
        "player_id",
        "seat",
        "occurred_at",
    ];
    required.extend_from_slice(extra_required);
    json!({
        "title": format!("{LINE}{}", super::unions::pascal(tag)),
        "type": "object",
        "description": description,
        "properties": properties,
        "required": required,
    })
}

/// Declares the lines and puts them on the stream's answers.
pub(super) fn declare_player_stream(doc: &mut Value) {
    let mut variants: Vec<(String, Value)> = NotificationType::ALL
        .iter()
        .map(|&kind| (kind.as_str().to_string(), notice(kind)))
        .collect();
    variants.push((
        "keep_alive".into(),
        json!({
            "title": format!("{LINE}KeepAlive"),
            "type": "object",
            "description": "The stream is open and has looked at the log up to `cursor`, with nothing for you: sent at once when the stream opens, then after every 15 quiet seconds. Resuming from its cursor skips what was looked at.",
            "properties": {
                "type": { "type": "string", "const": "keep_alive" },
                "cursor": cursor(),
            },
            "required": ["type", "cursor"],
        }),
    ));
    variants.push((
        "token_revoked".into(),
        json!({
            "title": format!("{LINE}TokenRevoked"),
            "type": "object",
            "description": "The token the stream was opened with was revoked: the last line, the stream ends.",
            "properties": {
                "type": { "type": "string", "const": "token_revoked" },
                "cursor": cursor(),
                "code": { "type": "string", "const": "unauthorized" },
            },
            "required": ["type", "cursor", "code"],
        }),
    ));
    let mut refs = Vec::new();
    let mut mapping = Map::new();
    let mut schemas = Map::new();
    for (tag, schema) in variants {
        let name = format!("{LINE}.{}", super::unions::pascal(&tag));
        refs.push(schema_ref(&name));
        mapping.insert(tag, json!(format!("#/components/schemas/{name}")));
        schemas.insert(name, schema);
    }
    schemas.insert(
        LINE.into(),
        json!({
            "title": LINE,
            "description": "One line of `GET /v1/players/me/stream`, told apart by `type`: a notice of one of your games, challenges or tournaments (the same notices as webhooks and mail, and more: `game_started`, `opponent_moved`, `clock_low`), each with its `cursor`, or a signal of the stream itself (`keep_alive`, `token_revoked`). Nothing in it is hidden from anyone: ids, seats, versions, public outcomes.",
            "oneOf": refs,
            "discriminator": { "propertyName": "type", "mapping": mapping },
        }),
    );
    schemas.insert(
        "ServerSentNotice".into(),
        json!({
            "title": "ServerSentNotice",
            "description": "One line of `GET /v1/players/me/stream` as the `text/event-stream` format frames it: `id:` its cursor (what `Last-Event-ID` sends back), `event:` its type, `data:` the line as JSON (a `PlayerStreamLine`).",
            "type": "object",
            "properties": {
                "id": cursor(),
                "event": { "type": "string", "description": "The line's type, as `PlayerStreamLine.type`." },
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": schema_ref(LINE),
                    "description": "The line as JSON: a `PlayerStreamLine`.",
                },
            },
            "required": ["id", "event", "data"],
        }),
    );
    if let Some(Value::Object(components)) = doc.pointer_mut("/components/schemas") {
        components.extend(schemas);
    }
    for_each_operation(doc, |_, operation| {
        if operation.get("operationId") != Some(&json!("streamMyNotices")) {
            return;
        }
        let content = operation
            .get_mut("responses")
            .and_then(|r| r.pointer_mut("/200/content"));
        if let Some(content) = content {
            content["application/x-ndjson"]["schema"] = schema_ref(LINE);
            content["text/event-stream"]["schema"] = schema_ref("ServerSentNotice");
        }
    });
}
