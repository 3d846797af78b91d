//! The mail worker: while this server holds the `mail` lease, it follows the event log from
//! its durable cursor, derives each player's notices (the webhooks' derivation,
//! [`notifications`]) into the outbox, and sends what the outbox holds: to the relay, or as
//! `.eml` files without one. A failed attempt is tried again later, waiting twice as long
//! each time; the `Message-ID` stays the same.

use super::compose::{id_part, Letter};
use super::outbox::Queued;
use crate::index;
use crate::leases::Leases;
use crate::mail::tag::ReplyTo;
use crate::mail::{Mail, LEASE};
use crate::webhooks::notification::{
    copied_past, game_started, notifications, Notification, NotificationType,
};
use chrono::Utc;
use domain::registry::LiveGame;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use storage::Envelope;

use super::outbox::CURSOR;
/// Events read at a time.
const PAGE: usize = 256;

pub fn run(mail: Arc<Mail>, leases: Arc<Leases>) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "the mail worker cannot start: no mail is sent");
            return;
        }
    };
    runtime.block_on(async move {
        let mut transport: Option<lettre::SmtpTransport> = None;
        let mut last_prune = std::time::Instant::now();
        let mut holding = false;
        let mut told_held = false;
        loop {
            let sender = leases.hold(LEASE);
            mail.counters.sender.store(sender, Ordering::Relaxed);
            if !sender {
                holding = false;
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
            if !holding {
                // Taken (at start, or from a node that stopped): the clocks to warn of are
                // those of the games as they stand, whoever followed them until now.
                holding = true;
                mail.watch_running_clocks();
            }
            derive(&mail, &leases).await;
            mail.queue_clock_notices(Utc::now()).await;
            match mail.held() {
                None => {
                    told_held = false;
                    send_due(&mail, &leases, &mut transport).await;
                }
                Some(why) if !told_held => {
                    told_held = true;
                    tracing::warn!(%why, "the outbox is held: no mail is sent until the operator releases it (POST /mail/release on the admin listener)");
                }
                Some(_) => {}
            }
            if last_prune.elapsed() > Duration::from_secs(3600) {
                mail.outbox.prune().await;
                mail.prune_clock_notices().await;
                mail.quotas.prune().await;
                last_prune = std::time::Instant::now();
            }
            tokio::time::sleep(mail.settings.poll).await;
        }
    });
}

fn load_cursor(mail: &Mail) -> Option<u64> {
    let bytes = mail
        .repository
        .store()
        .get_record(CURSOR.0, CURSOR.1)
        .ok()??;
    String::from_utf8(bytes).ok()?.parse().ok()
}

async fn store_cursor(mail: &Mail, cursor: u64) {
    let value = cursor.to_string();
    if let Err(error) = mail
        .repository
        .store()
        .put_record_async(CURSOR.0, CURSOR.1, value.as_bytes())
        .await
    {
        tracing::error!(%error, "cannot store the mail cursor");
    }
}

/// Derives the notices of the events after the cursor into the outbox, up to the end of the
/// log as it stood when the pass began.
pub(super) async fn derive(mail: &Mail, leases: &Leases) {
    let store = mail.repository.store();
    // The end of this pass, taken before the players who take mail are read: a player whose
    // address was confirmed before an event up to here was stored is among them.
    let until = *store.subscribe_all().borrow();
    let mut cursor = match load_cursor(mail) {
        Some(cursor) => cursor,
        None => {
            // The first start: mail is about what happens from now on.
            store_cursor(mail, until).await;
            until
        }
    };
    if cursor >= until {
        return;
    }
    let takers = match mail.accounts.takers() {
        Ok(takers) => takers,
        Err(error) => {
            tracing::warn!(%error, "mail: cannot read who takes mail");
            return;
        }
    };
    if takers.is_empty() {
        // Nobody takes game mail: these events owe nobody a notice, and are not read.
        store_cursor(mail, until).await;
        return;
    }
    // The club's book up to the end of this pass at least: it says which tournament, round
    // and table a game was paired in, and holds the tournaments' events.
    if let Err(error) = mail.club.catch_up_to(until).await {
        tracing::warn!(error = %error.detail, "mail: cannot fold the event log into the club's book");
        return;
    }
    loop {
        let page = match store.read_all(cursor, PAGE) {
            Ok(page) => page,
            Err(error) => {
                tracing::warn!(%error, "mail: cannot read the event log");
                return;
            }
        };
        let start = cursor;
        // The players of each game met in this page, read once a page.
        let mut players: HashMap<String, Vec<String>> = HashMap::new();
        for envelope in &page {
            if envelope.position <= cursor {
                continue;
            }
            if envelope.position > until || !leases.holds(LEASE) {
                break;
            }
            cursor = follow(mail, envelope, &takers, &mut players)
                .await
                .unwrap_or(envelope.position);
        }
        if cursor == start {
            return;
        }
        store_cursor(mail, cursor).await;
        if cursor >= until {
            return;
        }
    }
}

