//! The type-erased registry: the API creates and drives any game by its id with JSON commands
//! and events, while each engine stays typed inside [`Kind`] and [`Live`].

use crate::engine::{
    Consequence, Context, Engine, Fault, KindInfo, Legal, Outcome, Refusal, RuleError, Seat, Setup,
    Viewer,
};
use crate::table::TABLE_COMMAND_TYPES;
use crate::table::{
    Actor, Command, FoldError, ForkOrigin, SeatClock, Status, SystemCommand, Table, TableCommand,
    TableEvent, TableFact, TimeControl,
};
use crate::text::Unread;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use std::any::Any;
use std::marker::PhantomData;
use std::sync::Arc;
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

/// An event ready to store: its stable type name and its JSON payload, and what it tells the
/// application as a type when it is one of the table's facts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EventRecord {
    pub event_type: String,
    pub payload: Value,
    /// Not stored: the same fact [`TableFact::of_stored`] reads back from `payload`.
    #[serde(skip)]
    pub fact: Option<TableFact>,
    /// Not stored: the typed event `payload` was written from, when this one was just
    /// decided here, so that [`LiveGame::evolve_record`] folds it without reading the
    /// payload back.
    #[serde(skip)]
    typed: Option<Typed>,
}

/// A decided event as its engine's type (a `TableEvent<E>`), behind a type-erased handle.
#[derive(Clone)]
struct Typed(Arc<dyn Any + Send + Sync>);

impl PartialEq for Typed {
    /// The payload says all the typed event says: records compare by what they store.
    fn eq(&self, _: &Typed) -> bool {
        true
    }
}

impl std::fmt::Debug for Typed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Typed")
    }
}

impl EventRecord {
    /// Whether this record carries the typed event it was written from (it was just decided
    /// here): then [`LiveGame::evolve_record`] and [`LiveGame::redact_record`] never read its
    /// payload, which may be moved away (into the batch that stores it).
    pub fn is_typed(&self) -> bool {
        self.typed.is_some()
    }

    /// A stored event read back (an import, a copy into a fork): its fact read from its payload.
    pub fn stored(event_type: String, payload: Value) -> EventRecord {
        EventRecord {
            fact: TableFact::of_stored(&payload),
            event_type,
            payload,
            typed: None,
        }
    }
}

/// A legal command as JSON, postable as is, with its notation and, where the game gives
/// one, its consequence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LegalCommand {
    pub command: Value,
    pub notation: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consequence: Option<Consequence>,
}

impl LegalCommand {
    /// A typed legal entry as JSON.
    fn of<C: Serialize>(legal: Legal<C>) -> LegalCommand {
        LegalCommand {
            command: serde_json::to_value(&legal.command).unwrap_or(Value::Null),
            notation: legal.notation,
            consequence: legal.consequence,
        }
    }
}

/// What a person's text means in a game: the one legal command it names (as JSON, with its
/// canonical notation), or why not with the nearest commands.
pub type TextReading = Result<LegalCommand, Unread<Value>>;

/// One entry of a legal list written as JSON text: `{"command": ..., "notation": ...}`.
#[derive(Serialize)]
struct Offered<'a, C: Serialize + ?Sized> {
    command: &'a C,
    notation: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    consequence: Option<&'a Consequence>,
}

/// A seat's legal list as JSON text, in one pass: the rules' commands, then the claim of a
/// timeout when there is one.
struct LegalText<'a, C> {
    legal: &'a [crate::engine::Legal<C>],
    claim: Option<&'a TableCommand>,
}

impl<C: Serialize> Serialize for LegalText<'_, C> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let length = self.legal.len() + usize::from(self.claim.is_some());
        let mut list = serializer.serialize_seq(Some(length))?;
        for legal in self.legal {
            list.serialize_element(&Offered {
                command: &legal.command,
                notation: &legal.notation,
                consequence: legal.consequence.as_ref(),
            })?;
        }
        if let Some(claim) = self.claim {
            list.serialize_element(&Offered {
                command: claim,
                notation: claim.notation(),
                consequence: None,
            })?;
        }
        list.end()
    }
}

