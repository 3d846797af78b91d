//! Properties of Avalanche over thousands of random games: every game ends, the 110 cards are
//! conserved after every event, no viewer ever sees another seat's hand or the draw pile, and
//! the fold of the events (and an audit's re-decision of the commands) gives the state.

use domain::engine::{Engine, Seat, Viewer};
use domain::fairness::Seed;
use domain::games::avalanche::cards::{deck, Cards, Rank};
use domain::games::avalanche::{Avalanche, Event, Phase};
use domain::testing::{play_random, replay_matches, setup, test_time, viewers};
use serde_json::Value;
use std::collections::HashSet;

type State = <Avalanche as Engine>::State;

/// Commands enough for any game: each turn draws a card from the pile or plays cards from a
/// hand to the table, where they never come back from, so a game has at most 220 commands.
const MAX_COMMANDS: usize = 400;

fn seed(seats: usize, game: u64) -> Seed {
    let mut bytes = [0u8; 32];
    bytes[0] = seats as u8;
    bytes[1..9].copy_from_slice(&game.to_le_bytes());
    Seed(bytes)
}

/// Every card in hands, the draw pile, the table, the collected piles and the neutral pile:
/// exactly the deck, once the cards are dealt.
fn assert_conserved(state: &State) {
    if state.phase == Phase::Dealing {
        return;
    }
    let mut all = Cards::new();
    for hand in &state.hands {
        all.add_cards(hand);
    }
    all.add_all(&state.draw_pile);
    all.add_all(&state.table_cards());
    for pile in &state.collected {
        all.add_cards(pile);
    }
    all.add_cards(&state.neutral);
    assert_eq!(
        all,
        Cards::of(&deck()),
        "cards are not conserved: {state:?}"
    );
}

/// The rules' ruling: the player to act always holds at least one card. (Between the events
/// of one command, the last player holding cards may have answered the running avalanche
/// with their whole hand: nobody holds cards, and the game ends with the command's last event.)
fn assert_turn_holds_cards(state: &State) {
    if state.phase == Phase::Playing && !state.holders().is_empty() {
        assert!(
            !state.hand(state.turn).is_empty(),
            "seat {} is to act with no card",
            state.turn
        );
    }
}

/// Each distinct play (rank and count) is listed once.
fn assert_legal_distinct(state: &State) {
    for seat in 0..state.seats {
        let legal = Avalanche::legal(state, seat);
        let distinct: HashSet<String> = legal.iter().map(|l| l.notation.clone()).collect();
        assert_eq!(distinct.len(), legal.len(), "{legal:?}");
    }
}

/// Card conservation after every event, and every game ends, for thousands of random games
/// of 2 to 6 players; the fold of the events is the state (checked by `play_random`) and an
/// audit re-deciding the commands gives the same events (on every tenth game).
#[test]
fn thousands_of_random_games_end_and_conserve_the_110_cards() {
    let mut games = 0;
    let mut commands = 0;
    for seats in 2..=6 {
        for game in 0..600u64 {
            // The last set played: the game never ends on a running avalanche that the last
            // player holding cards has not answered ("players must contribute to it").
            let mut last_set_by = None;
            let played = play_random::<Avalanche>(
                &setup::<Avalanche>(seats),
                seed(seats, game),
                game * 7 + seats as u64,
                MAX_COMMANDS,
                |state, event| {
                    assert_conserved(state);
                    assert_turn_holds_cards(state);
                    match event {
                        Event::Played { seat, .. } => last_set_by = Some(*seat),
                        Event::GameEnded {
                            last: Some(last),
                            table,
                            ..
                        } if !table.is_empty() => {
                            assert_eq!(last_set_by, Some(*last), "the last holder answered");
                        }
                        _ => {}
                    }
                },
            )
            .unwrap_or_else(|e| panic!("{seats} seats, game {game}: {e}"));
            assert!(played.finished, "{seats} seats, game {game} did not end");
            let outcome = Avalanche::outcome(&played.state).expect("an outcome");
            assert!(!outcome.winners.is_empty());
            assert_eq!(
                outcome.scores.as_ref().map(|s| s.iter().sum::<i64>()),
                Some(played.state.collected.iter().map(|c| c.len() as i64).sum())
            );
            if game % 10 == 0 {
                replay_matches(&played)
                    .unwrap_or_else(|e| panic!("{seats} seats, game {game}: replay: {e}"));
                assert_legal_distinct(&played.state);
            }
            games += 1;
            commands += played.commands.len();
        }
    }
    assert_eq!(games, 3000);
    assert!(commands > games * 20, "games are not trivially short");
}