/// Handles the batch `envelope` begins; returns the position after it.
async fn follow(
    mail: &Mail,
    envelope: &Envelope,
    takers: &HashSet<String>,
    players: &mut HashMap<String, Vec<String>>,
) -> Option<u64> {
    if envelope
        .stream
        .starts_with(crate::notices::CHALLENGE_PREFIX)
    {
        mail.mail_challenge(envelope, takers).await;
        return None;
    }
    if envelope
        .stream
        .starts_with(crate::notices::TOURNAMENT_PREFIX)
    {
        mail.mail_tournament(envelope, takers).await;
        return None;
    }
    if !envelope.stream.starts_with("g-") {
        return None;
    }
    let store = mail.repository.store();
    let seated = match players.get(&envelope.stream) {
        Some(seated) => seated,
        None => {
            let tags = store.tags(&envelope.stream).unwrap_or_default();
            if !index::listed(&tags) {
                // Nobody's for now, and not remembered (see `index::listed`): its last batch
                // may come later in this page.
                return None;
            }
            let seated = tags
                .into_iter()
                .filter(|(name, _)| name == index::PLAYER)
                .map(|(_, player)| player)
                .collect();
            players.entry(envelope.stream.clone()).or_insert(seated)
        }
    };
    let interested: Vec<String> = seated
        .iter()
        .filter(|player| takers.contains(*player))
        .cloned()
        .collect();
    if interested.is_empty() {
        // Each event of the batch comes here in turn, and is passed by as cheaply.
        mail.clock_watch.set(&envelope.stream, Vec::new());
        return None;
    }
    let command = match store.command(&envelope.stream, envelope.version) {
        Ok(Some(command)) => command,
        _ => return None,
    };
    match notify(
        mail,
        &envelope.stream,
        command.first_version,
        command.last_version,
        &interested,
    )
    .await
    {
        Ok(Some(after)) => mail.watch_clocks(&envelope.stream, after.as_ref()),
        Ok(None) => {}
        Err(error) => {
            tracing::error!(game = %envelope.stream, version = envelope.version, %error, "mail: cannot derive notices")
        }
    }
    Some(command.last_position)
}

/// Derives the notices of one batch for the players who take mail, and queues them. Returns
/// the game after the batch (none for a copied past, which tells nothing).
async fn notify(
    mail: &Mail,
    game: &str,
    first_version: u64,
    last_version: u64,
    players: &[String],
) -> Result<Option<Box<dyn LiveGame>>, String> {
    let repository = &mail.repository;
    let count = (last_version + 1 - first_version) as usize;
    let events = repository
        .store()
        .read_stream(game, first_version - 1, count)
        .map_err(|e| e.to_string())?;
    // A fork or an import is written from a log: what its copied past tells, as webhooks.
    let logged_until = repository.logged_until(game).map_err(|e| e.to_string())?;
    let (silent, appears) = copied_past(logged_until, first_version, last_version, &events);
    if silent {
        return Ok(None);
    }
    let before = if appears {
        None
    } else {
        Some(
            repository
                .game_at(game, first_version - 1)
                .map_err(|e| e.to_string())?,
        )
    };
    let after = repository
        .game_at(game, last_version)
        .map_err(|e| e.to_string())?;
    // A game that goes on after an agreed takeback: its appearance tells the players of the
    // game it supersedes that it was taken back, and where play goes on.
    let continued = match (
        &after.facts().parent,
        before.is_none(),
        after.facts().analysis,
    ) {
        (Some(origin), true, false) => mail
            .game_now(&origin.game)
            .ok()
            .filter(|parent| parent.facts().superseded)
            .map(|parent| (origin.game.clone(), parent)),
        _ => None,
    };
    let line = mail.line_of(game, after.as_ref());
    for player in players {
        if let Some((parent_id, parent)) = &continued {
            if let Some(address) = mail.accounts.wants(player, NotificationType::GameFinished) {
                let letter = mail.taken_back_letter(
                    (parent_id, parent.as_ref()),
                    (game, after.as_ref()),
                    player,
                    &address,
                );
                if let Err(error) = mail.send_in_line(&letter, &line, player).await {
                    tracing::error!(%game, detail = %error.detail, "mail: cannot queue a takeback's notice");
                }
            }
        }
        // What mail carries of the derived notices (the player's stream has them all); the
        // start of a game is mail's own, below.
        let mut notices: Vec<_> = notifications(before.as_deref(), after.as_ref(), &events, player)
            .into_iter()
            .filter(|n| n.kind_of_notification.delivered())
            // The end of a game taken back is told once the game that goes on is written,
            // naming it (above).
            .filter(|n| {
                !(n.kind_of_notification == NotificationType::GameFinished
                    && after.facts().superseded)
            })
            // A turn told again (seats that act at once) is for programs: a player by mail
            // was told the turn once, and replies to that mail whenever they like.
            .filter(|n| {
                !(n.kind_of_notification == NotificationType::YourTurn && n.by_seat.is_some())
            })
            .collect();
        // The start of a game is told once: in the turn notice of a seat that moves first
        // (when it takes those), or on its own; a tournament's game, by its round's pairing.
        let mut started_in_turn = false;
        if let Some(started) = game_started(after.as_ref(), &events, player) {
            let turn = notices
                .iter()
                .any(|n| n.kind_of_notification == NotificationType::YourTurn);
            if turn
                && mail
                    .accounts
                    .wants(player, NotificationType::YourTurn)
                    .is_some()
            {
                started_in_turn = true;
            } else if !mail.paired_in_tournament(game) {
                notices.insert(0, started);
            }
        }
        for notice in notices {
            let Some(address) = mail.accounts.wants(player, notice.kind_of_notification) else {
                continue;
            };
            let letter = mail.notice_letter(after.as_ref(), &notice, &address, started_in_turn);
            if let Err(error) = mail.send_in_line(&letter, &line, player).await {
                tracing::error!(notice = %notice.id, %error, "mail: cannot queue a notice");
            }
        }
    }
    Ok(Some(after))
}

