//! The OpenAPI document: the paths and shapes of the API from utoipa, plus every game's own
//! schemas (options, commands, events, views), each game's under its own prefix
//! (`AvalancheChess.Command`), since every engine names its types alike.

use crate::app::webhooks::notification::{Notification, NotificationType};
use crate::problem::Problem;
use crate::routes;
use domain::{KindInfo, Registry};
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{Modify, OpenApi, PartialSchema, ToSchema};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Avalanche games server",
        description = "Play, replay and audit the Avalanche games at a distance. Every command is \
validated by the game's rules and stored as an immutable event; every answer is shaped for its \
viewer, so no player ever sees another's hidden cards.\n\nErrors are `application/problem+json` \
with a stable `code`. Send `Authorization: Bearer <token>` (from `POST /v1/players`) to act for \
a player. Game commands and table commands (`cancel`, `resign`, `offer_draw`, `accept_draw`, \
`decline_draw`, `request_takeback`, `accept_takeback`, `decline_takeback`, `withdraw_takeback`, \
`claim_timeout`) are posted alike to `/v1/games/{id}/commands`; `GET /v1/games/{id}/legal` lists \
exactly the commands you may post now. `{\"type\": \"request_takeback\"}` asks the other seats \
to take back your last turn (`\"turns\": N` goes back N of your turns); moving before they all \
answer withdraws it (`takeback_withdrawn`).\n\nA game may be timed (`time_control` at creation: \
days or seconds per move). Each seat that must act has a deadline, shown in the game's `seats`; \
once it passes, the server records a timeout by itself within a second (or an opponent claims \
it with `claim_timeout`). Each player has 30 vacation days a year, during which their clocks \
stand still (`/v1/players/me/vacation`).\n\n**Webhooks** (`POST /v1/players/me/webhooks`): the \
server POSTs a `Notification` (JSON) to your URL when it becomes your turn, when another seat \
offers you a draw or asks for a takeback, and when one of your games ends. Each request carries \
`X-Avalanche-Signature: sha256=<hex>`, the HMAC-SHA256 of the exact body keyed with the \
webhook's secret (the whole `whsec_...` string, shown once at registration), and \
`X-Avalanche-Delivery: <notification id>`. Delivery is at least once: answer 2xx to \
acknowledge, dedupe by the id; anything else is retried with growing waits.",
        contact(name = "Avalanche games server", url = "http://127.0.0.1:8080/docs/"),
        license(name = "MIT OR Apache-2.0", url = "http://127.0.0.1:8080/licence")
    ),
    servers((url = "http://127.0.0.1:8080", description = "A server started with `cargo run --release` on its default address (`--addr` changes it)")),
    paths(
        routes::players::create_player, routes::players::me, routes::players::my_games,
        routes::players::my_vacation, routes::players::start_vacation,
        routes::players::end_vacation, routes::players::issue_token,
        routes::players::revoke_token, routes::players::list_tokens,
        routes::players::revoke_token_by_id, routes::players::revoke_other_tokens,
        routes::players::set_email, routes::players::confirm_email,
        routes::players::delete_email, routes::players::set_notifications,
        routes::mail::inbound, routes::mail::unsubscribe_page, routes::mail::unsubscribe,
        routes::webhooks::create_webhook, routes::webhooks::list_webhooks,
        routes::webhooks::delete_webhook, routes::webhooks::enable_webhook,
        routes::kinds::kinds,
        routes::games::create_game, routes::games::list_games, routes::games::get_game,
        routes::games::join_game,
        routes::play::legal, routes::play::play,
        routes::events::events, routes::events::stream,
        routes::replay::state_at, routes::replay::audit, routes::replay::game_log, routes::replay::record,
        routes::forks::create_fork, routes::forks::list_forks,
        routes::imports::import,
    ),
    components(schemas(Problem, domain::table::TableCommand, GameCommand, GameView, GameEvent,
        Notification, NotificationType)),
    modifiers(&BearerAuth),
    tags(
        (name = "players", description = "Players and their tokens"),
        (name = "games", description = "The lobby: kinds of games, creating, listing and joining"),
        (name = "play", description = "What may I do, and doing it"),
        (name = "events", description = "The event log: pages, long-poll and a live stream"),
        (name = "replay", description = "Replay, audit, records, imports and forks"),
        (name = "mail", description = "Play by email: inbound replies and unsubscribe links"),
    )
)]
struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        if let Some(components) = openapi.components.as_mut() {
            components.add_security_scheme(
                "bearer",
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .description(Some(
                            "A player's token (`av_...`), from `POST /v1/players` or `POST /v1/players/me/tokens`: `Authorization: Bearer <token>`.",
                        ))
                        .build(),
                ),
            );
        }
    }
}

