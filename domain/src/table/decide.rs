//! Deciding a command at the table: table commands here, game commands through the engine.

use super::clock::{
    RecordNote, SeatClock, SystemCommand, GLYPHS, MAX_BREAK_REASON, MAX_BREAK_TEXT, MAX_COMMENT,
};
use super::command::{Actor, TableCommand};
use super::event::{MessageRoom, TableEvent};
use super::sealed::seed_revealed;
use super::state::{Status, Table};
use crate::engine::{Context, Engine, ErrorCode, Legal, Outcome, Refusal, RuleError, Seat};
use chrono::{DateTime, Utc};
use serde::Serialize;

/// A command as posted: one of the table's own, or one of the game's.
#[derive(Clone, Debug, PartialEq)]
pub enum Command<C> {
    Table(TableCommand),
    Game(C),
}

impl<E: Engine> Table<E> {
    /// Decides `command` given by `actor`. `ctx` carries the time, and the game's seed for
    /// deals (and for revealing it when the game ends). A [`Refusal::Fault`] means the caller
    /// left out what the rules need (a takeback counted in turns without the game's turns).
    pub fn decide(
        &self,
        actor: &Actor,
        command: &Command<E::Command>,
        ctx: &Context,
    ) -> Result<Vec<TableEvent<E>>, Refusal> {
        let (mut events, moved) = self.decide_unclocked(actor, command, ctx)?;
        if let Some(clock) = self.clock_after(&events, moved, ctx.now) {
            events.push(clock);
        }
        Ok(events)
    }

    /// Decides what the server itself does: a timeout once a deadline has passed, a vacation
    /// that stops or starts a player's clocks, the reveal of a sealed game's seed. An empty answer means there is nothing to do.
    pub fn decide_system(
        &self,
        command: &SystemCommand,
        ctx: &Context,
    ) -> Result<Vec<TableEvent<E>>, RuleError> {
        let mut events = match command {
            SystemCommand::Timeout => {
                let overdue = self.overdue(ctx.now, None);
                if overdue.is_empty() {
                    return Err(no_timeout(self.next_deadline()));
                }
                self.leave(&overdue, true, ctx)
            }
            SystemCommand::RevealSeed => return self.reveal_seed(ctx),
            SystemCommand::RecordBreaks {
                half_turn,
                text,
                reason,
            } => return self.record_breaks(*half_turn, text, reason, ctx),
            SystemCommand::Annotate { notes } => return self.annotate(notes),
            SystemCommand::Say {
                player,
                room,
                message,
                sealed,
            } => return self.say(player, *room, message, sealed),
            SystemCommand::Hide { message } => {
                return match self.messages.get(message) {
                    Some((_, false)) => Ok(vec![TableEvent::Hidden {
                        message: message.clone(),
                    }]),
                    _ => Err(RuleError::new(
                        ErrorCode::BadCommand,
                        "No message of this game with that id is shown.",
                    )),
                }
            }
            SystemCommand::Vacation { player, away } => {
                if self.status == Status::Finished {
                    return Ok(Vec::new());
                }
                self.players
                    .iter()
                    .enumerate()
                    .filter(|(seat, p)| {
                        p.as_deref() == Some(player.as_str()) && self.away[*seat] != *away
                    })
                    .map(|(seat, _)| match away {
                        true => TableEvent::VacationStarted { seat },
                        false => TableEvent::VacationEnded { seat },
                    })
                    .collect()
            }
        };
        if let Some(clock) = self.clock_after(&events, None, ctx.now) {
            events.push(clock);
        }
        Ok(events)
    }

