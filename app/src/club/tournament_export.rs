//! A tournament taken away: its log as JSON (every event with its version and time, what
//! `avalanche audit` decides again without a server) and as text a person reads (the
//! standings, the crosstable and every round's tables, each with the games taken back by
//! consent that its game goes on from).

use super::tournaments::{not_found, TournamentOut};
use super::Club;
use crate::error::ApiError;
use chrono::{DateTime, Utc};
use domain::tournament::{self, Tournament, TournamentEvent};
use domain::Seed;
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use utoipa::ToSchema;

/// What a tournament's log says it is, beside its events: a game's log has no such field.
pub const LOG_FORMAT: &str = "avalanche-tournament-log";

/// A tournament's event log, as exported and as `avalanche audit` reads it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TournamentLog {
    /// Always `avalanche-tournament-log`.
    #[schema(example = "avalanche-tournament-log")]
    pub format: String,
    /// The tournament's id: its games' ids are derived from it.
    #[schema(example = "t-3f9a0c11d2e4b5a6")]
    pub tournament: String,
    /// Every event of its stream, in order.
    pub events: Vec<LoggedTournamentEvent>,
}

/// One event of a tournament's stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoggedTournamentEvent {
    /// From 1, without gaps.
    pub version: u64,
    /// When it was recorded: the decider is given this time again.
    pub recorded_at: DateTime<Utc>,
    /// The event as stored, its type in `type`.
    #[schema(value_type = Object)]
    pub payload: TournamentEvent,
}

/// Why a tournament's log is not sound.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    #[error("not a tournament's log: format is \"{0}\", not \"{LOG_FORMAT}\"")]
    Format(String),
    #[error("event {found} is numbered out of order: version {expected} was due")]
    Numbering { expected: u64, found: u64 },
    #[error(
        "the tournament has not finished, so its seed is still secret: only its server can \
         audit it now (GET /v1/tournaments/{{id}}/audit)"
    )]
    NotFinished,
    #[error("the revealed seed is not 64 hexadecimal digits")]
    Seed,
    #[error("invalid at {0}")]
    Diverges(#[from] tournament::Divergence),
}

impl TournamentLog {
    /// Every event decided again from the events before it, with the seed the log's
    /// finishing event reveals (checked against the commitment of its first): the tournament
    /// the log folds to, or where it and the decider part ways.
    pub fn audit(&self) -> Result<Tournament, LogError> {
        if self.format != LOG_FORMAT {
            return Err(LogError::Format(self.format.clone()));
        }
        for (at, event) in self.events.iter().enumerate() {
            let expected = at as u64 + 1;
            if event.version != expected {
                return Err(LogError::Numbering {
                    expected,
                    found: event.version,
                });
            }
        }
        let revealed = self.events.iter().find_map(|e| match &e.payload {
            TournamentEvent::TournamentFinished { seed, .. } => Some(seed),
            _ => None,
        });
        let seed =
            Seed::from_hex(revealed.ok_or(LogError::NotFinished)?).map_err(|_| LogError::Seed)?;
        let events: Vec<(TournamentEvent, DateTime<Utc>)> = self
            .events
            .iter()
            .map(|e| (e.payload.clone(), e.recorded_at))
            .collect();
        Ok(tournament::audit(&self.tournament, &events, &seed)?)
    }
}

impl Club {
    /// Tournament `id`'s log as the store holds it.
    pub async fn tournament_log(&self, id: &str) -> Result<TournamentLog, ApiError> {
        self.catch_up().await?;
        let book = self.read();
        let entry = book.tournaments.get(id).ok_or_else(|| not_found(id))?;
        Ok(TournamentLog {
            format: LOG_FORMAT.to_string(),
            tournament: id.to_string(),
            events: entry
                .events
                .iter()
                .zip(1..)
                .map(|((payload, recorded_at), version)| LoggedTournamentEvent {
                    version,
                    recorded_at: *recorded_at,
                    payload: payload.clone(),
                })
                .collect(),
        })
    }
}