impl Mail {
    /// The names of the players at the other seats of `game`.
    pub(crate) fn opponents(&self, game: &dyn LiveGame, player: &str) -> Vec<String> {
        game.facts()
            .players
            .iter()
            .flatten()
            .filter(|p| p.as_str() != player)
            .map(|p| self.players.name(p).unwrap_or_else(|| p.clone()))
            .collect()
    }

    /// An outcome in words for the reader at `seat`: "a draw (agreed)", "you won (checkmate)",
    /// "Bob won (on time)", with the scores by name for games that score.
    pub(crate) fn result_text(
        &self,
        game: &dyn LiveGame,
        outcome: &domain::Outcome,
        seat: usize,
    ) -> String {
        let names = self.seat_names(game);
        let name = |s: usize| names.get(s).cloned().unwrap_or_else(|| format!("seat {s}"));
        let who = if outcome.draw {
            "a draw".to_string()
        } else if outcome.winners.is_empty() {
            "nobody won".to_string()
        } else if outcome.winners == [seat] {
            "you won".to_string()
        } else {
            let winners: Vec<String> = outcome
                .winners
                .iter()
                .map(|&s| if s == seat { "you".into() } else { name(s) })
                .collect();
            format!("{} won", winners.join(" and "))
        };
        let mut text = format!("{who} ({})", outcome.reason);
        if let Some(scores) = &outcome.scores {
            let scores: Vec<String> = scores
                .iter()
                .enumerate()
                .map(|(s, score)| format!("{} {score}", name(s)))
                .collect();
            text.push_str(&format!("; scores: {}", scores.join(", ")));
        }
        text
    }

    /// The names of the players by seat ("an open seat" for one not taken).
    pub(crate) fn seat_names(&self, game: &dyn LiveGame) -> Vec<String> {
        game.facts()
            .players
            .iter()
            .map(|p| match p {
                Some(p) => self.players.name(p).unwrap_or_else(|| p.clone()),
                None => "an open seat".into(),
            })
            .collect()
    }

    /// The game by its name and the players against `player`: "Avalanche Chess with Bob".
    pub(crate) fn game_line(&self, game: &dyn LiveGame, player: &str) -> String {
        let opponents = match self.opponents(game, player) {
            names if names.is_empty() => "yourself".to_string(),
            names => names.join(", "),
        };
        format!("{} with {opponents}", self.game_name(game.facts().kind))
    }

    /// A kind's name for players ("Avalanche Chess"), or its id should it have none.
    pub(crate) fn game_name(&self, kind: &str) -> String {
        self.repository
            .registry()
            .get(kind)
            .map(|k| k.info().name)
            .unwrap_or_else(|| kind.to_string())
    }