/// The JSON Schemas of one engine's types, for the API document. `components` are the schemas
/// the four refer to, by their own (unprefixed) names.
pub struct EngineSchemas {
    pub options: RefOr<Schema>,
    pub command: RefOr<Schema>,
    pub event: RefOr<Schema>,
    pub view: RefOr<Schema>,
    pub components: Vec<(String, RefOr<Schema>)>,
}

/// What a new game's `created` event records of the table around the game's own setup.
#[derive(Clone, Copy, Debug, Default)]
pub struct TableSettings {
    /// How long each move may take.
    pub time_control: TimeControl,
    /// Whether the game counts for its players' ratings once it ends.
    pub rated: bool,
    /// Whether watchers may speak in the spectators' room of a game with hidden cards (it is
    /// always open in a game without them).
    pub spectators_room: bool,
}

/// One kind of game, type-erased.
pub trait GameKind: Send + Sync {
    fn info(&self) -> KindInfo;
    fn schemas(&self) -> EngineSchemas;
    /// A stored event as `viewer` may see it (the same as [`LiveGame::redact`]).
    fn redact(&self, event: &Value, viewer: Viewer) -> Value;
    /// The engine's default options, as JSON.
    fn default_options(&self) -> Value;
    /// Checks a setup and returns the `created` event that begins an untimed game's stream.
    fn create(
        &self,
        variant: Option<String>,
        options: Option<Value>,
        seats: usize,
        commitment: String,
    ) -> Result<EventRecord, Refusal> {
        self.create_timed(variant, options, seats, commitment, TimeControl::None)
    }
    /// Checks a setup and a time control; returns the `created` event of an unrated game.
    fn create_timed(
        &self,
        variant: Option<String>,
        options: Option<Value>,
        seats: usize,
        commitment: String,
        time_control: TimeControl,
    ) -> Result<EventRecord, Refusal> {
        self.create_rated(variant, options, seats, commitment, time_control, false)
    }
    /// Checks a setup, a time control and whether such a game can be rated (`rated`); returns
    /// the `created` event of a game with its spectators' room as the kind has it by default.
    fn create_rated(
        &self,
        variant: Option<String>,
        options: Option<Value>,
        seats: usize,
        commitment: String,
        time_control: TimeControl,
        rated: bool,
    ) -> Result<EventRecord, Refusal> {
        let table = TableSettings {
            time_control,
            rated,
            spectators_room: false,
        };
        self.create_table(variant, options, seats, commitment, table)
    }
    /// Checks a setup and the table's settings (a time control; whether such a game can be
    /// rated, `table.rated`); returns the `created` event of the game's stream.
    fn create_table(
        &self,
        variant: Option<String>,
        options: Option<Value>,
        seats: usize,
        commitment: String,
        table: TableSettings,
    ) -> Result<EventRecord, Refusal>;
    /// How a rated game of `seats` seats moves ratings; `None` when it cannot be rated.
    fn rating_method(&self, seats: usize) -> Option<crate::rating::RatingMethod>;
    /// The pool of ratings a rated game of `variant` and `seats` counts in, with its method
    /// (see [`crate::rating::pool`]); `None` when such a game cannot be rated.
    fn rating_pool(
        &self,
        variant: Option<&str>,
        seats: usize,
    ) -> Option<(String, crate::rating::RatingMethod)> {
        let method = self.rating_method(seats)?;
        let pool = crate::rating::pool(&self.info(), variant, method, self.rating_method(2));
        Some((pool, method))
    }
    /// Folds a stream (its payloads, from version 1) into a live game.
    fn fold(&self, events: &[Value]) -> Result<Box<dyn LiveGame>, FoldError>;
}

