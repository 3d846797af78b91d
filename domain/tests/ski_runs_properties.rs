//! Properties of Ski Runs over many random games: every game ends, no card appears or
//! vanishes, no viewer sees another seat's hand or an undrawn card, and a recorded game
//! decides again to the same events.

use domain::engine::{Context, Engine, Seat, Viewer};
use domain::fairness::Seed;
use domain::games::ski_runs::{Card, DeckCounts, Event, Options, SkiRuns, State};
use domain::testing::{
    play_random, replay_matches, setup, test_time, viewers, with_options, RandomGame,
};
use serde_json::Value;

fn seed(n: u64) -> Seed {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&n.to_le_bytes());
    Seed(bytes)
}

/// The most commands a game can take: far above any real game, so a game that reaches it
/// does not end.
const MAX_COMMANDS: usize = 5_000;

/// Every card of the deck is in exactly one place: a pile, a hand, a run, the discard pile or
/// the centre.
fn assert_conserved(state: &State) {
    if !state.dealt {
        return;
    }
    let mut places: Vec<Card> = state.draw_pile.clone();
    places.extend(std::iter::repeat_n(Card::Lift, state.lift_pile));
    places.extend(state.hands.iter().flatten());
    places.extend(state.runs.iter().flatten().flat_map(|r| r.cards.iter()));
    places.extend(state.banked.iter().flatten().flat_map(|r| r.cards.iter()));
    places.extend(state.discard_pile.iter());
    places.extend(std::iter::repeat_n(Card::Avalanche, state.avalanches.len()));
    for card in Card::ALL {
        let found = places.iter().filter(|&&c| c == card).count();
        assert_eq!(
            found,
            state.deck.count(card) as usize,
            "{card} is not conserved: {state:?}"
        );
    }
}

fn small_deck() -> DeckCounts {
    DeckCounts {
        lift: 6,
        green: 8,
        blue: 6,
        red: 5,
        black: 4,
        avalanche: 3,
    }
}

/// Every random game ends, by the 5th avalanche or by a full round without progress once the
/// draw pile is empty, for 2 to 6 players; cards are conserved along the way.
#[test]
fn random_games_of_2_to_6_players_always_end() {
    let mut by_end = [0usize; 2];
    for n in 0..2_500u64 {
        let seats = 2 + (n % 5) as usize;
        let deck = if n % 7 == 3 {
            small_deck()
        } else {
            DeckCounts::default()
        };
        // "If the draw pile runs out, ... nobody draws again, from either pile."
        let mut draw_pile_ran_out = false;
        let game = play_random::<SkiRuns>(
            &with_options(setup::<SkiRuns>(seats), Options { deck }),
            seed(n),
            n,
            MAX_COMMANDS,
            |s, e| {
                assert_conserved(s);
                if draw_pile_ran_out {
                    assert!(!matches!(e, Event::Drew { .. } | Event::PickedUp { .. }));
                }
                draw_pile_ran_out = s.dealt && s.draw_pile.is_empty();
            },
        )
        .unwrap_or_else(|e| panic!("game {n} with {seats} players: {e}"));
        assert!(game.finished, "game {n} with {seats} players did not end");
        let outcome = SkiRuns::outcome(&game.state).expect("an outcome");
        assert!(!outcome.winners.is_empty());
        match game.state.end {
            Some(domain::games::ski_runs::End::FinalAvalanche) => by_end[0] += 1,
            _ => by_end[1] += 1,
        }
        if n % 50 == 0 {
            replay_matches(&game).unwrap_or_else(|e| panic!("game {n} replays otherwise: {e}"));
        }
    }
    // Both ends happen in random play.
    assert!(by_end.iter().all(|&n| n > 0), "{by_end:?}");
}