    /// The position as `player`'s view shows it, drawn by the game; the legal commands of
    /// `seat` (the one they hold) when it is to act, every one, grouped as the game writes
    /// them; and every seat's clock.
    pub(crate) fn table_text(
        &self,
        game: &dyn LiveGame,
        player: &str,
        seat: Option<usize>,
    ) -> String {
        let names = self.seat_names(game);
        let mut text = game.position_text(game.viewer_for(Some(player)), &names);
        let to_act = seat.filter(|s| game.facts().to_act.contains(s));
        if let (domain::table::Status::Active, Some(seat)) = (game.facts().status, to_act) {
            let legal = game.legal_at(seat, Utc::now());
            text.push_str(&format!(
                "\nYour legal commands ({}):\n{}",
                legal.len(),
                domain::text::command_list(
                    legal
                        .iter()
                        .map(|l| (l.notation.as_str(), l.consequence.as_ref()))
                )
            ));
        }
        text.push_str(&clocks_text(game, &names, seat));
        text
    }

    /// What the other seats did since `seat`'s own last command, in the game's words, as
    /// `player` may see it: one line an event, the last [`SINCE_LINES`] at most.
    pub(crate) fn since_last_turn(
        &self,
        id: &str,
        game: &dyn LiveGame,
        player: &str,
        seat: usize,
    ) -> String {
        let version = game.facts().version;
        let from = version.saturating_sub(SINCE_EVENTS as u64);
        let events = match self.repository.events(id, from, SINCE_EVENTS) {
            Ok(events) => events,
            Err(_) => return String::new(),
        };
        // The game as this mail shows it: nothing after it.
        let events: Vec<_> = events
            .into_iter()
            .filter(|e| e.version <= version)
            .collect();
        let own = format!("seat:{seat}");
        let start = events
            .iter()
            .rposition(|e| e.actor == own)
            .map(|at| at + 1)
            .unwrap_or(0);
        let names = self.seat_names(game);
        let viewer = game.viewer_for(Some(player));
        let lines: Vec<String> = events[start..]
            .iter()
            .filter(|e| e.actor != own)
            .filter_map(|e| {
                if e.payload["type"] == crate::messages::SAID {
                    return said_text(&self.repository, &e.payload, &names, (seat, player));
                }
                game.event_text(&e.payload, viewer, &names)
            })
            .collect();
        if lines.is_empty() {
            return String::new();
        }
        let skipped = lines.len().saturating_sub(SINCE_LINES);
        let mut text = String::from("Since your last turn:\n");
        if skipped > 0 {
            text.push_str(&format!("  ({skipped} earlier, at the table)\n"));
        }
        for line in &lines[skipped..] {
            text.push_str(&format!("  {line}\n"));
        }
        text.push('\n');
        text
    }

