//! The shapes games are shown in: the summary every endpoint shares, shaped for its viewer.

#[allow(unused_imports)] // named in schema attributes
use crate::wire::{GameEvent, GameView};
use app::club::Club;
use app::players::Players;
use app::Slot;
use chrono::{DateTime, Utc};
use domain::engine::{Outcome, Seat};
use domain::table::{ForkOrigin, SeatClock, Status, TimeControl};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use storage::Envelope;
use utoipa::ToSchema;

/// A seat and who holds it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatInfo {
    pub seat: Seat,
    /// The player holding the seat; absent while it is free.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player_name: Option<String>,
    /// The name with the first digits of the player's id (`Bea #3f9a`), which tells two
    /// players of the same name apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player_display_name: Option<String>,
    /// The seat's clock, in a timed game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<SeatClock>,
    /// Whether the seat's player is on vacation (its clock stands still).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub on_vacation: bool,
}

/// A game as the caller may see it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GameSummary {
    #[schema(example = "g-0c1d2e3f4a5b6c7d")]
    pub id: String,
    /// The game id of the rules: `avalanche-chess`, `avalanche`, `ski-runs`, `vamanos`, `altitude`.
    #[schema(example = "avalanche-chess")]
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The options the game was created with beyond its variant and seats (such as Ski Runs's
    /// deck), every one of them, defaults included; absent for a kind without options
    /// (Avalanche Chess).
    #[serde(skip_serializing_if = "no_options")]
    #[schema(value_type = Option<Object>)]
    pub options: Value,
    pub status: Status,
    pub seats: Vec<SeatInfo>,
    /// The seats that must (or may) act now; several at once in Vamanos.
    pub to_act: Vec<Seat>,
    /// The caller's seat, if they hold one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub your_seat: Option<Seat>,
    /// Whether the caller must act now.
    pub your_turn: bool,
    /// The stream version: the number of events so far. Send it as `If-Match` to play safely.
    pub version: u64,
    /// SHA-256 of the game's secret seed, public from the start.
    pub commitment: String,
    /// The seed itself, revealed once the game has ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// How long each move may take.
    pub time_control: TimeControl,
    /// Whether the game counts for its players' ratings once it ends (a fork never does).
    pub rated: bool,
    /// Whether those who watch without a seat may speak in the spectators' room: always in a
    /// game without hidden cards, in one with them when its creator opened it.
    pub spectators_room: bool,
    /// When the caller's seat must have acted, in a timed game where it must act now and its
    /// clock runs (each seat's clock is in `seats`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The game this one was forked from, and at which version (absent for other games).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<ForkOrigin>,
    /// Set for a game imported from elsewhere (`POST /v1/imports`): who imported it and when.
    /// Its seats are held by imported players (`imported:...`), no accounts of this server:
    /// it is in no player's games and counts for no rating or tournament.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported: Option<app::repository::Imported>,
    /// Whether the game ended superseded by an agreed takeback: play goes on in another game,
    /// `continued_in` (absent otherwise).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub superseded: bool,
    /// The game that goes on from this superseded one (the takeback's fork), in
    /// `GET /v1/games/{id}` (absent in lists and for other games, and for a few seconds when
    /// the server could not write the fork at once: look again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continued_in: Option<String>,
    /// The seat whose draw offer waits for an answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw_offer: Option<Seat>,
    /// The takeback asked for and not yet answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub takeback: Option<TakebackAsked>,
    /// How many turns the caller's seat has played, so how far back a takeback it asks for may
    /// go (0: nothing to take back yet), in `GET /v1/games/{id}` of an active game where the
    /// caller holds a seat (absent elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turns_played: Option<usize>,
    /// The tournament, round and table the game was paired in (absent for other games).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tournament: Option<app::club::tournaments::GameTournament>,
    /// The game's own state as the caller may see it (absent in lists).
    // Written straight to JSON from the game's typed view, without a `Value` tree between.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<GameView>)]
    pub view: Option<Box<RawValue>>,
}

/// Whether a game's options say nothing: a kind without options.
fn no_options(options: &Value) -> bool {
    options.is_null() || options.as_object().is_some_and(serde_json::Map::is_empty)
}

/// A page of games (without their views), and where the next page begins.
#[derive(Debug, Serialize, ToSchema)]
pub struct GamePage {
    /// The games of this page, in the list's order.
    pub items: Vec<GameSummary>,
    /// The cursor of the next page: send it as `after` to get it. `null` when this page is the
    /// last.
    #[schema(required = true)]
    pub next: Option<String>,
}

impl GamePage {
    /// The summaries of a page of games, as `player` may see them (without views).
    pub async fn of(
        page: app::lists::Page<app::SlotRef>,
        players: &Players,
        club: &Club,
        player: Option<&str>,
    ) -> GamePage {
        let mut items = Vec::with_capacity(page.items.len());
        for slot in page.items {
            let slot = slot.lock().await;
            items.push(summary(&slot, players, club, player, false));
        }
        GamePage {
            items,
            next: page.next,
        }
    }
}

/// A takeback asked for and not yet answered.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TakebackAsked {
    /// The seat that asked.
    pub seat: Seat,
    /// The version the game goes back to if every other seat accepts: the moves after it are
    /// taken back.
    pub version: u64,
    /// The seats that accepted so far.
    pub accepted: Vec<Seat>,
}

