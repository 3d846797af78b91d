//! The OpenAPI document: the paths and shapes of the API from utoipa, plus every game's own
//! schemas (options, commands, events, views), each game's under its own prefix
//! (`AvalancheChess.Command`), since every engine names its types alike.

use crate::app::webhooks::notification::{Notification, NotificationType};
use crate::problem::Problem;
use crate::routes;
use domain::Registry;
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
a player. Game commands and table commands (`resign`, `offer_draw`, `accept_draw`, \
`decline_draw`, `request_takeback`, `accept_takeback`, `decline_takeback`, `claim_timeout`) are posted alike to `/v1/games/{id}/commands`; `GET /v1/games/{id}/legal` lists \
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
        license(name = "MIT OR Apache-2.0")
    ),
    paths(
        routes::players::create_player, routes::players::me, routes::players::my_games,
        routes::players::my_vacation, routes::players::start_vacation,
        routes::players::end_vacation, routes::players::issue_token,
        routes::players::revoke_token,
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
    )
)]
struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        if let Some(components) = openapi.components.as_mut() {
            components.add_security_scheme(
                "bearer",
                SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
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
    let (mut commands, mut views, mut events) = (vec![schema_ref("TableCommand")], vec![], vec![]);
    for kind in registry.kinds() {
        let id = kind.info().id;
        let prefix = schema_prefix(&id);
        let schemas = kind.schemas();
        let own: Vec<String> = schemas
            .components
            .iter()
            .map(|(name, _)| name.clone())
            .collect();
        let mut put = |name: &str, schema: &RefOr<Schema>| {
            let mut value = serde_json::to_value(schema).unwrap_or(Value::Null);
            prefix_refs(&mut value, &own, &prefix);
            added.insert(format!("{prefix}.{name}"), value);
        };
        for (name, schema) in &schemas.components {
            put(name, schema);
        }
        put("Options", &schemas.options);
        put("Command", &schemas.command);
        put("Event", &schemas.event);
        put("View", &schemas.view);
        commands.push(schema_ref(&format!("{prefix}.Command")));
        views.push(schema_ref(&format!("{prefix}.View")));
        events.push(schema_ref(&format!("{prefix}.Event")));
    }
    added.insert(
        "GameCommand".into(),
        json!({
            "description": "A command to post: one of the table's (`resign`, `offer_draw`, `accept_draw`, `decline_draw`, `request_takeback`, `accept_takeback`, `decline_takeback`) or one of the game's (see `GET /v1/games/{id}/legal`).",
            "oneOf": commands,
        }),
    );
    added.insert(
        "GameView".into(),
        json!({ "description": "The game's own state as the caller may see it; its shape is the game's `View`.", "oneOf": views }),
    );
    added.insert(
        "GameEvent".into(),
        json!({
            "description": "A stored event. The table's own events are `created` (kind, setup, commitment, time_control), `seat_taken` (seat, player), `started`, `resigned` (seat), `draw_offered`, `draw_declined`, `draw_accepted` (seat), `takeback_requested` (seat, version, turns), `takeback_withdrawn` (seat: the requester moved), `takeback_accepted`, `takeback_declined` (seat), `takeback_agreed` (version), `clock_set` (clocks: each seat's `idle`, `running` with a deadline, or `paused` with the time left), `timed_out` (seat), `vacation_started`, `vacation_ended` (seat), `finished` (outcome), `seed_revealed` (seed) and, first after the copied events of a fork, `forked` (parent, version, players, analysis). The game's events are wrapped: `{\"type\": \"game\", \"event\": <the game's Event>}`, with what the caller may not see removed.",
            "type": "object",
            "required": ["type"],
            "properties": {
                "type": { "type": "string", "examples": ["created", "seat_taken", "started", "game", "finished", "seed_revealed"] },
                "event": { "oneOf": events },
                "seat": { "type": "integer", "minimum": 0 },
                "player": { "type": "string" },
                "kind": { "type": "string" },
                "commitment": { "type": "string" },
                "seed": { "type": "string" },
                "setup": { "type": "object" },
                "outcome": schema_ref("Outcome"),
            },
        }),
    );
    if let Some(Value::Object(schemas)) = doc.pointer_mut("/components/schemas") {
        schemas.extend(added);
    }
    drop_defaults_on_references(&mut doc);
    doc
}

/// The document as committed in `openapi/openapi.json`.
pub fn pretty(registry: &Registry) -> String {
    serde_json::to_string_pretty(&document(registry)).unwrap_or_default() + "\n"
}