    /// The mail of one notice; `started`: a turn notice also tells that the game started.
    pub(crate) fn notice_letter(
        &self,
        game: &dyn LiveGame,
        notice: &Notification,
        to: &str,
        started: bool,
    ) -> Letter {
        // Every seat is the reader's own in an analysis fork: they play against themselves.
        let opponents = match self.opponents(game, &notice.player_id) {
            names if names.is_empty() => "yourself".to_string(),
            names => names.join(", "),
        };
        let kind = &self.game_name(&notice.kind);
        // The subject names the game line: a game that goes on after a takeback keeps the
        // subject of the game it continues.
        let line = self.line_of(&notice.game_id, game);
        let by = |seat: Option<usize>| {
            seat.and_then(|s| game.facts().players.get(s).cloned().flatten())
                .map(|p| self.players.name(&p).unwrap_or(p))
                .unwrap_or_else(|| "another seat".into())
        };
        let (head, intro, reply_hint) = match notice.kind_of_notification {
            NotificationType::YourTurn => (
                format!("Your move in {kind} with {opponents}"),
                format!(
                    "{}It is your move in {kind} against {opponents}.",
                    if started { STARTED } else { "" }
                ),
                REPLY_WITH_A_COMMAND,
            ),
            NotificationType::ClockLow => {
                let left = notice
                    .id
                    .rsplit(':')
                    .next()
                    .and_then(|s| s.parse::<i64>().ok())
                    .map(|s| super::clock::span(chrono::Duration::seconds(s)))
                    .unwrap_or_else(|| "little time".into());
                (
                    format!("Your clock: {left} left in {kind} with {opponents}"),
                    format!("Your clock runs low: {left} left for your move in {kind} against {opponents}. If the deadline passes, you lose on time."),
                    REPLY_WITH_A_COMMAND,
                )
            }
            NotificationType::GameStarted => {
                let first: Vec<String> = game
                    .facts()
                    .to_act
                    .iter()
                    .filter_map(|s| game.facts().players.get(*s).cloned().flatten())
                    .map(|p| self.players.name(&p).unwrap_or(p))
                    .collect();
                (
                    format!("Game started: {kind} with {opponents}"),
                    format!(
                        "Every seat is taken: your game of {kind} against {opponents} started. To act first: {}. You are mailed when it is your move.",
                        if first.is_empty() { "nobody".to_string() } else { first.join(", ") }
                    ),
                    "",
                )
            }
            NotificationType::Invited => (
                format!("{} invites you to {kind}", by(notice.by_seat)),
                format!("{} invites you to a game of {kind}: take a seat at the table (the link below). The game starts when every seat is taken.", by(notice.by_seat)),
                "",
            ),
            NotificationType::DrawOffered => (
                format!("{} offers a draw in {kind}", by(notice.by_seat)),
                format!("{} offers a draw in {kind}.", by(notice.by_seat)),
                "Reply with \"accept draw\" or \"decline draw\" on the first line.",
            ),
            NotificationType::TakebackRequested => (
                format!("{} asks for a takeback in {kind}", by(notice.by_seat)),
                format!("{} asks to take back play in {kind}.", by(notice.by_seat)),
                "Reply with \"accept takeback\" or \"decline takeback\" on the first line.",
            ),
            NotificationType::DrawDeclined => (
                format!("{} declined your draw offer in {kind}", by(notice.by_seat)),
                format!("{} declined your offer of a draw in {kind}: play goes on.", by(notice.by_seat)),
                "",
            ),
            NotificationType::TakebackDeclined => (
                format!("{} declined your takeback in {kind}", by(notice.by_seat)),
                format!("{} declined your request to take back play in {kind}: play goes on from the position below.", by(notice.by_seat)),
                "",
            ),
            NotificationType::TakebackWithdrawn => (
                format!("{} withdrew the takeback request in {kind}", by(notice.by_seat)),
                format!("{} played on: the takeback request is withdrawn.", by(notice.by_seat)),
                "",
            ),
            // Only on the player's stream (see `NotificationType::delivered`), never mailed, but
            // written should it ever be.
            NotificationType::OpponentMoved => (
                format!("{} moved in {kind}", by(notice.by_seat)),
                format!("{} moved in {kind}.", by(notice.by_seat)),
                "",
            ),
            NotificationType::Message => (
                format!("{} said something in {kind}", by(notice.by_seat)),
                format!("{} said something in {kind}.", by(notice.by_seat)),
                "",
            ),
            NotificationType::Challenged => (
                format!("A challenge to {kind}"),
                format!("Another player challenges you to a game of {kind}."),
                "",
            ),
            // A tournament's notices are not about one game: never a game's mail (see
            // `NotificationType::delivered`), but written should one ever be.
            NotificationType::RoundPaired
            | NotificationType::RoundClosed
            | NotificationType::TournamentFinished
            | NotificationType::NextEdition => (
                format!("A tournament of {kind} [{line}]"),
                format!("News of a tournament of {kind}."),
                "",
            ),
            NotificationType::GameFinished => {
                let result = match &notice.outcome {
                    Some(outcome) => self.result_text(game, outcome, notice.seat),
                    None => "over".into(),
                };
                (
                    format!("Game over: {kind} with {opponents}"),
                    format!("Your game of {kind} against {opponents} is over. Result: {result}"),
                    "",
                )
            }
        };
        // A tournament's game says where it is played: in the subject (the same in every mail
        // of the game) and first in the text.
        let (subject, intro) = match self.tournament_of(&notice.game_id) {
            Some(t) => (
                format!("{head} ({}) [{line}]", super::tournament::label(&t)),
                format!(
                    "{} ({}).\n{intro}",
                    super::tournament::label(&t),
                    self.tournament_link(&t.id)
                ),
            ),
            None => (format!("{head} [{line}]"), intro),
        };
        let since = match notice.kind_of_notification {
            NotificationType::YourTurn | NotificationType::ClockLow => {
                self.since_last_turn(&notice.game_id, game, &notice.player_id, notice.seat)
            }
            _ => String::new(),
        };
        let mut text = format!(
            "{intro}\n\n{since}{}",
            self.table_text(game, &notice.player_id, Some(notice.seat))
        );
        if !reply_hint.is_empty() {
            text.push_str(&format!("\n{reply_hint}\n"));
        }
        let replies = notice.kind_of_notification != NotificationType::GameFinished;
        Letter {
            id: id_part(&notice.id),
            to: to.to_string(),
            subject,
            text,
            reply_to: replies.then(|| ReplyTo {
                game: notice.game_id.clone(),
                seat: notice.seat,
                player: notice.player_id.clone(),
                version: game.facts().version,
            }),
            unsubscribe: Some(notice.player_id.clone()),
            in_reply_to: None,
            link: Some(self.game_link(&notice.game_id)),
            still: None,
            turn: (notice.kind_of_notification == NotificationType::YourTurn).then(|| {
                super::outbox::TurnStill {
                    game: notice.game_id.clone(),
                    seat: notice.seat,
                    player: notice.player_id.clone(),
                    version: game.facts().version,
                }
            }),
        }
    }
}

