//! Records of Avalanche Chess: export in the canonical notation of the rules file, import of
//! every form the rules file lists, and refusal of an illegal record with the half-turn, the
//! text as written, the position before it and the reason.

use domain::games::chess::record::{export, import, ImportError, RecordResult};
use domain::games::chess::{Command, EndReason, Event, Variant};

/// The game in the canonical notation ("1. Nf3// Nf6/a3").
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

const FINAL: &str = "rnbq3r/3k1Q2/2p1p2p/p1bnp3/1pBP3P/PPP3P1/5P2/RNB2RK1 b - - 0 9";

/// The same game as players keep it, in every form the rules file lists.
const FORMS: [(&str, &str); 6] = [
    (
        "play-by-mail style: a comma, pushes from-to, `:` captures, `0-0`, no check marks",
        "1. e4,a7-a6 Nf6,a2-a3\n2. e5,h7-h6 Nd5,h2-h3\n3. Nf3,b7-b6 e6,b2-b3\n\
         4. Bc4,c7-c6 Bc5,d2-d3\n5. 0-0,d7-d6 d:e5,d3-d4\n6. N:e5,f7-f6 f:e5,c2-c3\n\
         7. Qh5,b6-b5 g6,g2-g3\n8. Q:g6,b5-b4 Kd7,h3-h4\n9. Qf7,a6-a5\n9... Resigns\n",
    ),
    (
        "play-by-mail style with push squares only, spaced commas, one half-turn a line",
        "1. e4, a6\n1... Nf6, a3\n2. e5, h6\n2... Nd5, h3\n3. Nf3, b6\n3... e6, b3\n\
         4. Bc4, c6\n4... Bc5, d3\n5. O-O, d6\n5... dxe5, d4\n6. Nxe5, f6\n6... fxe5, c3\n\
         7. Qh5, b5\n7... g6, g3\n8. Qxg6, b4\n8... Kd7, h4\n9. Qf7, a5\nBlack resigns\n",
    ),
    (
        "seed style with numbers attached, `00`, glyphs attached and spaced, wrong marks",
        "1.e4/a6! Nf6/a3 ?!\n2.e5/h6+ Nd5/h3\n3.Nf3/b6 e6/b3!!\n4.Bc4/c6 Bc5/d3 ?\n\
         5.00/d6 de5/d4\n6.Ne5/f6 fe5/c3\n7.Qh5/b5 g6/g3??\n8.Qg6+/b4 Kd7/h4\n9.Qf7#/a5 1-0\n",
    ),
    (
        "PGN-style tags, a comment, both half-turns on one line, `x` captures, `O-O`",
        "[Event \"Avalanche match\"]\n[White \"Betza\"]\n[Black \"Castelli\"]\n[Result \"1-0\"]\n\n\
         1. e4/a6 Nf6/a3 2. e5/h6 Nd5/h3 {a quiet start} 3. Nf3/b6 e6/b3 4. Bc4/c6 Bc5/d3\n\
         5. O-O/d6 dxe5/d4 6. Nxe5/f6 fxe5/c3 7. Qh5/b5+ g6/g3 8. Qxg6/b4+ Kd7/h4\n\
         9. Qf7/a5+ 1-0\n",
    ),
    (
        "UCI-style moves with seed-style pushes",
        "1. e2e4/a6 g8f6/a3 2. e4e5/h6 f6d5/h3 3. g1f3/b6 e7e6/b3 4. f1c4/c6 f8c5/d3\n\
         5. e1g1/d6 d6e5/d4 6. f3e5/f6 f6e5/c3 7. d1h5/b5 g7g6/g3 8. h5g6/b4 e8d7/h4\n\
         9. g6f7/a5\n",
    ),
    ("the canonical form", CANONICAL),
];

