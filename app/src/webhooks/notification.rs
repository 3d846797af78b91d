//! What a player is told, derived from a game before and after one command's events: only
//! ids, types and what is public (never a card), so a notice can be shown to anyone. The one
//! place notices are derived: webhooks, mail and the player's stream
//! (`GET /v1/players/me/stream`) all read them from here, so they agree. Webhooks and mail
//! carry the notices of [`NotificationType::delivered`]; the stream carries every one.

use chrono::{DateTime, Utc};
use domain::registry::LiveGame;
use domain::table::{Status, TableFact};
use domain::{Outcome, Seat};
use serde::Serialize;
use storage::Envelope;
use utoipa::ToSchema;

/// Why a player is notified.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotificationType {
    /// One of your games started: every seat is taken (or a fork of it appeared, such as the
    /// game a takeback goes on in). Only on the player's stream.
    GameStarted,
    /// It is your turn: a seat of yours is to act now and none was before; or, where seats act
    /// at once, one still is after another seat's move (`by_seat`) moved the version on, so a
    /// command sent on the version before is refused (`412`) and must be sent again.
    YourTurn,
    /// Another seat played a move of the game (`by_seat`). Only on the player's stream.
    OpponentMoved,
    /// Another seat said something at the table (`by_seat`): `message` names it, `text` is
    /// what they said. On the player's stream and webhooks (mail shows it in the next turn
    /// mail); a message hidden by then is not told, nor one of a player you muted.
    Message,
    /// Another seat offered you a draw.
    DrawOffered,
    /// Another seat asked to take the game back; you may accept or decline.
    TakebackRequested,
    /// The seat that asked for a takeback moved before everyone answered: its request is
    /// withdrawn, there is nothing more to answer.
    TakebackWithdrawn,
    /// The seat you offered a draw declined it (`by_seat`), by answering it: play goes on.
    DrawDeclined,
    /// A seat declined the takeback you asked for (`by_seat`): play goes on.
    TakebackDeclined,
    /// One of your games ended (also when a takeback supersedes it by a fork).
    GameFinished,
    /// Another player invited you to take a seat in an open game. By mail only.
    Invited,
    /// Your seat's clock runs low. On the player's stream with a quarter of the move's time
    /// left (`deadline` says when it runs out); by mail at the warnings the server is set to
    /// (24 hours and 1 hour before, by default), to a player who takes them. Not sent to
    /// webhooks.
    ClockLow,
    /// Another player challenged you to a game (`by_seat` 0 is theirs): `game_id` is the
    /// challenge's id (`c-...`), to accept at `POST /v1/challenges/{id}/accept` or decline. On
    /// the player's stream only.
    Challenged,
    /// A round of a tournament you are in was paired: `tournament` names the round, your table,
    /// its players in seat order and your game (`seat` is yours in it), or says you have a
    /// bye. `game_id` is the tournament's id (`t-...`), `version` its version. On the player's
    /// stream and webhooks.
    RoundPaired,
    /// A round you played in closed: every table of it has its result. On the player's stream
    /// and webhooks.
    RoundClosed,
    /// A tournament you played in finished: `tournament` gives your rank and points. On the
    /// player's stream and webhooks.
    TournamentFinished,
    /// A league you played in has its next edition, and you are entered in it: `game_id` and
    /// `tournament` name the new edition. On the player's stream and webhooks.
    NextEdition,
}