/// The game-independent facts of a table at one version, as [`LiveGame::facts`] hands them out:
/// a snapshot, so what a caller reads of one game is of one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Facts {
    /// The kind of game (its id).
    pub kind: &'static str,
    pub status: Status,
    /// The number of events folded: the stream version.
    pub version: u64,
    pub seats: usize,
    pub variant: Option<String>,
    /// The player at each seat.
    pub players: Vec<Option<String>>,
    /// The commitment to the game's seed, published when it was created.
    pub commitment: String,
    pub outcome: Option<Outcome>,
    /// The seats that may act now (none unless the game is active).
    pub to_act: Vec<Seat>,
    /// The seed, once revealed.
    pub revealed_seed: Option<crate::fairness::Seed>,
    /// Whether any information is hidden from some player while the game runs.
    pub hidden_information: bool,
    /// Whether watchers may speak in the spectators' room (always in a game without hidden
    /// cards; in one with them when its creator opened it).
    pub spectators_room: bool,
    /// Whether the game was created rated (a fork, a copy of its past, never counts: see
    /// [`crate::rating`]).
    pub rated: bool,
    /// The game this one was forked from, if it is a fork.
    pub parent: Option<ForkOrigin>,
    pub time_control: TimeControl,
    /// Each seat's clock.
    pub clocks: Vec<SeatClock>,
    /// The seats whose player is on vacation.
    pub away: Vec<bool>,
    /// The earliest running deadline, while the game is active.
    pub next_deadline: Option<DateTime<Utc>>,
    /// Whether the game is superseded by a takeback and sealed: its seed not yet revealed.
    pub sealed: bool,
    /// Whether the game ended superseded by an agreed takeback (play went on in a fork).
    pub superseded: bool,
    /// Whether the game is an analysis fork (one player at every seat, everything shown).
    pub analysis: bool,
    /// The seat whose draw offer waits for an answer.
    pub draw_offer: Option<Seat>,
    /// The takeback asked for and not yet answered.
    pub takeback_request: Option<crate::table::TakebackRequest>,
}

/// A game being played (or over), type-erased: a [`Table`] of some engine.
pub trait LiveGame: Send + Sync {
    /// The game-independent facts of the table now: a table feature adds a field there, not a
    /// method here.
    fn facts(&self) -> Facts;
    /// The options the game was created with (beyond its variant and seats), as JSON.
    fn options(&self) -> Value;
    fn seat_of(&self, player: &str) -> Option<Seat>;
    fn viewer_for(&self, player: Option<&str>) -> Viewer;
    /// The `forked` event that makes this game (a copy of `parent` up to here) a fork, with
    /// `players` at the seats from now on (`analysis`: everything shown to everyone), and in
    /// a timed game the clocks started at `now`.
    fn fork(
        &self,
        parent: &str,
        players: Vec<Option<String>>,
        analysis: bool,
        now: DateTime<Utc>,
    ) -> Result<Vec<EventRecord>, Refusal>;
    /// Whether the game may be forked for analysis now (see the table's rule).
    fn check_analysis_fork(&self) -> Result<(), RuleError>;
    /// Whether `seat` may claim a timeout at `now` (another seat's deadline has passed).
    fn may_claim_timeout(&self, seat: Seat, now: DateTime<Utc>) -> bool;
    /// How many messages were said at this game (hidden ones included).
    fn said_count(&self) -> usize;
    /// Whether message `id` was said at this game: `Some(true)` once it is hidden.
    fn message_hidden(&self, id: &str) -> Option<bool>;
    /// The player who said message `id` at this game.
    fn message_author(&self, id: &str) -> Option<&str>;
    /// Decides a JSON command: a table command or a game command of a player, or a
    /// [`SystemCommand`] when the actor is the server.
    fn decide(
        &self,
        actor: &Actor,
        command: &Value,
        ctx: &Context,
    ) -> Result<Vec<EventRecord>, Refusal>;
    /// Applies one stored event.
    fn evolve(&mut self, event: &Value) -> Result<(), FoldError>;
    /// Applies one event record: a record this game's kind just decided is folded from its
    /// typed event, any other from its payload (as [`LiveGame::evolve`]).
    fn evolve_record(&mut self, event: &EventRecord) -> Result<(), FoldError>;
    /// The game's state as `viewer` may see it.
    fn view(&self, viewer: Viewer) -> Value;
    /// [`LiveGame::view`] written straight to JSON text: the same content (with the keys in
    /// the view's own order rather than sorted), without building a [`Value`] tree.
    fn view_json(&self, viewer: Viewer) -> Box<RawValue>;
    /// A stored event as `viewer` may see it.
    fn redact(&self, event: &Value, viewer: Viewer) -> Value;
    /// [`LiveGame::redact`] of an event just decided here: redacted from its typed form when
    /// it has one (see [`EventRecord::is_typed`]), without reading its payload.
    fn redact_record(&self, event: &EventRecord, viewer: Viewer) -> Value;
    /// The legal commands of `seat` by the rules of the game and the table.
    fn legal(&self, seat: Seat) -> Vec<LegalCommand>;
    /// What `text` means for `seat` (`None`: a player without a seat) at `now`: one legal
    /// command of the table or the game, or why not (see [`Table::read`]).
    fn read(&self, seat: Option<Seat>, text: &str, now: DateTime<Utc>) -> TextReading;
    /// The position as `viewer` sees it, drawn as plain text by the game (`names`: the
    /// players' names by seat).
    fn position_text(&self, viewer: Viewer, names: &[String]) -> String;
    /// A stored game event in words, as `viewer` may see it (the table's own events: `None`).
    fn event_text(&self, event: &Value, viewer: Viewer, names: &[String]) -> Option<String>;
    /// The legal commands of `seat` at `now`: the rules' list, and a claim of a timeout once
    /// another seat's deadline has passed (the rules' list knows no time).
    fn legal_at(&self, seat: Seat, now: DateTime<Utc>) -> Vec<LegalCommand> {
        let mut commands = self.legal(seat);
        if self.may_claim_timeout(seat, now) {
            let claim = TableCommand::ClaimTimeout;
            if let Ok(command) = serde_json::to_value(&claim) {
                commands.push(LegalCommand {
                    command,
                    notation: claim.notation().to_string(),
                    consequence: None,
                });
            }
        }
        commands
    }
    /// [`LiveGame::legal_at`] written straight to JSON text: an array of `{"command": ...,
    /// "notation": ...}`, the same commands in the same order, without a [`Value`] tree
    /// for each (see BENCHMARKS.md, "Half the CPU per command").
    fn legal_json_at(&self, seat: Seat, now: DateTime<Utc>) -> Box<RawValue>;
    fn clone_box(&self) -> Box<dyn LiveGame>;
    /// The events that make this game (a copy of `parent` up to here) the fork of an agreed
    /// takeback; in a game with hidden cards `ctx` holds the fork's fresh seed, committed to
    /// in `forked` and used to reshuffle every face-down pile (see `table/sealed.rs`).
    fn takeback_fork(
        &self,
        parent: &str,
        players: Vec<Option<String>>,
        ctx: &Context,
    ) -> Result<Vec<EventRecord>, Refusal>;
    /// The `seed_revealed` event of a sealed game, given by the system once the fork that
    /// supersedes it has ended; `ctx` holds this game's seeds.
    fn reveal_seed(&self, ctx: &Context) -> Result<Vec<EventRecord>, Refusal>;
}