/// What a turn notice that also tells the start of the game says first.
const STARTED: &str = "Every seat is taken: the game started. ";

/// What a notice that a reply may answer with a move says of replying.
const REPLY_WITH_A_COMMAND: &str = "Reply to this mail with your command on the first line, written as in the list above (a chess piece's letter is a capital: B is a bishop, b the b-file; a card game's play may be its cards alone, such as \"play 7\"); resign, draw, accept, decline and takeback work too.";

/// Events read back for "Since your last turn".
const SINCE_EVENTS: usize = 256;
/// Lines of "Since your last turn" at most.
const SINCE_LINES: usize = 40;

/// Every seat's clock as it stands: the deadline of a running one, the time left of a paused
/// one, a seat not to move waiting; or that the game has no clock.
fn clocks_text(game: &dyn LiveGame, names: &[String], me: Option<usize>) -> String {
    let Some(allowance) = game.facts().time_control.allowance() else {
        return "\nClock: no time limit.\n".into();
    };
    let mut text = format!("\nClocks ({} a move):\n", super::clock::span(allowance));
    for (seat, clock) in game.facts().clocks.iter().enumerate() {
        let who = domain::text::seat_label(names, seat, me);
        let state = match clock {
            domain::table::SeatClock::Running { deadline } => format!(
                "to move, due by {} UTC",
                deadline.format("%Y-%m-%d %H:%M:%S")
            ),
            domain::table::SeatClock::Paused { remaining_ms } => format!(
                "on vacation, {} left",
                super::clock::span(chrono::Duration::milliseconds(*remaining_ms as i64))
            ),
            domain::table::SeatClock::Idle => "not to move, no clock running".into(),
        };
        text.push_str(&format!("  {who}: {state}\n"));
    }
    text
}

