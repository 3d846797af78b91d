//! `avalanche audit FILE`: the audit without a server, of a game log, a chess record or a
//! tournament's log; and
//! `avalanche ratings --recompute`: every rating folded again from a store's event log.

use crate::configuration::AuditArgs;
use app::club::tournament_export::{TournamentLog, LOG_FORMAT};
use domain::audit::audit;
use domain::games::chess::record::import;
use domain::games::chess::Variant;
use domain::log::GameLog;
use domain::Registry;
use std::fmt::Write;

/// Audits the file of `args`: whether it is sound, and what to print (a summary, or the first
/// failure).
pub fn audit_file(args: &AuditArgs) -> (bool, String) {
    let text = match std::fs::read_to_string(&args.file) {
        Ok(text) => text,
        Err(e) => return (false, format!("cannot read {}: {e}\n", args.file.display())),
    };
    audit_text(&text, args.kind.as_deref(), args.variant.as_deref())
}

/// Audits `text`: a JSON game log, or (for `avalanche-chess`, or text that is not JSON) a record.
pub fn audit_text(text: &str, kind: Option<&str>, variant: Option<&str>) -> (bool, String) {
    let looks_like_json = text.trim_start().starts_with('{');
    if looks_like_json && is_tournament_log(text) {
        return audit_tournament_log(text, kind);
    }
    if looks_like_json {
        return match serde_json::from_str::<GameLog>(text) {
            Ok(log) => audit_log(&log, kind),
            Err(e) => (false, format!("not a game log: {e}\n")),
        };
    }
    match kind {
        None | Some("avalanche-chess") => audit_record(text, variant),
        Some(other) => (
            false,
            format!("records are read for avalanche-chess; for {other}, give its JSON log\n"),
        ),
    }
}

/// Whether `text` says it is a tournament's log (`"format": "avalanche-tournament-log"`).
fn is_tournament_log(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|value| value["format"] == LOG_FORMAT)
}

/// A tournament's exported log, every event decided again with the seed it reveals.
fn audit_tournament_log(text: &str, kind: Option<&str>) -> (bool, String) {
    let log = match serde_json::from_str::<TournamentLog>(text) {
        Ok(log) => log,
        Err(e) => return (false, format!("not a tournament's log: {e}\n")),
    };
    match log.audit() {
        Ok(tournament) => {
            let Some(settings) = &tournament.settings else {
                return (false, "the log creates no tournament\n".into());
            };
            if let Some(kind) = kind.filter(|k| *k != settings.kind) {
                return (
                    false,
                    format!("the tournament is of {}, not {kind}\n", settings.kind),
                );
            }
            let mut out = String::new();
            let _ = writeln!(
                out,
                "valid: tournament {} \"{}\" of {}, {} events decided again",
                log.tournament,
                settings.name,
                settings.kind,
                log.events.len()
            );
            let _ = writeln!(
                out,
                "seed: revealed, matches its commitment; every seeding, pairing and standing follows from it"
            );
            let _ = writeln!(
                out,
                "rounds: {}, players: {}",
                tournament.rounds.len(),
                tournament.players.len()
            );
            if let Some((standings, _)) = &tournament.finished {
                for row in standings {
                    let _ = writeln!(out, "{}. {} {}", row.rank, row.player, row.points);
                }
            }
            (true, out)
        }
        Err(error) => (false, format!("{error}\n")),
    }
}