/// The [`GameKind`] of engine `E`.
pub struct Kind<E>(PhantomData<E>);

impl<E: Engine> Kind<E> {
    pub fn boxed() -> Box<dyn GameKind> {
        Box::new(Kind::<E>(PhantomData))
    }
}

/// The [`LiveGame`] of engine `E`.
pub struct Live<E: Engine> {
    pub table: Table<E>,
}

/// An event as it is stored, with its fact. A payload that cannot be written is our fault,
/// never a `null` in the stream.
fn record<E: Engine>(event: TableEvent<E>) -> Result<EventRecord, Fault> {
    let payload = serde_json::to_value(&event)
        .map_err(|e| Fault(format!("an event does not serialize: {e}")))?;
    Ok(EventRecord {
        event_type: crate::table::type_name(&payload),
        fact: TableFact::of(&event),
        payload,
        typed: Some(Typed(Arc::new(event))),
    })
}

/// Every event as it is stored.
fn records<E: Engine>(events: Vec<TableEvent<E>>) -> Result<Vec<EventRecord>, Refusal> {
    Ok(events.into_iter().map(record).collect::<Result<_, _>>()?)
}

/// Reads a posted command: a table command when its `type` is one of the table's, otherwise
/// a command of the game. Fields the command does not have are refused, not ignored: a
/// misspelt field must not silently change what is played.
pub fn parse_command<C: Serialize + serde::de::DeserializeOwned>(
    value: &Value,
) -> Result<Command<C>, RuleError> {
    let Some(kind) = value.get("type").and_then(Value::as_str) else {
        return Err(RuleError::bad_command(
            "A command is a JSON object with a \"type\" field, for instance {\"type\": \"resign\"}.",
        ));
    };
    let command = if TABLE_COMMAND_TYPES.contains(&kind) {
        TableCommand::deserialize(value)
            .map(Command::Table)
            .map_err(|e| RuleError::bad_command(format!("Unreadable \"{kind}\" command: {e}.")))?
    } else {
        C::deserialize(value)
            .map(Command::Game)
            .map_err(|e| RuleError::bad_command(format!("Unreadable command: {e}.")))?
    };
    let known = serde_json::to_value(&command).unwrap_or(Value::Null);
    if let (Some(given), Some(known)) = (value.as_object(), known.as_object()) {
        if let Some(unknown) = given
            .iter()
            .find(|(key, v)| !known.contains_key(*key) && !v.is_null())
        {
            return Err(RuleError::bad_command(format!(
                "A \"{kind}\" command has no field \"{}\".",
                unknown.0
            )));
        }
    }
    Ok(command)
}

