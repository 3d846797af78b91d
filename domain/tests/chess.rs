//! One test per rule of `rules/avalanche-chess.md`, named after it, with the rule quoted.

use domain::games::chess::ending::insufficient_material;
use domain::games::chess::position::Position;
use domain::games::chess::{
    AvalancheChess, Command, EndReason, Event, Options, PromotionPiece, State, Variant,
};
use domain::testing::{arranged, context, given, setup, with_variant, Given};
use domain::{Engine, Seat, Viewer};

const WHITE: Seat = 0;
const BLACK: Seat = 1;

/// A position from its FEN.
fn from_fen(variant: Variant, fen: &str) -> Given<AvalancheChess> {
    arranged::<AvalancheChess>(
        State::from_fen(variant, fen).unwrap_or_else(|e| panic!("{fen}: {e}")),
    )
}

/// A new game of `variant`, at its start.
fn start(variant: Variant) -> Given<AvalancheChess> {
    given::<AvalancheChess>(with_variant(setup::<AvalancheChess>(2), variant.id()), [])
}

fn turn(mv: &str, push: Option<&str>) -> Command {
    Command::Turn {
        mv: mv.into(),
        push: push.map(String::from),
    }
}

fn notations(state: &State, seat: Seat) -> Vec<String> {
    AvalancheChess::legal(state, seat)
        .into_iter()
        .map(|l| l.notation)
        .collect()
}

fn ended(events: &[Event]) -> Option<(Option<Seat>, EndReason)> {
    events.iter().find_map(|e| match e {
        Event::GameEnded { winner, reason } => Some((*winner, *reason)),
        _ => None,
    })
}

fn placement(state: &State) -> String {
    state.position.placement()
}

