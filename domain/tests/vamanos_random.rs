//! Vamanos played at random: thousands of games with the commands of different players
//! interleaved, checking card conservation, secrecy and the common invariants after every
//! event.

use crate::vamanos_support;

use domain::engine::{Context, Engine, Seat, Viewer};
use domain::fairness::Seed;
use domain::games::vamanos::cards::deck;
use domain::games::vamanos::{Card, Command, Event, State, Vamanos};
use domain::testing::{play_random, replay_matches, test_time, viewers};
use serde_json::Value;
use vamanos_support::setup;

/// Every card of every deck is somewhere: the pile, the hand, a row, a stack or face down,
/// exactly once; rows never hold more than five and stacks exactly five.
fn assert_cards_conserved(state: &State, event: &Event) {
    if state.round == 0 {
        return;
    }
    let mut full = deck();
    full.sort();
    for (seat, player) in state.players.iter().enumerate() {
        let mut cards = player.cards();
        cards.sort();
        assert_eq!(cards, full, "seat {seat}'s deck after {event:?}");
        assert!(player.rows.iter().all(|r| r.len() <= 5), "{event:?}");
        assert!(player.stacks.iter().all(|s| s.len() == 5), "{event:?}");
    }
}

/// Every card named anywhere in a JSON value (an object with `picture` and `colour`).
fn cards_in(value: &Value) -> Vec<Card> {
    let mut found = Vec::new();
    match value {
        Value::Object(map) => {
            if map.contains_key("picture") && map.contains_key("colour") {
                if let Ok(card) = serde_json::from_value::<Card>(value.clone()) {
                    found.push(card);
                }
            } else {
                map.values().for_each(|v| found.extend(cards_in(v)));
            }
        }
        Value::Array(items) => items.iter().for_each(|v| found.extend(cards_in(v))),
        _ => {}
    }
    found
}

fn sorted(mut cards: Vec<Card>) -> Vec<Card> {
    cards.sort();
    cards
}

/// The cards of `seat` that `viewer` may see: its rows and stacks (face up), and its drawn
/// and face-down card only when the viewer is that seat.
fn visible_cards(state: &State, seat: Seat, viewer: Viewer) -> Vec<Card> {
    let player = &state.players[seat];
    let mut cards: Vec<Card> = player.rows.iter().flatten().copied().collect();
    cards.extend(player.stacks.iter().flatten().copied());
    if viewer.sees_secrets_of(seat) {
        cards.extend(player.drawn);
        cards.extend(player.face_down);
    }
    sorted(cards)
}

/// Neither the view nor the redacted event shows a viewer an undrawn card or another seat's
/// drawn or face-down card: checked on the typed values and on the JSON.
fn assert_secrets_kept(state: &State, event: &Event) {
    for viewer in viewers(state.seats) {
        let view = Vamanos::view(state, viewer);
        let json = serde_json::to_value(&view).expect("a view is JSON");
        for (seat, player) in view.players.iter().enumerate() {
            assert_eq!(player.pile, None, "{viewer:?} sees seat {seat}'s pile");
            if !viewer.sees_secrets_of(seat) {
                assert_eq!(player.drawn, None, "{viewer:?} sees seat {seat}'s card");
                assert_eq!(player.face_down_card, None, "{viewer:?}, seat {seat}");
            }
            let shown = sorted(cards_in(&json["players"][seat]));
            assert_eq!(
                shown,
                visible_cards(state, seat, viewer),
                "{viewer:?} {seat}"
            );
        }

        let redacted = Vamanos::redact(event, viewer);
        let json = serde_json::to_value(&redacted).expect("an event is JSON");
        let named = cards_in(&json);
        match &redacted {
            Event::RoundDealt { piles, .. } | Event::PilesReshuffled { piles, .. } => {
                assert!(piles.iter().all(|p| p.cards.is_none()), "{viewer:?}");
                assert!(named.is_empty(), "{viewer:?} sees undrawn cards in {json}");
            }
            Event::Drew { seat, card, .. } | Event::LaidFaceDown { seat, card, .. } => {
                if viewer.sees_secrets_of(*seat) {
                    assert_eq!(named, card.iter().copied().collect::<Vec<_>>());
                } else {
                    assert_eq!(*card, None, "{viewer:?} sees seat {seat}'s card");
                    assert!(named.is_empty(), "{viewer:?}: {json}");
                }
            }
            Event::Placed { seat, card, .. } => {
                assert!(state.players[*seat]
                    .rows
                    .iter()
                    .flatten()
                    .any(|c| c == card));
            }
            Event::RowStacked { seat, cards, .. } => {
                assert!(state.players[*seat].stacks.contains(cards));
            }
            Event::RoundScored { scores, .. } => {
                for score in scores {
                    let stacks: Vec<Vec<Card>> =
                        score.stacks.iter().map(|s| s.cards.clone()).collect();
                    assert_eq!(stacks, state.players[score.seat].stacks);
                }
            }
            Event::AltaCalled { .. } | Event::Retired { .. } | Event::GameEnded { .. } => {
                assert!(named.is_empty())
            }
        }
    }
}