impl NotificationType {
    pub fn as_str(self) -> &'static str {
        match self {
            NotificationType::GameStarted => "game_started",
            NotificationType::YourTurn => "your_turn",
            NotificationType::OpponentMoved => "opponent_moved",
            NotificationType::Message => "message",
            NotificationType::DrawOffered => "draw_offered",
            NotificationType::TakebackRequested => "takeback_requested",
            NotificationType::TakebackWithdrawn => "takeback_withdrawn",
            NotificationType::DrawDeclined => "draw_declined",
            NotificationType::TakebackDeclined => "takeback_declined",
            NotificationType::GameFinished => "game_finished",
            NotificationType::Invited => "invited",
            NotificationType::ClockLow => "clock_low",
            NotificationType::Challenged => "challenged",
            NotificationType::RoundPaired => "round_paired",
            NotificationType::RoundClosed => "round_closed",
            NotificationType::TournamentFinished => "tournament_finished",
            NotificationType::NextEdition => "next_edition",
        }
    }

    /// Every type, in the order a batch's notices come in.
    pub const ALL: [NotificationType; 16] = [
        NotificationType::GameStarted,
        NotificationType::OpponentMoved,
        NotificationType::Message,
        NotificationType::DrawOffered,
        NotificationType::TakebackRequested,
        NotificationType::TakebackWithdrawn,
        NotificationType::DrawDeclined,
        NotificationType::TakebackDeclined,
        NotificationType::YourTurn,
        NotificationType::GameFinished,
        NotificationType::ClockLow,
        NotificationType::Challenged,
        NotificationType::RoundPaired,
        NotificationType::RoundClosed,
        NotificationType::TournamentFinished,
        NotificationType::NextEdition,
    ];

    /// Whether webhooks and mail carry notices of this type: the turn, offers and endings.
    /// The player's stream carries every type.
    pub fn delivered(self) -> bool {
        matches!(
            self,
            NotificationType::YourTurn
                | NotificationType::DrawOffered
                | NotificationType::TakebackRequested
                | NotificationType::TakebackWithdrawn
                | NotificationType::DrawDeclined
                | NotificationType::TakebackDeclined
                | NotificationType::GameFinished
        )
    }

    /// Whether webhooks carry notices of this type: those of [`NotificationType::delivered`],
    /// messages (which mail shows in the next turn mail instead) and a tournament's.
    pub fn hooked(self) -> bool {
        self.delivered() || self == NotificationType::Message || self.of_tournament()
    }

    /// Whether notices of this type tell of a tournament (`game_id` is the tournament's).
    pub fn of_tournament(self) -> bool {
        matches!(
            self,
            NotificationType::RoundPaired
                | NotificationType::RoundClosed
                | NotificationType::TournamentFinished
                | NotificationType::NextEdition
        )
    }
}

/// The JSON body POSTed to a webhook's URL. Delivery is at least once: the same `id` may
/// arrive again (after a crash or a lost answer); receivers dedupe by it.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({"id": "g-3f9a0c11d2e4b5a6:7:p-0011223344556677:your_turn",
    "type": "your_turn", "game_id": "g-3f9a0c11d2e4b5a6", "kind": "avalanche-chess",
    "version": 7, "player_id": "p-0011223344556677", "seat": 1,
    "occurred_at": "2026-11-21T22:00:00Z"}))]
pub struct Notification {
    /// `<game_id>:<version>:<player_id>:<type>`, the same at every delivery attempt.
    pub id: String,
    #[serde(rename = "type")]
    pub kind_of_notification: NotificationType,
    /// The game; a challenge's notice names the challenge (`c-...`), a tournament's the
    /// tournament (`t-...`).
    pub game_id: String,
    /// The kind of game, such as `avalanche-chess`.
    pub kind: String,
    /// The game's version once the command that caused this was applied (a tournament's
    /// notice: the tournament's).
    pub version: u64,
    pub player_id: String,
    /// Your seat in the game (a tournament's `round_paired`: at your table; 0 in its other
    /// notices).
    pub seat: Seat,
    /// When the command that caused this was recorded.
    pub occurred_at: DateTime<Utc>,
    /// The seat that offered the draw or asked for (or withdrew) the takeback; for a turn told
    /// again, the seat whose move moved the version on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_seat: Option<Seat>,
    /// The version a takeback request goes back to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub takeback_to_version: Option<u64>,
    /// How the game ended, for `game_finished`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// When your seat's clock runs out, for `clock_low`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<DateTime<Utc>>,
    /// The message's id, for `message`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What was said, for `message`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The tournament, round, table and game, for a tournament's notice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tournament: Option<TournamentNotice>,
}

/// What a tournament's notice tells: only what its public page shows.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({"id": "t-3f9a0c11d2e4b5a6", "name": "Autumn cup", "round": 2,
    "table": 3, "game": "g-5c0ffee5d00dfeed", "players": ["p-0011223344556677", "p-8899aabbccddeeff"]}))]
pub struct TournamentNotice {
    /// The tournament's id (the notice's `game_id`).
    pub id: String,
    pub name: String,
    /// The round paired or closed, from 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// Your table of the round paired, from 1 (none for a bye).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<usize>,
    /// Your game at that table, started by the tournament (`seat` is yours in it). Absent for
    /// a bye, and for a table won by forfeit (another player at it withdrew: no game is
    /// played).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// The table's players in seat order (seat 0 first: White in chess), you among them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<String>,
    /// True when you sit this round out (a bye).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bye: bool,
    /// Your final rank (from 1; a league's counts within your division), for
    /// `tournament_finished`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<usize>,
    /// Your final tournament points, for `tournament_finished`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<f64>,
    /// Your league division (from 1), for `tournament_finished` of a league.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub division: Option<usize>,
    /// The league's edition (from 1), for `next_edition`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edition: Option<u32>,
    /// The edition before, for `next_edition`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
}