/// "The canonical record writes each half-turn as the move in Standard Algebraic Notation, then
/// `/` and the **destination square** of the push, or `//` when the turn had no push."
#[test]
fn a_game_exports_in_the_canonical_notation() {
    let game = import(CANONICAL, Variant::Standard).unwrap();
    assert_eq!(game.resigned, Some(1));
    assert_eq!(game.result, Some(RecordResult::WhiteWins));
    assert_eq!(export(&game.events, &[], game.resigned), CANONICAL);
    let tags = vec![("Variant".to_string(), "standard".to_string())];
    assert_eq!(
        export(&game.events, &tags, game.resigned),
        format!("[Variant \"standard\"]\n\n{CANONICAL}")
    );
}

/// "Import must read the records that players actually keep, which differ from that form."
#[test]
fn every_accepted_form_imports_to_the_same_game() {
    let canonical = import(CANONICAL, Variant::Standard).unwrap();
    assert_eq!(canonical.final_fen, FINAL);
    for (form, text) in FORMS {
        let game = import(text, Variant::Standard).unwrap_or_else(|e| panic!("{form}: {e}"));
        assert_eq!(game.final_fen, FINAL, "{form}");
        assert_eq!(game.commands, canonical.commands, "{form}");
        assert_eq!(game.events, canonical.events, "{form}");
    }
    let tagged = import(FORMS[3].1, Variant::Standard).unwrap();
    assert_eq!(tagged.tags[1], ("White".to_string(), "Betza".to_string()));
    assert_eq!(
        import(FORMS[1].1, Variant::Standard).unwrap().resigned,
        Some(1)
    );
}

fn refused(text: &str) -> ImportError {
    import(text, Variant::Standard).expect_err("an illegal record")
}

/// "a record whose half-turn is illegal must be rejected with the number of that half-turn,
/// the text as written, the position before it (FEN) and the reason (for example which piece
/// is pinned, or which pushes were possible)."
#[test]
fn an_illegal_record_is_refused_with_half_turn_text_fen_and_reason() {
    // A pinned bishop.
    let error = refused("[FEN \"4k3/4b3/8/8/8/8/P7/4R1K1 b - - 0 1\"]\n1... Bf6/a3\n");
    assert_eq!(error.half_turn, 1);
    assert_eq!(error.text, "Bf6/a3");
    assert_eq!(error.fen, "4k3/4b3/8/8/8/8/P7/4R1K1 b - - 0 1");
    assert!(
        error
            .reason
            .contains("the bishop on e7 is pinned against the king on e8 by the rook on e1"),
        "{}",
        error.reason
    );
    // A push that is not possible: the reason says which were.
    let error = refused("1. e4/a6 Nf6/a3 2. e5/h6 Ng4/a5");
    assert_eq!(error.half_turn, 4);
    assert_eq!(error.text, "Ng4/a5");
    assert_eq!(
        error.fen,
        "rnbqkb1r/1pppppp1/p4n1p/4P3/8/P7/1PPP1PPP/RNBQKBNR b KQkq - 0 2"
    );
    assert!(
        error.reason.contains("the pushes possible are"),
        "{}",
        error.reason
    );
    assert!(error.reason.contains("a4"), "{}", error.reason);
    // A missing push where one is obligatory.
    let error = refused("1. e4");
    assert!(error.reason.contains("obligatory"), "{}", error.reason);
    // A half-turn after the end of the game.
    let error = refused("[FEN \"7k/6pp/6PP/8/8/8/8/R5K1 w - - 0 1\"]\n1. Ra8# Kg8");
    assert_eq!(error.half_turn, 2);
    assert!(error.reason.contains("already over"), "{}", error.reason);
    // Not a move at all.
    let error = refused("1. e4/a6 Zz9/a3");
    assert_eq!((error.half_turn, error.text.as_str()), (2, "Zz9/a3"));
}

