//! Every game speaks text: over thousands of positions of random games of each game, every
//! legal notation (and its other forms: another case, curly quotes, invisible characters,
//! the chess from-to form) reads back as its own command; the position and each event are
//! drawn for every viewer; and arbitrary text never panics a reader.

use domain::engine::{Engine, Seat, Viewer};
use domain::fairness::Seed;
use domain::games::altitude::Altitude;
use domain::games::avalanche::Avalanche;
use domain::games::chess::{AvalancheChess, Command as ChessCommand};
use domain::games::ski_runs::SkiRuns;
use domain::games::vamanos::Vamanos;
use domain::testing::{play_random, setup, viewers};
use domain::Setup;
use proptest::prelude::*;

use crate::vamanos_support;

fn seed(n: u64) -> Seed {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&n.to_le_bytes());
    bytes[31] = 0x7e;
    Seed(bytes)
}

/// Other ways a person may write `notation`: capitals (card games only: chess letters are
/// case-sensitive), curly quotes around it, a zero-width space and a non-breaking space.
fn variants(notation: &str, case_matters: bool) -> Vec<String> {
    let mut all = vec![
        format!("“{notation}”"),
        format!("\u{200B}{notation}\u{00A0}"),
    ];
    if !case_matters {
        all.push(notation.to_uppercase());
    }
    all
}

/// Checks every legal notation of every seat to act in `state` reads back as its command;
/// returns how many notations it read.
fn reads_back<E: Engine>(state: &E::State, case_matters: bool) -> usize {
    let mut read = 0;
    for seat in E::to_act(state) {
        let legal = E::legal(state, seat);
        for entry in &legal {
            let twins = legal
                .iter()
                .filter(|l| l.notation == entry.notation)
                .count();
            let mut texts = vec![entry.notation.clone()];
            // The other forms for one notation in seven, to keep the run short.
            if read % 7 == 0 {
                texts.extend(variants(&entry.notation, case_matters));
            }
            for text in texts {
                read += 1;
                let got = E::read(state, seat, &text).unwrap_or_else(|unread| {
                    panic!(
                        "{}: {text:?} of seat {seat} is not read: {} ({:?})",
                        E::ID,
                        unread.why,
                        unread
                            .candidates
                            .iter()
                            .map(|c| &c.notation)
                            .collect::<Vec<_>>()
                    )
                });
                assert_eq!(got.notation, entry.notation, "{}: {text:?}", E::ID);
                if twins == 1 {
                    assert_eq!(got.command, entry.command, "{}: {text:?}", E::ID);
                } else {
                    assert!(legal.iter().any(|l| l.command == got.command));
                }
            }
        }
    }
    read
}

/// Draws the position for every viewer and describes the event, and reads a few texts that
/// are no command; none may panic.
fn draws<E: Engine>(state: &E::State, event: &E::Event, seats: usize) {
    let names: Vec<String> = (0..seats).map(|s| format!("P{s}")).collect();
    for viewer in viewers(seats) {
        let me = match viewer {
            Viewer::Seat(seat) => Some(seat),
            _ => None,
        };
        let text = E::position_text(&E::view(state, viewer), me, &names);
        assert!(!text.is_empty());
        let _ = E::event_text(&E::redact(event, viewer), &names);
    }
    for seat in 0..seats {
        for text in ["", "play", "x", "/", "////", "O-O-O-O", "a9/h0", "=Q", "11"] {
            let _ = E::read(state, seat, text);
        }
    }
}

/// Plays `games` random games and checks every position; returns the notations read.
fn check_games<E: Engine>(
    setups: impl Fn(u64) -> Setup<E::Options>,
    games: u64,
    max_commands: usize,
    case_matters: bool,
) -> usize {
    let mut read = 0;
    for n in 0..games {
        let setup = setups(n);
        let seats = setup.seats;
        play_random::<E>(&setup, seed(n), n, max_commands, |state, event| {
            read += reads_back::<E>(state, case_matters);
            draws::<E>(state, event, seats);
        })
        .unwrap_or_else(|e| panic!("{}: game {n}: {e}", E::ID));
    }
    read
}

#[test]
fn every_chess_notation_and_from_to_form_reads_back_as_its_turn() {
    let read = check_games::<AvalancheChess>(|_| setup::<AvalancheChess>(2), 8, 120, true);
    assert!(read > 10_000, "only {read} notations read");
    // The from-to form the API takes reads as the same turn.
    play_random::<AvalancheChess>(&setup::<AvalancheChess>(2), seed(99), 99, 80, |state, _| {
        for seat in AvalancheChess::to_act(state) {
            for entry in AvalancheChess::legal(state, seat) {
                if let ChessCommand::Turn { mv, push } = &entry.command {
                    let text = format!("{mv}/{}", push.clone().unwrap_or_default());
                    let got = AvalancheChess::read(state, seat, &text)
                        .unwrap_or_else(|u| panic!("{text}: {}", u.why));
                    assert_eq!(got.command, entry.command, "{text}");
                }
            }
        }
    })
    .unwrap();
}

#[test]
fn every_avalanche_notation_reads_back_as_its_play() {
    let read =
        check_games::<Avalanche>(|n| setup::<Avalanche>(2 + (n % 5) as usize), 10, 400, false);
    assert!(read > 1_000, "only {read} notations read");
}

