//! A tournament's mail. Every mail of a game paired in a tournament names the tournament,
//! round and table ("Spring Swiss, round 2, table 3"), as the club's book records the pairing
//! (and the game a takeback by consent goes on in at the same table). Each round's pairing is
//! mailed to each player in it who takes the start of their games by mail: the table, the
//! opponents by seat (White and Black in chess), the clock and the game's link, the first mail
//! of that game's conversation; a player without a game that round is told of the bye. The end
//! of a tournament is mailed to each player who takes the end of their games by mail, with
//! their rank and points and the standings. Each of these is one mail a player an event: its
//! id is the tournament's stream, the event's version and the player, so a derivation done
//! again (after a crash, or by the node that takes the mail lease over) queues nothing new.

use super::compose::{id_part, Letter};
use crate::club::tournament_export::{points_text, tie_break_text};
use crate::club::tournaments::GameTournament;
use crate::mail::Mail;
use crate::webhooks::notification::NotificationType;
use domain::tournament::{standings, Format, StandingRow, Tournament, TournamentEvent};
use serde::Deserialize;
use std::collections::HashSet;
use storage::Envelope;

/// Lines of the standings an end mail shows at most, besides the reader's own.
const TOP: usize = 10;

impl Mail {
    /// The tournament, round and table game `id` is played at, when it was paired in one (or
    /// goes on from a game that was, after a takeback by consent).
    pub(crate) fn tournament_of(&self, id: &str) -> Option<GameTournament> {
        self.club.tournament_of(id)
    }

    /// Whether game `id` is the game a tournament paired at its table (not one that goes on
    /// from it): the round's pairing mail told its players it starts.
    pub(crate) fn paired_in_tournament(&self, id: &str) -> bool {
        self.tournament_of(id)
            .is_some_and(|t| domain::tournament::game_id(&t.id, t.round, t.table) == id)
    }

    /// Queues the mail of the tournament event `envelope` holds, if it is a round's pairing
    /// or the end, to each of its players among `takers` who wants it. The club's book is
    /// read as folded up to `envelope` at least (the worker catches it up first).
    pub(crate) async fn mail_tournament(&self, envelope: &Envelope, takers: &HashSet<String>) {
        let Ok(event) = TournamentEvent::deserialize(&envelope.payload) else {
            return;
        };
        let (players, wanted, kind): (Vec<&String>, _, _) = match &event {
            TournamentEvent::RoundPaired { tables, byes, .. } => (
                tables.iter().flat_map(|t| &t.players).chain(byes).collect(),
                NotificationType::GameStarted,
                "round_paired",
            ),
            TournamentEvent::TournamentFinished { standings, .. } => (
                standings.iter().map(|row| &row.player).collect(),
                NotificationType::GameFinished,
                "tournament_finished",
            ),
            _ => return,
        };
        let readers: Vec<(&String, String)> = players
            .into_iter()
            .filter(|p| takers.contains(*p))
            .filter_map(|p| self.accounts.wants(p, wanted).map(|address| (p, address)))
            .collect();
        if readers.is_empty() {
            return;
        }
        let id = &envelope.stream;
        let Some(state) = self.tournament_at(id, envelope.version) else {
            tracing::warn!(tournament = %id, version = envelope.version, "mail: a tournament's event not in the club's book: not mailed");
            return;
        };
        // The standings as the last round left them (this round has no result yet), once for
        // every reader of a pairing after the first round.
        let before = match &event {
            TournamentEvent::RoundPaired { round, .. }
                if *round > 1
                    && state
                        .settings
                        .as_ref()
                        .is_some_and(|s| s.format != Format::KnockOut) =>
            {
                standings::standings(&state)
            }
            _ => Vec::new(),
        };
        for (player, to) in readers {
            let mut letter = Letter {
                id: id_part(&format!("{id}:{}:{player}:{kind}", envelope.version)),
                to,
                subject: String::new(),
                text: String::new(),
                reply_to: None,
                unsubscribe: Some(player.clone()),
                in_reply_to: None,
                link: None,
                still: None,
                turn: None,
            };
            let queued = match &event {
                TournamentEvent::RoundPaired { round, .. } => {
                    let game =
                        self.pairing_letter(&mut letter, (id, &state), (*round, &before), player);
                    match game {
                        // The first mail of the game's conversation: its turns answer it.
                        Some(game) => self.send_in_line(&letter, &game, player).await,
                        None => self.send(&letter).await,
                    }
                }
                _ => {
                    self.finished_letter(&mut letter, (id, &state), player);
                    self.send(&letter).await
                }
            };
            if let Err(error) = queued {
                tracing::error!(tournament = %id, %player, detail = %error.detail, "mail: cannot queue a tournament's mail");
            }
        }
    }