/// Thousands of random games, two to six players, to a low target so that they end; the
/// seat acting next is drawn at random among all those to act, so the commands of different
/// players interleave at random. Card conservation after every event; some games replayed.
#[test]
fn thousands_of_random_games_keep_every_invariant() {
    let mut finished = 0;
    let mut games = 0;
    let mut rounds = 0;
    for seats in 2..=6 {
        for n in 0..400u64 {
            let target = [20, 40, 60][(n % 3) as usize];
            let mut seed = [0u8; 32];
            seed[0] = seats as u8;
            seed[1..9].copy_from_slice(&n.to_le_bytes());
            let game = play_random::<Vamanos>(
                &setup(seats, target),
                Seed(seed),
                n * 10 + seats as u64,
                20_000,
                assert_cards_conserved,
            )
            .unwrap_or_else(|e| panic!("{seats} seats, game {n}: {e}"));
            games += 1;
            rounds += game.state.round;
            if game.finished {
                finished += 1;
                let outcome = Vamanos::outcome(&game.state).expect("an outcome");
                let best = game.state.totals.iter().max().copied();
                assert!(best > Some(i64::from(target)));
                assert!(outcome
                    .winners
                    .iter()
                    .all(|&w| Some(game.state.totals[w]) == best));
            }
            if n % 40 == 0 {
                replay_matches(&game).unwrap_or_else(|e| panic!("{seats} seats, {n}: {e}"));
            }
        }
    }
    assert_eq!(games, 2000);
    assert!(finished >= 1990, "only {finished} of {games} games ended");
    assert!(rounds > 2000, "games of one round only: {rounds}");
}

/// Secrecy after every event, for every viewer, over random games of every size.
#[test]
fn no_viewer_ever_sees_an_undrawn_card_or_another_seats_card() {
    for seats in 2..=6 {
        for n in 0..8u64 {
            let mut seed = [7u8; 32];
            seed[0] = seats as u8;
            seed[1] = n as u8;
            play_random::<Vamanos>(&setup(seats, 30), Seed(seed), n, 20_000, |state, event| {
                assert_cards_conserved(state, event);
                assert_secrets_kept(state, event);
            })
            .unwrap_or_else(|e| panic!("{seats} seats, game {n}: {e}"));
        }
    }
}

/// "commands from different players arrive in any order": each player sends commands from
/// what they last saw, and the commands arrive shuffled, some after another player's Alta.
/// Each is decided against the state at its arrival: accepted, or refused with a code and a
/// sentence; never a panic, and the cards are always conserved. Seats of games of three or
/// more sometimes leave.
#[test]
fn commands_sent_from_stale_states_are_decided_at_their_arrival() {
    let mut refused_late = 0;
    for n in 0..300u64 {
        let seats = 2 + (n % 5) as usize;
        let setup = setup(seats, 25);
        let seed = Seed([n as u8; 32]);
        let mut picker = Seed([0xa5; 32]).dealer(n);
        let mut state = Vamanos::initial(&setup);
        let mut version = 0u64;
        for event in Vamanos::start(&state, &Context::new(seed, 0, test_time())) {
            Vamanos::evolve(&mut state, &event);
            version += 1;
        }
        let mut in_flight: Vec<(Seat, Command)> = Vec::new();
        let mut steps = 0;
        while Vamanos::outcome(&state).is_none() {
            steps += 1;
            assert!(steps < 100_000, "game {n} does not end");
            // Some players send a command from what they see now.
            let to_act = Vamanos::to_act(&state);
            assert!(!to_act.is_empty());
            let seat = to_act[picker.uniform_inclusive(to_act.len() as u32 - 1) as usize];
            let legal = Vamanos::legal(&state, seat);
            let pick = picker.uniform_inclusive(legal.len() as u32 - 1) as usize;
            in_flight.push((seat, legal[pick].command.clone()));
            if picker.uniform_inclusive(9) == 0 {
                // A garbled command: a wrong row, or a round that is not the current one.
                let round = state.round + picker.uniform_inclusive(2) - 1;
                let row = picker.uniform_inclusive(4);
                in_flight.push((seat, Command::Place { round, row }));
            }
            if seats >= 3 && picker.uniform_inclusive(2000) == 0 {
                let still: Vec<Seat> = state.playing();
                if still.len() >= 3 {
                    let leaving = still[picker.uniform_inclusive(still.len() as u32 - 1) as usize];
                    for event in Vamanos::retire(&state, leaving) {
                        Vamanos::evolve(&mut state, &event);
                        assert_cards_conserved(&state, &event);
                        version += 1;
                    }
                    assert!(!Vamanos::to_act(&state).contains(&leaving));
                }
            }
            // One command in flight arrives, not necessarily the oldest.
            let arriving = picker.uniform_inclusive(in_flight.len() as u32 - 1) as usize;
            let (seat, command) = in_flight.swap_remove(arriving);
            let ctx = Context::new(seed, version + 1, test_time());
            match Vamanos::decide(&state, seat, &command, &ctx) {
                Ok(events) => {
                    assert!(!events.is_empty());
                    for event in events {
                        Vamanos::evolve(&mut state, &event);
                        assert_cards_conserved(&state, &event);
                        version += 1;
                    }
                }
                Err(error) => {
                    assert!(
                        ["round_over", "illegal_command", "bad_command"]
                            .contains(&error.code.as_str()),
                        "{error:?}"
                    );
                    assert!(error.message.ends_with('.'), "{}", error.message);
                    if error.code == "round_over" {
                        refused_late += 1;
                        assert!(error.message.contains("called Alta"));
                    }
                }
            }
        }
        let outcome = Vamanos::outcome(&state).expect("over");
        assert!(outcome.winners.iter().all(|&w| state.plays(w)));
        // After the end every command is refused as game over.
        for (seat, command) in in_flight {
            let ctx = Context::new(seed, version + 1, test_time());
            let error = Vamanos::decide(&state, seat, &command, &ctx).unwrap_err();
            assert_eq!(error.code, "game_over");
        }
    }
    assert!(refused_late > 100, "late commands refused: {refused_late}");
}
