//! The OpenAPI document: the paths and shapes of the API from utoipa, plus every game's own
//! schemas (options, commands, events, views), each game's under its own prefix
//! (`AvalancheChess.View`), since every engine names its types alike.

use crate::problem::Problem;
use crate::routes;
use crate::wire::{GameCommand, GameEvent, GameView};
use app::webhooks::notification::{Notification, NotificationType};
use domain::Registry;
use serde_json::{json, Map, Value};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::AppExt;

pub use crate::wire::schema_prefix;

mod examples;
mod fields;
mod integers;
mod kinds;
mod operations;
mod seats;
mod stream;
mod unions;
mod unused;
mod webhooks;
mod written;

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
stand still (`/v1/players/me/vacation`).\n\n**One stream for all my games** \
(`GET /v1/players/me/stream`): every notice of every game of the token's player, one JSON object \
a line (`application/x-ndjson`), or as server-sent events with `Accept: text/event-stream`; each \
line a `PlayerStreamLine`, told apart by `type`, with a `cursor` to resume from (`after`, or \
`Last-Event-ID`).\n\n**Lists** are pages: `{\"items\": [...], \"next\": <cursor or null>}`; send \
`next` back as `after` for the next page; `limit` above its `maximum`, or an `after` no page \
gave, is refused (`400 bad_query`).\n\n**Pacing for bots**: the server limits each player's \
pace (commands a second, games an hour, open streams, ...). Past a limit it answers `429 \
rate_limited` and does nothing: wait the `Retry-After` seconds (`details.limit` names the limit), \
then send the same request again, with the same `Idempotency-Key` for a command; never sooner, \
and not in parallel. `503` asks the same. Keep one request at a time and one stream per player, \
and let the stream say when it is your turn rather than polling a game.\n\n**Webhooks** (`POST /v1/players/me/webhooks`): the \
server POSTs a `Notification` (JSON) to your URL when it becomes your turn, when another seat \
offers you a draw or asks for a takeback, when one of your games ends, and when a tournament \
you are in pairs a round (your table and game), closes one, finishes (your rank) or has its next \
edition. Each request carries \
`X-Avalanche-Signature: t=<unix seconds>,v1=<hex>`, the HMAC-SHA256 of `<t>.<exact body>` \
keyed with the webhook's secret (the whole `whsec_...` string, shown once at registration): \
refuse a `t` more than 300 seconds from your clock, and a captured delivery cannot be sent \
again later. With it comes `X-Avalanche-Delivery: <notification id>`. Delivery is at least \
once: answer 2xx to acknowledge, dedupe by the id; anything else is retried with growing \
waits.",
        contact(name = "Avalanche games server", url = "http://127.0.0.1:8080/docs/"),
        license(name = "MIT OR Apache-2.0", url = "http://127.0.0.1:8080/licence")
    ),
    servers((url = "/", description = "The server that serves this document")),
    components(schemas(Problem, domain::table::TableCommand, GameCommand, GameView, GameEvent,
        Notification, NotificationType)),
    modifiers(&BearerAuth),
    tags(
        (name = "players", description = "Players and their tokens"),
        (name = "club", description = "Ratings, players' pages, leaderboards, challenges and rematches"),
        (name = "tournaments", description = "Round robins, Swiss and knock-outs: entry, pairings, standings, crosstables and their audit"),
        (name = "games", description = "The lobby: kinds of games, creating, listing and joining"),
        (name = "play", description = "What may I do, and doing it"),
        (name = "events", description = "The event log: pages, long-poll and a live stream"),
        (name = "replay", description = "Replay, audit, records, imports and forks"),
        (name = "mail", description = "Play by email: inbound replies and unsubscribe links"),
        (name = "notifications", description = "What the server sends to a player's webhooks"),
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
                            "A player's token (`av_...`), from `POST /v1/players` or `POST /v1/players/me/tokens`: `Authorization: Bearer <token>`. A token holds scopes, and each operation names the one it needs in its security requirement: `read` (what the player may see), `play` (commands, games, vacations, invitations), `account` (tokens, the mail address, notices, webhooks). The key `POST /v1/players` gives holds all three; `POST /v1/players/me/tokens` issues a token with those asked for, such as `[\"read\", \"play\"]` for a bot. A token without the scope is answered `403 insufficient_scope`.",
                        ))
                        .build(),
                ),
            );
        }
    }
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

/// The whole document, with the schemas of every game of `registry`.
pub fn document(registry: &Registry) -> Value {
    // The paths come from the server's own registrations of its endpoints.
    let (_, api) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(routes::api)
        .split_for_parts();
    let mut doc = serde_json::to_value(api).unwrap_or_else(|_| json!({}));
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
    // Made a union by `type` of every command once the games' unions are named.
    added.insert(
        "GameCommand".into(),
        json!({
            "title": "GameCommand",
            "description": "A command to post: one of the table's (`resign`, `offer_draw`, `request_takeback`, ...) or one of the game's (see `GET /v1/games/{id}/legal`). A command several games name alike (`draw`) takes in each game only that game's fields (each game's own union is `<Game>.GameCommand`).",
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
    added.insert("GameEvent".into(), written::game_event(&each("Event")));
    added.insert("ServerCommand".into(), written::server_command());
    added.insert("NewGame".into(), written::new_game(&games));
    added.insert("ProblemDetails".into(), written::problem_details());
    if let Some(Value::Object(schemas)) = doc.pointer_mut("/components/schemas") {
        schemas.extend(added);
        fields::type_free_form_fields(schemas);
        fields::enumerate_problem_codes(schemas);
        unions::name_tagged_unions(schemas);
        unions::unwrap_single_one_of(schemas);
        let kinds: Vec<kinds::Kind> = games
            .iter()
            .map(|(info, prefix)| kinds::Kind {
                id: info.id.clone(),
                prefix: prefix.clone(),
            })
            .collect();
        kinds::kind_unions(schemas, &kinds);
        kinds::split_by_kind(schemas, &kinds);
        let max_seats = games.iter().map(|(info, _)| info.max_seats).max();
        seats::bound_seats(schemas, max_seats.unwrap_or(1));
    }
    unions::drop_defaults_on_references(&mut doc);
    operations::describe_operations(&mut doc);
    operations::declare_parameters(&mut doc, registry);
    operations::declare_event_stream(&mut doc);
    stream::declare_player_stream(&mut doc);
    operations::declare_security(&mut doc);
    operations::declare_problems(&mut doc);
    webhooks::declare_webhooks(&mut doc);
    examples::declare_examples(&mut doc);
    if let Some(Value::Object(schemas)) = doc.pointer_mut("/components/schemas") {
        unions::declare_union_tags(schemas);
    }
    integers::bound_integers(&mut doc);
    unused::drop_unused_components(&mut doc);
    doc
}

/// The document as committed in `openapi/openapi.json`.
pub fn pretty(registry: &Registry) -> String {
    serde_json::to_string_pretty(&document(registry)).unwrap_or_default() + "\n"
}