/// "A push that promotes adds the owner's choice: `Bc4/e1=N`."
#[test]
fn a_record_names_the_owners_choice_after_a_promoting_push() {
    let position = "[FEN \"k7/8/8/8/8/8/1p1K4/7R w - - 0 1\"]\n";
    for record in [
        "1. Rg1/b1=N",
        "1. Rg1,b2-b1=N",
        "1. Rg1/b1(N)",
        "1. Rg1/b1N",
    ] {
        let game = import(&format!("{position}{record}"), Variant::Standard).unwrap();
        let outcome = game.outcome.unwrap_or_else(|| panic!("{record}"));
        assert_eq!(outcome.winners, vec![1], "{record}");
        assert!(game.events.contains(&Event::GameEnded {
            winner: Some(1),
            reason: EndReason::LossByPromotion
        }));
        assert_eq!(export(&game.events, &[], None), "1. Rg1/b1=N\n0-1\n");
    }
    // A record that leaves the choice out is read as a queen.
    let game = import(&format!("{position}1. Rg1/b1 Qb2/"), Variant::Standard).unwrap();
    assert_eq!(game.final_fen, "k7/8/8/8/8/8/1q1K4/6R1 w - - 1 2");
    assert_eq!(export(&game.events, &[], None), "1. Rg1/b1=Q Qb2//+\n");
}

/// "results `1-0`, `0-1`, `1/2-1/2`": a draw written where the rules let the side to move
/// claim one is read as that claim (otherwise it is a draw by agreement, for the table).
#[test]
fn a_drawn_result_where_a_claim_is_valid_is_read_as_the_claim() {
    let record = "[FEN \"r6k/8/8/8/8/8/8/R6K w - - 0 1\"]\n\
                  1. Kg1// Kg8// 2. Kh1// Kh8// 3. Kg1// Kg8// 4. Kh1// Kh8// 1/2-1/2";
    let game = import(record, Variant::Standard).unwrap();
    assert_eq!(
        game.commands.last().map(|c| &c.1),
        Some(&Command::ClaimDraw)
    );
    assert!(game.outcome.unwrap().draw);
    let again = import(
        &format!(
            "[FEN \"r6k/8/8/8/8/8/8/R6K w - - 0 1\"]\n{}",
            export(&game.events, &[], None)
        ),
        Variant::Standard,
    )
    .unwrap();
    assert_eq!(again.commands, game.commands);
}

/// "castling in `reversed` follows the Chess960 convention", in records too.
#[test]
fn a_record_of_reversed_reads_chess960_castling() {
    let record = "1. e4/e6 Nf6/a3 2. Nc3/g6 Bg7/h3 3. d3/b6 Qe7/g3 4. Be2/c6 O-O/b3";
    let game = import(record, Variant::Reversed).unwrap_or_else(|e| panic!("{e}"));
    assert!(game.final_fen.starts_with("rnb2rk1/"), "{}", game.final_fen);
}

mod no_panic {
    use super::*;
    use domain::games::chess::{AvalancheChess, State};
    use domain::testing::test_time;
    use domain::{Context, Engine, Seed};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Any text is either a record or refused with a reason, never a panic.
        #[test]
        fn any_text_imports_or_is_refused(text in "[\\PC\\n]{0,80}") {
            let _ = import(&text, Variant::Standard);
        }

        /// Record-like text made of the pieces of real records.
        #[test]
        fn record_like_text_imports_or_is_refused(
            words in proptest::collection::vec(
                "(1\\.|e4|Nf3|/|//|,|a6|a7-a6|=N|O-O|00|x|:|\\+|#|!\\?|Resigns|1-0|1/2-1/2|\\[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"\\]| |\\n)",
                0..30,
            )
        ) {
            let _ = import(&words.concat(), Variant::Reversed);
        }

        /// Any move and push text is accepted as a legal turn or refused, never a panic.
        #[test]
        fn any_turn_text_is_decided_without_panic(mv in "\\PC{0,8}", push in proptest::option::of("\\PC{0,6}")) {
            let state = State::new(Variant::Standard);
            let ctx = Context::new(Seed([0; 32]), 1, test_time());
            let command = Command::Turn { mv, push };
            for seat in 0..3 {
                let _ = AvalancheChess::decide(&state, seat, &command, &ctx);
            }
        }
    }
}