    /// Tournament `id` as its first `version` events fold, from the club's book.
    fn tournament_at(&self, id: &str, version: u64) -> Option<Tournament> {
        let book = self.club.read();
        let entry = book.tournaments.get(id)?;
        let count = usize::try_from(version).ok()?;
        (entry.events.len() >= count)
            .then(|| Tournament::fold(entry.events.iter().take(count).map(|(event, _)| event)))
    }

    /// Writes into `letter` the pairing of `round` of tournament `id` (as `state`, folded up
    /// to it) for `player`: their table, or their bye, and their place in `before`, the
    /// standings the round before left (none in the first round or a knock-out). Returns the
    /// game of their table.
    fn pairing_letter(
        &self,
        letter: &mut Letter,
        (id, state): (&str, &Tournament),
        (round, before): (u32, &[StandingRow]),
        player: &str,
    ) -> Option<String> {
        let settings = state.settings.as_ref()?;
        let name = |p: &str| self.players.name(p).unwrap_or_else(|| p.to_string());
        let kind = self.game_name(&settings.kind);
        let paired = state.rounds.iter().find(|r| r.number == round)?;
        let table = paired
            .tables
            .iter()
            .find(|t| t.players.iter().any(|p| p == player));
        let mut text = format!(
            "Hello {},\n\nRound {round} of {} is paired: {}.\n\n",
            name(player),
            settings.name,
            what_it_is(state, &kind),
        );
        let game = match table {
            Some(table) => {
                let seat_names = self
                    .repository
                    .registry()
                    .get(&settings.kind)
                    .map(|k| k.info().seating.names)
                    .unwrap_or_default();
                let opponents: Vec<String> = table
                    .players
                    .iter()
                    .filter(|p| p.as_str() != player)
                    .map(|p| name(p))
                    .collect();
                let at = GameTournament {
                    id: id.to_string(),
                    name: settings.name.clone(),
                    round,
                    table: table.table,
                };
                // The subject of every mail of the game after it.
                letter.subject = format!(
                    "Paired: {kind} with {} ({}) [{}]",
                    opponents.join(", "),
                    label(&at),
                    table.game
                );
                text.push_str(&format!(
                    "Your game is at table {}, {}:\n",
                    table.table, table.game
                ));
                for (seat, at) in table.players.iter().enumerate() {
                    let seat_name = seat_names
                        .get(seat)
                        .cloned()
                        .unwrap_or_else(|| format!("Seat {}", seat + 1));
                    let you = if at == player { " (you)" } else { "" };
                    text.push_str(&format!("  {seat_name}: {}{you}\n", name(at)));
                }
                text.push_str(&format!(
                    "\n{} You are mailed when it is your move: reply to that mail with your command.\n",
                    clock_text(settings)
                ));
                letter.link = Some(self.game_link(&table.game));
                Some(table.game.clone())
            }
            None => {
                letter.subject = format!("A bye for you: {}, round {round}", settings.name);
                text.push_str(&format!(
                    "You have a bye: no game for you this round. {}\n",
                    bye_text(settings.format)
                ));
                None
            }
        };
        if let Some(mine) = before.iter().find(|r| r.player == player) {
            text.push_str(&format!(
                "\nAfter round {}: {}.\n",
                round - 1,
                rank_text(before, mine)
            ));
        }
        text.push_str(&format!("\nThe tournament: {}\n", self.tournament_link(id)));
        letter.text = text;
        game
    }