/// The cards a viewer may see in an event: everything played face up, and their own cards.
fn visible_cards(event: &Event, viewer: Viewer) -> Vec<Rank> {
    let own = |seat: Seat| viewer.sees_secrets_of(seat);
    match event {
        Event::DealerDrawn { rounds, .. } => rounds.iter().flatten().map(|d| d.card).collect(),
        Event::Dealt { hands, .. } => hands
            .iter()
            .enumerate()
            .filter(|&(seat, _)| own(seat))
            .flat_map(|(_, hand)| hand.known().to_vec())
            .collect(),
        Event::SnowFell { seat, card } => card.filter(|_| own(*seat)).into_iter().collect(),
        Event::Played { cards, .. }
        | Event::AvalancheStopped { cards }
        | Event::AvalancheFell { cards, .. } => cards.clone(),
        Event::Refilled { seat, cards } => {
            if own(*seat) {
                cards.known().to_vec()
            } else {
                Vec::new()
            }
        }
        Event::Retired { seat, hand } => {
            if own(*seat) {
                hand.known().to_vec()
            } else {
                Vec::new()
            }
        }
        Event::WentOut { .. } | Event::Reshuffled { .. } => Vec::new(),
        Event::GameEnded { last, hand, table } => {
            let mut cards = table.clone();
            if last.is_some_and(own) {
                cards.extend_from_slice(hand.known());
            }
            cards
        }
    }
}

