//! Rule revisions (DESIGN.md, "Rule revisions"): "A game is decided and audited by the revision
//! of its rules recorded when it was created, so a correction of a rule never makes a stored
//! game invalid." Games are stored under revision 1 first, as they were before the
//! corrections, then replayed and audited.

use domain::audit::audit;
use domain::fairness::Seed;
use domain::log::GameLog;
use domain::table::Status;
use domain::testing::{created_under, play_random_log, play_random_log_under};
use domain::Registry;
use serde_json::json;

/// The games whose rules were revised, and the revision new games get.
const REVISED: [(&str, u32); 4] = [
    ("avalanche", 2),
    ("ski-runs", 3),
    ("altitude", 3),
    ("vamanos", 2),
];

/// The games whose end became an event decided with the command that causes it: the
/// revision before, and the revision that decides the end.
const END_DECIDED: [(&str, u32, u32); 3] =
    [("ski-runs", 2, 3), ("altitude", 2, 3), ("vamanos", 1, 2)];

/// The options random games are played with: Vamanos to a low target, so that they end.
fn options(kind: &str) -> Option<serde_json::Value> {
    (kind == "vamanos").then(|| json!({"target": 40}))
}

fn seed(game: u64) -> Seed {
    let mut bytes = [0x16u8; 32];
    bytes[..8].copy_from_slice(&game.to_le_bytes());
    Seed(bytes)
}

/// A random game of `kind` played to its end under `revision`.
fn stored_under(kind: &str, revision: u32, seats: usize, game: u64) -> GameLog {
    let registry = Registry::standard();
    let log = play_random_log_under(
        registry.get(kind).expect("kind"),
        revision,
        None,
        options(kind),
        seats,
        seed(game),
        game,
        5_000,
    )
    .unwrap_or_else(|e| panic!("{kind} game {game}: {e}"));
    let folded = registry
        .get(kind)
        .expect("kind")
        .fold(&log.payloads())
        .expect("the log folds");
    assert_eq!(
        folded.facts().status,
        Status::Finished,
        "{kind} game {game} ended"
    );
    log
}

/// The same log with its `created` event naming another revision.
fn as_if_created_under(log: &GameLog, revision: u32) -> GameLog {
    let mut log = log.clone();
    created_under(&mut log.events[0].payload, revision);
    log
}

#[test]
fn a_new_game_records_the_current_revision_of_its_rules() {
    let registry = Registry::standard();
    for (kind, revision) in REVISED {
        let created = registry
            .get(kind)
            .expect("kind")
            .create(None, None, 2, "c".repeat(64))
            .expect("created");
        assert_eq!(
            created.payload["setup"]["revision"],
            json!(revision),
            "{kind}"
        );
        assert_eq!(registry.get(kind).expect("kind").info().revision, revision);
    }
    // Avalanche Chess, whose rules never changed, is at revision 1, which `created` does not
    // write: its events are byte for byte those of the games stored before revisions existed.
    let chess = registry.get("avalanche-chess").expect("kind");
    assert_eq!(chess.info().revision, 1);
    let created = chess
        .create(None, None, 2, "c".repeat(64))
        .expect("created");
    assert_eq!(created.payload["setup"].get("revision"), None);
}

/// Every game keeps its revisions in its own `revision.rs`, whose `CURRENT` is the revision
/// `GET /v1/kinds` names and new games get.
#[test]
fn each_game_names_its_current_revision_in_its_revision_file() {
    use domain::games::{altitude, avalanche, chess, ski_runs, vamanos};
    let registry = Registry::standard();
    for (kind, current) in [
        ("avalanche-chess", chess::revision::CURRENT),
        ("avalanche", avalanche::revision::CURRENT),
        ("ski-runs", ski_runs::revision::CURRENT),
        ("vamanos", vamanos::revision::CURRENT),
        ("altitude", altitude::revision::CURRENT),
    ] {
        let info = registry.get(kind).expect("kind").info();
        assert_eq!(info.revision, current, "{kind}");
        let revisions: Vec<u32> = info.revisions.iter().map(|r| r.revision).collect();
        assert_eq!(revisions, (1..=current).collect::<Vec<_>>(), "{kind}");
    }
}