/// With no avalanche card at all, random games still end: by the round without progress.
#[test]
fn random_games_without_avalanche_cards_end_when_nobody_can_progress() {
    for n in 0..200u64 {
        let seats = 2 + (n % 5) as usize;
        let deck = DeckCounts {
            avalanche: 0,
            ..DeckCounts::default()
        };
        let game = play_random::<SkiRuns>(
            &with_options(setup::<SkiRuns>(seats), Options { deck }),
            seed(n),
            n + 7,
            MAX_COMMANDS,
            |s, _| assert_conserved(s),
        )
        .unwrap_or_else(|e| panic!("game {n}: {e}"));
        assert!(game.finished);
        assert_eq!(
            game.state.end,
            Some(domain::games::ski_runs::End::NoProgress)
        );
        assert!(game.state.draw_pile.is_empty());
    }
}

/// Cards are conserved after every event, including a player leaving and a reshuffle of the
/// draw pile (a takeback fork), and the game goes on to its end without the seat that left.
#[test]
fn cards_are_conserved_after_every_event() {
    for n in 0..300u64 {
        let seats = 3 + (n % 4) as usize;
        let setup = setup::<SkiRuns>(seats);
        let ctx = |v: u64| Context::new(seed(n), v, test_time());
        let mut state = SkiRuns::initial(&setup);
        let apply = |state: &mut State, events: Vec<Event>| {
            for event in events {
                SkiRuns::evolve(state, &event);
                assert_conserved(state);
            }
        };
        let events = SkiRuns::start(&state, &ctx(0));
        apply(&mut state, events);
        let mut picker = seed(n).dealer(99);
        let mut retired = 0;
        for step in 1..MAX_COMMANDS as u64 {
            if SkiRuns::outcome(&state).is_some() {
                break;
            }
            let seat = SkiRuns::to_act(&state)[0];
            if step == 10 + n % 40 {
                let events = SkiRuns::reshuffle(&state, &ctx(step));
                apply(&mut state, events);
            }
            if step % 30 == 0 && retired + 2 < seats {
                // The table retires a seat only while two others remain.
                let leaving = picker.uniform_inclusive(seats as u32 - 1) as Seat;
                if !state.retired[leaving] {
                    let events = SkiRuns::retire(&state, leaving);
                    apply(&mut state, events);
                    retired += 1;
                    continue;
                }
            }
            let legal = SkiRuns::legal(&state, seat);
            let choice = &legal[picker.uniform_inclusive(legal.len() as u32 - 1) as usize];
            let events = SkiRuns::decide(&state, seat, &choice.command, &ctx(step)).unwrap();
            apply(&mut state, events);
        }
        assert!(SkiRuns::outcome(&state).is_some(), "game {n} did not end");
        for seat in 0..seats {
            if state.retired[seat] {
                assert!(!SkiRuns::outcome(&state).unwrap().winners.contains(&seat));
            }
        }
    }
}

/// The names of cards as they appear in JSON.
fn card_names() -> Vec<Value> {
    Card::ALL
        .iter()
        .map(|c| serde_json::to_value(c).unwrap())
        .collect()
}

/// How many card values a JSON document holds.
fn cards_in(value: &Value, names: &[Value]) -> usize {
    match value {
        Value::Array(items) => items.iter().map(|v| cards_in(v, names)).sum(),
        Value::Object(map) => map.values().map(|v| cards_in(v, names)).sum(),
        other if names.contains(other) => 1,
        _ => 0,
    }
}

/// The cards of an event that `viewer` may see: their own, and those played in the open.
fn visible_cards(event: &Event, viewer: Viewer) -> usize {
    let own = |seat: Seat| viewer.sees_secrets_of(seat);
    match event {
        Event::Dealt { hands, .. } => hands
            .iter()
            .enumerate()
            .filter(|(seat, _)| own(*seat))
            .map(|(_, hand)| hand.count)
            .sum(),
        Event::Drew { seat, cards, .. } | Event::PickedUp { seat, cards, .. } => {
            if own(*seat) {
                cards.count
            } else {
                0
            }
        }
        Event::Played { .. } => 1,
        Event::Banked { run, .. } => run.cards.len(),
        Event::Retired { seat, hand, run } => {
            run.as_ref().map_or(0, |r| r.cards.len()) + if own(*seat) { hand.count } else { 0 }
        }
        Event::TurnEnded { .. } | Event::DrawPileReshuffled { .. } | Event::GameEnded { .. } => 0,
    }
}