/// Sends every waiting mail that is due, while the lease is held.
async fn send_due(mail: &Mail, leases: &Leases, transport: &mut Option<lettre::SmtpTransport>) {
    let waiting = match mail.outbox.waiting() {
        Ok(waiting) => waiting,
        Err(error) => {
            tracing::warn!(%error, "mail: cannot read the outbox");
            return;
        }
    };
    let now = Utc::now();
    for queued in waiting.iter().filter(|q| q.next_at <= now) {
        if !leases.holds(LEASE) {
            return;
        }
        if let Some(player) = &queued.player {
            let address = mail.accounts.game_mail_address(player);
            if !address.is_some_and(|a| a.eq_ignore_ascii_case(&queued.to)) {
                tracing::info!(mail = %queued.id, "a game mail not sent: its player removed or changed the address, or unsubscribed");
                if let Err(error) = mail.outbox.sent(queued).await {
                    tracing::error!(mail = %queued.id, %error, "cannot drop a mail to a removed address");
                }
                continue;
            }
        }
        if let Some(still) = &queued.still {
            if !clock_runs(mail, still) {
                tracing::info!(mail = %queued.id, "a clock notice not sent: the seat moved, or its deadline passed");
                if let Err(error) = mail.outbox.sent(queued).await {
                    tracing::error!(mail = %queued.id, %error, "cannot drop a clock notice");
                }
                continue;
            }
        }
        let mut message = match mail.outbox.open(queued) {
            Ok(message) => message,
            Err(error) => {
                tracing::error!(mail = %queued.id, %error, "a mail in the outbox cannot be opened");
                continue;
            }
        };
        if let Some(turn) = &queued.turn {
            if !turn_still_due(mail, turn) {
                tracing::info!(mail = %queued.id, game = %turn.game, "a turn notice not sent: the player has acted since, or the seat no longer has to act");
                if let Err(error) = mail.outbox.sent(queued).await {
                    tracing::error!(mail = %queued.id, %error, "cannot drop a stale turn notice");
                }
                continue;
            }
            if let Some(now) = mail.turn_notice_now(queued, turn, &message) {
                tracing::info!(mail = %queued.id, game = %turn.game, "a turn notice rewritten: the game moved on since it was queued, and the turn is still the player's");
                message = now;
            }
        }
        match deliver(mail, queued, &message, transport) {
            Ok(place) => {
                mail.counters.sent.fetch_add(1, Ordering::Relaxed);
                tracing::info!(mail = %queued.id, to = %queued.to, %place, attempt = queued.attempts + 1, "mail sent");
                if let Err(error) = mail.outbox.sent(queued).await {
                    tracing::error!(mail = %queued.id, %error, "mail sent but not marked sent: it may be sent again");
                }
            }
            Err(Failure {
                error,
                permanent: true,
            }) => {
                // The relay refused the mail for good (5xx: no such user, refused content):
                // sending it again would be refused again, forever. It ends here.
                mail.counters.rejected.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(mail = %queued.id, to = %queued.to, %error, attempt = queued.attempts + 1, "mail refused for good by the relay: not tried again");
                if let Err(error) = mail.outbox.sent(queued).await {
                    tracing::error!(mail = %queued.id, %error, "cannot drop a mail the relay refused");
                }
            }
            Err(Failure { error, .. }) => {
                mail.counters.failed.fetch_add(1, Ordering::Relaxed);
                // A broken connection is made again at the next attempt.
                *transport = None;
                let wait = mail
                    .settings
                    .retry_min
                    .saturating_mul(1u32 << queued.attempts.min(20))
                    .min(mail.settings.retry_max);
                let next = Utc::now()
                    + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::seconds(600));
                tracing::warn!(mail = %queued.id, to = %queued.to, %error, attempt = queued.attempts + 1, retry_in_ms = wait.as_millis() as u64, "mail not sent");
                if let Err(error) = mail.outbox.failed(queued, &error, next).await {
                    tracing::error!(mail = %queued.id, %error, "cannot record a failed attempt");
                }
            }
        }
    }
}

/// Whether the turn a turn notice tells of is still the player's: the seat must act in the
/// game as it is now, and the player has not acted since the version the mail shows. A game
/// that cannot be read keeps its notice (a mail too many rather than a turn untold).
fn turn_still_due(mail: &Mail, turn: &super::outbox::TurnStill) -> bool {
    let game = match mail.game_now(&turn.game) {
        Ok(game) => game,
        Err(error) => {
            tracing::warn!(game = %turn.game, %error, "cannot read a game to check its turn notice");
            return true;
        }
    };
    if game.facts().status == domain::table::Status::Finished
        || !game.facts().to_act.contains(&turn.seat)
    {
        return false;
    }
    match mail.acted_since(
        &turn.game,
        turn.version,
        game.facts().version,
        &crate::mail::own_actors(game.as_ref(), &turn.player),
    ) {
        Ok(acted) => !acted,
        Err(error) => {
            tracing::warn!(game = %turn.game, %error, "cannot read a game's log to check its turn notice");
            true
        }
    }
}

impl Mail {
    /// The turn notice `queued` (whose whole mail is `message`) written again from the game as
    /// it is now, when the game moved on since it was queued (another seat acted, as seats
    /// that act at once do, or something was said at the table) while the turn is still the
    /// player's: a mail shows the position it is sent with, and its reply address is the
    /// turn's as it stands. The same `Message-ID`, thread and subject. `None`: the mail is
    /// sent as it was queued (the game did not move on, or cannot be read now).
    fn turn_notice_now(
        &self,
        queued: &Queued,
        turn: &super::outbox::TurnStill,
        message: &[u8],
    ) -> Option<Vec<u8>> {
        let game = self.game_now(&turn.game).ok()?;
        if game.facts().version <= turn.version {
            return None;
        }
        let old = mail_parser::MessageParser::default().parse(message)?;
        let header = |name: &str| -> Vec<String> {
            match old.header(name) {
                Some(mail_parser::HeaderValue::Text(id)) => vec![id.to_string()],
                Some(mail_parser::HeaderValue::TextList(ids)) => {
                    ids.iter().map(|id| id.to_string()).collect()
                }
                _ => Vec::new(),
            }
        };
        let answered = header("In-Reply-To").into_iter().next();
        let references = header("References");
        let started = old
            .body_text(0)
            .is_some_and(|text| text.contains(STARTED.trim()));
        let notice = mail_notice(
            (&queued.id, NotificationType::YourTurn),
            (&turn.game, game.as_ref()),
            (&turn.player, turn.seat),
        );
        let letter = self.notice_letter(game.as_ref(), &notice, &queued.to, started);
        self.compose_in_thread(&letter, answered.as_deref(), &references)
            .inspect_err(|error| tracing::warn!(mail = %queued.id, %error, "a turn notice cannot be written again: sent as queued"))
            .ok()
    }
}