impl Notification {
    /// A notice of `kind_of_notification` to `player` at seat `seat` of stream `game_id` (a
    /// game of `kind`, or a challenge or tournament of it) at `version`, under the id
    /// `<game_id>:<version>:<player>:<type>`, with nothing else told.
    pub fn new(
        kind_of_notification: NotificationType,
        (game_id, kind): (&str, &str),
        version: u64,
        (player, seat): (&str, Seat),
        occurred_at: DateTime<Utc>,
    ) -> Notification {
        Notification {
            id: format!(
                "{game_id}:{version}:{player}:{}",
                kind_of_notification.as_str()
            ),
            kind_of_notification,
            game_id: game_id.to_string(),
            kind: kind.to_string(),
            version,
            player_id: player.to_string(),
            seat,
            occurred_at,
            by_seat: None,
            takeback_to_version: None,
            outcome: None,
            deadline: None,
            message: None,
            text: None,
            tournament: None,
        }
    }
}

/// The seats `player` holds (several in an analysis fork).
fn seats_of(game: &dyn LiveGame, player: &str) -> Vec<Seat> {
    game.facts()
        .players
        .iter()
        .enumerate()
        .filter(|(_, p)| p.as_deref() == Some(player))
        .map(|(seat, _)| seat)
        .collect()
}

fn to_act(game: &dyn LiveGame, seats: &[Seat]) -> bool {
    game.facts().to_act.iter().any(|s| seats.contains(s))
}

/// What a batch of game `events` (versions `first_version` to `last_version`) tells, for a
/// game written from a log up to `logged_until` (a fork or an import; `None` otherwise):
/// `(silent, appears)`. A copy's past tells nobody anything; a fork is news from its `forked`
/// batch on, as a game that did not exist before (`appears`: there is no "before" to compare).
pub fn copied_past(
    logged_until: Option<u64>,
    first_version: u64,
    last_version: u64,
    events: &[Envelope],
) -> (bool, bool) {
    match logged_until {
        Some(until) if last_version < until => (true, true),
        Some(until) if last_version == until => {
            let forked = events.iter().any(|e| {
                matches!(
                    TableFact::of_stored(&e.payload),
                    Some(TableFact::Forked { .. })
                )
            });
            (!forked, true)
        }
        _ => (false, first_version == 1),
    }
}

/// The seat a batch's actor names (`seat:N`), if it is a seat.
fn actor_seat(actor: &str) -> Option<Seat> {
    actor.strip_prefix("seat:")?.parse().ok()
}

/// Whether a stored event is one of the game's own rules (a move), not the table's.
fn is_game_event(payload: &serde_json::Value) -> bool {
    payload.get("type").and_then(serde_json::Value::as_str) == Some("game")
}

/// The `game_started` notice mail sends `player`: only when `events` started the game (its
/// last seat was taken), not when a fork appears (which [`notifications`] also tells as
/// `game_started`, for the player's stream).
pub fn game_started(
    after: &dyn LiveGame,
    events: &[Envelope],
    player: &str,
) -> Option<Notification> {
    let facts = after.facts();
    let started = events
        .iter()
        .any(|e| matches!(TableFact::of_stored(&e.payload), Some(TableFact::Started)));
    let seat = *seats_of(after, player).first()?;
    let last = events.last()?;
    if !started {
        return None;
    }
    Some(Notification::new(
        NotificationType::GameStarted,
        (&last.stream, facts.kind),
        facts.version,
        (player, seat),
        last.recorded_at,
    ))
}

/// A message said at the table, as its stored `said` event names it.
struct SaidAtTable<'a> {
    player: &'a str,
    seat: Option<Seat>,
    message: &'a str,
}

/// The message `payload` says at the table, if it is one.
fn said_at_table(payload: &serde_json::Value) -> Option<SaidAtTable<'_>> {
    let field = |name: &str| payload.get(name).and_then(serde_json::Value::as_str);
    if field("type") != Some("said") || field("room") != Some("table") {
        return None;
    }
    Some(SaidAtTable {
        player: field("player")?,
        seat: payload
            .get("seat")
            .and_then(serde_json::Value::as_u64)
            .map(|s| s as Seat),
        message: field("message")?,
    })
}