    /// Writes into `letter` the end of tournament `id` (as `state`, finished) for `player`:
    /// their rank and points, and the standings (of their division, in a league).
    fn finished_letter(&self, letter: &mut Letter, (id, state): (&str, &Tournament), player: &str) {
        let Some(settings) = state.settings.as_ref() else {
            return;
        };
        let Some((rows, _)) = &state.finished else {
            return;
        };
        let name = |p: &str| self.players.name(p).unwrap_or_else(|| p.to_string());
        let kind = self.game_name(&settings.kind);
        let Some(mine) = rows.iter().find(|r| r.player == player) else {
            return;
        };
        // A league ranks each division on its own: the reader's division is theirs to read.
        let rows: Vec<&StandingRow> = rows
            .iter()
            .filter(|r| r.division == mine.division)
            .collect();
        let place = ordinal(mine.rank);
        letter.subject = match mine.division {
            Some(division) => format!(
                "{} is over: you finished {place} in division {division}",
                settings.name
            ),
            None => format!("{} is over: you finished {place}", settings.name),
        };
        let owned: Vec<StandingRow> = rows.iter().map(|r| (*r).clone()).collect();
        let mut text = format!(
            "Hello {},\n\n{} is over ({}). You finished {}.\n",
            name(player),
            settings.name,
            what_it_is(state, &kind),
            rank_text(&owned, mine),
        );
        if settings.format == Format::KnockOut {
            match mine.out_in_round {
                Some(round) => text.push_str(&format!("You went out in round {round}.\n")),
                None if mine.rank == 1 => text.push_str("You won it.\n"),
                None => {}
            }
        }
        let tie_breaks = standings::tie_break_names(settings.format, settings.seats);
        match mine.division {
            Some(division) => text.push_str(&format!("\nThe standings of division {division}:\n")),
            None => text.push_str("\nThe standings:\n"),
        }
        let width = rows
            .iter()
            .map(|r| name(&r.player).chars().count())
            .max()
            .unwrap_or(0)
            + " (you)".len();
        let points_width = rows
            .iter()
            .map(|r| points_text(r.points).chars().count())
            .max()
            .unwrap_or(0);
        let mut shown = 0;
        for row in &rows {
            if shown >= TOP && row.player != player {
                continue;
            }
            if shown == TOP {
                text.push_str("  ...\n");
            }
            shown += 1;
            let you = if row.player == player { " (you)" } else { "" };
            let who = format!("{}{you}", name(&row.player));
            let breaks: Vec<String> = tie_breaks
                .iter()
                .zip(&row.tie_breaks)
                .map(|(tie_break, value)| {
                    format!("{} {}", tie_break_words(tie_break), tie_break_text(*value))
                })
                .collect();
            let breaks = match breaks.is_empty() {
                true => String::new(),
                false => format!("  ({})", breaks.join(", ")),
            };
            text.push_str(&format!(
                "  {:>3}. {who:<width$}  {:<points_width$}{breaks}\n",
                row.rank,
                points_text(row.points),
            ));
        }
        text.push_str(&format!(
            "\nIts seed is revealed now: anyone may check every pairing and every standing again from its log (its export, and avalanche audit).\n\nThe tournament: {}\n",
            self.tournament_link(id)
        ));
        letter.text = text;
    }
}

/// "Spring Swiss, round 2, table 3": where a tournament's game is played.
pub(crate) fn label(t: &GameTournament) -> String {
    format!("{}, round {}, table {}", t.name, t.round, t.table)
}