/// A notice that mail makes of its own, not derived from a batch of events (a clock's warning,
/// a turn notice written again): `id` of `kind`, to `player` at `seat` of `game` as it is now.
pub(crate) fn mail_notice(
    (id, kind): (&str, NotificationType),
    (game_id, game): (&str, &dyn LiveGame),
    (player, seat): (&str, usize),
) -> Notification {
    Notification {
        id: id.to_string(),
        ..Notification::new(
            kind,
            (game_id, game.facts().kind),
            game.facts().version,
            (player, seat),
            Utc::now(),
        )
    }
}

/// Whether the clock a clock notice warns of still runs to its deadline.
fn clock_runs(mail: &Mail, still: &super::outbox::ClockStill) -> bool {
    match mail.game_now(&still.game) {
        Ok(game) => {
            game.facts().status == domain::table::Status::Active
                && game.facts().to_act.contains(&still.seat)
                && game
                    .facts()
                    .clocks
                    .get(still.seat)
                    .and_then(|c| c.deadline())
                    == Some(still.deadline)
                && still.deadline > Utc::now()
        }
        // Not known now: better a warning too many than none.
        Err(_) => true,
    }
}

/// Why a mail was not sent, and whether trying again could help.
struct Failure {
    error: String,
    /// The relay answered 5xx: the mail would be refused again.
    permanent: bool,
}

impl From<String> for Failure {
    fn from(error: String) -> Failure {
        Failure {
            error,
            permanent: false,
        }
    }
}

/// Sends one mail: to the relay, or into the outbox folder. Says where it went.
fn deliver(
    mail: &Mail,
    queued: &Queued,
    message: &[u8],
    transport: &mut Option<lettre::SmtpTransport>,
) -> Result<String, Failure> {
    use lettre::Transport;
    if let Some(relay) = &mail.settings.relay {
        if transport.is_none() {
            let built = lettre::SmtpTransport::from_url(relay)
                .map_err(|e| format!("--smtp-url: {e}"))?
                .timeout(Some(Duration::from_secs(30)))
                .build();
            *transport = Some(built);
        }
        let Some(transport) = transport.as_ref() else {
            return Err(String::from("no transport").into());
        };
        let from: lettre::Address = queued.from.parse().map_err(|e| format!("{e}"))?;
        let to: lettre::Address = queued.to.parse().map_err(|e| format!("{e}"))?;
        let envelope =
            lettre::address::Envelope::new(Some(from), vec![to]).map_err(|e| e.to_string())?;
        transport
            .send_raw(&envelope, message)
            .map_err(|e| Failure {
                permanent: e.is_permanent(),
                error: e.to_string(),
            })?;
        return Ok(super::outbox::without_password(relay));
    }
    let Some(folder) = &mail.settings.folder else {
        return Err(String::from("no relay and no outbox folder").into());
    };
    std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let path = folder.join(format!("{}.eml", queued.id));
    let part = folder.join(format!(".{}.eml.part", queued.id));
    std::fs::write(&part, message).map_err(|e| format!("{}: {e}", part.display()))?;
    std::fs::rename(&part, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path.display().to_string())
}

/// What another seat said at the table, as a turn mail tells it: "Ann said: Good luck!", a
/// text of several lines below its speaker. Nothing for the reader's own words (`reader`: its
/// seat and player), the spectators' room, a message hidden since, or a player it muted.
fn said_text(
    repository: &crate::repository::Repository,
    said: &serde_json::Value,
    names: &[String],
    (reader, player): (usize, &str),
) -> Option<String> {
    let seat = said["seat"].as_u64().map(|s| s as usize)?;
    if seat == reader {
        return None;
    }
    let text = crate::messages::table_text_for(repository, said, player)?;
    let who = domain::text::seat_name(names, seat);
    Some(if text.contains('\n') {
        let indented: Vec<String> = text
            .lines()
            .map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!("    {l}")
                }
            })
            .collect();
        format!("{who} said:\n{}", indented.join("\n"))
    } else {
        format!("{who} said: {text}")
    })
}