/// The seat (not one of `seats`) whose move the batch `events` is: the game's own events in a
/// batch that seat's command caused.
fn moved_by_another(seats: &[Seat], events: &[Envelope]) -> Option<Seat> {
    let by = actor_seat(&events.last()?.actor)?;
    (!seats.contains(&by) && events.iter().any(|e| is_game_event(&e.payload))).then_some(by)
}

/// The notifications for `player` of one command's `events`, which took the game from
/// `before` (`None`: the game did not exist for anyone yet) to `after`, in the order of
/// [`NotificationType::ALL`]. Derived from the folded states, the batch's actor and the
/// table's own event types only, so new event types change nothing.
pub fn notifications(
    before: Option<&dyn LiveGame>,
    after: &dyn LiveGame,
    events: &[Envelope],
    player: &str,
) -> Vec<Notification> {
    let facts = after.facts();
    let seats = seats_of(after, player);
    let (Some(&seat), Some(last)) = (seats.first(), events.last()) else {
        return Vec::new();
    };
    let game_id = &last.stream;
    let version = facts.version;
    let make = |kind: NotificationType, by_seat: Option<Seat>| Notification {
        by_seat,
        ..Notification::new(
            kind,
            (game_id, facts.kind),
            version,
            (player, seat),
            last.recorded_at,
        )
    };
    let mut found = Vec::new();
    let started = events
        .iter()
        .any(|e| matches!(TableFact::of_stored(&e.payload), Some(TableFact::Started)));
    if started || (before.is_none() && facts.status == Status::Active) {
        // Every seat taken now, or the game appeared started (a fork).
        found.push(make(NotificationType::GameStarted, None));
    }
    if let Some(by) = moved_by_another(&seats, events) {
        found.push(make(NotificationType::OpponentMoved, Some(by)));
    }
    for said in events.iter().filter_map(|e| said_at_table(&e.payload)) {
        // The spectators' room is never told to a seat; one's own words are not news.
        if said.player != player {
            found.push(Notification {
                message: Some(said.message.to_string()),
                ..make(NotificationType::Message, said.seat)
            });
        }
    }
    for event in events {
        match TableFact::of_stored(&event.payload) {
            // An offer is for the others: never tell a player of their own offer.
            Some(TableFact::DrawOffered { seat: by }) if !seats.contains(&by) => {
                found.push(make(NotificationType::DrawOffered, Some(by)))
            }
            Some(TableFact::TakebackRequested { seat: by, version }) if !seats.contains(&by) => {
                found.push(Notification {
                    takeback_to_version: Some(version),
                    ..make(NotificationType::TakebackRequested, Some(by))
                })
            }
            Some(TableFact::TakebackWithdrawn { seat: by }) if !seats.contains(&by) => {
                found.push(make(NotificationType::TakebackWithdrawn, Some(by)))
            }
            // A declined offer is told to the seat that made it, when another seat answered
            // it (playing on, which declines a draw too, is told by the turn that follows).
            Some(TableFact::DrawDeclined { seat: by })
                if !seats.contains(&by)
                    && moved_by_another(&seats, events).is_none()
                    && before.is_some_and(|b| {
                        b.facts().draw_offer.is_some_and(|s| seats.contains(&s))
                    }) =>
            {
                found.push(make(NotificationType::DrawDeclined, Some(by)))
            }
            Some(TableFact::TakebackDeclined { seat: by })
                if !seats.contains(&by)
                    && before.is_some_and(|b| {
                        b.facts()
                            .takeback_request
                            .as_ref()
                            .is_some_and(|r| seats.contains(&r.seat))
                    }) =>
            {
                found.push(make(NotificationType::TakebackDeclined, Some(by)))
            }
            _ => {}
        }
    }
    let was_to_act = before.is_some_and(|b| to_act(b, &seats_of(b, player)));
    if facts.status == Status::Active && to_act(after, &seats) {
        if !was_to_act {
            found.push(make(NotificationType::YourTurn, None));
        } else if let Some(by) = moved_by_another(&seats, events) {
            // Seats that act at once: another's move moved the version on, and a command on
            // the version told before is now refused. Told again, on the new version.
            found.push(make(NotificationType::YourTurn, Some(by)));
        }
    }
    let was_finished = before.is_some_and(|b| b.facts().status == Status::Finished);
    if facts.status == Status::Finished && !was_finished {
        found.push(Notification {
            outcome: facts.outcome,
            ..make(NotificationType::GameFinished, None)
        });
    }
    found
}
