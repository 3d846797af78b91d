//! Records imported with their comments and annotation glyphs, which their export writes
//! again; check signs written from the rules' own position; and a record broken at a
//! half-turn, imported up to it with the break kept in the game, whose audit passes.

use domain::audit::audit;
use domain::fairness::Seed;
use domain::games::chess::record::{import, import_up_to_error};
use domain::games::chess::Variant;
use domain::log::LogBuilder;
use domain::records::{export_record, import_record, RecordError};
use domain::table::Status;
use domain::testing::test_time;
use domain::Registry;
use serde_json::json;

fn seed() -> Seed {
    Seed([5u8; 32])
}

/// A record as a player keeps it: a comment before the first move, glyphs attached and
/// spaced, brace and `;` comments, check marks missing and one that is wrong (`e5/h6+`).
const ANNOTATED: &str = "\
[White \"Betza\"]
{An early game of the variant}
1. e4/a6! Nf6/a3 ?! {the knight
comes out}
2. e5/h6+ Nd5/h3
3. Nf3/b6 e6/b3!!
4. Bc4/c6 Bc5/d3 ; both bishops out
5. O-O/d6 dxe5/d4
6. Nxe5/f6 fxe5/c3
7. Qh5/b5 g6/g3??
8. Qxg6/b4 Kd7/h4
9. Qf7/a5 Resigns
1-0
";

/// Its export: the comments and glyphs on the half-turns they followed, the check signs
/// where the rules see a check (and not the record's wrong one).
const ANNOTATED_EXPORT: &str = "\
{An early game of the variant}
1. e4/a6! Nf6/a3?! {the knight comes out}
2. e5/h6 Nd5/h3
3. Nf3/b6 e6/b3!!
4. Bc4/c6 Bc5/d3 {both bishops out}
5. O-O/d6 dxe5/d4
6. Nxe5/f6 fxe5/c3
7. Qh5/b5+ g6/g3??
8. Qxg6/b4+ Kd7/h4
9. Qf7/a5+ Resigns
1-0
";

/// The same game broken at half-turn 5: the king cannot go from e1 to e3.
const BROKEN: &str = "\
1. e4/a6 Nf6/a3 {developing}
2. e5/h6 Nd5/h3!?
3. Ke3/b6 {a king walk} e6/b3!!
4. Bc4/c6 Bc5/d3
1-0
";

#[test]
fn an_annotated_record_exports_with_its_comments_glyphs_and_the_rules_check_signs() {
    let registry = Registry::standard();
    let imported = import_record(
        &registry,
        ANNOTATED,
        Variant::Standard,
        [Some("Betza"), None],
        seed(),
        test_time(),
        false,
    )
    .unwrap();
    let report = audit(&registry, &imported.log, None).expect("an annotated import is sound");
    assert_eq!(report.status, Status::Finished);
    assert_eq!(report.outcome.unwrap().winners, vec![0]);
    // The notes are an event of the game, given by the server as it imported the record.
    let annotated: Vec<_> = imported
        .log
        .events
        .iter()
        .filter(|e| e.event_type == "annotated")
        .collect();
    assert_eq!(annotated.len(), 1);
    assert_eq!(annotated[0].actor.as_deref(), Some("system"));
    let text = export_record(&imported.log.payloads(), &[]).unwrap();
    assert_eq!(text, ANNOTATED_EXPORT);
    // The export reads back as the same game with the same notes.
    let again = import(&text, Variant::Standard).unwrap();
    let first = import(ANNOTATED, Variant::Standard).unwrap();
    assert_eq!(again.commands, first.commands);
    assert_eq!(again.notes, first.notes);
    assert_eq!(first.notes.len(), 6, "{:?}", first.notes);
}

#[test]
fn a_played_game_exports_with_the_check_signs_of_the_rules() {
    // Played through the service's commands, not imported: no record text to copy marks from.
    let registry = Registry::standard();
    let kind = registry.get("avalanche-chess").unwrap();
    let now = test_time();
    let mut game = LogBuilder::create(
        kind,
        Some("standard".into()),
        None,
        2,
        seed(),
        "ana",
        Some(0),
        now,
    )
    .unwrap();
    game.play("ben", json!({"type": "join", "seat": 1}), now)
        .unwrap();
    let turns = [
        ("ana", "e4", "a6"),
        ("ben", "Nf6", "a3"),
        ("ana", "e5", "h6"),
        ("ben", "Nd5", "h3"),
        ("ana", "Nf3", "b6"),
        ("ben", "e6", "b3"),
        ("ana", "Bc4", "c6"),
        ("ben", "Bc5", "d3"),
        ("ana", "O-O", "d6"),
        ("ben", "dxe5", "d4"),
        ("ana", "Nxe5", "f6"),
        ("ben", "fxe5", "c3"),
        ("ana", "Qh5", "b5"),
    ];
    for (player, mv, push) in turns {
        game.play(
            player,
            json!({"type": "turn", "move": mv, "push": push}),
            now,
        )
        .unwrap();
    }
    let text = export_record(&game.log().payloads(), &[]).unwrap();
    assert!(text.ends_with("6. Nxe5/f6 fxe5/c3\n7. Qh5/b5+\n"), "{text}");
    assert!(!text.contains("e5/h6+"), "{text}");
}