    /// `player` says something: at their seat to the table, or without a seat in the
    /// spectators' room (closed by default in games with hidden cards, where a watcher's words
    /// could only help one side; their creator may open it). Nothing of the game changes, so no clock moves.
    fn say(
        &self,
        player: &str,
        room: MessageRoom,
        message: &str,
        sealed: &str,
    ) -> Result<Vec<TableEvent<E>>, RuleError> {
        if self.messages.contains_key(message) {
            return Err(RuleError::new(
                ErrorCode::BadCommand,
                "A message of this game already has that id.",
            ));
        }
        let seat = self.seat_of(player);
        match (room, seat) {
            (MessageRoom::Table, None) => {
                return Err(RuleError::new(
                    ErrorCode::NotSeated,
                    "Only the players seated at this game speak at its table.",
                ))
            }
            (MessageRoom::Spectators, Some(_)) => {
                return Err(RuleError::new(
                    ErrorCode::NotSeated,
                    "The spectators' room is for those who watch without a seat.",
                ))
            }
            (MessageRoom::Spectators, None) if !self.spectators_room_open() => {
                return Err(RuleError::new(
                    ErrorCode::BadCommand,
                    "This game with hidden cards has no spectators' room: its creator did not open one.",
                ))
            }
            _ => {}
        }
        Ok(vec![TableEvent::Said {
            seat,
            player: player.to_string(),
            room,
            message: message.to_string(),
            sealed: sealed.to_string(),
        }])
    }

    /// An imported record breaks here: the game ends without a winner, its reason saying
    /// where and why, so that the log, the audit and the game page show it.
    fn record_breaks(
        &self,
        half_turn: u32,
        text: &str,
        reason: &str,
        ctx: &Context,
    ) -> Result<Vec<TableEvent<E>>, RuleError> {
        if self.status != Status::Active {
            return Err(RuleError::bad_command(
                "A record breaks only in a game being imported, while it is played.",
            ));
        }
        let (text, reason) = (text.trim(), reason.trim());
        if half_turn == 0
            || text.is_empty()
            || reason.is_empty()
            || text.chars().count() > MAX_BREAK_TEXT
            || reason.chars().count() > MAX_BREAK_REASON
        {
            return Err(RuleError::bad_command(format!(
                "A record's break names its half-turn (from 1), its text (at most {MAX_BREAK_TEXT} characters) and its reason (at most {MAX_BREAK_REASON})."
            )));
        }
        Ok(vec![
            TableEvent::RecordBroken {
                half_turn,
                text: text.to_string(),
                reason: reason.to_string(),
            },
            TableEvent::Finished {
                outcome: Outcome::win(
                    Vec::new(),
                    // Said as a clause: pages end the outcome's reason with their own stop.
                    record_break(half_turn, text, reason.trim_end_matches('.')),
                ),
            },
            seed_revealed(ctx),
        ])
    }

    /// The comments and glyphs of an imported record, while it is played in.
    fn annotate(&self, notes: &[RecordNote]) -> Result<Vec<TableEvent<E>>, RuleError> {
        if self.status != Status::Active {
            return Err(RuleError::bad_command(
                "A record's annotations are given while it is imported, while it is played.",
            ));
        }
        if notes.is_empty() {
            return Err(RuleError::bad_command("No annotations to keep."));
        }
        for note in notes {
            if let Some(glyph) = &note.glyph {
                if !GLYPHS.contains(&glyph.as_str()) {
                    return Err(RuleError::bad_command(format!(
                        "{glyph:?} is not an annotation glyph ({}).",
                        GLYPHS.join(" ")
                    )));
                }
            }
            match &note.comment {
                Some(comment)
                    if comment.trim().is_empty()
                        || comment.trim() != comment
                        || comment.contains(['{', '}', '\n', '\r'])
                        || comment.chars().count() > MAX_COMMENT =>
                {
                    return Err(RuleError::bad_command(format!(
                        "A record's comment is one line of text without braces, trimmed, of at most {MAX_COMMENT} characters."
                    )))
                }
                None if note.glyph.is_none() => {
                    return Err(RuleError::bad_command(
                        "An annotation gives a glyph, a comment or both.",
                    ))
                }
                _ => {}
            }
        }
        Ok(vec![TableEvent::Annotated {
            notes: notes.to_vec(),
        }])
    }