fn check_secrecy(game: &RandomGame<SkiRuns>) {
    let names = card_names();
    let mut state = SkiRuns::initial(&game.setup);
    for event in &game.events {
        SkiRuns::evolve(&mut state, event);
        for viewer in viewers(game.setup.seats) {
            // The redacted event: typed, then as JSON.
            let redacted = SkiRuns::redact(event, viewer);
            match &redacted {
                Event::Dealt {
                    hands, draw_pile, ..
                } => {
                    assert!(draw_pile.cards.is_none());
                    for (seat, hand) in hands.iter().enumerate() {
                        assert_eq!(hand.cards.is_some(), viewer.sees_secrets_of(seat));
                    }
                }
                Event::Drew { seat, cards, .. }
                | Event::PickedUp { seat, cards, .. }
                | Event::Retired {
                    seat, hand: cards, ..
                } => {
                    assert_eq!(cards.cards.is_some(), viewer.sees_secrets_of(*seat));
                }
                Event::DrawPileReshuffled { draw_pile } => assert!(draw_pile.cards.is_none()),
                _ => {}
            }
            let json = serde_json::to_value(&redacted).unwrap();
            assert_eq!(
                cards_in(&json, &names),
                visible_cards(event, viewer),
                "{viewer:?} sees too much of {json}"
            );
            // The view: typed, then as JSON.
            let view = SkiRuns::view(&state, viewer);
            if state.end.is_some() {
                continue;
            }
            assert!(view.draw_pile.is_none());
            for player in &view.players {
                assert_eq!(player.hand.is_some(), viewer.sees_secrets_of(player.seat));
            }
            let open: usize = (0..state.seats)
                .map(|s| {
                    state.runs[s].as_ref().map_or(0, |r| r.cards.len())
                        + state.banked[s].iter().map(|r| r.cards.len()).sum::<usize>()
                        + if viewer.sees_secrets_of(s) {
                            state.hands[s].len()
                        } else {
                            0
                        }
                })
                .sum();
            let json = serde_json::to_value(&view).unwrap();
            assert_eq!(
                cards_in(&json, &names),
                open,
                "{viewer:?} sees too much of {json}"
            );
        }
    }
    // Once over, everyone sees everything.
    let view = SkiRuns::view(&state, Viewer::Everyone);
    assert_eq!(
        view.draw_pile.as_ref().map(Vec::len),
        Some(state.draw_pile.len())
    );
    assert!(view.players.iter().all(|p| p.hand.is_some()));
}

/// For every event and every viewer, neither the view nor the redacted event shows another
/// seat's hand or an undrawn card.
#[test]
fn no_viewer_sees_another_hand_or_an_undrawn_card() {
    for n in 0..40u64 {
        let seats = 2 + (n % 5) as usize;
        let game = play_random::<SkiRuns>(
            &setup::<SkiRuns>(seats),
            seed(1000 + n),
            n,
            MAX_COMMANDS,
            |_, _| {},
        )
        .unwrap();
        check_secrecy(&game);
    }
}

/// The deal is the fair shuffle of the game's seed: the same seed deals the same cards, another
/// deals others.
#[test]
fn the_deal_follows_the_seed() {
    let setup = setup::<SkiRuns>(4);
    let state = SkiRuns::initial(&setup);
    let deal = |s: u64| SkiRuns::start(&state, &Context::new(seed(s), 0, test_time()));
    assert_eq!(deal(1), deal(1));
    assert_ne!(deal(1), deal(2));
}