impl<E: Engine> GameKind for Kind<E> {
    fn info(&self) -> KindInfo {
        E::info()
    }

    fn schemas(&self) -> EngineSchemas {
        let mut components = Vec::new();
        <E::Options as ToSchema>::schemas(&mut components);
        <E::Command as ToSchema>::schemas(&mut components);
        <E::Event as ToSchema>::schemas(&mut components);
        <E::View as ToSchema>::schemas(&mut components);
        EngineSchemas {
            options: <E::Options as PartialSchema>::schema(),
            command: <E::Command as PartialSchema>::schema(),
            event: <E::Event as PartialSchema>::schema(),
            view: <E::View as PartialSchema>::schema(),
            components,
        }
    }

    fn redact(&self, event: &Value, viewer: Viewer) -> Value {
        redact_event::<E>(event, viewer)
    }

    fn default_options(&self) -> Value {
        serde_json::to_value(E::Options::default()).unwrap_or(Value::Null)
    }

    fn rating_method(&self, seats: usize) -> Option<crate::rating::RatingMethod> {
        E::rating_method(seats)
    }

    fn create_table(
        &self,
        variant: Option<String>,
        options: Option<Value>,
        seats: usize,
        commitment: String,
        table: TableSettings,
    ) -> Result<EventRecord, Refusal> {
        let TableSettings {
            time_control,
            rated,
            spectators_room,
        } = table;
        time_control.check()?;
        let options: E::Options = match options {
            None | Some(Value::Null) => E::Options::default(),
            Some(value) => serde_json::from_value(value).map_err(|e| {
                RuleError::invalid_setup(format!("Unreadable options for {}: {e}.", E::ID))
            })?,
        };
        let setup = Setup {
            variant,
            options,
            seats,
            revision: E::info().revision,
            rated,
        };
        E::check(&setup)?;
        if rated && E::rating_method(seats).is_none() {
            return Err(RuleError::invalid_setup(format!(
                "A game of {} with {seats} seat{} is not rated: create it with \"rated\": false.",
                E::info().name,
                if seats == 1 { "" } else { "s" }
            ))
            .into());
        }
        Ok(record(TableEvent::<E>::Created {
            kind: E::ID.to_string(),
            setup,
            commitment,
            time_control,
            spectators_room,
        })?)
    }

    fn fold(&self, events: &[Value]) -> Result<Box<dyn LiveGame>, FoldError> {
        let mut typed = Vec::with_capacity(events.len());
        for (i, value) in events.iter().enumerate() {
            typed.push(read_event::<E>(value, i as u64 + 1)?);
        }
        check_revision::<E>(typed.first())?;
        let table = Table::<E>::fold(typed.iter())?;
        Ok(Box::new(Live { table }))
    }
}

/// Refuses a game created under a revision of the rules this engine does not know (a newer
/// one): it cannot be decided or audited by its own rules.
fn check_revision<E: Engine>(created: Option<&TableEvent<E>>) -> Result<(), FoldError> {
    let Some(TableEvent::Created { setup, .. }) = created else {
        return Ok(());
    };
    let known = E::info().revision;
    if setup.revision == 0 || setup.revision > known {
        return Err(FoldError::Unreadable {
            kind: E::ID,
            version: 1,
            reason: format!(
                "the game was created under revision {} of the rules, which this server does \
                 not know (revisions 1 to {known})",
                setup.revision
            ),
        });
    }
    Ok(())
}