/// "**Ruling:** the default variant is `standard`. `balanced` and `reversed` may be combined."
#[test]
fn the_default_variant_is_standard_and_balanced_and_reversed_may_be_combined() {
    let info = AvalancheChess::info();
    assert_eq!(
        info.variants,
        ["standard", "balanced", "reversed", "balanced-reversed"]
    );
    assert_eq!((info.min_seats, info.max_seats), (2, 2));
    assert!(!info.hidden_information);
    let default = AvalancheChess::initial(&setup::<AvalancheChess>(2));
    assert_eq!(default.variant, Variant::Standard);
    let both = start(Variant::BalancedReversed);
    assert_eq!(
        placement(&both),
        "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    );
    assert!(notations(&both, WHITE).iter().all(|n| n.ends_with("//")));
    let bad = with_variant(setup::<AvalancheChess>(2), "crazy");
    assert_eq!(
        AvalancheChess::check(&bad).unwrap_err().code,
        "invalid_setup"
    );
}

/// "`reversed`: orthodox except Black's king on d8 and queen on e8."
#[test]
fn reversed_starts_with_blacks_king_on_d8_and_queen_on_e8() {
    assert_eq!(
        AvalancheChess::view(&start(Variant::Reversed), Viewer::Spectator).fen,
        "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
}

/// "Move. Any move legal in orthodox chess ... 2. Push. Then the mover advances one of the
/// opponent's pawns one square straight forward."
#[test]
fn a_turn_is_a_move_then_a_push_of_an_opponents_pawn() {
    let mut state = start(Variant::Standard);
    let legal = notations(&state, WHITE);
    assert_eq!(legal.len(), 160);
    assert!(legal.contains(&"Nf3/a6".to_string()));
    assert!(notations(&state, BLACK).is_empty());
    let events = state.play(WHITE, turn("Nf3", Some("a6"))).unwrap();
    assert!(matches!(&events[0], Event::TurnPlayed { notation, .. } if notation == "Nf3/a6"));
    assert_eq!(
        placement(&state),
        "rnbqkbnr/1ppppppp/p7/8/8/5N2/PPPPPPPP/RNBQKB1R"
    );
    assert_eq!(AvalancheChess::to_act(&state), vec![BLACK]);
    // UCI move text and a from-to push are read too.
    state.play(BLACK, turn("g8f6", Some("a2-a3"))).unwrap();
    assert_eq!(state.history, ["Nf3/a6", "Nf6/a3"]);
}

/// "there is **no en passant**."
#[test]
fn there_is_no_en_passant() {
    // Black plays e7-e5 beside White's pawn on d5 and pushes the a-pawn.
    let mut state = from_fen(Variant::Standard, "4k3/4p3/8/3P4/8/8/P7/4K3 b - - 0 1");
    state.play(BLACK, turn("e5", Some("a3"))).unwrap();
    assert!(!notations(&state, WHITE)
        .iter()
        .any(|n| n.starts_with("dxe6")));
    let refused = state.play(WHITE, turn("dxe6", None)).unwrap_err();
    assert_eq!(refused.code, "illegal_command");
    assert!(
        refused.message.contains("no en passant"),
        "{}",
        refused.message
    );
}

/// "The move may not leave the mover's own king attacked: a push can never be used to parry a
/// check."
#[test]
fn a_push_can_never_parry_a_check() {
    // The bishop on a5 checks; pushing c4-c3 would block it, but the move must parry alone.
    let mut state = from_fen(Variant::Standard, "7k/8/8/b7/2p5/8/7P/4K3 w - - 0 1");
    assert!(!notations(&state, WHITE).iter().any(|n| n.starts_with("h3")));
    let refused = state.play(WHITE, turn("h3", Some("c3"))).unwrap_err();
    assert!(refused.message.contains("in check"), "{}", refused.message);
}

/// "a push can never be used ... to cover a pinned piece."
#[test]
fn a_push_can_never_cover_a_pinned_piece() {
    let mut state = from_fen(Variant::Standard, "7k/8/8/8/1bp5/8/3N3P/4K3 w - - 0 1");
    let refused = state.play(WHITE, turn("Nf3", Some("c3"))).unwrap_err();
    assert!(
        refused
            .message
            .contains("the knight on d2 is pinned against the king on e1 by the bishop on b4"),
        "{}",
        refused.message
    );
}

/// "The push is obligatory whenever any opponent pawn can advance."
#[test]
fn the_push_is_obligatory_whenever_any_opponent_pawn_can_advance() {
    let mut state = start(Variant::Standard);
    let refused = state.play(WHITE, turn("Nf3", None)).unwrap_err();
    assert!(
        refused.message.contains("obligatory"),
        "{}",
        refused.message
    );
    assert!(refused.message.contains("a6, b6"), "{}", refused.message);
}

/// "The square must be empty; a push never captures and is never two squares, even from the
/// pawn's first rank."
#[test]
fn a_push_is_one_square_onto_an_empty_square() {
    let mut state = from_fen(Variant::Standard, "4k3/p6p/N7/8/8/8/8/4K3 w - - 0 1");
    assert!(state.clone().play(WHITE, turn("Kd1", Some("a5"))).is_err());
    assert!(state.clone().play(WHITE, turn("Kd1", Some("h5"))).is_err());
    // The a-pawn is blocked by the knight: only h7-h6 is possible.
    let pushes: Vec<String> = notations(&state, WHITE)
        .into_iter()
        .filter(|n| n.starts_with("Kd1"))
        .collect();
    assert_eq!(pushes, ["Kd1/h6"]);
    state.play(WHITE, turn("Kd1", Some("h7-h6"))).unwrap();
}

/// "otherwise the turn has no push."
#[test]
fn without_a_pawn_to_push_the_turn_has_no_push() {
    let mut state = from_fen(Variant::Standard, "r6k/8/8/8/8/8/P7/R6K b - - 0 1");
    // White's a-pawn can be pushed; Black pushes it.
    state.play(BLACK, turn("Kg8", Some("a3"))).unwrap();
    // Black has no pawn: White's turns have no push.
    assert!(notations(&state, WHITE).iter().all(|n| n.contains("//")));
    let refused = state
        .clone()
        .play(WHITE, turn("Kg1", Some("a6")))
        .unwrap_err();
    assert!(refused.message.contains("no push"), "{}", refused.message);
    state.play(WHITE, turn("Kg1", None)).unwrap();
}

/// "In `balanced`, White's first turn has no push."
#[test]
fn in_balanced_whites_first_turn_has_no_push() {
    let mut state = start(Variant::Balanced);
    let legal = notations(&state, WHITE);
    assert_eq!(legal.len(), 20);
    assert!(legal.contains(&"e4//".to_string()));
    let refused = state
        .clone()
        .play(WHITE, turn("e4", Some("a6")))
        .unwrap_err();
    assert!(
        refused.message.contains("first turn has no push"),
        "{}",
        refused.message
    );
    state.play(WHITE, turn("e4", None)).unwrap();
    // Black's first turn pushes as usual.
    assert!(notations(&state, BLACK).iter().all(|n| !n.contains("//")));
}

/// "Self-check by push loses. If after the push the mover's own king is attacked (by the
/// pushed pawn, ...), the mover loses at once, even if the move gave check or mate."
#[test]
fn self_check_by_push_loses_even_when_the_move_mated() {
    let position = "7k/6pp/8/1p6/8/2K5/8/R7 w - - 0 1";
    let mut state = from_fen(Variant::Standard, position);
    assert!(notations(&state, WHITE).contains(&"Ra8/b4+".to_string()));
    // Ra8 mates, but the pushed pawn on b4 attacks White's king on c3.
    let events = state.play(WHITE, turn("Ra8", Some("b4"))).unwrap();
    assert_eq!(ended(&events), Some((Some(BLACK), EndReason::LossByPush)));
    let outcome = AvalancheChess::outcome(&state).unwrap();
    assert_eq!(outcome.winners, vec![BLACK]);
    assert!(AvalancheChess::to_act(&state).is_empty());
    // The same move with a harmless push only checks (h7-h6 gives the king h7).
    let mut other = from_fen(Variant::Standard, position);
    let events = other.play(WHITE, turn("Ra8", Some("h6"))).unwrap();
    assert_eq!(ended(&events), None);
    assert_eq!(other.history, ["Ra8/h6+"]);
}

/// "... or along a line it opened ..."
#[test]
fn a_push_that_opens_a_line_to_the_pushers_king_loses() {
    let position = "k7/8/8/b7/1p6/8/8/4K2R w - - 0 1";
    let mut state = from_fen(Variant::Standard, position);
    let events = state.play(WHITE, turn("Rh2", Some("b3"))).unwrap();
    assert_eq!(ended(&events), Some((Some(BLACK), EndReason::LossByPush)));
    let mut state = from_fen(Variant::Standard, position);
    let events = state.play(WHITE, turn("Kf1", Some("b3"))).unwrap();
    assert_eq!(ended(&events), None);
}

/// "A pawn pushed onto its last rank is promoted by its **owner** ... the choice is the owner's
/// first act of their next turn (a separate command, before their move)."
#[test]
fn a_pawn_pushed_onto_its_last_rank_is_promoted_by_its_owner_before_their_move() {
    let mut state = from_fen(Variant::Standard, "k7/8/8/8/8/8/1p1K4/7R w - - 0 1");
    assert!(notations(&state, WHITE).contains(&"Rg1/b1".to_string()));
    state.play(WHITE, turn("Rg1", Some("b1"))).unwrap();
    assert_eq!(AvalancheChess::to_act(&state), vec![BLACK]);
    assert!(notations(&state, WHITE).is_empty());
    assert_eq!(notations(&state, BLACK), ["b1=Q", "b1=R", "b1=B", "b1=N"]);
    let view = AvalancheChess::view(&state, Viewer::Spectator);
    assert_eq!(
        view.pending_promotion.map(|s| s.to_string()),
        Some("b1".into())
    );
    assert_eq!(view.placement, "k7/8/8/8/8/8/3K4/1p4R1");
    assert_eq!(
        state
            .clone()
            .play(WHITE, turn("Kd3", None))
            .unwrap_err()
            .code,
        "not_your_turn"
    );
    let refused = state.clone().play(BLACK, turn("Kg8", None)).unwrap_err();
    assert!(
        refused.message.contains("First choose"),
        "{}",
        refused.message
    );
    let events = state
        .play(
            BLACK,
            Command::Promote {
                piece: PromotionPiece::Queen,
            },
        )
        .unwrap();
    assert_eq!(ended(&events), None);
    assert_eq!(placement(&state), "k7/8/8/8/8/8/3K4/1q4R1");
    assert_eq!(state.history, ["Rg1/b1=Q"]);
    assert_eq!(AvalancheChess::to_act(&state), vec![BLACK]);
    assert!(notations(&state, BLACK)
        .iter()
        .any(|n| n.starts_with("Qb2")));
}

/// "If the chosen piece attacks the pusher's king, the pusher loses at once."
#[test]
fn the_owners_choice_that_attacks_the_pushers_king_makes_the_pusher_lose() {
    let mut state = from_fen(Variant::Standard, "k7/8/8/8/8/8/1p1K4/7R w - - 0 1");
    state.play(WHITE, turn("Rg1", Some("b1"))).unwrap();
    // A knight on b1 attacks d2.
    let events = state
        .play(
            BLACK,
            Command::Promote {
                piece: PromotionPiece::Knight,
            },
        )
        .unwrap();
    assert_eq!(
        ended(&events),
        Some((Some(BLACK), EndReason::LossByPromotion))
    );
    assert_eq!(state.history, ["Rg1/b1=N"]);
}

/// "A promotion by the owner's own move is chosen in that move, as in orthodox chess."
#[test]
fn a_promotion_by_the_owners_own_move_is_chosen_in_that_move() {
    let mut state = from_fen(Variant::Standard, "7k/4P3/8/8/8/8/8/K7 w - - 0 1");
    let refused = state.clone().play(WHITE, turn("e8", None)).unwrap_err();
    assert!(
        refused.message.contains("which piece"),
        "{}",
        refused.message
    );
    state.play(WHITE, turn("e8=N", None)).unwrap();
    assert_eq!(placement(&state), "4N2k/8/8/8/8/8/8/K7");
    assert_eq!(state.history, ["e8=N//"]);
}

/// "**Checkmate:** the side to move ... is in check and has no legal move: it loses."
#[test]
fn checkmate_loses() {
    let mut state = from_fen(Variant::Standard, "7k/6pp/6PP/8/8/8/8/R5K1 w - - 0 1");
    let events = state.play(WHITE, turn("Ra8", None)).unwrap();
    assert_eq!(ended(&events), Some((Some(WHITE), EndReason::Checkmate)));
    assert_eq!(state.history, ["Ra8//#"]);
    let outcome = AvalancheChess::outcome(&state).unwrap();
    assert_eq!((outcome.winners, outcome.draw), (vec![WHITE], false));
    assert_eq!(
        state.play(BLACK, turn("Kg8", None)).unwrap_err().code,
        "game_over"
    );
}

/// "**Stalemate:** the side to move is not in check and has no legal move: draw."
#[test]
fn stalemate_is_a_draw() {
    let mut state = from_fen(Variant::Standard, "7k/8/6Q1/8/8/8/8/K7 w - - 0 1");
    let events = state.play(WHITE, turn("Qf7", None)).unwrap();
    assert_eq!(ended(&events), Some((None, EndReason::Stalemate)));
    assert!(AvalancheChess::outcome(&state).unwrap().draw);
}

/// "Check (`+`) and mate (`#`) marks describe the position after the push."
#[test]
fn check_marks_describe_the_position_after_the_push() {
    let mut state = start(Variant::Standard);
    state.play(WHITE, turn("e4", Some("a6"))).unwrap();
    state.play(BLACK, turn("a5", Some("a3"))).unwrap();
    // Pushing f7-f6 opens the diagonal from h5 to Black's king.
    assert!(notations(&state, WHITE).contains(&"Qh5/f6+".to_string()));
    state.play(WHITE, turn("Qh5", Some("f6"))).unwrap();
    assert!(AvalancheChess::view(&state, Viewer::Spectator).check);
    assert_eq!(state.history.last().unwrap(), "Qh5/f6+");
}

fn shuffle(state: &mut Given<AvalancheChess>) -> Vec<Event> {
    let mut last = Vec::new();
    for (seat, mv) in [
        (WHITE, "Kg1"),
        (BLACK, "Kg8"),
        (WHITE, "Kh1"),
        (BLACK, "Kh8"),
    ] {
        last = state.play(seat, turn(mv, None)).unwrap();
    }
    last
}

const ROOKS: &str = "r6k/8/8/8/8/8/8/R6K w - - 0 1";

/// "**Ruling (orthodox draws):** a draw may be *claimed* by the side to move on threefold
/// repetition (same placement, side to move and castling rights) ... the game is drawn
/// *automatically* on fivefold repetition."
#[test]
fn a_draw_may_be_claimed_on_threefold_repetition_and_is_automatic_on_fivefold() {
    let mut state = from_fen(Variant::Standard, ROOKS);
    shuffle(&mut state);
    assert!(state.clone().play(WHITE, Command::ClaimDraw).is_err());
    assert!(!notations(&state, WHITE)
        .iter()
        .any(|n| n.starts_with("claim")));
    shuffle(&mut state);
    assert!(notations(&state, WHITE).contains(&"claim a draw (threefold repetition)".into()));
    assert_eq!(
        state
            .clone()
            .play(BLACK, Command::ClaimDraw)
            .unwrap_err()
            .code,
        "not_your_turn"
    );
    let events = state.clone().play(WHITE, Command::ClaimDraw).unwrap();
    assert_eq!(
        ended(&events),
        Some((None, EndReason::ThreefoldRepetitionClaimed))
    );
    shuffle(&mut state);
    let events = shuffle(&mut state);
    assert_eq!(ended(&events), Some((None, EndReason::FivefoldRepetition)));
}

/// "... or after fifty moves by each side with no capture, no pawn move and no push; ... after
/// seventy-five such moves."
#[test]
fn a_draw_may_be_claimed_after_fifty_moves_and_is_automatic_after_seventy_five() {
    let mut state = from_fen(Variant::Standard, "r6k/8/8/8/8/8/8/R6K w - - 99 80");
    assert!(state.clone().play(WHITE, Command::ClaimDraw).is_err());
    state.play(WHITE, turn("Kg1", None)).unwrap();
    let events = state.play(BLACK, Command::ClaimDraw).unwrap();
    assert_eq!(ended(&events), Some((None, EndReason::FiftyMovesClaimed)));

    let mut state = from_fen(Variant::Standard, "r6k/8/8/8/8/8/8/R6K w - - 149 100");
    let events = state.play(WHITE, turn("Kg1", None)).unwrap();
    assert_eq!(ended(&events), Some((None, EndReason::SeventyFiveMoves)));
}

/// "... with no capture, no pawn move and no push."
#[test]
fn a_push_resets_the_count_of_the_fifty_move_rule() {
    let mut state = from_fen(Variant::Standard, "r6k/p7/8/8/8/8/8/R6K w - - 40 80");
    state.play(WHITE, turn("Kg1", Some("a6"))).unwrap();
    assert_eq!(state.halfmove_clock, 0);
    state.play(BLACK, turn("Kg8", None)).unwrap();
    assert_eq!(state.halfmove_clock, 1);
}

/// "... or when neither side has a pawn and the material cannot mate (K v K, K+B v K, K+N v K,
/// K+B v K+B with same-coloured bishops)."
#[test]
fn the_game_is_drawn_automatically_when_the_material_cannot_mate() {
    let mut state = from_fen(Variant::Standard, "k7/8/8/8/8/8/3n4/K1B5 w - - 0 1");
    let events = state.play(WHITE, turn("Bxd2", None)).unwrap();
    assert_eq!(
        ended(&events),
        Some((None, EndReason::InsufficientMaterial))
    );
    let cannot = |fen: &str| insufficient_material(&Position::from_fen(fen).unwrap());
    assert!(cannot("k7/8/8/8/8/8/8/K7 w - - 0 1"));
    assert!(cannot("k7/8/8/8/8/8/8/K1N5 w - - 0 1"));
    assert!(cannot("k7/8/8/8/8/8/8/K1B1b3 w - - 0 1"));
    assert!(!cannot("k7/8/8/8/8/8/8/K1B2b2 w - - 0 1"));
    assert!(!cannot("k7/8/8/8/8/8/8/K1N2n2 w - - 0 1"));
    assert!(!cannot("k7/p7/8/8/8/8/8/K7 w - - 0 1"));
}

/// "**Ruling:** castling in `reversed` follows the Chess960 convention: after O-O the king
/// stands on g and the rook on f; after O-O-O the king stands on c and the rook on d; ... the
/// king may not pass through, leave or land on an attacked square."
#[test]
fn castling_in_reversed_follows_the_chess960_convention() {
    let position = "r2k3r/8/8/8/8/8/8/4K3 b kq - 0 1";
    let mut state = from_fen(Variant::Reversed, position);
    state.play(BLACK, turn("O-O", None)).unwrap();
    assert_eq!(placement(&state), "r4rk1/8/8/8/8/8/8/4K3");
    let mut state = from_fen(Variant::Reversed, position);
    state.play(BLACK, turn("0-0-0", None)).unwrap();
    assert_eq!(placement(&state), "2kr3r/8/8/8/8/8/8/4K3");
    // King takes rook is castling too; d8c8 is the king's ordinary step.
    let mut state = from_fen(Variant::Reversed, position);
    state.play(BLACK, turn("d8h8", None)).unwrap();
    assert_eq!(placement(&state), "r4rk1/8/8/8/8/8/8/4K3");
    let mut state = from_fen(Variant::Reversed, position);
    state.play(BLACK, turn("d8c8", None)).unwrap();
    assert_eq!(placement(&state), "r1k4r/8/8/8/8/8/8/4K3");
    assert_eq!(state.position.castling_text(), "-");
    // The king may not pass f8 while the rook on f1 attacks it.
    let mut state = from_fen(Variant::Reversed, "r2k3r/8/8/8/8/8/8/4KR2 b kq - 0 1");
    assert!(state.clone().play(BLACK, turn("O-O", None)).is_err());
    assert!(!notations(&state, BLACK)
        .iter()
        .any(|n| n.starts_with("O-O/") || n == "O-O//"));
    state.play(BLACK, turn("00", None)).unwrap_err();
    state.play(BLACK, turn("000", None)).unwrap();
}

/// Orthodox castling reads the king's two-square step too (`e1g1`).
#[test]
fn castling_in_standard_reads_every_form() {
    for text in ["O-O", "0-0", "00", "e1g1", "e1h1", "Kg1"] {
        let mut state = from_fen(Variant::Standard, "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        let result = state.play(WHITE, turn(text, None));
        if text == "Kg1" {
            assert!(result.is_err(), "{text}");
        } else {
            result.unwrap();
            assert_eq!(placement(&state), "4k3/8/8/8/8/8/8/5RK1", "{text}");
            assert_eq!(state.history, ["O-O//"]);
        }
    }
}

/// Commands and events keep their JSON shapes (they are stored forever).
#[test]
fn commands_and_events_have_stable_json_shapes() {
    let turn: Command =
        serde_json::from_str(r#"{"type":"turn","move":"Nf3","push":"a6"}"#).unwrap();
    assert_eq!(turn, self::turn("Nf3", Some("a6")));
    let promote: Command = serde_json::from_str(r#"{"type":"promote","piece":"knight"}"#).unwrap();
    assert_eq!(
        promote,
        Command::Promote {
            piece: PromotionPiece::Knight
        }
    );
    let claim: Command = serde_json::from_str(r#"{"type":"claim_draw"}"#).unwrap();
    assert_eq!(claim, Command::ClaimDraw);
    let mut state = start(Variant::Standard);
    let events = state.play(WHITE, self::turn("Nf3", Some("a6"))).unwrap();
    let json = serde_json::to_value(&events[0]).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"type": "turn_played", "seat": 0, "san": "Nf3", "from": "g1",
            "to": "f3", "castling": null, "promotion": null,
            "push": {"from": "a7", "to": "a6"}, "notation": "Nf3/a6"})
    );
}

/// A seat that is not at the table, or bad text, is refused without a panic.
#[test]
fn bad_commands_are_refused_with_a_reason() {
    let mut state = start(Variant::Standard);
    assert_eq!(
        state
            .clone()
            .play(5, turn("e4", Some("a6")))
            .unwrap_err()
            .code,
        "bad_command"
    );
    for text in ["", "Zz9", "e9", "Nf3Nf3Nf3", "ä", "O-O-O-O", "Ke2"] {
        let refused = state
            .clone()
            .play(WHITE, turn(text, Some("a6")))
            .unwrap_err();
        assert_eq!(refused.code, "illegal_command", "{text}");
    }
    let refused = state.play(WHITE, turn("e4", Some("b5"))).unwrap_err();
    assert!(
        refused.message.contains("pushes possible"),
        "{}",
        refused.message
    );
    assert_eq!(
        state
            .play(
                WHITE,
                Command::Promote {
                    piece: PromotionPiece::Queen
                }
            )
            .unwrap_err()
            .code,
        "illegal_command"
    );
}

/// The service finds the engine by its id and drives it with JSON commands.
#[test]
fn the_registry_plays_avalanche_chess_with_json_commands() {
    use domain::table::Actor;
    use serde_json::json;
    let registry = domain::Registry::standard();
    let kind = registry.get("avalanche-chess").expect("registered");
    let created = kind
        .create(Some("reversed".into()), None, 2, "commitment".into())
        .unwrap();
    let mut game = kind.fold(&[created.payload]).unwrap();
    for (i, player) in ["ann", "bob"].into_iter().enumerate() {
        let ctx = context(game.facts().version);
        let events = game
            .decide(
                &Actor::player(player),
                &json!({"type": "join", "seat": i}),
                &ctx,
            )
            .unwrap();
        for event in events {
            game.evolve(&event.payload).unwrap();
        }
    }
    assert_eq!(game.facts().to_act, vec![WHITE]);
    let turns = game
        .legal(WHITE)
        .into_iter()
        .filter(|l| l.command["type"] == "turn")
        .count();
    assert_eq!(turns, 160);
    let ctx = context(game.facts().version);
    let events = game
        .decide(
            &Actor::player("ann"),
            &json!({"type": "turn", "move": "Nf3", "push": "a6"}),
            &ctx,
        )
        .unwrap();
    for event in events {
        game.evolve(&event.payload).unwrap();
    }
    let view = game.view(Viewer::Spectator);
    let text = view.to_string();
    assert!(
        text.contains("rnbkqbnr/1ppppppp/p7/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 0 1"),
        "{text}"
    );
    assert_eq!(game.facts().to_act, vec![BLACK]);
}

/// The API documents the commands, events and views from these types.
#[test]
fn commands_events_and_views_have_api_schemas() {
    use utoipa::PartialSchema;
    let schemas = serde_json::json!([
        Command::schema(),
        Event::schema(),
        domain::games::chess::View::schema(),
        Options::schema(),
    ]);
    let text = schemas.to_string();
    for name in [
        "turn_played",
        "promotion_chosen",
        "game_ended",
        "claim_draw",
        "pending_promotion",
    ] {
        assert!(text.contains(name), "{name} is documented");
    }
}