/// Tournament points as a person writes them: `1`, `½`, `2½`, `0`.
pub(crate) fn points_text(points: f64) -> String {
    let halves = (points * 2.0).round() as i64;
    match (halves / 2, halves % 2) {
        (0, 1) => "½".to_string(),
        (whole, 1) => format!("{whole}½"),
        (whole, _) => whole.to_string(),
    }
}

/// A tie-break's value: whole and half numbers as points are written, others to two places.
pub(crate) fn tie_break_text(value: f64) -> String {
    if (value * 2.0).fract() == 0.0 {
        points_text(value)
    } else {
        format!("{value:.2}")
    }
}

/// `text` padded with spaces to `width` characters (as a reader counts them).
fn padded(text: &str, width: usize) -> String {
    let count = text.chars().count();
    format!("{text}{}", " ".repeat(width.saturating_sub(count)))
}

/// A format's or tie-break's stored name as words: `round_robin` is "round robin".
fn words<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
        .unwrap_or_default()
}

/// Tournament `t` as text: what it is, its standings with their tie-breaks, the crosstable
/// (row against column; `x` on the diagonal, `.` for a pair that never met) and each round's
/// tables with their results. Players are named by `name` (their id when it knows none).
pub fn tournament_text(t: &TournamentOut, name: impl Fn(&str) -> Option<String>) -> String {
    let named = |id: &str| name(id).unwrap_or_else(|| id.to_string());
    let s = &t.settings;
    let mut out = String::new();
    let _ = writeln!(out, "{}", s.name);
    let game = match &s.variant {
        Some(variant) => format!("{} ({variant})", s.kind),
        None => s.kind.clone(),
    };
    let _ = writeln!(
        out,
        "{game}, {}, {} seats a table{}, {}",
        words(&s.format),
        s.seats,
        if s.rated { ", rated" } else { "" },
        words(&t.status)
    );
    let _ = writeln!(out, "Tournament {}", t.id);
    let _ = writeln!(out, "Seed commitment (SHA-256): {}", s.seed_commitment);
    match &t.seed {
        Some(seed) => {
            let _ = writeln!(out, "Seed, revealed: {seed}");
        }
        None => {
            let _ = writeln!(out, "Seed: secret until the tournament ends");
        }
    }

    let names: Vec<String> = t.standings.iter().map(|r| named(&r.player)).collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let _ = writeln!(out, "\nStandings");
    let mut header = format!(
        "{:>4}  {}  {:>6}",
        "Rank",
        padded("Player", width),
        "Points"
    );
    for tie_break in &t.tie_breaks {
        let _ = write!(header, "  {}", words(tie_break));
    }
    let _ = writeln!(out, "{}  Games", header);
    for (row, player) in t.standings.iter().zip(&names) {
        let mut line = format!(
            "{:>4}  {}  {:>6}",
            row.rank,
            padded(player, width),
            points_text(row.points)
        );
        for (value, tie_break) in row.tie_breaks.iter().zip(&t.tie_breaks) {
            let column = words(tie_break).chars().count();
            let _ = write!(line, "  {:>column$}", tie_break_text(*value));
        }
        let _ = writeln!(out, "{line}  {:>5}", row.games);
    }

    let grid = t.crosstable.iter().any(|row| !row.against.is_empty());
    if !t.crosstable.is_empty() && !grid {
        by_rounds(&mut out, t, &names, width);
    }
    if grid {
        let _ = writeln!(out, "\nCrosstable");
        let cell = t.crosstable.len().to_string().len().max(2);
        let mut header = format!("{:>4}  {}", "", padded("", width));
        for column in 1..=t.crosstable.len() {
            let _ = write!(header, "  {column:>cell$}");
        }
        let _ = writeln!(out, "{header}  {:>6}", "Points");
        for (at, (row, player)) in t.crosstable.iter().zip(&names).enumerate() {
            let mut line = format!("{:>4}  {}", at + 1, padded(player, width));
            for (column, against) in row.against.iter().enumerate() {
                let text = match against {
                    _ if column == at => "x".to_string(),
                    Some(points) => points_text(*points),
                    None => ".".to_string(),
                };
                let _ = write!(line, "  {text:>cell$}");
            }
            let _ = writeln!(out, "{line}  {:>6}", points_text(row.points));
        }
    }

    for round in &t.rounds_played {
        let _ = writeln!(
            out,
            "\nRound {}{}",
            round.round,
            if round.closed { "" } else { " (under way)" }
        );
        for table in &round.tables {
            let players: Vec<String> = table.players.iter().map(|p| named(p)).collect();
            let result = match (&table.points, &table.result) {
                (Some(points), Some(result)) if points.len() == 2 => format!(
                    "{}-{} ({})",
                    points_text(points[0]),
                    points_text(points[1]),
                    result.reason
                ),
                (Some(points), Some(result)) => {
                    let each: Vec<String> = points.iter().map(|p| points_text(*p)).collect();
                    format!("{} ({})", each.join(", "), result.reason)
                }
                _ => "playing".to_string(),
            };
            let _ = writeln!(
                out,
                "  Table {}  {}  {}  {}{}",
                table.table,
                players.join(" - "),
                result,
                table.game,
                taken_back(&table.replaced)
            );
        }
        if !round.byes.is_empty() {
            let byes: Vec<String> = round.byes.iter().map(|p| named(p)).collect();
            let _ = writeln!(out, "  Bye: {}", byes.join(", "));
        }
    }
    out
}

