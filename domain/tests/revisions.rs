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

/// The games whose rules were corrected, and the revision new games get.
const REVISED: [(&str, u32); 3] = [("avalanche", 2), ("ski-runs", 2), ("altitude", 2)];

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
        None,
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
        folded.status(),
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
    // Games whose rules never changed are at revision 1, which `created` does not write: their
    // events are byte for byte those of the games stored before revisions existed.
    for kind in ["avalanche-chess", "vamanos"] {
        let game = registry.get(kind).expect("kind");
        assert_eq!(game.info().revision, 1);
        let created = game.create(None, None, 2, "c".repeat(64)).expect("created");
        assert_eq!(created.payload["setup"].get("revision"), None, "{kind}");
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
                None,
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