/// Every card named in a JSON document (a string that reads as a rank).
fn cards_in_json(value: &Value, found: &mut Vec<Rank>) {
    match value {
        Value::String(_) => {
            if let Ok(rank) = serde_json::from_value::<Rank>(value.clone()) {
                found.push(rank);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| cards_in_json(v, found)),
        Value::Object(map) => map.values().for_each(|v| cards_in_json(v, found)),
        _ => {}
    }
}

fn sorted(mut cards: Vec<Rank>) -> Vec<Rank> {
    cards.sort();
    cards
}

/// The typed check of a redacted event: no secret of another seat, no undrawn card.
fn assert_redacted(event: &Event, viewer: Viewer) {
    let others = |seat: Seat| !viewer.sees_secrets_of(seat);
    match event {
        Event::Dealt {
            hands, draw_pile, ..
        } => {
            for (seat, hand) in hands.iter().enumerate() {
                assert!(
                    !others(seat) || hand.cards.is_none(),
                    "{viewer:?}: {event:?}"
                );
            }
            assert!(draw_pile.cards.is_none());
        }
        Event::SnowFell { seat, card } => assert!(!others(*seat) || card.is_none()),
        Event::Refilled { seat, cards } => assert!(!others(*seat) || cards.cards.is_none()),
        Event::Retired { seat, hand } => assert!(!others(*seat) || hand.cards.is_none()),
        Event::Reshuffled { draw_pile } => assert!(draw_pile.cards.is_none()),
        Event::GameEnded { last, hand, .. } => {
            assert!(!last.is_some_and(others) || hand.cards.is_none())
        }
        _ => {}
    }
}

/// No view or redacted event for one seat (or a spectator) ever holds a card of another
/// seat's hand or of the draw pile: checked on the typed values, and by counting the cards
/// named in the JSON, which must be exactly the public ones and the viewer's own.
#[test]
fn no_viewer_sees_another_hand_or_the_draw_pile() {
    for seats in 2..=6 {
        for game in 0..40u64 {
            let mut checked = 0usize;
            play_random::<Avalanche>(
                &setup::<Avalanche>(seats),
                seed(seats, 10_000 + game),
                game,
                MAX_COMMANDS,
                |state, event| {
                    for viewer in viewers(seats) {
                        let redacted = Avalanche::redact(event, viewer);
                        assert_redacted(&redacted, viewer);
                        let mut named = Vec::new();
                        cards_in_json(&serde_json::to_value(&redacted).unwrap(), &mut named);
                        assert_eq!(
                            sorted(named),
                            sorted(visible_cards(event, viewer)),
                            "{viewer:?} sees {redacted:?}"
                        );

                        let view = Avalanche::view(state, viewer);
                        assert_eq!(view.draw_pile, None);
                        // The table, with the set to beat named a second time.
                        let mut allowed = state.table_cards();
                        if let Some(set) = state.to_beat() {
                            allowed.extend(std::iter::repeat_n(set.rank, set.size));
                        }
                        allowed.extend(state.dealer_draw.iter().flatten().map(|&(_, c)| c));
                        for seat in view.seats.iter() {
                            if viewer.sees_secrets_of(seat.seat) {
                                assert_eq!(seat.hand, Some(state.hand(seat.seat).to_vec()));
                                allowed.extend(state.hand(seat.seat).to_vec());
                            } else {
                                assert_eq!(seat.hand, None, "{viewer:?} sees seat {}", seat.seat);
                            }
                        }
                        let mut named = Vec::new();
                        cards_in_json(&serde_json::to_value(&view).unwrap(), &mut named);
                        assert_eq!(sorted(named), sorted(allowed), "{viewer:?}");
                        checked += 1;
                    }
                },
            )
            .unwrap_or_else(|e| panic!("{seats} seats, game {game}: {e}"));
            assert!(checked > 0);
        }
    }
}

/// Once the game is over everything is revealed to `Everyone`: the draw pile and every hand.
#[test]
fn everything_is_revealed_to_everyone() {
    let played = play_random::<Avalanche>(&setup::<Avalanche>(3), seed(3, 77), 3, 2, |_, _| {})
        .expect("a game");
    let view = Avalanche::view(&played.state, Viewer::Everyone);
    assert_eq!(view.draw_pile, Some(played.state.draw_pile.clone()));
    assert!(view.seats.iter().all(|seat| seat.hand.is_some()));
    for event in &played.events {
        assert_eq!(&Avalanche::redact(event, Viewer::Everyone), event);
    }
}

/// Seats leaving a game of three or more at random moments (as the table calls `retire`
/// while at least two other seats remain): the game goes on without them, the cards are
/// conserved, retired seats never act and never win, and every game ends.
#[test]
fn random_games_with_retirements_end_and_conserve_the_cards() {
    for seats in 3..=6 {
        for game in 0..150u64 {
            let mut picker = seed(seats, 50_000 + game).dealer(game);
            let mut state = Avalanche::initial(&setup::<Avalanche>(seats));
            let ctx = domain::engine::Context::new(seed(seats, game), 0, test_time());
            for event in Avalanche::start(&state, &ctx) {
                Avalanche::evolve(&mut state, &event);
            }
            let mut resigned = vec![false; seats];
            let mut steps = 0;
            while Avalanche::outcome(&state).is_none() {
                steps += 1;
                assert!(
                    steps < MAX_COMMANDS,
                    "{seats} seats, game {game} did not end"
                );
                let remaining: Vec<Seat> = (0..seats).filter(|&s| !resigned[s]).collect();
                if remaining.len() >= 3 && picker.uniform_inclusive(30) == 0 {
                    let seat =
                        remaining[picker.uniform_inclusive(remaining.len() as u32 - 1) as usize];
                    resigned[seat] = true;
                    for event in Avalanche::retire(&state, seat) {
                        Avalanche::evolve(&mut state, &event);
                        assert_conserved(&state);
                    }
                    continue;
                }
                let to_act = Avalanche::to_act(&state);
                assert_eq!(to_act.len(), 1);
                let seat = to_act[0];
                assert!(!resigned[seat], "a retired seat is to act");
                let legal = Avalanche::legal(&state, seat);
                let choice = &legal[picker.uniform_inclusive(legal.len() as u32 - 1) as usize];
                let ctx =
                    domain::engine::Context::new(seed(seats, game), steps as u64, test_time());
                for event in Avalanche::decide(&state, seat, &choice.command, &ctx).unwrap() {
                    Avalanche::evolve(&mut state, &event);
                    assert_conserved(&state);
                    assert_turn_holds_cards(&state);
                }
            }
            let outcome = Avalanche::outcome(&state).unwrap();
            assert!(outcome.winners.iter().all(|&w| !resigned[w]));
        }
    }
}