/// Placeholders that [`document`] fills with every game's schemas.
macro_rules! placeholder {
    ($name:ident, $doc:literal) => {
        #[doc = $doc]
        pub struct $name;
        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                utoipa::openapi::ObjectBuilder::new().into()
            }
        }
        impl ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
        }
    };
}
placeholder!(
    GameCommand,
    "A command: one of the table's or one of the game's."
);
placeholder!(GameView, "A game's state as the caller may see it.");
placeholder!(GameEvent, "A stored event as the caller may see it.");

/// `avalanche-chess` -> `AvalancheChess`.
pub fn schema_prefix(kind_id: &str) -> String {
    kind_id
        .split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// Points references to an engine's own components at their prefixed names.
fn prefix_refs(value: &mut Value, own: &[String], prefix: &str) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref") {
                if let Some(name) = target.strip_prefix("#/components/schemas/") {
                    if own.iter().any(|o| o == name) {
                        *target = format!("#/components/schemas/{prefix}.{name}");
                    }
                }
            }
            map.values_mut().for_each(|v| prefix_refs(v, own, prefix));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| prefix_refs(v, own, prefix)),
        _ => {}
    }
}

/// Removes `default` from schemas that only wrap a reference (`oneOf`/`allOf`/`$ref`): utoipa
/// puts the default of a `#[serde(default)]` struct there, and generators such as
/// openapi-python-client refuse a default on a model property. The defaults stay documented
/// on the referenced schema's own fields.
fn drop_defaults_on_references(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let wraps_reference = ["oneOf", "allOf", "$ref"]
                .iter()
                .any(|k| map.contains_key(*k));
            if wraps_reference && map.get("default").is_some_and(Value::is_object) {
                map.remove("default");
            }
            map.values_mut().for_each(drop_defaults_on_references);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_defaults_on_references),
        _ => {}
    }
}

/// The whole document, with the schemas of every game of `registry`.
pub fn document(registry: &Registry) -> Value {
    let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap_or_else(|_| json!({}));
    let mut added = Map::new();
    let mut games = Vec::new();
    for kind in registry.kinds() {
        let info = kind.info();
        let prefix = schema_prefix(&info.id);
        let schemas = kind.schemas();
        let own: Vec<String> = schemas
            .components
            .iter()
            .map(|(name, _)| name.clone())
            .collect();
        let mut put = |name: &str, schema: &RefOr<Schema>| {
            let mut value = serde_json::to_value(schema).unwrap_or(Value::Null);
            prefix_refs(&mut value, &own, &prefix);
            if let Value::Object(map) = &mut value {
                map.insert("title".into(), json!(format!("{prefix}{name}")));
            }
            added.insert(format!("{prefix}.{name}"), value);
        };
        for (name, schema) in &schemas.components {
            put(name, schema);
        }
        put("Options", &schemas.options);
        put("Command", &schemas.command);
        put("Event", &schemas.event);
        put("View", &schemas.view);
        games.push((info, prefix));
    }
    let each = |part: &str| -> Vec<Value> {
        games
            .iter()
            .map(|(_, prefix)| schema_ref(&format!("{prefix}.{part}")))
            .collect()
    };
    let mut commands = vec![schema_ref("TableCommand")];
    commands.extend(each("Command"));
    added.insert(
        "GameCommand".into(),
        json!({
            "title": "GameCommand",
            "description": "A command to post: one of the table's (`TableCommand`: `resign`, `offer_draw`, `request_takeback`, ...) or one of the game's (its `Command`; see `GET /v1/games/{id}/legal`). Which game's commands a game takes is decided by its kind, so this is any of them (`anyOf`); within one game, exactly one variant fits a command.",
            "anyOf": commands,
        }),
    );
    added.insert(
        "GameView".into(),
        json!({
            "title": "GameView",
            "description": "The game's own state as the caller may see it: the `View` of the game's kind (`AvalancheChess.View` for `avalanche-chess`, ...).",
            "anyOf": each("View"),
        }),
    );
    added.insert(
        "GameOptions".into(),
        json!({
            "title": "GameOptions",
            "description": "A game's own options: the `Options` of the game's kind.",
            "anyOf": each("Options"),
        }),
    );
    added.insert("GameEvent".into(), game_event(&each("Event")));
    added.insert("ServerCommand".into(), server_command());
    added.insert("NewGame".into(), new_game(&games));
    added.insert("ProblemDetails".into(), problem_details());
    if let Some(Value::Object(schemas)) = doc.pointer_mut("/components/schemas") {
        schemas.extend(added);
        type_free_form_fields(schemas);
        name_tagged_unions(schemas);
        unwrap_single_one_of(schemas);
    }
    drop_defaults_on_references(&mut doc);
    describe_operations(&mut doc);
    declare_parameters(&mut doc, registry);
    declare_event_stream(&mut doc);
    declare_security(&mut doc);
    declare_problems(&mut doc);
    declare_webhooks(&mut doc);
    declare_examples(&mut doc);
    drop_unused_components(&mut doc);
    doc
}