#[test]
fn every_ski_runs_notation_reads_back_as_its_command() {
    let read = check_games::<SkiRuns>(|n| setup::<SkiRuns>(2 + (n % 5) as usize), 20, 400, false);
    assert!(read > 1_000, "only {read} notations read");
}

#[test]
fn every_vamanos_notation_reads_back_as_its_command() {
    let read = check_games::<Vamanos>(
        |n| vamanos_support::setup(2 + (n % 5) as usize, 30),
        6,
        3_000,
        false,
    );
    assert!(read > 1_000, "only {read} notations read");
}

#[test]
fn every_altitude_notation_reads_back_as_its_command() {
    let read = check_games::<Altitude>(|n| setup::<Altitude>(1 + (n % 4) as usize), 4, 400, false);
    assert!(read > 1_000, "only {read} notations read");
}

/// A few positions of each game, to feed arbitrary text to.
fn positions<E: Engine>(setup: Setup<E::Options>, every: usize) -> Vec<(E::State, Seat)> {
    let mut found = Vec::new();
    let mut at = 0;
    play_random::<E>(&setup, seed(7), 7, 200, |state, _| {
        at += 1;
        if at % every == 0 {
            for seat in E::to_act(state) {
                found.push((state.clone(), seat));
            }
        }
    })
    .unwrap();
    found
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics_a_reader(text in ".{0,40}", ascii in "[a-hx:=/+#!?O0 QRBNKprs1-8-]{0,12}") {
        for (state, seat) in positions::<AvalancheChess>(setup::<AvalancheChess>(2), 20) {
            let _ = AvalancheChess::read(&state, seat, &text);
            let _ = AvalancheChess::read(&state, seat, &ascii);
        }
        for (state, seat) in positions::<Avalanche>(setup::<Avalanche>(3), 20) {
            let _ = Avalanche::read(&state, seat, &text);
            let _ = Avalanche::read(&state, seat, &ascii);
        }
        for (state, seat) in positions::<SkiRuns>(setup::<SkiRuns>(3), 20) {
            let _ = SkiRuns::read(&state, seat, &text);
            let _ = SkiRuns::read(&state, seat, &ascii);
        }
        for (state, seat) in positions::<Vamanos>(vamanos_support::setup(2, 30), 40) {
            let _ = Vamanos::read(&state, seat, &text);
            let _ = Vamanos::read(&state, seat, &ascii);
        }
        for (state, seat) in positions::<Altitude>(setup::<Altitude>(3), 20) {
            let _ = Altitude::read(&state, seat, &text);
            let _ = Altitude::read(&state, seat, &ascii);
        }
    }
}

fn chess_at(fen: &str) -> domain::games::chess::State {
    domain::games::chess::State::from_fen(domain::games::chess::Variant::Standard, fen)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn turn(mv: &str, push: Option<&str>) -> ChessCommand {
    ChessCommand::Turn {
        mv: mv.into(),
        push: push.map(String::from),
    }
}

#[test]
fn a_capital_b_is_the_bishop_and_a_small_b_the_pawn() {
    let state = chess_at("4k3/p6p/8/8/2p5/1P6/4B3/4K3 w - - 0 1");
    let read = |text: &str| AvalancheChess::read(&state, 0, text).map(|l| l.command);
    assert_eq!(read("Bxc4/h6").unwrap(), turn("e2c4", Some("h6")));
    assert_eq!(read("bxc4/h6").unwrap(), turn("b3c4", Some("h6")));
    assert_eq!(read("B:c4+!/a7-a6").unwrap(), turn("e2c4", Some("a6")));
    assert_eq!(read("“Bxc4/h6”").unwrap(), turn("e2c4", Some("h6")));
    // Two pushes (a6, h6) follow the bishop's capture: which one is asked, never guessed.
    let refused = AvalancheChess::read(&state, 0, "Bxc4").unwrap_err();
    assert!(refused.ambiguous);
    assert_eq!(refused.candidates.len(), 2);
}

#[test]
fn a_move_without_a_possible_push_needs_no_slash() {
    let state = chess_at("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    let read = |text: &str| AvalancheChess::read(&state, 0, text).map(|l| l.command);
    assert_eq!(read("Ra4").unwrap(), turn("a1a4", None));
    assert_eq!(read("Ra4//").unwrap(), turn("a1a4", None));
    assert_eq!(read("a1a4").unwrap(), turn("a1a4", None));
    let refused = AvalancheChess::read(&state, 0, "ra4").unwrap_err();
    assert!(refused.why.contains("not a move"), "{}", refused.why);
}

#[test]
fn a_push_that_attacks_the_own_king_is_named_a_loss() {
    // Black's f-pawn pushed to f5 attacks a White king that moved to e4 (or g4, e6, g6).
    let state = chess_at("k7/8/5p2/3K4/8/8/8/8 w - - 0 1");
    let legal = AvalancheChess::legal(&state, 0);
    let losing: Vec<_> = legal
        .iter()
        .filter(|l| l.consequence.as_ref().is_some_and(|c| c.loses))
        .collect();
    assert!(!losing.is_empty(), "no losing push among {legal:?}");
    for entry in losing {
        assert!(entry
            .consequence
            .as_ref()
            .unwrap()
            .says
            .starts_with("loses at once"));
    }
}
