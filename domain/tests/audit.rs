//! The audit: "re-decide every command, check the seed against its commitment and every deal
//! against the seed; report the first divergence" (DESIGN.md, Undo by fork, replay and audit).
//! Random games of every kind, played at the table as the service plays them, pass; a changed
//! card in a deal, a changed move, a removed event and a changed seed are each found at their
//! version.

use domain::audit::audit;
use domain::fairness::Seed;
use domain::games::chess::Variant;
use domain::log::GameLog;
use domain::records::{export_record, import_record};
use domain::testing::{play_random_log, test_time};
use domain::Registry;
use serde_json::{json, Value};

fn seed(kind: usize, game: u64) -> Seed {
    let mut bytes = [7u8; 32];
    bytes[0] = kind as u8;
    bytes[1..9].copy_from_slice(&game.to_le_bytes());
    Seed(bytes)
}

/// The kinds and setups the random games cover: every game, every seat count.
fn setups() -> Vec<(&'static str, Option<&'static str>, Option<Value>, usize)> {
    let mut all = Vec::new();
    for variant in ["standard", "balanced", "reversed", "balanced-reversed"] {
        all.push(("avalanche-chess", Some(variant), None, 2));
    }
    for seats in 2..=6 {
        all.push(("avalanche", None, None, seats));
        all.push(("ski-runs", None, None, seats));
        all.push(("vamanos", None, Some(json!({"target": 30})), seats));
    }
    for seats in 1..=4 {
        all.push(("altitude", None, None, seats));
    }
    all
}

fn random_log(
    kind: &str,
    variant: Option<&str>,
    options: Option<Value>,
    seats: usize,
    game: u64,
) -> GameLog {
    let registry = Registry::standard();
    play_random_log(
        registry.get(kind).expect("kind"),
        variant.map(str::to_string),
        options,
        seats,
        seed(seats, game),
        game,
        3_000,
    )
    .unwrap_or_else(|e| panic!("{kind} game {game}: {e}"))
}

fn finished(log: &GameLog) -> bool {
    log.events.iter().any(|e| e.event_type == "seed_revealed")
}

#[test]
fn every_finished_random_game_of_every_kind_passes_its_audit() {
    let registry = Registry::standard();
    let games_per_setup = 30;
    for (kind, variant, options, seats) in setups() {
        let mut ended = 0;
        for game in 0..games_per_setup {
            let log = random_log(kind, variant, options.clone(), seats, game);
            if !finished(&log) {
                continue;
            }
            ended += 1;
            let report = audit(&registry, &log, None)
                .unwrap_or_else(|d| panic!("{kind} ({seats} seats) game {game}: {d}"));
            assert!(report.seed_verified);
            assert_eq!(report.events, log.events.len() as u64);
            assert!(report.outcome.is_some());
        }
        assert!(
            ended > 0,
            "no random game of {kind} with {seats} seats ended"
        );
    }
}

/// The first finished game of `kind`.
fn a_finished_game(
    kind: &str,
    variant: Option<&str>,
    options: Option<Value>,
    seats: usize,
) -> GameLog {
    (0..50)
        .map(|game| random_log(kind, variant, options.clone(), seats, game))
        .find(finished)
        .expect("a random game ends")
}

/// Changes the first card of the first `cards` list of two different cards in `value`.
fn change_a_card(value: &mut Value) -> bool {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(cards)) = map.get_mut("cards") {
                if let Some(other) = cards.iter().skip(1).find(|c| **c != cards[0]).cloned() {
                    cards[0] = other;
                    return true;
                }
            }
            map.values_mut().any(change_a_card)
        }
        Value::Array(items) => items.iter_mut().any(change_a_card),
        _ => false,
    }
}

#[test]
fn a_changed_card_in_a_deal_is_found_at_its_version() {
    let registry = Registry::standard();
    for (kind, options) in [
        ("avalanche", None),
        ("ski-runs", None),
        ("vamanos", Some(json!({"target": 30}))),
        ("altitude", None),
    ] {
        let mut log = a_finished_game(kind, None, options, 3);
        let deal = log
            .events
            .iter_mut()
            .filter(|e| e.event_type.starts_with("game."))
            .find_map(|e| change_a_card(&mut e.payload).then_some(e.version));
        let version = deal.expect("a deal with cards");
        let divergence = audit(&registry, &log, None).expect_err("a stacked deal");
        assert_eq!(divergence.version, version, "{kind}: {divergence}");
        assert!(divergence.expected.is_some() && divergence.found.is_some());
    }
}