/// `event` as `viewer` may see it. A game's own event is read straight into the engine's
/// event (as [`read_event`] does, sparing serde the buffering of an internally tagged enum)
/// and written again from what the engine's redaction left: nothing of the stored payload
/// passes unread, not even a field the engine does not know.
fn redact_event<E: Engine>(event: &Value, viewer: Viewer) -> Value {
    if let (Some("game"), Some(inner)) = (
        event.get("type").and_then(Value::as_str),
        event.get("event"),
    ) {
        return match E::Event::deserialize(inner) {
            Ok(inner) => redacted_game::<E>(&inner, viewer),
            Err(_) => Value::Null,
        };
    }
    match TableEvent::<E>::deserialize(event) {
        // A game's event is read above; one that gets here is not shown.
        Ok(TableEvent::Game { .. }) => Value::Null,
        // The table's own events hide nothing.
        Ok(_) => event.clone(),
        // Never pass on what we cannot read: it might hold a secret.
        Err(_) => Value::Null,
    }
}

/// The typed event a record of this engine's table carries, if it still has one.
fn typed_event<E: Engine>(record: &EventRecord) -> Option<&TableEvent<E>> {
    record
        .typed
        .as_ref()
        .and_then(|typed| typed.0.downcast_ref::<TableEvent<E>>())
}

/// A game's own event as `viewer` may see it, written as a stored payload is.
fn redacted_game<E: Engine>(event: &E::Event, viewer: Viewer) -> Value {
    serde_json::to_value(TableEvent::<E>::Game {
        event: E::redact(event, viewer),
    })
    .unwrap_or(Value::Null)
}

/// Reads a stored event. Most events are the game's own, `{"type": "game", "event": {...}}`:
/// those are read straight into the engine's event, which spares serde buffering the whole
/// payload to find the outer tag; and nothing is read from a copy of the payload. Together
/// these made folding a stream about twice as fast (see BENCHMARKS.md, "Engines").
fn read_event<E: Engine>(value: &Value, version: u64) -> Result<TableEvent<E>, FoldError> {
    let read = match (
        value.get("type").and_then(Value::as_str),
        value.get("event"),
    ) {
        (Some("game"), Some(event)) => {
            E::Event::deserialize(event).map(|event| TableEvent::Game { event })
        }
        _ => TableEvent::<E>::deserialize(value),
    };
    read.map_err(|e| FoldError::Unreadable {
        kind: E::ID,
        version,
        reason: e.to_string(),
    })
}

impl<E: Engine> Live<E> {
    /// The game's own view for `viewer`, with how it ended at the table.
    fn typed_view(&self, viewer: Viewer) -> E::View {
        let view = E::view(&self.table.game, viewer);
        match (self.table.ended_by, &self.table.outcome) {
            // Ended at the table, not by the rules: the view shows it too (a game sealed by a
            // takeback is shown as while it ran).
            (Some(end), Some(outcome)) if !self.table.sealed() => E::ended_view(view, end, outcome),
            _ => view,
        }
    }
}

/// `value` as JSON text; `null` if it cannot be written (as [`LiveGame::view`] gives).
fn raw_or_null<T: Serialize + ?Sized>(value: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).unwrap_or_else(|_| RawValue::NULL.to_owned())
}

impl<E: Engine> LiveGame for Live<E> {
    fn facts(&self) -> Facts {
        let table = &self.table;
        Facts {
            kind: E::ID,
            status: table.status,
            version: table.version,
            seats: table.setup.seats,
            variant: table.setup.variant.clone(),
            players: table.players.clone(),
            commitment: table.commitment.clone(),
            outcome: table.outcome.clone(),
            to_act: table.to_act(),
            revealed_seed: table.revealed_seed,
            hidden_information: E::info().hidden_information,
            spectators_room: table.spectators_room_open(),
            rated: table.setup.rated && table.parent.is_none(),
            parent: table.parent.clone(),
            time_control: table.time_control,
            clocks: table.clocks.clone(),
            away: table.away.clone(),
            next_deadline: table.next_deadline(),
            sealed: table.sealed(),
            superseded: table.ended_by == Some(crate::engine::TableEnd::Superseded),
            analysis: table.analysis,
            draw_offer: table.draw_offer,
            takeback_request: table.takeback.clone(),
        }
    }
    fn options(&self) -> Value {
        serde_json::to_value(&self.table.setup.options).unwrap_or(Value::Null)
    }
    fn seat_of(&self, player: &str) -> Option<Seat> {
        self.table.seat_of(player)
    }
    fn viewer_for(&self, player: Option<&str>) -> Viewer {
        self.table.viewer_for(player)
    }
    fn fork(
        &self,
        parent: &str,
        players: Vec<Option<String>>,
        analysis: bool,
        now: DateTime<Utc>,
    ) -> Result<Vec<EventRecord>, Refusal> {
        let events = self.table.fork(parent, players, analysis, now)?;
        records(events)
    }
    fn check_analysis_fork(&self) -> Result<(), RuleError> {
        self.table.check_analysis_fork()
    }
    fn may_claim_timeout(&self, seat: Seat, now: DateTime<Utc>) -> bool {
        self.table.may_claim_timeout(seat, now)
    }
    fn said_count(&self) -> usize {
        self.table.messages.len()
    }
    fn message_hidden(&self, id: &str) -> Option<bool> {
        self.table.messages.get(id).map(|(_, hidden)| *hidden)
    }
    fn message_author(&self, id: &str) -> Option<&str> {
        self.table
            .messages
            .get(id)
            .map(|(player, _)| player.as_str())
    }