    /// The events of a command before the clocks are set, and the seat that moved (gave a
    /// game command), whose clock starts again if it must act again.
    fn decide_unclocked(
        &self,
        actor: &Actor,
        command: &Command<E::Command>,
        ctx: &Context,
    ) -> Result<(Vec<TableEvent<E>>, Option<Seat>), Refusal> {
        let events = match command {
            Command::Table(TableCommand::Join { seat }) => Ok(self.decide_join(actor, *seat, ctx)?),
            Command::Table(TableCommand::Cancel) => Ok(self.decide_cancel(actor)?),
            Command::Table(TableCommand::RequestTakeback { turns, version }) => {
                let seat = self.acting_seat(actor)?;
                self.request_takeback(seat, *turns, *version, ctx)
            }
            Command::Table(table_command) => {
                let seat = self.acting_seat(actor)?;
                Ok(self.decide_table(seat, table_command, ctx)?)
            }
            Command::Game(game_command) => {
                let seat = self.acting_seat(actor)?;
                if let Some(deadline) = self.clocks.get(seat).and_then(SeatClock::deadline) {
                    if deadline <= ctx.now && self.timed() {
                        return Err(RuleError::new(
                            ErrorCode::OutOfTime,
                            format!("Your time ran out at {deadline}: this game is lost on time."),
                        )
                        .into());
                    }
                }
                let events = E::decide(&self.game, seat, game_command, ctx)?;
                let mut out = Vec::with_capacity(events.len() + 4);
                if self
                    .takeback
                    .as_ref()
                    .is_some_and(|r| r.seat == seat && r.withdrawn_by_move)
                {
                    // Moving on withdraws one's own takeback request: an acceptance must not
                    // take back a move made after the request.
                    out.push(TableEvent::TakebackWithdrawn { seat });
                }
                if let Some(offerer) = self.draw_offer {
                    if offerer != seat {
                        // Playing on declines the opponent's offer.
                        out.push(TableEvent::DrawDeclined { seat });
                    }
                }
                out.extend(events.into_iter().map(|event| TableEvent::Game { event }));
                return Ok((self.close_if_over(out, ctx), Some(seat)));
            }
        };
        Ok((events?, None))
    }

    /// The seat a player acts for, once the game is running and they have not resigned.
    fn acting_seat(&self, actor: &Actor) -> Result<Seat, RuleError> {
        let seat = match actor {
            Actor::Player { id } => self.seat_of(id).ok_or_else(|| {
                RuleError::new(ErrorCode::NotSeated, "You do not hold a seat in this game.")
            })?,
            Actor::System => {
                return Err(RuleError::new(
                    ErrorCode::NotSeated,
                    "The server does not play for a seat.",
                ))
            }
        };
        match self.status {
            Status::Open => Err(RuleError::new(
                ErrorCode::NotStarted,
                "The game has not started: it is waiting for players to take the free seats.",
            )),
            Status::Finished => Err(RuleError::game_over()),
            Status::Active if self.resigned[seat] => Err(RuleError::new(
                ErrorCode::Resigned,
                "You have resigned from this game.",
            )),
            Status::Active => Ok(seat),
        }
    }

    fn decide_join(
        &self,
        actor: &Actor,
        wanted: Option<Seat>,
        ctx: &Context,
    ) -> Result<Vec<TableEvent<E>>, RuleError> {
        let Actor::Player { id } = actor else {
            return Err(RuleError::bad_command("Only a player can take a seat."));
        };
        // A game cancelled before it filled is over, with seats still free.
        if self.status == Status::Finished && self.players.iter().any(Option::is_none) {
            return Err(RuleError::game_over());
        }
        if self.status != Status::Open {
            return Err(RuleError::new(
                ErrorCode::GameFull,
                "Every seat of this game is already taken.",
            ));
        }
        if self.seat_of(id).is_some() {
            return Err(RuleError::new(
                ErrorCode::AlreadySeated,
                "You already hold a seat in this game.",
            ));
        }
        let seat = match wanted {
            Some(seat) if seat >= self.setup.seats => {
                return Err(RuleError::bad_command(format!(
                    "This game has seats 0 to {}; there is no seat {seat}.",
                    self.setup.seats - 1
                )))
            }
            Some(seat) if self.players[seat].is_some() => {
                return Err(RuleError::new(
                    ErrorCode::SeatTaken,
                    format!("Seat {seat} is already taken."),
                ))
            }
            Some(seat) => seat,
            None => self
                .players
                .iter()
                .position(Option::is_none)
                .ok_or_else(|| {
                    RuleError::new(ErrorCode::GameFull, "Every seat is already taken.")
                })?,
        };
        let mut events = vec![TableEvent::SeatTaken {
            seat,
            player: id.clone(),
        }];
        let free_after = self.players.iter().filter(|p| p.is_none()).count() - 1;
        if free_after == 0 {
            events.push(TableEvent::Started);
            events.extend(
                E::start(&self.game, ctx)
                    .into_iter()
                    .map(|event| TableEvent::Game { event }),
            );
            return Ok(self.close_if_over(events, ctx));
        }
        Ok(events)
    }