#[test]
fn a_changed_move_is_found_at_its_version() {
    let registry = Registry::standard();
    let log = a_finished_game("avalanche-chess", Some("standard"), None, 2);
    // The fifth command after the two joins: another legal-looking move in its place.
    let original = log.commands[6].clone();
    let mut changed_command = log.clone();
    changed_command.commands[6].command =
        Some(json!({"type": "turn", "move": "Nh3", "push": null}));
    let divergence = audit(&registry, &changed_command, None).expect_err("a changed command");
    assert_eq!(divergence.version, original.first_version, "{divergence}");

    // The stored event of a turn changed, its command kept.
    let mut changed_event = log.clone();
    let at = original.first_version as usize - 1;
    changed_event.events[at].payload["event"]["notation"] = json!("Qh5/a6");
    let divergence = audit(&registry, &changed_event, None).expect_err("a changed event");
    assert_eq!(divergence.version, original.first_version, "{divergence}");
}

#[test]
fn a_removed_event_is_found_at_its_version() {
    let registry = Registry::standard();
    let log = a_finished_game("avalanche", None, None, 2);
    let removed = 10;
    // Removed and the later versions renumbered, as a forger would.
    let mut renumbered = log.clone();
    renumbered.events.remove(removed - 1);
    for event in renumbered.events.iter_mut().skip(removed - 1) {
        event.version -= 1;
    }
    let divergence = audit(&registry, &renumbered, None).expect_err("a missing event");
    assert_eq!(divergence.version, removed as u64, "{divergence}");
    // Removed, leaving a gap.
    let mut gap = log.clone();
    gap.events.remove(removed - 1);
    let divergence = audit(&registry, &gap, None).expect_err("a gap");
    assert_eq!(divergence.version, removed as u64, "{divergence}");
}

#[test]
fn a_changed_seed_is_found_at_its_version() {
    let registry = Registry::standard();
    let mut log = a_finished_game("ski-runs", None, None, 2);
    let revealed = log
        .events
        .iter_mut()
        .find(|e| e.event_type == "seed_revealed")
        .expect("the seed is revealed");
    revealed.payload["seed"] = json!(Seed([1; 32]).to_hex());
    let version = revealed.version;
    let divergence = audit(&registry, &log, None).expect_err("a changed seed");
    assert_eq!(divergence.version, version);
    assert!(divergence.reason.contains("commitment"), "{divergence}");
}

#[test]
fn a_running_game_with_hidden_information_is_not_audited_without_its_seed() {
    let registry = Registry::standard();
    let log = play_random_log(
        registry.get("avalanche").unwrap(),
        None,
        None,
        2,
        seed(0, 0),
        0,
        5,
    )
    .unwrap();
    assert!(!finished(&log));
    assert!(audit(&registry, &log, None).is_err());
    let report = audit(&registry, &log, Some(seed(0, 0))).expect("with the server's seed");
    assert!(!report.seed_verified);
}

const CANONICAL: &str = "\
1. e4/a6 Nf6/a3
2. e5/h6 Nd5/h3
3. Nf3/b6 e6/b3
4. Bc4/c6 Bc5/d3
5. O-O/d6 dxe5/d4
6. Nxe5/f6 fxe5/c3
7. Qh5/b5+ g6/g3
8. Qxg6/b4+ Kd7/h4
9. Qf7/a5+ Resigns
1-0
";

#[test]
fn a_chess_record_imports_as_a_game_that_passes_its_audit_and_exports_again() {
    let registry = Registry::standard();
    let imported = import_record(
        &registry,
        CANONICAL,
        Variant::Standard,
        [None, None],
        seed(9, 9),
        test_time(),
        false,
    )
    .unwrap();
    let report = audit(&registry, &imported.log, None).expect("an imported record is sound");
    assert_eq!(report.outcome.unwrap().winners, vec![0]);
    let payloads: Vec<Value> = imported
        .log
        .events
        .iter()
        .map(|e| e.payload.clone())
        .collect();
    assert_eq!(export_record(&payloads, &[]).unwrap(), CANONICAL);
}

