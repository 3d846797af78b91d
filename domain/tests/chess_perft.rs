//! Perft: the number of legal Avalanche turns (move plus push) from the start position,
//! against counts from an independent implementation of the rules, and the orthodox first
//! part against published perft counts at depths where en passant plays no part.
//!
//! Counting convention (see `perft.rs`): every move with each possible push is one turn (a
//! move with no push possible, or on White's first turn in `balanced`, is one turn); turns that
//! lose by their push count and are not continued; a promoting push counts once.

use domain::games::chess::cozy_chess::Board;
use domain::games::chess::perft::{orthodox, perft};
use domain::games::chess::position::Position;
use domain::games::chess::Variant;

#[test]
fn avalanche_perft_of_standard_matches_the_independent_counts() {
    assert_eq!(perft(Variant::Standard, 1), 160);
    assert_eq!(perft(Variant::Standard, 2), 27_488);
    assert_eq!(perft(Variant::Standard, 3), 5_077_103);
}

#[test]
fn avalanche_perft_of_balanced_matches_the_independent_counts() {
    assert_eq!(perft(Variant::Balanced, 1), 20);
    assert_eq!(perft(Variant::Balanced, 2), 3_112);
    assert_eq!(perft(Variant::Balanced, 3), 577_471);
}

#[test]
fn avalanche_perft_of_reversed_matches_the_independent_counts() {
    assert_eq!(perft(Variant::Reversed, 1), 160);
    assert_eq!(perft(Variant::Reversed, 2), 27_488);
    assert_eq!(perft(Variant::Reversed, 3), 5_089_702);
}

#[test]
fn avalanche_perft_of_balanced_reversed_has_no_first_push() {
    assert_eq!(perft(Variant::BalancedReversed, 1), 20);
    // Black's first turn is the same 20 moves times 8 pushes in both start positions.
    assert_eq!(
        perft(Variant::BalancedReversed, 2),
        perft(Variant::Balanced, 2)
    );
}

fn orthodox_counts(fen: &str, expected: &[u64]) {
    let board = Position::from_fen(fen)
        .ok()
        .and_then(|p| p.board())
        .unwrap_or_else(|| panic!("{fen} is a position"));
    for (depth, &count) in expected.iter().enumerate() {
        assert_eq!(
            orthodox(&board, depth as u32 + 1),
            count,
            "{fen} at depth {}",
            depth + 1
        );
    }
}

/// Published perft counts (Chess Programming Wiki, "Perft Results"), at depths with no en
/// passant capture.
#[test]
fn the_orthodox_first_part_agrees_with_published_perft_counts() {
    orthodox_counts(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &[20, 400, 8_902, 197_281],
    );
    // "Kiwipete": castling, pins and promotions.
    orthodox_counts(
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        &[48],
    );
    // Position 3: its only depth-2 en passant capture would expose the king, so none counts.
    orthodox_counts("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", &[14, 191]);
    orthodox_counts(
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        &[6, 264],
    );
    orthodox_counts(
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        &[44, 1_486],
    );
    orthodox_counts(
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        &[46, 2_079],
    );
}

/// Where orthodox chess has an en passant capture, the first part has one move fewer.
#[test]
fn the_first_part_never_captures_en_passant() {
    // Black has just played e7-e5: orthodox White has 5 king moves, d6 and dxe6 e.p.
    let board = Board::from_fen("4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 2", false).expect("a position");
    let mut orthodox_moves = 0;
    board.generate_moves(|moves| {
        orthodox_moves += moves.len();
        false
    });
    assert_eq!(orthodox_moves, 7);
    assert_eq!(orthodox(&board, 1), 6);
}