    /// The one player seated at a game still waiting for players cancels it: it ends without
    /// a winner before anything was dealt.
    fn decide_cancel(&self, actor: &Actor) -> Result<Vec<TableEvent<E>>, RuleError> {
        let Actor::Player { id } = actor else {
            return Err(RuleError::new(
                ErrorCode::NotSeated,
                "The server does not cancel games.",
            ));
        };
        let Some(seat) = self.seat_of(id) else {
            return Err(RuleError::new(
                ErrorCode::NotSeated,
                "You do not hold a seat in this game.",
            ));
        };
        match self.status {
            Status::Finished => return Err(RuleError::game_over()),
            Status::Active => {
                return Err(cancel_not_available(
                    "The game has begun: it can no longer be cancelled (resign instead).",
                ))
            }
            Status::Open => {}
        }
        if self.players.iter().flatten().count() > 1 {
            return Err(cancel_not_available(
                "Another player has taken a seat: the game can no longer be cancelled.",
            ));
        }
        Ok(vec![TableEvent::Finished {
            outcome: Outcome::win(
                Vec::new(),
                format!("cancelled by seat {seat} before anyone joined"),
            ),
        }])
    }

    fn decide_table(
        &self,
        seat: Seat,
        command: &TableCommand,
        ctx: &Context,
    ) -> Result<Vec<TableEvent<E>>, RuleError> {
        let two_players = self.setup.seats == 2;
        let draw_only_for_two = || {
            RuleError::new(
                ErrorCode::DrawNotAvailable,
                "Draws by agreement are for two-player games.",
            )
        };
        match command {
            TableCommand::Join { .. } => unreachable_join(),
            TableCommand::Cancel => Err(cancel_not_available(
                "The game has begun: it can no longer be cancelled (resign instead).",
            )),
            TableCommand::Resign => Ok(self.leave(&[seat], false, ctx)),
            TableCommand::ClaimTimeout => {
                let overdue = self.overdue(ctx.now, Some(seat));
                if overdue.is_empty() {
                    let others = self.remaining().into_iter().filter(|&s| s != seat);
                    let next = others
                        .filter_map(|s| self.clocks.get(s).and_then(SeatClock::deadline))
                        .min();
                    return Err(no_timeout(next));
                }
                Ok(self.leave(&overdue, true, ctx))
            }
            TableCommand::OfferDraw => {
                if !two_players {
                    return Err(draw_only_for_two());
                }
                match self.draw_offer {
                    Some(s) if s == seat => Err(RuleError::new(
                        ErrorCode::DrawAlreadyOffered,
                        "You have already offered a draw.",
                    )),
                    Some(_) => Err(RuleError::new(
                        ErrorCode::DrawAlreadyOffered,
                        "Your opponent has offered a draw: accept or decline it.",
                    )),
                    None => Ok(vec![TableEvent::DrawOffered { seat }]),
                }
            }
            TableCommand::RequestTakeback { .. } => unreachable_request(),
            TableCommand::AcceptTakeback => self.accept_takeback(seat, ctx),
            TableCommand::DeclineTakeback => match &self.takeback {
                Some(request) if request.seat != seat => {
                    Ok(vec![TableEvent::TakebackDeclined { seat }])
                }
                _ => Err(no_takeback()),
            },
            TableCommand::WithdrawTakeback => match &self.takeback {
                Some(request) if request.seat == seat => {
                    Ok(vec![TableEvent::TakebackWithdrawn { seat }])
                }
                _ => Err(RuleError::new(
                    ErrorCode::NoTakebackRequested,
                    "You have not asked for a takeback that waits for an answer.",
                )),
            },
            TableCommand::AcceptDraw | TableCommand::DeclineDraw => {
                if !two_players {
                    return Err(draw_only_for_two());
                }
                match self.draw_offer {
                    Some(s) if s != seat => {
                        if *command == TableCommand::DeclineDraw {
                            return Ok(vec![TableEvent::DrawDeclined { seat }]);
                        }
                        Ok(vec![
                            TableEvent::DrawAccepted { seat },
                            TableEvent::Finished {
                                outcome: Outcome::draw(2, "draw by agreement"),
                            },
                            seed_revealed(ctx),
                        ])
                    }
                    _ => Err(RuleError::new(
                        ErrorCode::NoDrawOffered,
                        "Your opponent has not offered a draw.",
                    )),
                }
            }
        }
    }