#[test]
fn a_broken_record_is_refused_unless_imported_up_to_its_break() {
    let registry = Registry::standard();
    let refused = import_record(
        &registry,
        BROKEN,
        Variant::Standard,
        [None, None],
        seed(),
        test_time(),
        false,
    )
    .unwrap_err();
    let RecordError::Illegal(error) = refused else {
        panic!("not an illegal half-turn: {refused:?}")
    };
    assert_eq!((error.half_turn, error.text.as_str()), (5, "Ke3/b6"));

    let imported = import_record(
        &registry,
        BROKEN,
        Variant::Standard,
        [None, None],
        seed(),
        test_time(),
        true,
    )
    .unwrap();
    assert_eq!(imported.broken.as_ref(), Some(&error));
    // The game stops at the position before the broken half-turn: nothing of it is kept.
    assert_eq!(imported.final_fen, error.fen);
    let report = audit(&registry, &imported.log, None).expect("a broken import audits clean");
    assert_eq!(report.status, Status::Finished);
    let outcome = report.outcome.unwrap();
    assert!(outcome.winners.is_empty() && !outcome.draw, "{outcome:?}");
    assert!(
        outcome
            .reason
            .starts_with("the record breaks at half-turn 5 (Ke3/b6): "),
        "{}",
        outcome.reason
    );
    let types: Vec<&str> = imported
        .log
        .events
        .iter()
        .map(|e| e.event_type.as_str())
        .collect();
    assert_eq!(
        types.iter().filter(|t| **t == "game.turn_played").count(),
        4
    );
    let at = types.iter().position(|t| *t == "record_broken").unwrap();
    assert_eq!(&types[at..], ["record_broken", "finished", "seed_revealed"]);
    let broken = &imported.log.events[at];
    assert_eq!(broken.payload["half_turn"], 5);
    assert_eq!(broken.payload["text"], "Ke3/b6");
    assert_eq!(broken.payload["reason"], error.reason.as_str());
    let command = imported.log.commands.last().unwrap();
    assert_eq!(command.actor, "system");
    assert_eq!(command.command.as_ref().unwrap()["type"], "record_breaks");

    // Its export: the moves before the break with their notes (none of those after it), the
    // break as a comment, and no result.
    let text = export_record(&imported.log.payloads(), &[]).unwrap();
    assert_eq!(
        text,
        format!(
            "1. e4/a6 Nf6/a3 {{developing}}\n2. e5/h6 Nd5/h3!? {{the record breaks at half-turn 5 (Ke3/b6): {}}}\n*\n",
            error.reason
        )
    );
}

#[test]
fn a_record_that_goes_on_after_its_end_is_refused_even_up_to_its_error() {
    let record = "1. e4/a6 Nf6/a3\n2. Qh5/h6 Resigns\n3. Nf3/b6\n";
    let (game, error) = import_up_to_error(record, Variant::Standard).unwrap();
    let error = error.expect("half-turn 4 comes after the resignation");
    assert_eq!(error.half_turn, 4);
    assert!(game.result.is_none() && game.resigned.is_none());
    assert!(game.over_before_break);
    let registry = Registry::standard();
    let refused = import_record(
        &registry,
        record,
        Variant::Standard,
        [None, None],
        seed(),
        test_time(),
        true,
    );
    assert!(
        matches!(refused, Err(RecordError::Illegal(ref e)) if e.half_turn == 4),
        "{refused:?}"
    );
}

#[test]
fn only_the_server_records_a_break_or_annotations_and_only_well_formed_ones() {
    let registry = Registry::standard();
    let kind = registry.get("avalanche-chess").unwrap();
    let now = test_time();
    let mut game = LogBuilder::create(kind, None, None, 2, seed(), "ana", Some(0), now).unwrap();
    game.play("ben", json!({"type": "join", "seat": 1}), now)
        .unwrap();
    let breaks = json!({"type": "record_breaks", "half_turn": 1, "text": "e9", "reason": "no"});
    assert!(game.play("ana", breaks.clone(), now).is_err(), "a player");
    let bad_glyph = json!({"type": "annotate", "notes": [{"after": 1, "glyph": "!!!"}]});
    assert!(game.system(bad_glyph, now).is_err());
    let brace = json!({"type": "annotate", "notes": [{"after": 1, "comment": "a } b"}]});
    assert!(game.system(brace, now).is_err());
    let empty = json!({"type": "annotate", "notes": [{"after": 1}]});
    assert!(game.system(empty, now).is_err());
    let zero = json!({"type": "record_breaks", "half_turn": 0, "text": "e9", "reason": "no"});
    assert!(game.system(zero, now).is_err());
    assert_eq!(game.game().facts().status, Status::Active);
    game.system(breaks, now).unwrap();
    assert_eq!(game.game().facts().status, Status::Finished);
}
