//! Property tests of Avalanche Chess: thousands of random games in every variant, each turn
//! drawn from the legal list, and every game exported and imported back to the same game.

use domain::games::chess::record::{export, import};
use domain::games::chess::{AvalancheChess, Command, Event, Variant};
use domain::testing::{play_random, replay_matches, setup, viewers, with_variant};
use domain::{Engine, Seed, Viewer};

const GAMES: u64 = 1000;
const MAX_COMMANDS: usize = 200;

fn random_games(variant: Variant) {
    let mut finished = 0;
    for game in 0..GAMES {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&game.to_le_bytes());
        let played = play_random::<AvalancheChess>(
            &with_variant(setup::<AvalancheChess>(2), variant.id()),
            Seed(seed),
            game * 4 + variant as u64,
            MAX_COMMANDS,
            |state, event| {
                // No hidden information: every viewer sees the same events and views.
                assert_eq!(AvalancheChess::redact(event, Viewer::Spectator), *event);
                if game % 10 == 0 {
                    let everyone =
                        serde_json::to_value(AvalancheChess::view(state, Viewer::Everyone));
                    for viewer in viewers(2) {
                        assert_eq!(AvalancheChess::redact(event, viewer), *event);
                        let seen = serde_json::to_value(AvalancheChess::view(state, viewer));
                        assert_eq!(seen.ok(), everyone.as_ref().ok().cloned());
                    }
                }
            },
        )
        .unwrap_or_else(|e| panic!("{variant:?} game {game}: {e}"));
        if played.finished {
            finished += 1;
        }
        if game % 50 == 0 {
            replay_matches(&played).unwrap_or_else(|e| panic!("{variant:?} game {game}: {e}"));
        }
        let record = export(&played.events, &[], None);
        let imported = import(&record, variant)
            .unwrap_or_else(|e| panic!("{variant:?} game {game}: {e}\n{record}"));
        // The legal list writes a move from-to (`g1f3`), a record in SAN (`Nf3`): the same
        // turns, as the identical events below show, with the same pushes and choices.
        assert_eq!(imported.commands.len(), played.commands.len());
        for (read, offered) in imported.commands.iter().zip(&played.commands) {
            assert_eq!(read.0, offered.0, "{variant:?} game {game}\n{record}");
            match (&read.1, &offered.1) {
                (Command::Turn { push: a, .. }, Command::Turn { push: b, .. }) => {
                    assert_eq!(a, b, "{variant:?} game {game}\n{record}")
                }
                _ => assert_eq!(read, offered, "{variant:?} game {game}\n{record}"),
            }
        }
        assert_eq!(
            imported.events, played.events,
            "{variant:?} game {game}\n{record}"
        );
        assert_eq!(imported.final_fen, played.state.fen());
        assert!(played
            .events
            .iter()
            .all(|e| !matches!(e, Event::GameEnded { .. }) || played.finished));
    }
    assert!(finished > 0, "{variant:?}: no random game finished");
}

#[test]
fn random_standard_games_keep_every_invariant_and_survive_export_and_import() {
    random_games(Variant::Standard);
}

#[test]
fn random_balanced_games_keep_every_invariant_and_survive_export_and_import() {
    random_games(Variant::Balanced);
}

#[test]
fn random_reversed_games_keep_every_invariant_and_survive_export_and_import() {
    random_games(Variant::Reversed);
}

#[test]
fn random_balanced_reversed_games_keep_every_invariant_and_survive_export_and_import() {
    random_games(Variant::BalancedReversed);
}