/// The tournament in a few words: "a Swiss of Avalanche Chess over 4 rounds, rated, 10
/// players".
fn what_it_is(state: &Tournament, kind: &str) -> String {
    let Some(settings) = &state.settings else {
        return String::new();
    };
    let format = match settings.format {
        Format::RoundRobin => "a round robin",
        Format::Swiss => "a Swiss",
        Format::KnockOut => "a knock-out",
        Format::League => "a league",
    };
    let rounds = match (settings.format, settings.rounds) {
        (Format::Swiss, Some(rounds)) => format!(" over {rounds} rounds"),
        _ => String::new(),
    };
    let edition = match &settings.league {
        Some(league) if league.edition > 1 => format!(", edition {}", league.edition),
        _ => String::new(),
    };
    let rated = if settings.rated { "rated" } else { "unrated" };
    format!(
        "{format} of {kind}{rounds}{edition}, {rated}, {} players",
        state.order.len().max(state.players.len())
    )
}

/// What a bye gives, as the standings count it.
fn bye_text(format: Format) -> &'static str {
    match format {
        Format::Swiss => "A Swiss bye scores 1 point.",
        Format::KnockOut => "You go on to the next round.",
        Format::RoundRobin | Format::League => "A round-robin bye scores nothing.",
    }
}

/// The clock of the tournament's games.
fn clock_text(settings: &domain::tournament::Settings) -> String {
    match settings.time_control.allowance() {
        Some(allowance) => format!(
            "Each move must be made within {}.",
            super::clock::span(allowance)
        ),
        None => "There is no clock: take the time you want.".into(),
    }
}

/// "2nd of 10 with 3½ points" (shared when another player has the same rank), with the
/// division of a league; `rows` are the standings ranked together.
fn rank_text(rows: &[StandingRow], mine: &StandingRow) -> String {
    let shared = rows.iter().filter(|r| r.rank == mine.rank).count() > 1;
    let points = points_text(mine.points);
    let unit = if points == "1" || points == "½" {
        "point"
    } else {
        "points"
    };
    let division = match mine.division {
        Some(division) => format!(" in division {division}"),
        None => String::new(),
    };
    let in_division = rows.iter().filter(|r| r.division == mine.division).count();
    format!(
        "{}{} of {in_division}{division} with {points} {unit}",
        ordinal(mine.rank),
        if shared { " (shared)" } else { "" },
    )
}