    /// A request counted in `turns` (the default: 1), or, as stored games hold it, to a raw
    /// `version`.
    fn request_takeback(
        &self,
        seat: Seat,
        turns: Option<u32>,
        version: Option<u64>,
        ctx: &Context,
    ) -> Result<Vec<TableEvent<E>>, Refusal> {
        if self.takeback.is_some() {
            return Err(RuleError::new(
                ErrorCode::TakebackPending,
                "A takeback is already asked for: it must be accepted or declined first.",
            )
            .into());
        }
        let (version, turns) =
            match (version, turns) {
                (Some(_), Some(_)) => return Err(RuleError::bad_command(
                    "Ask for a takeback with `turns` or, in a stored game, `version`: not both.",
                )
                .into()),
                (Some(version), None) => (version, None),
                (None, turns) => {
                    let turns = turns.unwrap_or(1);
                    (self.turn_start(seat, turns, ctx)?, Some(turns))
                }
            };
        let first = self.started_at.unwrap_or(self.version);
        if version < first || version >= self.version {
            return Err(RuleError::new(
                ErrorCode::BadTakebackVersion,
                format!(
                    "A takeback goes back to a version from {first} (the start of play) to {}.",
                    self.version - 1
                ),
            )
            .into());
        }
        let mut events = vec![TableEvent::TakebackRequested {
            seat,
            version,
            turns,
        }];
        if self.remaining().iter().all(|&s| s == seat) {
            // Nobody else to ask.
            events.extend(self.takeback_agreed(version, ctx));
        }
        Ok(events)
    }

    /// The version just before `seat`'s `turns`-th turn from its last, from the turns the
    /// context carries (read from the command log).
    fn turn_start(&self, seat: Seat, turns: u32, ctx: &Context) -> Result<u64, Refusal> {
        if turns == 0 {
            return Err(RuleError::new(
                ErrorCode::BadTakebackVersion,
                "A takeback goes back 1 turn or more (`turns` from 1).",
            )
            .into());
        }
        let history = ctx.turns().ok_or_else(|| {
            Refusal::fault("a takeback counted in turns was decided without the game's turns")
        })?;
        history.back(seat, turns).ok_or_else(|| {
            let played = history.count(seat);
            let message = match played {
                0 => "You have not moved yet in this game: there is no turn of yours to take back."
                    .to_string(),
                1 => format!("You have played 1 turn, so a takeback goes back 1 turn, not {turns}."),
                n => format!("You have played {n} turns, so a takeback goes back 1 to {n} turns, not {turns}."),
            };
            RuleError::new(ErrorCode::BadTakebackVersion, message).into()
        })
    }

    fn accept_takeback(&self, seat: Seat, ctx: &Context) -> Result<Vec<TableEvent<E>>, RuleError> {
        let Some(request) = self.takeback.as_ref().filter(|r| r.seat != seat) else {
            return Err(no_takeback());
        };
        if request.accepted.contains(&seat) {
            return Err(RuleError::new(
                ErrorCode::TakebackAlreadyAccepted,
                "You have already accepted this takeback.",
            ));
        }
        let mut events = vec![TableEvent::TakebackAccepted { seat }];
        let everyone = self
            .remaining()
            .into_iter()
            .filter(|&s| s != request.seat)
            .all(|s| s == seat || request.accepted.contains(&s));
        if everyone {
            events.extend(self.takeback_agreed(request.version, ctx));
        }
        Ok(events)
    }