fn audit_log(log: &GameLog, kind: Option<&str>) -> (bool, String) {
    if let Some(kind) = kind {
        if kind != log.kind {
            return (false, format!("the log is of {}, not {kind}\n", log.kind));
        }
    }
    match audit(&Registry::standard(), log, None) {
        Ok(report) => {
            let mut out = String::new();
            let game = match report.variant.as_deref() {
                Some(variant) => format!("{} {variant}", report.kind),
                None => report.kind.clone(),
            };
            let _ = writeln!(
                out,
                "valid: {game}, {} events, {} commands decided again",
                report.events, report.commands
            );
            let _ = writeln!(
                out,
                "seed: {}",
                if report.seed_verified {
                    "revealed, matches its commitment; every deal follows from it"
                } else {
                    "not revealed yet"
                }
            );
            let _ = writeln!(out, "status: {}", report.status.as_str());
            if let Some(outcome) = &report.outcome {
                let _ = writeln!(
                    out,
                    "result: winners {:?}{} ({})",
                    outcome.winners,
                    if outcome.draw { ", drawn" } else { "" },
                    outcome.reason
                );
            }
            if let Some(fen) = report.view["fen"].as_str() {
                let _ = writeln!(out, "final position: {fen}");
            }
            (true, out)
        }
        Err(divergence) => {
            let mut out = format!(
                "invalid at version {}: {}\n",
                divergence.version, divergence.reason
            );
            if let Some(expected) = &divergence.expected {
                let _ = writeln!(out, "expected: {expected}");
            }
            if let Some(found) = &divergence.found {
                let _ = writeln!(out, "found:    {found}");
            }
            (false, out)
        }
    }
}

fn audit_record(text: &str, variant: Option<&str>) -> (bool, String) {
    let Some(variant) = Variant::from_id(variant) else {
        return (
            false,
            "unknown variant: standard, balanced, reversed or balanced-reversed\n".into(),
        );
    };
    match import(text, variant) {
        Ok(game) => {
            let result = match (&game.outcome, game.result, game.resigned) {
                (Some(outcome), _, _) => format!(
                    "{} ({})",
                    winners_text(&outcome.winners, outcome.draw),
                    outcome.reason
                ),
                (None, Some(result), Some(seat)) => format!(
                    "{} ({} resigned)",
                    result.text(),
                    if seat == 0 { "White" } else { "Black" }
                ),
                (None, Some(result), None) => format!("{} (as the record says)", result.text()),
                (None, None, _) => "none: the game goes on".into(),
            };
            (
                true,
                format!(
                    "valid: avalanche-chess {}, {} commands\nresult: {result}\nfinal position: {}\n",
                    variant.id(),
                    game.commands.len(),
                    game.final_fen
                ),
            )
        }
        Err(e) => (
            false,
            format!(
                "invalid at half-turn {} \"{}\"\nposition: {}\nreason: {}\n",
                e.half_turn, e.text, e.fen, e.reason
            ),
        ),
    }
}

fn winners_text(winners: &[usize], draw: bool) -> &'static str {
    match (draw, winners) {
        (true, _) => "1/2-1/2",
        (false, [0]) => "1-0",
        (false, [1]) => "0-1",
        _ => "*",
    }
}

/// Every rating folded from scratch from the store `args` names, as pretty JSON: the log's
/// position folded to, the number of games, and the ratings by pool then player.
pub fn recompute_ratings(args: &crate::configuration::RatingsArgs) -> Result<String, String> {
    if !args.recompute {
        return Err("say --recompute: the ratings are folded again from the event log".into());
    }
    let store: std::sync::Arc<dyn storage::Storage> = match &args.database {
        Some(url) => std::sync::Arc::new(
            storage::PostgresStore::open(url).map_err(|e| format!("cannot open {url}: {e}"))?,
        ),
        None => std::sync::Arc::new(
            storage::SledStore::open(&args.data)
                .map_err(|e| format!("cannot open {}: {e}", args.data.display()))?,
        ),
    };
    let book = app::club::recompute(store.as_ref(), &Registry::standard())
        .map_err(|e| e.detail.clone())?;
    serde_json::to_string_pretty(&app::club::Recomputed::from(&book)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::audit_text;
    use domain::testing::play_random_log;
    use domain::{Registry, Seed};

    #[test]
    fn a_game_without_a_variant_is_named_without_a_stray_space() {
        let registry = Registry::standard();
        let kind = registry.get("altitude").expect("offered");
        let log = play_random_log(kind, None, None, 2, Seed([3; 32]), 1, 2_000).expect("plays");
        let text = serde_json::to_string(&log).expect("writes");
        let (valid, out) = audit_text(&text, None, None);
        assert!(valid, "{out}");
        assert!(out.starts_with("valid: altitude, "), "{out}");
    }
}