/// What a table's game went on from, after its game: ` (goes on from g-… taken back by
/// consent)`, the games in order, the first the one paired; nothing for a table never taken
/// back.
fn taken_back(replaced: &[String]) -> String {
    match replaced {
        [] => String::new(),
        games => format!(
            " (goes on from {} taken back by consent)",
            games.join(", then ")
        ),
    }
}

/// The crosstable of a Swiss or a knock-out, where most never meet: a column a round, each
/// cell the crosstable lines of the others at the player's table and the points scored there
/// (`3:1`; `3:?` while the game runs; `bye`; `-` when not paired that round).
fn by_rounds(out: &mut String, t: &TournamentOut, names: &[String], width: usize) {
    let rounds = t.rounds_played.len();
    let cells: Vec<Vec<String>> = t
        .crosstable
        .iter()
        .map(|row| {
            (1..=rounds as u32)
                .map(
                    |number| match row.rounds.iter().find(|r| r.round == number) {
                        None => "-".to_string(),
                        Some(r) if r.opponents.is_empty() => "bye".to_string(),
                        Some(r) => {
                            let others: Vec<String> =
                                r.opponents.iter().map(ToString::to_string).collect();
                            let points = r.points.map_or("?".to_string(), points_text);
                            format!("{}:{points}", others.join(","))
                        }
                    },
                )
                .collect()
        })
        .collect();
    let cell = cells
        .iter()
        .flatten()
        .map(|c| c.chars().count())
        .chain([format!("R{rounds}").len()])
        .max()
        .unwrap_or(2);
    let _ = writeln!(out, "\nCrosstable (by rounds)");
    let mut header = format!("{:>4}  {}", "", padded("", width));
    for round in 1..=rounds {
        let _ = write!(header, "  {:>cell$}", format!("R{round}"));
    }
    let _ = writeln!(out, "{header}  {:>6}", "Points");
    for (at, ((row, player), cells)) in t.crosstable.iter().zip(names).zip(&cells).enumerate() {
        let mut line = format!("{:>4}  {}", at + 1, padded(player, width));
        for text in cells {
            let _ = write!(line, "  {text:>cell$}");
        }
        let _ = writeln!(out, "{line}  {:>6}", points_text(row.points));
    }
}

#[cfg(test)]
mod tests {
    use super::{points_text, tie_break_text};

    #[test]
    fn points_are_written_with_halves_as_a_person_writes_them() {
        let written: Vec<String> = [0.0, 0.5, 1.0, 2.5, 3.0].map(points_text).to_vec();
        assert_eq!(written, ["0", "½", "1", "2½", "3"]);
        assert_eq!(tie_break_text(3.25), "3.25");
        assert_eq!(tie_break_text(1.5), "1½");
    }
}