/// "a correction of a rule never makes a stored game invalid": games stored under revision 1
/// (their `created` names no revision, as before the corrections) replay and audit as valid;
/// audited as if created under revision 2, some of them diverge, so the revision recorded is
/// what decides them.
#[test]
fn games_stored_under_revision_1_still_replay_and_audit_as_valid() {
    let registry = Registry::standard();
    for (kind, revision) in REVISED {
        let mut diverged = 0;
        for game in 0..8 {
            let seats = 2 + (game as usize % 3);
            let log = stored_under(kind, 1, seats, game);
            assert_eq!(
                log.events[0].payload["setup"].get("revision"),
                None,
                "a game of revision 1 is stored as before"
            );
            let report = audit(&registry, &log, None)
                .unwrap_or_else(|d| panic!("{kind} game {game} under revision 1: {d}"));
            assert!(report.seed_verified);
            assert_eq!(report.status, Status::Finished);
            if audit(&registry, &as_if_created_under(&log, revision), None).is_err() {
                diverged += 1;
            }
        }
        assert!(
            diverged > 0,
            "no game of {kind} played under revision 1 used a rule that revision {revision} corrected"
        );
    }
}

/// New games are decided by the corrected rules, and audit as valid under them.
#[test]
fn new_games_play_and_audit_under_the_corrected_rules() {
    let registry = Registry::standard();
    for (kind, revision) in REVISED {
        for game in 0..4 {
            let log = play_random_log(
                registry.get(kind).expect("kind"),
                None,
                options(kind),
                2 + game as usize % 3,
                seed(100 + game),
                game,
                5_000,
            )
            .unwrap_or_else(|e| panic!("{kind} game {game}: {e}"));
            assert_eq!(log.events[0].payload["setup"]["revision"], json!(revision));
            audit(&registry, &log, None)
                .unwrap_or_else(|d| panic!("{kind} game {game} under revision {revision}: {d}"));
        }
    }
}

/// The end of the game as an event ("decide the end in `decide` (old streams keep
/// folding, by their rules revision)"): the same random game, played under the revision before and the
/// revision that decides the end, gives the same events but one, the `game_ended` that the
/// newer revision decides right before the table's `finished`. The older game still folds
/// and audits to the same finished state, its end found by the fold.
#[test]
fn the_end_is_decided_as_an_event_and_games_stored_before_still_end_as_they_did() {
    let registry = Registry::standard();
    for (kind, before, decided) in END_DECIDED {
        for game in 0..6 {
            let seats = 2 + (game as usize % 3);
            let old = stored_under(kind, before, seats, game);
            let new = stored_under(kind, decided, seats, game);
            let types = |log: &GameLog| -> Vec<String> {
                log.events.iter().map(|e| e.event_type.clone()).collect()
            };
            let (old_types, new_types) = (types(&old), types(&new));
            assert!(
                !old_types.iter().any(|t| t == "game.game_ended"),
                "{kind} game {game}: revision {before} records no end event"
            );
            let finished = new_types
                .iter()
                .position(|t| t == "finished")
                .expect("the new game finished");
            assert_eq!(
                new_types[finished - 1],
                "game.game_ended",
                "{kind} game {game}: the end is decided right before the table finishes it"
            );
            let mut without_end = new.events.clone();
            without_end.remove(finished - 1);
            assert_eq!(without_end.len(), old.events.len());
            for (a, b) in without_end.iter().zip(&old.events).skip(1) {
                assert_eq!(a.event_type, b.event_type, "{kind} game {game}");
                assert_eq!(a.payload, b.payload, "{kind} game {game}");
            }
            let old_report = audit(&registry, &old, None)
                .unwrap_or_else(|d| panic!("{kind} game {game} under revision {before}: {d}"));
            let new_report = audit(&registry, &new, None)
                .unwrap_or_else(|d| panic!("{kind} game {game} under revision {decided}: {d}"));
            assert_eq!(old_report.status, Status::Finished);
            assert_eq!(new_report.status, Status::Finished);
            assert!(old_report.outcome.is_some());
            assert_eq!(old_report.outcome, new_report.outcome, "{kind} game {game}");
            // Audited as if created under the newer revision, the old stream lacks the end
            // event the newer rules decide: the revision recorded is what decides it.
            assert!(audit(&registry, &as_if_created_under(&old, decided), None).is_err());
        }
    }
}

/// A game that names a revision this server does not know cannot be decided by its own rules:
/// it is refused, not played by other rules.
#[test]
fn a_game_of_an_unknown_revision_is_refused() {
    let registry = Registry::standard();
    for (kind, revision) in REVISED {
        let game = registry.get(kind).expect("kind");
        let mut created = game
            .create(None, None, 2, "c".repeat(64))
            .expect("created")
            .payload;
        created_under(&mut created, revision + 1);
        let error = game
            .fold(std::slice::from_ref(&created))
            .err()
            .expect("refused");
        assert!(
            error
                .to_string()
                .contains(&format!("revision {}", revision + 1)),
            "{error}"
        );
    }
}