    /// Every other seat accepted: play goes on in a fork, and this game ends as superseded.
    /// A game with hidden cards keeps its seed: it is sealed until the fork ends (see
    /// `sealed.rs`).
    fn takeback_agreed(&self, version: u64, ctx: &Context) -> Vec<TableEvent<E>> {
        let mut events = vec![
            TableEvent::TakebackAgreed { version },
            TableEvent::Finished {
                outcome: Outcome::win(
                    Vec::new(),
                    format!("superseded: taken back to version {version}, play goes on in a fork"),
                ),
            },
        ];
        if !E::info().hidden_information {
            events.push(seed_revealed(ctx));
        }
        events
    }

    /// The events that make this game, a copy of `parent` up to here, a fork of it, with
    /// `players` at the seats from now on, and in a timed game its clocks started at `now`.
    /// Only a game that has begun can be forked: before, there is nothing to play from that a
    /// new game would not give. `analysis` shows everything to everyone: the caller must only
    /// ask it where nothing is secret.
    pub fn fork(
        &self,
        parent: &str,
        players: Vec<Option<String>>,
        analysis: bool,
        now: DateTime<Utc>,
    ) -> Result<Vec<TableEvent<E>>, RuleError> {
        let mut events = self.forked(parent, players, analysis)?;
        if let Some(clock) = self.clock_after(&events, None, now) {
            events.push(clock);
        }
        Ok(events)
    }

    /// The `forked` event alone (see [`Table::fork`]).
    pub(super) fn forked(
        &self,
        parent: &str,
        players: Vec<Option<String>>,
        analysis: bool,
    ) -> Result<Vec<TableEvent<E>>, RuleError> {
        if self.status == Status::Open {
            return Err(RuleError::new(
                ErrorCode::ForkBeforeStart,
                "A game can be forked once it has begun; before, create a new game.",
            ));
        }
        if players.len() != self.setup.seats {
            return Err(RuleError::bad_command(format!(
                "A fork of this game has {} seats, not {}.",
                self.setup.seats,
                players.len()
            )));
        }
        Ok(vec![TableEvent::Forked {
            parent: parent.to_string(),
            version: self.version,
            players,
            analysis,
            commitment: None,
        }])
    }

    /// `seats` leave the game together, resigned or (`timed_out`) out of time. When one seat
    /// or none is left, the game ends with it as the winner (none when every seat ran out at
    /// once); otherwise the others play on and the engine retires each leaving seat, as the
    /// rules of each game allow.
    fn leave(&self, seats: &[Seat], timed_out: bool, ctx: &Context) -> Vec<TableEvent<E>> {
        let mut after = self.clone();
        let mut events = Vec::new();
        for &seat in seats {
            let left = if timed_out {
                TableEvent::TimedOut { seat }
            } else {
                TableEvent::Resigned { seat }
            };
            let _ = after.evolve(&left);
            events.push(left);
        }
        let remaining = after.remaining();
        if remaining.len() <= 1 {
            let who = seats
                .iter()
                .map(|s| format!("seat {s}"))
                .collect::<Vec<_>>()
                .join(" and ");
            let reason = match (self.setup.seats, timed_out) {
                (1, false) => "abandoned".to_string(),
                (_, false) => format!("{who} resigned"),
                (_, true) => format!("{who} ran out of time"),
            };
            events.push(TableEvent::Finished {
                outcome: Outcome::win(remaining, reason),
            });
            events.push(seed_revealed(ctx));
            return events;
        }
        for &seat in seats {
            for event in E::retire(&after.game, seat) {
                let event = TableEvent::Game { event };
                let _ = after.evolve(&event);
                events.push(event);
            }
        }
        self.close_if_over(events, ctx)
    }