    fn decide(
        &self,
        actor: &Actor,
        command: &Value,
        ctx: &Context,
    ) -> Result<Vec<EventRecord>, Refusal> {
        if *actor == Actor::System {
            let command = SystemCommand::deserialize(command).map_err(|e| {
                RuleError::bad_command(format!("Not a command of the server: {e}."))
            })?;
            let events = self.table.decide_system(&command, ctx)?;
            return records(events);
        }
        let command = parse_command::<E::Command>(command)?;
        let events = self.table.decide(actor, &command, ctx)?;
        records(events)
    }

    fn evolve(&mut self, event: &Value) -> Result<(), FoldError> {
        let event = read_event::<E>(event, self.table.version + 1)?;
        self.table.evolve(&event)
    }

    fn redact_record(&self, event: &EventRecord, viewer: Viewer) -> Value {
        match typed_event::<E>(event) {
            Some(TableEvent::Game { event }) => redacted_game::<E>(event, viewer),
            // The table's own events hide nothing: written again from the typed event, as
            // their payload was (which may have been moved away).
            Some(typed) => serde_json::to_value(typed).unwrap_or(Value::Null),
            None => self.redact(&event.payload, viewer),
        }
    }

    fn evolve_record(&mut self, event: &EventRecord) -> Result<(), FoldError> {
        match typed_event::<E>(event) {
            Some(typed) => self.table.evolve(typed),
            None => self.evolve(&event.payload),
        }
    }

    fn view(&self, viewer: Viewer) -> Value {
        serde_json::to_value(self.typed_view(viewer)).unwrap_or(Value::Null)
    }

    fn view_json(&self, viewer: Viewer) -> Box<RawValue> {
        raw_or_null(&self.typed_view(viewer))
    }

    fn redact(&self, event: &Value, viewer: Viewer) -> Value {
        redact_event::<E>(event, viewer)
    }

    fn legal(&self, seat: Seat) -> Vec<LegalCommand> {
        self.table
            .legal(seat)
            .into_iter()
            .map(LegalCommand::of)
            .collect()
    }

    fn read(&self, seat: Option<Seat>, text: &str, now: DateTime<Utc>) -> TextReading {
        let may_claim = seat.is_some_and(|seat| self.may_claim_timeout(seat, now));
        self.table
            .read(seat, text, may_claim)
            .map(LegalCommand::of)
            .map_err(|unread| {
                unread.map(|command| serde_json::to_value(&command).unwrap_or(Value::Null))
            })
    }

    fn position_text(&self, viewer: Viewer, names: &[String]) -> String {
        let me = match viewer {
            Viewer::Seat(seat) => Some(seat),
            _ => None,
        };
        E::position_text(&self.typed_view(viewer), me, names)
    }

    fn event_text(&self, event: &Value, viewer: Viewer, names: &[String]) -> Option<String> {
        match read_event::<E>(event, 0).ok()? {
            TableEvent::Game { event } => E::event_text(&E::redact(&event, viewer), names),
            _ => None,
        }
    }