/// 1st, 2nd, 3rd, 4th, 11th, 21st, ...
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A tie-break's name as players say it.
fn tie_break_words(name: &str) -> &str {
    match name {
        "sonneborn_berger" => "Sonneborn-Berger",
        "head_to_head" => "head-to-head",
        "buchholz" => "Buchholz",
        "game_score" => "game score",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::club::tournaments::{NewTournament, TournamentAct};
    use crate::club::Club;
    use crate::leases::Leases;
    use crate::mail::{MailSettings, LEASE};
    use crate::sealing::SecretsKey;
    use crate::Games;
    use std::sync::Arc;

    #[test]
    fn places_are_written_as_players_say_them() {
        let written: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            written,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
                "111th"
            ]
        );
    }

    /// A server's mail over `store`, with its club (another node's, when called again over
    /// the same store) and games.
    fn node(store: &Arc<dyn storage::Storage>, key: &Arc<SecretsKey>) -> (Mail, Arc<Club>, Games) {
        let registry = Arc::new(domain::Registry::standard());
        let club = Arc::new(Club::new(store.clone(), registry.clone()));
        let mail = Mail::new(
            store.clone(),
            Arc::new(crate::players::Players::new(store.clone())),
            club.clone(),
            registry.clone(),
            key.clone(),
            MailSettings {
                folder: Some(std::env::temp_dir()),
                ..MailSettings::default()
            },
        );
        let games = Games::new(store.clone(), registry.clone(), key.clone(), 64);
        (mail, club, games)
    }

    /// The tournament mails waiting in the outbox: their ids and subjects.
    fn tournament_mails(mail: &Mail) -> Vec<(String, String)> {
        let mut found: Vec<(String, String)> = mail
            .outbox
            .waiting()
            .expect("the outbox")
            .into_iter()
            .map(|queued| {
                let message = mail.outbox.open(&queued).expect("opened");
                let parsed = mail_parser::MessageParser::default()
                    .parse(&message)
                    .expect("a mail");
                (queued.id, parsed.subject().unwrap_or_default().to_string())
            })
            .collect();
        found.sort();
        found
    }

    /// Derives from the start of the log, as after a crash before the cursor moved on.
    async fn derive_again(mail: &Mail, leases: &Leases) {
        mail.repository
            .store()
            .put_record(
                super::super::outbox::CURSOR.0,
                super::super::outbox::CURSOR.1,
                b"0",
            )
            .expect("the cursor");
        super::super::worker::derive(mail, leases).await;
    }

    #[tokio::test]
    async fn a_rounds_pairing_is_queued_once_a_player_whoever_derives_it_and_however_often() {
        let store: Arc<dyn storage::Storage> = Arc::new(storage::MemoryStore::new());
        let key = Arc::new(SecretsKey::generate().expect("a key"));
        let (mail, club, games) = node(&store, &key);
        let players = ["p-ana", "p-ben", "p-cai", "p-dan", "p-eve"];
        // Every player but Eve takes mail.
        for player in &players[..4] {
            let code = mail
                .accounts
                .set_address(player, &format!("{}@players.test", &player[2..]))
                .await
                .expect("an address");
            mail.accounts
                .confirm(player, &code)
                .await
                .expect("confirmed");
        }
        let created = club
            .create_tournament(
                &games,
                players[0],
                NewTournament {
                    name: "Mail cup".into(),
                    kind: "avalanche-chess".into(),
                    variant: None,
                    options: None,
                    format: Format::Swiss,
                    seats: 2,
                    rounds: Some(2),
                    time_control: None,
                    rated: false,
                    entry_until: chrono::Utc::now() + chrono::Duration::days(1),
                    min_players: 2,
                    max_players: 16,
                    starts_at: None,
                    league: None,
                },
            )
            .await
            .expect("created");
        for player in players {
            club.tournament_act(&games, &created.id, player, TournamentAct::Join)
                .await
                .expect("joined");
        }
        let started = club
            .tournament_act(&games, &created.id, players[0], TournamentAct::Start)
            .await
            .expect("started");
        let round = &started.rounds_played[0];
        assert_eq!(round.tables.len(), 2, "five players: two tables and a bye");

        let leases = Leases::new(store.clone());
        assert!(leases.hold(LEASE));
        derive_again(&mail, &leases).await;
        let first = tournament_mails(&mail);
        let pairings: Vec<&(String, String)> = first
            .iter()
            .filter(|(id, _)| id.starts_with(&created.id))
            .collect();
        assert_eq!(
            pairings.len(),
            4,
            "one pairing mail to each player who takes mail, none to Eve: {first:#?}"
        );
        assert_eq!(
            pairings
                .iter()
                .filter(|(_, s)| s.starts_with("A bye for you: Mail cup, round 1"))
                .count(),
            usize::from(round.byes.iter().any(|p| p != "p-eve")),
            "{first:#?}"
        );
        for (_, subject) in &pairings {
            assert!(
                subject.starts_with("Paired: Avalanche Chess with ")
                    || subject.starts_with("A bye for you"),
                "{subject}"
            );
        }
        // Every mail of a game the tournament started names the tournament, round and table.
        let game_mails: Vec<&(String, String)> = first
            .iter()
            .filter(|(id, _)| id.starts_with("g-"))
            .collect();
        assert!(!game_mails.is_empty(), "the first movers' turn mails");
        for (_, subject) in &game_mails {
            assert!(subject.contains("(Mail cup, round 1, table "), "{subject}");
            assert!(
                !subject.starts_with("Game started"),
                "told by the pairing: {subject}"
            );
        }

        // Derived again from the start (a crash before the cursor was written), and again by
        // another node that takes the lease over with a club of its own: nothing new.
        derive_again(&mail, &leases).await;
        assert_eq!(tournament_mails(&mail), first);
        let (other, _, _) = node(&store, &key);
        derive_again(&other, &leases).await;
        assert_eq!(tournament_mails(&other), first);
    }
}