/// A stored event as the caller may see it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EventOut {
    /// The game id of the rules of the event's game: it decides the type of `data`.
    #[schema(example = "avalanche-chess")]
    pub kind: String,
    /// Its version in the game's stream: 1, 2, 3, ... without gaps.
    pub version: u64,
    /// A stable type name: `created`, `seat_taken`, `started`, `game.<type>`, `resigned`, ...
    #[serde(rename = "type")]
    #[schema(example = "game.turn_played")]
    pub event_type: String,
    pub recorded_at: DateTime<Utc>,
    /// Who caused it: `seat:<n>`, `player:<id>` or `system`.
    pub actor: String,
    /// The event itself, with what the caller may not see removed.
    #[schema(value_type = GameEvent)]
    pub data: Value,
}

/// The summary of a game for `player` (or an anonymous reader); `with_view` adds the view.
pub fn summary(
    slot: &Slot,
    players: &Players,
    club: &Club,
    player: Option<&str>,
    with_view: bool,
) -> GameSummary {
    let game = &slot.game;
    let your_seat = player.and_then(|p| game.seat_of(p));
    let facts = game.facts();
    let to_act = facts.to_act.clone();
    let timed = !facts.time_control.is_none() && facts.status != Status::Open;
    let clocks = facts.clocks.clone();
    let away = facts.away.clone();
    let seats = facts
        .players
        .into_iter()
        .enumerate()
        .map(|(seat, id)| {
            let name = id.as_deref().and_then(|id| players.name(id));
            SeatInfo {
                seat,
                player_display_name: id
                    .as_deref()
                    .zip(name.as_deref())
                    .map(|(id, name)| app::players::display_name(id, name)),
                player_name: name,
                player_id: id,
                clock: timed.then(|| clocks.get(seat).copied().unwrap_or_default()),
                on_vacation: away.get(seat).copied().unwrap_or(false),
            }
        })
        .collect();
    let deadline = your_seat
        .filter(|s| to_act.contains(s))
        .and_then(|s| clocks.get(s).and_then(SeatClock::deadline));
    GameSummary {
        id: slot.id.clone(),
        kind: facts.kind.to_string(),
        variant: facts.variant,
        options: game.options(),
        status: facts.status,
        seats,
        your_turn: your_seat.is_some_and(|s| to_act.contains(&s)),
        to_act,
        your_seat,
        version: facts.version,
        commitment: facts.commitment,
        seed: facts.revealed_seed.map(|s| s.to_hex()),
        outcome: facts.outcome,
        time_control: facts.time_control,
        rated: facts.rated,
        spectators_room: facts.spectators_room,
        deadline,
        created_at: slot.created_at,
        updated_at: slot.updated_at,
        parent: facts.parent,
        imported: slot.imported.clone(),
        superseded: facts.superseded,
        continued_in: None,
        draw_offer: facts.draw_offer,
        takeback: facts.takeback_request.map(|r| TakebackAsked {
            seat: r.seat,
            version: r.version,
            accepted: r.accepted,
        }),
        turns_played: None,
        tournament: club.tournament_of(&slot.id),
        view: with_view.then(|| game.view_json(slot.viewer(player))),
    }
}

/// Events already redacted for `player`, the one who asks (see `Played::envelopes`), as
/// shown: only those the game of `slot` has folded, as [`events_for`] does, a message's text
/// opened.
pub fn events_seen(
    slot: &Slot,
    player: Option<&str>,
    envelopes: Vec<Envelope>,
    messages: &app::messages::Messages,
) -> Vec<EventOut> {
    let facts = slot.game.facts();
    let durable = facts.version;
    let seated = player.and_then(|p| slot.game.seat_of(p)).is_some();
    envelopes
        .into_iter()
        .filter(|e| e.version <= durable)
        .map(|e| EventOut {
            kind: facts.kind.to_string(),
            version: e.version,
            data: opened(e.payload, &e.event_type, (seated, player), messages),
            event_type: e.event_type,
            recorded_at: e.recorded_at,
            actor: e.actor,
        })
        .collect()
}

/// An event's data with a message's text opened, for readers who may see it.
fn opened(
    mut data: serde_json::Value,
    event_type: &str,
    (seated, reader): (bool, Option<&str>),
    messages: &app::messages::Messages,
) -> serde_json::Value {
    if event_type == app::messages::SAID {
        messages.open_event(&mut data, seated, reader);
    }
    data
}

/// Stored events as the viewer of `slot` for `player` may see them. Only events the game has
/// folded are shown: the store may show a batch a moment before it is on disk, and nobody
/// must see an event that a crash could still take back.
pub fn events_for(
    slot: &Slot,
    player: Option<&str>,
    envelopes: &[Envelope],
    messages: &app::messages::Messages,
) -> Vec<EventOut> {
    let viewer = slot.viewer(player);
    let seated = player.and_then(|p| slot.game.seat_of(p)).is_some();
    let facts = slot.game.facts();
    let durable = facts.version;
    envelopes
        .iter()
        .filter(|e| e.version <= durable)
        .map(|e| EventOut {
            kind: facts.kind.to_string(),
            version: e.version,
            event_type: e.event_type.clone(),
            recorded_at: e.recorded_at,
            actor: e.actor.clone(),
            data: opened(
                slot.game.redact(&e.payload, viewer),
                &e.event_type,
                (seated, player),
                messages,
            ),
        })
        .collect()
}