/// The table's events, one variant each, and the game's own events wrapped in `game`. The
/// table's event type is generic over the engine, so its variants are written here; the
/// contract test checks every stored event of a played game of each kind against them.
fn game_event(game_events: &[Value]) -> Value {
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

/// What is stored beside events besides players' commands: the server's own commands and the
/// command that makes a fork.
fn server_command() -> Value {
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
fn new_game(games: &[(KindInfo, String)]) -> Value {
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
                    "description": "The number of seats (players).",
                },
                "seat": {
                    "type": ["integer", "null"],
                    "minimum": 0,
                    "description": "The seat the creator takes (the first free one when absent).",
                },
                "time_control": {
                    "oneOf": [{ "type": "null" }, schema_ref("TimeControl")],
                    "description": "How long each move may take: `none` (the default), `days_per_move` (1 to 14) or `seconds_per_move` (1 to 86400). A seat that lets its deadline pass loses on time.",
                },
            });
            let variant = match info.variants.first() {
                Some(default) => json!({
                    "oneOf": [{ "type": "null" }, { "type": "string", "enum": info.variants }],
                    "description": format!("A variant of the game; `{default}` when absent."),
                }),
                None => json!({ "type": "null", "description": "This game has no variants." }),
            };
            if let Some(map) = properties.as_object_mut() {
                map.insert("variant".into(), variant);
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

/// The `details` of a problem, for programs.
fn problem_details() -> Value {
    json!({
        "title": "ProblemDetails",
        "description": "More about a problem, for programs: which limit was reached (`rate_limited`), the first failing half-turn of a record (`illegal_record`) or the first divergence of an audit (`audit_failed`).",
        "anyOf": [
            {
                "title": "RateLimited",
                "type": "object",
                "properties": {
                    "limit": { "type": "string", "description": "The limit reached (the name of its setting)." },
                    "retry_after_seconds": { "type": "integer", "minimum": 1, "description": "As `Retry-After`." },
                },
                "required": ["limit", "retry_after_seconds"],
            },
            {
                "title": "IllegalHalfTurn",
                "type": "object",
                "properties": {
                    "half_turn": { "type": "integer", "minimum": 1, "description": "The number of the half-turn, from 1." },
                    "text": { "type": "string", "description": "The half-turn as written in the record." },
                    "fen": { "type": "string", "description": "The position before it." },
                    "reason": { "type": "string" },
                },
                "required": ["half_turn", "text", "fen", "reason"],
            },
            schema_ref("Divergence"),
        ],
    })
}

/// Types the fields the Rust types hold as free JSON.
fn type_free_form_fields(schemas: &mut Map<String, Value>) {
    let mut set = |schema: &str, property: &str, value: Value| {
        if let Some(slot) = schemas
            .get_mut(schema)
            .and_then(|s| s.get_mut("properties"))
            .and_then(|p| p.get_mut(property))
        {
            *slot = value;
        }
    };
    set(
        "LoggedCommand",
        "command",
        json!({
            "description": "The command as posted, or as the server gave it (`ServerCommand`); absent for events no command made.",
            "anyOf": [schema_ref("GameCommand"), schema_ref("ServerCommand"), { "type": "null" }],
        }),
    );
    set(
        "LoggedEvent",
        "payload",
        json!({ "$ref": "#/components/schemas/GameEvent", "description": "The event itself, as stored." }),
    );
    set(
        "AuditReport",
        "view",
        json!({ "$ref": "#/components/schemas/GameView", "description": "The final state, as a spectator sees it (everything once the game has ended)." }),
    );
    set(
        "Divergence",
        "expected",
        json!({
            "description": "The event the rules give there, if any.",
            "oneOf": [{ "type": "null" }, schema_ref("GameEvent")],
        }),
    );
    set(
        "Divergence",
        "found",
        json!({
            "description": "The event stored there, if any, as it was found (it may not be an event at all).",
            "type": ["object", "null"],
        }),
    );
    set(
        "Problem",
        "details",
        json!({
            "description": "More about the problem, for programs.",
            "oneOf": [{ "type": "null" }, schema_ref("ProblemDetails")],
        }),
    );
    set(
        "KindOut",
        "default_options",
        json!({
            "$ref": "#/components/schemas/GameOptions",
            "description": "The options used when a game is created without any: the game's `Options`.",
        }),
    );
}

/// `draw_offered` -> `DrawOffered`.
fn pascal(tag: &str) -> String {
    schema_prefix(&tag.replace('_', "-"))
}

/// The tag of each branch of a tagged union: the property every branch has with one constant
/// value, as serde writes `#[serde(tag = "...")]` enums.
fn union_tag(branches: &[Value]) -> Option<(String, Vec<String>)> {
    let constant = |branch: &Value, property: &str| -> Option<String> {
        let schema = branch.get("properties")?.get(property)?;
        match schema.get("enum").and_then(Value::as_array) {
            Some(values) if values.len() == 1 => values[0].as_str().map(str::to_string),
            _ => schema
                .get("const")
                .and_then(Value::as_str)
                .map(str::to_string),
        }
    };
    let first = branches.first()?.get("properties")?.as_object()?;
    first.keys().find_map(|property| {
        let tags: Option<Vec<String>> = branches.iter().map(|b| constant(b, property)).collect();
        let tags = tags?;
        let mut unique = tags.clone();
        unique.sort();
        unique.dedup();
        (unique.len() == tags.len()).then(|| (property.clone(), tags))
    })
}

/// Every tagged union (a `oneOf` of objects told apart by a constant property) becomes a
/// `oneOf` of named, titled variants (`SkiRuns.Command.Draw`, titled `SkiRunsCommandDraw`),
/// each with its tag as a `const`, and a `discriminator` that maps each tag to its variant.
/// A command's variants take no other field: the server refuses any.
fn name_tagged_unions(schemas: &mut Map<String, Value>) {
    let names: Vec<String> = schemas.keys().cloned().collect();
    for name in names {
        let Some(branches) = schemas[&name]
            .get("oneOf")
            .and_then(Value::as_array)
            .cloned()
        else {
            continue;
        };
        if branches.iter().any(|b| b.get("$ref").is_some()) {
            continue;
        }
        let Some((property, tags)) = union_tag(&branches) else {
            continue;
        };
        // Requests: the server refuses a field it does not know (serde does not, in a variant
        // of a request that has no field but its tag).
        let request =
            name.ends_with("Command") || ["TimeControl", "ImportRequest"].contains(&name.as_str());
        let mut refs = Vec::new();
        let mut mapping = Map::new();
        for (mut branch, tag) in branches.into_iter().zip(tags) {
            let variant = format!("{name}.{}", pascal(&tag));
            let fields = branch
                .get("properties")
                .and_then(Value::as_object)
                .map_or(0, |p| p.len());
            let closed = name.ends_with("Command") || (request && fields > 1);
            if let Some(map) = branch.as_object_mut() {
                map.insert("title".into(), json!(variant.replace('.', "")));
                if closed {
                    map.insert("additionalProperties".into(), json!(false));
                }
            }
            if let Some(slot) = branch.pointer_mut(&format!("/properties/{property}")) {
                let description = slot.get("description").cloned();
                *slot = json!({ "type": "string", "const": tag });
                if let (Some(description), Some(map)) = (description, slot.as_object_mut()) {
                    map.insert("description".into(), description);
                }
            }
            let reference = format!("#/components/schemas/{variant}");
            refs.push(json!({ "$ref": reference }));
            mapping.insert(tag, json!(reference));
            schemas.insert(variant, branch);
        }
        if let Some(union) = schemas.get_mut(&name).and_then(Value::as_object_mut) {
            union.insert("oneOf".into(), Value::Array(refs));
            union.insert(
                "discriminator".into(),
                json!({ "propertyName": property, "mapping": mapping }),
            );
        }
    }
}

/// `{"oneOf": [X]}` (utoipa's way of describing a reference) becomes X.
fn unwrap_single_one_of(schemas: &mut Map<String, Value>) {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                let single = map
                    .get("oneOf")
                    .and_then(Value::as_array)
                    .filter(|branches| branches.len() == 1)
                    .map(|branches| branches[0].clone());
                if let Some(Value::Object(only)) = single {
                    map.remove("oneOf");
                    for (key, value) in only {
                        map.entry(key).or_insert(value);
                    }
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    schemas.values_mut().for_each(walk);
}

/// The first clause of `text`: up to the first `:`, `;` or `.` followed by a space (or the
/// end), outside parentheses and code.
fn first_clause(text: &str) -> &str {
    let (mut depth, mut code) = (0usize, false);
    let bytes = text.as_bytes();
    for (i, &byte) in bytes.iter().enumerate() {
        match byte {
            b'`' => code = !code,
            b'(' if !code => depth += 1,
            b')' if !code => depth = depth.saturating_sub(1),
            b':' | b';' | b'.'
                if !code && depth == 0 && bytes.get(i + 1).is_none_or(|next| *next == b' ') =>
            {
                return &text[..i];
            }
            _ => {}
        }
    }
    text
}

/// utoipa makes an operation's whole first paragraph of documentation its summary: it becomes
/// the description, and its first clause the summary.
fn describe_operations(doc: &mut Value) {
    for_each_operation(doc, |_, operation| {
        let Some(text) = operation.get("summary").and_then(Value::as_str) else {
            return;
        };
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let summary = first_clause(&text).to_string();
        operation.insert("summary".into(), json!(summary));
        operation
            .entry("description")
            .or_insert_with(|| json!(text));
    });
}

/// What the server reads from each parameter, exactly: the values a query or header takes
/// (`kind` one of the games, `status`, `turn=mine`, `If-Match` a quoted version,
/// `Idempotency-Key` 1 to 200 visible characters), and unsigned integers up to 2^64 - 1 (they
/// are `u64`, not `int64`).
fn declare_parameters(doc: &mut Value, registry: &Registry) {
    let kinds: Vec<String> = registry.kinds().map(|k| k.info().id).collect();
    for_each_operation(doc, |_, operation| {
        // `POST /v1/games/{id}/join` takes no body as well as `{}`.
        if operation.get("operationId") == Some(&json!("joinGame")) {
            if let Some(Value::Object(body)) = operation.get_mut("requestBody") {
                body.insert("required".into(), json!(false));
            }
        }
        let Some(Value::Array(parameters)) = operation.get_mut("parameters") else {
            return;
        };
        for parameter in parameters.iter_mut() {
            let name = parameter
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let Some(Value::Object(schema)) = parameter.get_mut("schema") else {
                continue;
            };
            let integer = schema.get("type").is_some_and(|t| {
                t == "integer"
                    || t.as_array()
                        .is_some_and(|ts| ts.iter().any(|t| t == "integer"))
            });
            if integer && schema.get("minimum") == Some(&json!(0)) {
                schema.remove("format");
                schema.insert("maximum".into(), json!(u64::MAX));
            }
            let values = match name.as_str() {
                "kind" => Some(json!(kinds)),
                "status" => Some(json!(["open", "active", "finished"])),
                "turn" => Some(json!(["mine"])),
                _ => None,
            };
            if let Some(values) = values {
                schema.insert("enum".into(), values);
            }
            match name.as_str() {
                "If-Match" => {
                    schema.insert("pattern".into(), json!(r#"^(W/)?"?[0-9]+"?$"#));
                }
                "Idempotency-Key" => {
                    schema.insert("minLength".into(), json!(1));
                    schema.insert("maxLength".into(), json!(200));
                    schema.insert("pattern".into(), json!("^[!-~]([ -~]*[!-~])?$"));
                }
                _ => {}
            }
        }
    });
}

/// A server-sent event of a stream: `id` (the version), `event` (the type) and `data`, one
/// `EventOut` as JSON.
fn declare_event_stream(doc: &mut Value) {
    for_each_operation(doc, |_, operation| {
        let Some(Value::Object(responses)) = operation.get_mut("responses") else {
            return;
        };
        for response in responses.values_mut() {
            if let Some(media) = response.pointer_mut("/content/text~1event-stream") {
                media["schema"] = schema_ref("ServerSentEvent");
            }
        }
    });
    if let Some(Value::Object(schemas)) = doc.pointer_mut("/components/schemas") {
        schemas.insert(
            "ServerSentEvent".into(),
            json!({
                "title": "ServerSentEvent",
                "description": "One event of a stream, as the `text/event-stream` format frames it: `id:` the event's version (what `Last-Event-ID` sends back), `event:` its type, `data:` the event as JSON (an `EventOut`).",
                "type": "object",
                "properties": {
                    "id": { "type": "string", "pattern": "^[0-9]+$", "description": "The event's version." },
                    "event": { "type": "string", "description": "The event's type, as `EventOut.type`." },
                    "data": {
                        "type": "string",
                        "contentMediaType": "application/json",
                        "contentSchema": schema_ref("EventOut"),
                        "description": "The event as JSON: an `EventOut`.",
                    },
                },
                "required": ["id", "event", "data"],
            }),
        );
    }
}

/// An operation that names no security is public, and says so (`security: []`): the others
/// name the bearer token, required (`[{bearer: []}]`) or optional (`[{bearer: []}, {}]`,
/// where the answer is shaped for the token's player, if any).
fn declare_security(doc: &mut Value) {
    for_each_operation(doc, |_, operation| {
        operation.entry("security").or_insert_with(|| json!([]));
    });
}

/// Calls `f` with each operation's method and object.
fn for_each_operation(doc: &mut Value, mut f: impl FnMut(&str, &mut Map<String, Value>)) {
    let Some(Value::Object(paths)) = doc.get_mut("paths") else {
        return;
    };
    for item in paths.values_mut() {
        let Value::Object(item) = item else { continue };
        for (method, operation) in item.iter_mut() {
            if let Value::Object(operation) = operation {
                f(method, operation);
            }
        }
    }
}

/// What each error status means, where an operation says nothing more particular.
fn problem_description(status: &str) -> &'static str {
    match status {
        "400" => "The request is malformed: unreadable JSON (`malformed_json`), a key repeated (`duplicate_key`), a body that does not fit (`bad_request`), a query or path not understood (`bad_query`, `bad_path`)",
        "401" => "`unauthorized`: the token sent is malformed, unknown or revoked, or a token is needed and none was sent (`Authorization: Bearer <token>`)",
        "403" => "`not_seated`: the caller holds no seat in this game",
        "404" => "`game_not_found`: there is no game with this id",
        "409" => "The game's state does not allow it now",
        "412" => "`version_conflict`: `If-Match` names another version than the game's (`current_version` is the game's); nothing was played",
        "413" => "`payload_too_large`: the body is larger than 64 KiB",
        "415" => "`unsupported_media_type`: send the body as `application/json`",
        "422" => "The rules refuse it",
        "429" => "`rate_limited`: a limit was reached (`details.limit` names it); `Retry-After` says when to try again",
        _ => "A problem",
    }
}

/// Errors are `application/problem+json` (RFC 9457) with a description; every 429 says when
/// to try again with `Retry-After`.
fn declare_problems(doc: &mut Value) {
    for_each_operation(doc, |_, operation| {
        let Some(Value::Object(responses)) = operation.get_mut("responses") else {
            return;
        };
        for (status, response) in responses.iter_mut() {
            let Value::Object(response) = response else {
                continue;
            };
            let Some(Value::Object(content)) = response.get_mut("content") else {
                continue;
            };
            let is_problem = content
                .get("application/json")
                .and_then(|media| media.pointer("/schema/$ref"))
                .and_then(Value::as_str)
                == Some("#/components/schemas/Problem");
            if !is_problem {
                continue;
            }
            if let Some(media) = content.remove("application/json") {
                content.insert("application/problem+json".into(), media);
            }
            let described = response
                .get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.is_empty());
            if !described {
                response.insert("description".into(), json!(problem_description(status)));
            }
            if status == "429" {
                response.insert(
                    "headers".into(),
                    json!({ "Retry-After": {
                        "description": "Seconds to wait before trying again.",
                        "schema": { "type": "integer", "minimum": 1 },
                    }}),
                );
            }
        }
    });
}

/// The notifications the server POSTs to a player's webhooks.
fn declare_webhooks(doc: &mut Value) {
    let Value::Object(map) = doc else { return };
    map.insert(
        "webhooks".into(),
        json!({
            "notification": { "post": {
                "operationId": "receiveNotification",
                "tags": ["players"],
                "summary": "A notification to a player's webhook",
                "description": "Sent to each webhook of a player when it becomes their turn, when another seat offers them a draw or asks for a takeback, and when one of their games ends. Check the signature before trusting the body. Delivery is at least once, in the order of play: answer 2xx to acknowledge; anything else is retried with growing waits.",
                "security": [],
                "parameters": [
                    { "name": "X-Avalanche-Signature", "in": "header", "required": true,
                      "description": "`sha256=<hex>`: the HMAC-SHA256 of the exact body bytes, keyed with the webhook's whole secret (`whsec_...`).",
                      "schema": { "type": "string", "pattern": "^sha256=[0-9a-f]{64}$" } },
                    { "name": "X-Avalanche-Delivery", "in": "header", "required": true,
                      "description": "The notification's id, the same at every attempt: dedupe by it.",
                      "schema": { "type": "string" } },
                ],
                "requestBody": { "required": true, "content": { "application/json": {
                    "schema": schema_ref("Notification"),
                } } },
                "responses": {
                    "200": { "description": "Acknowledged (any 2xx)." },
                    "4XX": { "description": "Not acknowledged: retried with growing waits (so is any answer but 2xx, or none within 10 s)." },
                },
            } },
        }),
    );
}

/// Real requests and answers, one of each operation: `openapi/examples.json`, written by
/// `tools/capture_examples.py` from a session played against a server (the contract test
/// checks each against its schema).
const EXAMPLES: &str = include_str!("../../openapi/examples.json");

/// Puts each operation's example from `EXAMPLES` on its request body and on the answer of the
/// status it was captured with.
fn declare_examples(doc: &mut Value) {
    let Ok(Value::Object(examples)) = serde_json::from_str::<Value>(EXAMPLES) else {
        return;
    };
    let put = |operation: &mut Map<String, Value>| {
        let Some(example) = operation
            .get("operationId")
            .and_then(Value::as_str)
            .and_then(|id| examples.get(id))
        else {
            return;
        };
        if let (Some(request), Some(Value::Object(content))) = (
            example.get("request"),
            operation
                .get_mut("requestBody")
                .and_then(|b| b.get_mut("content")),
        ) {
            for media in content.values_mut() {
                media["example"] = request.clone();
            }
        }
        let status = example["status"].as_str().unwrap_or_default();
        if let (Some(response), Some(Value::Object(content))) = (
            example.get("response"),
            operation
                .get_mut("responses")
                .and_then(|r| r.get_mut(status))
                .and_then(|r| r.get_mut("content")),
        ) {
            for media in content.values_mut() {
                media["example"] = response.clone();
            }
        }
    };
    for_each_operation(doc, |_, operation| put(operation));
    if let Some(Value::Object(hooks)) = doc.get_mut("webhooks") {
        for item in hooks.values_mut() {
            if let Some(Value::Object(operation)) = item.get_mut("post") {
                put(operation);
            }
        }
    }
}

/// Drops the components nothing refers to (utoipa adds some that only an engine's own
/// schemas would use).
fn drop_unused_components(doc: &mut Value) {
    fn references(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    if let Some(name) = target.strip_prefix("#/components/schemas/") {
                        found.push(name.to_string());
                    }
                }
                map.values().for_each(|v| references(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| references(v, found)),
            _ => {}
        }
    }
    let mut used = std::collections::BTreeSet::new();
    let mut pending = Vec::new();
    for root in ["paths", "webhooks"] {
        if let Some(value) = doc.get(root) {
            references(value, &mut pending);
        }
    }
    let Some(Value::Object(schemas)) = doc.pointer_mut("/components/schemas") else {
        return;
    };
    while let Some(name) = pending.pop() {
        if used.insert(name.clone()) {
            if let Some(schema) = schemas.get(&name) {
                references(schema, &mut pending);
            }
        }
    }
    schemas.retain(|name, _| used.contains(name));
}

/// The document as committed in `openapi/openapi.json`.
pub fn pretty(registry: &Registry) -> String {
    serde_json::to_string_pretty(&document(registry)).unwrap_or_default() + "\n"
}