    fn legal_json_at(&self, seat: Seat, now: DateTime<Utc>) -> Box<RawValue> {
        let claim = TableCommand::ClaimTimeout;
        raw_or_null(&LegalText {
            legal: &self.table.legal(seat),
            claim: self.may_claim_timeout(seat, now).then_some(&claim),
        })
    }

    fn clone_box(&self) -> Box<dyn LiveGame> {
        Box::new(Live {
            table: self.table.clone(),
        })
    }

    fn takeback_fork(
        &self,
        parent: &str,
        players: Vec<Option<String>>,
        ctx: &Context,
    ) -> Result<Vec<EventRecord>, Refusal> {
        let events = self.table.takeback_fork(parent, players, ctx)?;
        records(events)
    }

    fn reveal_seed(&self, ctx: &Context) -> Result<Vec<EventRecord>, Refusal> {
        let events = self.table.reveal_seed(ctx)?;
        records(events)
    }
}

/// Every game the service offers, by id.
pub struct Registry {
    kinds: Vec<Box<dyn GameKind>>,
}

impl Registry {
    /// The five games of the service.
    pub fn standard() -> Registry {
        Registry {
            kinds: crate::games::all(),
        }
    }

    pub fn with(kinds: Vec<Box<dyn GameKind>>) -> Registry {
        Registry { kinds }
    }

    pub fn get(&self, id: &str) -> Option<&dyn GameKind> {
        self.kinds
            .iter()
            .find(|k| k.info().id == id)
            .map(|k| k.as_ref())
    }

    pub fn kinds(&self) -> impl Iterator<Item = &dyn GameKind> {
        self.kinds.iter().map(|k| k.as_ref())
    }

    pub fn ids(&self) -> Vec<String> {
        self.kinds.iter().map(|k| k.info().id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{altitude, avalanche, chess, ski_runs, vamanos};
    use crate::testing::{play_random_log, viewers};
    use crate::Seed;

    /// What `redact_event` gave before its fast path: every payload read as a whole
    /// `TableEvent`.
    fn redacted_the_long_way<E: Engine>(event: &Value, viewer: Viewer) -> Value {
        match TableEvent::<E>::deserialize(event) {
            Ok(TableEvent::Game { event }) => serde_json::to_value(TableEvent::<E>::Game {
                event: E::redact(&event, viewer),
            })
            .unwrap_or(Value::Null),
            Ok(_) => event.clone(),
            Err(_) => Value::Null,
        }
    }

    /// Every event of random games, for every viewer, redacted both ways; returns how many
    /// game events were compared.
    fn compare<E: Engine>(options: Option<Value>) -> usize {
        let kind = Kind::<E>::boxed();
        let mut game_events = 0;
        for game in 0..6u64 {
            let log = play_random_log(
                kind.as_ref(),
                None,
                options.clone(),
                2,
                Seed([game as u8 + 7; 32]),
                game,
                400,
            )
            .unwrap_or_else(|e| panic!("{}: {e}", E::ID));
            for payload in log.payloads() {
                if payload["type"] == "game" {
                    game_events += 1;
                }
                for viewer in viewers(2).into_iter().chain([Viewer::Everyone]) {
                    assert_eq!(
                        redact_event::<E>(&payload, viewer),
                        redacted_the_long_way::<E>(&payload, viewer),
                        "{}: {payload} for {viewer:?}",
                        E::ID
                    );
                }
            }
        }
        game_events
    }

    #[test]
    fn the_fast_redaction_of_game_events_is_the_whole_reading() {
        let compared = compare::<chess::AvalancheChess>(None)
            + compare::<avalanche::Avalanche>(None)
            + compare::<ski_runs::SkiRuns>(None)
            + compare::<vamanos::Vamanos>(Some(serde_json::json!({"target": 30})))
            + compare::<altitude::Altitude>(None);
        assert!(compared > 1000, "only {compared} game events");
    }

    #[test]
    fn a_game_event_that_cannot_be_read_is_shown_as_null() {
        let unreadable = serde_json::json!({"type": "game", "event": {"type": "no_such_event"}});
        assert_eq!(
            redact_event::<chess::AvalancheChess>(&unreadable, Viewer::Seat(0)),
            Value::Null
        );
        let no_event = serde_json::json!({"type": "game"});
        assert_eq!(
            redact_event::<avalanche::Avalanche>(&no_event, Viewer::Seat(0)),
            Value::Null
        );
    }
}