/// The legal list writes each turn's check mark from bitboards, and asks for a board only
/// to look for a mate; playing the turn writes it from the position it leaves. At every
/// position of random games, every turn offered is played, and both notations must agree.
#[test]
fn every_offered_turn_is_recorded_with_the_notation_the_legal_list_gives_it() {
    use domain::testing::test_time;
    use domain::{Context, Legal};
    let (mut compared, mut checks, mut mates) = (0, 0, 0);
    for variant in [
        Variant::Standard,
        Variant::Balanced,
        Variant::Reversed,
        Variant::BalancedReversed,
    ] {
        for game in 0..30u64 {
            let mut seed = [0u8; 32];
            seed[..8].copy_from_slice(&(game + 7_000).to_le_bytes());
            let ctx = Context::new(Seed(seed), 0, test_time());
            play_random::<AvalancheChess>(
                &with_variant(setup::<AvalancheChess>(2), variant.id()),
                Seed(seed),
                game * 4 + 9_000 + variant as u64,
                MAX_COMMANDS,
                |state, _| {
                    for seat in AvalancheChess::to_act(state) {
                        for Legal {
                            command, notation, ..
                        } in AvalancheChess::legal(state, seat)
                        {
                            if !matches!(command, Command::Turn { .. }) {
                                continue;
                            }
                            let events = AvalancheChess::decide(state, seat, &command, &ctx)
                                .unwrap_or_else(|e| panic!("{notation} is refused: {e}"));
                            let Some(Event::TurnPlayed {
                                notation: recorded, ..
                            }) = events.first()
                            else {
                                panic!("{notation} records no turn: {events:?}");
                            };
                            assert_eq!(*recorded, notation, "{variant:?} game {game}");
                            compared += 1;
                            checks += usize::from(notation.ends_with('+'));
                            mates += usize::from(notation.ends_with('#'));
                        }
                    }
                },
            )
            .unwrap_or_else(|e| panic!("{variant:?} game {game}: {e}"));
        }
    }
    assert!(
        compared > 100_000 && checks > 1_000 && mates > 0,
        "too few turns compared: {compared} turns, {checks} checks, {mates} mates"
    );
}

/// The table learns whether a command ends the game by folding its events into
/// `AvalancheChess::lookahead`, a copy without the notation history. At every position of
/// random games, every legal command folded into that copy must give the state (history
/// aside) and the outcome that folding it into the whole state gives.
#[test]
fn the_lookahead_copy_ends_games_as_the_whole_state_does() {
    use domain::testing::test_time;
    use domain::{Context, Legal};
    let (mut compared, mut ended) = (0, 0);
    for variant in [Variant::Standard, Variant::BalancedReversed] {
        for game in 0..12u64 {
            let mut seed = [0u8; 32];
            seed[..8].copy_from_slice(&(game + 8_000).to_le_bytes());
            let ctx = Context::new(Seed(seed), 0, test_time());
            play_random::<AvalancheChess>(
                &with_variant(setup::<AvalancheChess>(2), variant.id()),
                Seed(seed),
                game * 4 + 11_000 + variant as u64,
                MAX_COMMANDS,
                |state, _| {
                    for seat in AvalancheChess::to_act(state) {
                        for Legal { command, .. } in AvalancheChess::legal(state, seat) {
                            let events = AvalancheChess::decide(state, seat, &command, &ctx)
                                .expect("a legal command is accepted");
                            let mut whole = state.clone();
                            let mut ahead = AvalancheChess::lookahead(state);
                            assert!(ahead.history.is_empty());
                            for event in &events {
                                AvalancheChess::evolve(&mut whole, event);
                                AvalancheChess::evolve(&mut ahead, event);
                            }
                            let outcome = AvalancheChess::outcome(&whole);
                            assert_eq!(AvalancheChess::outcome(&ahead), outcome);
                            ended += usize::from(outcome.is_some());
                            whole.history.clear();
                            ahead.history.clear();
                            assert_eq!(ahead, whole);
                            compared += 1;
                        }
                    }
                },
            )
            .unwrap_or_else(|e| panic!("{variant:?} game {game}: {e}"));
        }
    }
    assert!(
        compared > 10_000 && ended > 10,
        "too few commands compared: {compared}, {ended} ending the game"
    );
}