    /// Appends `finished` and `seed_revealed` when the events end the game by its rules.
    fn close_if_over(&self, mut events: Vec<TableEvent<E>>, ctx: &Context) -> Vec<TableEvent<E>> {
        let outcome = if events
            .iter()
            .all(|event| matches!(event, TableEvent::Game { .. }))
        {
            // Only the game moved (a turn, the common case): the table's status is as it
            // was, and the game's state alone is folded (what of it the outcome needs), not a
            // copy of the whole table.
            if self.status != Status::Active {
                return events;
            }
            let mut game = E::lookahead(&self.game);
            for event in &events {
                if let TableEvent::Game { event } = event {
                    E::evolve(&mut game, event);
                }
            }
            E::outcome(&game)
        } else {
            let mut after = self.clone();
            for event in &events {
                // Our own events always fold.
                let _ = after.evolve(event);
            }
            if after.status != Status::Active {
                return events;
            }
            E::outcome(&after.game)
        };
        if let Some(outcome) = outcome {
            events.push(TableEvent::Finished { outcome });
            events.push(seed_revealed(ctx));
        }
        events
    }

    /// Every command `seat` may give now, with its notation: the game's legal commands, then
    /// the table's (resign, draw offers).
    pub fn legal(&self, seat: Seat) -> Vec<Legal<Command<E::Command>>> {
        if self.status != Status::Active || self.resigned.get(seat).copied().unwrap_or(true) {
            return Vec::new();
        }
        let mut legal: Vec<Legal<Command<E::Command>>> = E::legal(&self.game, seat)
            .into_iter()
            // With its consequence: a client warns of a command that loses at once.
            .map(|l| Legal {
                command: Command::Game(l.command),
                notation: l.notation,
                consequence: l.consequence,
            })
            .collect();
        let mut table = vec![TableCommand::Resign];
        if self.setup.seats == 2 {
            match self.draw_offer {
                None => table.push(TableCommand::OfferDraw),
                Some(s) if s != seat => {
                    table.push(TableCommand::AcceptDraw);
                    table.push(TableCommand::DeclineDraw);
                }
                Some(_) => {}
            }
        }
        if self
            .takeback
            .as_ref()
            .is_some_and(|r| r.seat != seat && !r.accepted.contains(&seat))
        {
            table.push(TableCommand::AcceptTakeback);
            table.push(TableCommand::DeclineTakeback);
        }
        if self.takeback.as_ref().is_some_and(|r| r.seat == seat) {
            table.push(TableCommand::WithdrawTakeback);
        }
        legal.extend(table.into_iter().map(|c| {
            let notation = c.notation();
            Legal::new(Command::Table(c), notation)
        }));
        legal
    }
}

fn no_timeout(next: Option<DateTime<Utc>>) -> RuleError {
    let when = match next {
        Some(deadline) => format!(" The next deadline is {deadline}."),
        None => String::new(),
    };
    RuleError::new(
        ErrorCode::NoTimeout,
        format!("No other seat has let its deadline pass.{when}"),
    )
}

fn cancel_not_available(message: &str) -> RuleError {
    RuleError::new(ErrorCode::CancelNotAvailable, message)
}

fn no_takeback() -> RuleError {
    RuleError::new(
        ErrorCode::NoTakebackRequested,
        "No other seat has asked for a takeback.",
    )
}

fn unreachable_join<T>() -> Result<T, RuleError> {
    Err(RuleError::bad_command("Join with the join endpoint."))
}

/// A takeback request is decided on its own (it may need the game's turns), so this answer is
/// never given; a refusal rather than a panic all the same.
fn unreachable_request<T>() -> Result<T, RuleError> {
    Err(RuleError::bad_command(
        "A takeback request is decided on its own.",
    ))
}

impl<C: Serialize> Serialize for Command<C> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Command::Table(c) => c.serialize(s),
            Command::Game(c) => c.serialize(s),
        }
    }
}

/// Where and why an imported record breaks: the reason of the game's end and the comment its
/// export writes.
pub(crate) fn record_break(half_turn: u32, text: &str, reason: &str) -> String {
    format!("the record breaks at half-turn {half_turn} ({text}): {reason}")
}