/// "a takeback request that every other seated player must accept": the superseded game's log
/// (request, acceptance, its end) passes the audit like any other.
#[test]
fn a_game_ended_by_an_accepted_takeback_passes_its_audit() {
    use domain::log::LogBuilder;
    let registry = Registry::standard();
    let kind = registry.get("avalanche-chess").unwrap();
    let now = test_time();
    let mut game = LogBuilder::create(kind, None, None, 2, seed(1, 1), "white", None, now).unwrap();
    game.play("black", json!({"type": "join"}), now).unwrap();
    game.play(
        "white",
        json!({"type": "turn", "move": "e4", "push": "a6"}),
        now,
    )
    .unwrap();
    let back_to = game.game().facts().version;
    game.play(
        "black",
        json!({"type": "turn", "move": "Nf6", "push": "a3"}),
        now,
    )
    .unwrap();
    let refused = game.play("white", json!({"type": "accept_takeback"}), now);
    assert_eq!(
        refused.unwrap_err().code(),
        Some(domain::ErrorCode::NoTakebackRequested)
    );
    game.play(
        "black",
        json!({"type": "request_takeback", "version": back_to}),
        now,
    )
    .unwrap();
    game.play("white", json!({"type": "accept_takeback"}), now)
        .unwrap();
    let outcome = game.game().facts().outcome.expect("the game is superseded");
    assert!(outcome.reason.starts_with("superseded"), "{outcome:?}");
    let log = game.finish();
    assert!(log.events.iter().any(|e| e.event_type == "takeback_agreed"));
    audit(&registry, &log, None).expect("a superseded game is sound");
}

/// The first game command (not a table command) `seat` may play in the builder's game.
fn first_move(game: &domain::log::LogBuilder, seat: usize) -> Value {
    game.game()
        .legal(seat)
        .into_iter()
        .map(|l| l.command)
        .find(|c| {
            let kind = c["type"].as_str().unwrap_or_default();
            !domain::table::TABLE_COMMAND_TYPES.contains(&kind)
        })
        .expect("a move")
}

/// The types of the events stored after version `after`.
fn types_after(game: &domain::log::LogBuilder, after: u64) -> Vec<String> {
    game.log()
        .events
        .iter()
        .filter(|e| e.version > after)
        .map(|e| e.event_type.clone())
        .collect()
}

/// A request counted in turns goes back to just before its seat's last turn and is withdrawn
/// when that seat moves again; a request stored with a raw version, as games were played
/// before, is decided again exactly as it was: no `turns` in its event, and its seat's move
/// leaves it standing. Both kinds of game pass their audit.
#[test]
fn takeback_requests_in_turns_and_as_stored_before_are_decided_again_as_they_were() {
    use domain::log::LogBuilder;
    let registry = Registry::standard();
    let kind = registry.get("avalanche-chess").unwrap();
    let now = test_time();
    let start = |n: u64| {
        let mut game =
            LogBuilder::create(kind, None, None, 2, seed(2, n), "white", None, now).unwrap();
        game.play("black", json!({"type": "join"}), now).unwrap();
        for seat in [0, 1, 0] {
            let player = ["white", "black"][seat];
            let command = first_move(&game, seat);
            game.play(player, command, now).unwrap();
        }
        game
    };

    // In turns: back to just before Black's move; withdrawn by Black's next move.
    let mut game = start(1);
    let black_turn = game.log().commands[3].first_version - 1;
    game.play("black", json!({"type": "request_takeback"}), now)
        .unwrap();
    let asked = game.log().events.last().unwrap().payload.clone();
    assert_eq!(asked["version"], black_turn, "{asked}");
    assert_eq!(asked["turns"], 1, "{asked}");
    let version = game.game().facts().version;
    let command = first_move(&game, 1);
    game.play("black", command, now).unwrap();
    assert_eq!(types_after(&game, version)[0], "takeback_withdrawn");
    let refused = game.play("white", json!({"type": "accept_takeback"}), now);
    assert_eq!(
        refused.unwrap_err().code(),
        Some(domain::ErrorCode::NoTakebackRequested)
    );
    audit(&registry, &game.finish(), None).expect("the new requests audit");

    // As stored before: a raw version, standing after its seat's move, then agreed.
    let mut game = start(2);
    game.play(
        "black",
        json!({"type": "request_takeback", "version": black_turn}),
        now,
    )
    .unwrap();
    let asked = game.log().events.last().unwrap().payload.clone();
    assert_eq!(
        asked,
        json!({"type": "takeback_requested", "seat": 1, "version": black_turn})
    );
    let version = game.game().facts().version;
    let command = first_move(&game, 1);
    game.play("black", command, now).unwrap();
    assert!(!types_after(&game, version).contains(&"takeback_withdrawn".to_string()));
    game.play("white", json!({"type": "accept_takeback"}), now)
        .unwrap();
    assert!(game
        .game()
        .facts()
        .outcome
        .unwrap()
        .reason
        .starts_with("superseded"));
    audit(&registry, &game.finish(), None).expect("the stored form audits as before");
}
