//! Properties of Altitude over thousands of random games: every game ends, no card is ever
//! created or lost, and nobody sees another seat's hand or an undrawn card.

use domain::engine::{Context, Engine, Seat, Viewer};
use domain::fairness::Seed;
use domain::games::altitude::*;
use domain::testing::{play_random, replay_matches, setup, test_time, viewers, with_options};
use std::collections::BTreeSet;

fn seed(n: u64) -> Seed {
    let mut bytes = [7u8; 32];
    bytes[..8].copy_from_slice(&n.to_le_bytes());
    Seed(bytes)
}

/// Every card of the game, wherever it is.
fn all_cards(state: &State) -> Vec<Card> {
    let mut cards: Vec<Card> = state.hands.iter().flatten().copied().collect();
    cards.extend(
        state
            .mountains
            .iter()
            .flat_map(|m| m.cards.values().copied()),
    );
    cards.extend(state.deck.iter().copied());
    cards.extend(state.discard.iter().copied());
    cards.extend(state.drawn);
    cards
}

/// Card conservation: once dealt, every card of the deck is in exactly one place.
fn assert_conserved(state: &State) {
    if state.phase == Phase::NotStarted {
        return;
    }
    let size = state.options.deck_size();
    let mut seen = vec![false; size];
    let cards = all_cards(state);
    for card in &cards {
        let slot = seen
            .get_mut(usize::from(card.id))
            .expect("a card of the deck");
        assert!(!*slot, "card {card} is in two places");
        *slot = true;
    }
    assert_eq!(cards.len(), size, "cards created or lost");
}

/// "A player always holds exactly 4 cards while the deck lasts."
fn assert_hands_of_4(state: &State) {
    if state.phase == Phase::Playing {
        for seat in (0..state.seats).filter(|&s| state.is_active(s)) {
            assert_eq!(state.hands[seat].len(), 4, "seat {seat} holds 4 cards");
        }
    }
}

fn event_cards(event: &Event) -> Vec<Card> {
    match event {
        Event::Dealt { cards, .. }
        | Event::DeckShuffled { cards, .. }
        | Event::CardsReturned { cards, .. } => cards.clone(),
        Event::Drew { card, .. } => card.iter().copied().collect(),
        Event::Laid { card, .. }
        | Event::Discarded { card, .. }
        | Event::LaidOnOpponent { card, .. } => vec![*card],
        Event::Replaced { card, removed, .. } => vec![*card, *removed],
        Event::AvalancheRemoved {
            avalanche,
            saint_bernard,
            ..
        } => vec![*avalanche, *saint_bernard],
        Event::Passed { .. } | Event::GameEnded => Vec::new(),
        Event::Retired { discarded, .. } => discarded.iter().copied().collect(),
    }
}

fn view_cards(view: &View) -> Vec<Card> {
    let mut cards = view.hand.clone();
    cards.extend(view.drawn);
    for player in &view.players {
        cards.extend(player.hand.iter().flatten().copied());
        cards.extend(player.mountain.iter().map(|p| p.card));
    }
    cards
}

/// What `viewer` may not see now: other seats' hands and drawn cards, and the deck.
fn secrets_from(state: &State, viewer: Viewer) -> BTreeSet<u16> {
    let mut secret = BTreeSet::new();
    for seat in (0..state.seats).filter(|&s| !viewer.sees_secrets_of(s)) {
        secret.extend(state.hands[seat].iter().map(|c| c.id));
        if state.turn == seat {
            secret.extend(state.drawn.map(|c| c.id));
        }
    }
    secret.extend(state.deck.iter().map(|c| c.id));
    secret
}

/// Every card id written in a JSON text (`"id":17`), read from the text itself rather than
/// from the typed value, so that a card hidden in some other field would be caught too.
fn ids_in_json(json: &str) -> Vec<u16> {
    json.split("\"id\":")
        .skip(1)
        .filter_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}

/// Checks one event and the view after it for every viewer. `known[s]` holds the cards seat
/// `s` returned to the deck itself (it knows them, but not where they lie).
fn assert_secret(state: &State, event: &Event, known: &mut [BTreeSet<u16>]) {
    if let Event::CardsReturned { seat, cards, .. } = event {
        known[*seat].extend(cards.iter().map(|c| c.id));
    }
    for viewer in viewers(state.seats) {
        let mut secret = secrets_from(state, viewer);
        if let Viewer::Seat(s) = viewer {
            secret.retain(|id| !known[s].contains(id));
        }
        let redacted = Altitude::redact(event, viewer);
        for card in event_cards(&redacted) {
            assert!(
                !secret.contains(&card.id),
                "{viewer:?} sees {card} in {redacted:?}"
            );
        }
        let json = serde_json::to_string(&redacted).unwrap();
        for id in ids_in_json(&json) {
            assert!(
                !secret.contains(&id),
                "{viewer:?} reads card {id} in {json}"
            );
        }
        if let Event::DeckShuffled { cards, .. } = &redacted {
            assert!(cards.is_empty(), "nobody sees the deck");
        }
        let view = Altitude::view(state, viewer);
        for card in view_cards(&view) {
            assert!(
                !secret.contains(&card.id),
                "{viewer:?} sees {card} in the view"
            );
        }
        let json = serde_json::to_string(&view).unwrap();
        for id in ids_in_json(&json) {
            assert!(
                !secret.contains(&id),
                "{viewer:?} reads card {id} in the view"
            );
        }
    }
}

/// Thousands of random games of 1 to 4 players: each ends (the end phase terminates), keeps
/// every card and 4 in each hand while the deck lasts, and honours the common invariants.
#[test]
fn thousands_of_random_games_end_and_keep_every_card() {
    let mut games = 0;
    let mut seen = BTreeSet::new();
    for n in 0..2000u64 {
        let seats = (n % 4) as usize + 1;
        // "an avalanche card never goes into a hand": the drawn card a player keeps while
        // laying from the hand is never an avalanche.
        let mut drawn: Option<Card> = None;
        let game = play_random::<Altitude>(
            &setup::<Altitude>(seats),
            seed(n),
            n,
            3000,
            |state, event| {
                assert_conserved(state);
                assert_hands_of_4(state);
                if let Event::Laid {
                    from_hand: true, ..
                }
                | Event::AvalancheRemoved {
                    from_hand: true, ..
                } = event
                {
                    assert!(drawn.is_none_or(|card| card.face != Face::Avalanche));
                }
                drawn = state.drawn;
            },
        )
        .unwrap_or_else(|e| panic!("game {n} of {seats}: {e}"));
        assert!(game.finished, "game {n} of {seats} players did not end");
        let outcome = Altitude::outcome(&game.state).unwrap();
        assert!(!outcome.winners.is_empty());
        assert_eq!(game.state.deck.len(), 0);
        for event in &game.events {
            let json = serde_json::to_value(event).unwrap();
            let mut kind = json["type"].as_str().unwrap_or("?").to_string();
            if json["from_hand"] == serde_json::Value::Bool(true) {
                kind.push_str(" from the hand");
            }
            seen.insert(kind);
        }
        if game.state.two_turns.iter().any(|&t| t) {
            seen.insert("two turns".to_string());
        }
        if n % 50 == 0 {
            replay_matches(&game).unwrap_or_else(|e| panic!("game {n}: {e}"));
        }
        games += 1;
    }
    assert_eq!(games, 2000);
    // The random games reach every kind of event, so the properties above cover them all.
    for kind in [
        "dealt",
        "deck_shuffled",
        "cards_returned",
        "drew",
        "laid",
        "laid from the hand",
        "discarded",
        "laid_on_opponent",
        "replaced",
        "avalanche_removed",
        "avalanche_removed from the hand",
        "passed",
        "two turns",
    ] {
        assert!(seen.contains(kind), "no random game had {kind}: {seen:?}");
    }
}

/// Decks of other counts play to the end as well.
#[test]
fn random_games_with_other_counts_end() {
    let decks = [
        Options {
            mountain_copies: 1,
            animal_copies: 0,
            cable_cars: 0,
            avalanches: 0,
            saint_bernards: 0,
        },
        Options {
            mountain_copies: 1,
            animal_copies: 1,
            cable_cars: 2,
            avalanches: 20,
            saint_bernards: 20,
        },
        Options {
            mountain_copies: 6,
            animal_copies: 2,
            cable_cars: 20,
            avalanches: 20,
            saint_bernards: 10,
        },
    ];
    for (d, options) in decks.iter().enumerate() {
        for n in 0..40u64 {
            let seats = (n % 4) as usize + 1;
            let game = play_random::<Altitude>(
                &with_options(setup::<Altitude>(seats), options.clone()),
                seed(n + 10_000),
                n + 10_000 * d as u64,
                5000,
                |state, _| assert_conserved(state),
            )
            .unwrap_or_else(|e| panic!("deck {d} game {n}: {e}"));
            assert!(game.finished, "deck {d} game {n} did not end");
        }
    }
}

/// For every event and every viewer, neither the redacted event nor the view shows another
/// seat's hand, a card drawn by another seat, or any card of the deck.
#[test]
fn nobody_sees_another_hand_or_the_deck() {
    for n in 0..120u64 {
        let seats = (n % 4) as usize + 1;
        let mut known = vec![BTreeSet::new(); seats];
        let game = play_random::<Altitude>(
            &setup::<Altitude>(seats),
            seed(n + 500),
            n + 500,
            3000,
            |state, event| assert_secret(state, event, &mut known),
        )
        .unwrap();
        assert!(game.finished);
        // Once over, everyone sees every hand.
        let view = Altitude::view(&game.state, Viewer::Everyone);
        assert!(view.players.iter().all(|p| p.hand.is_some()));
    }
}

/// Random games where seats resign (retire) at random moments in games of 3 and 4: the
/// others play on to the end, and every card stays somewhere.
#[test]
fn random_games_with_retired_seats_end_and_keep_every_card() {
    for n in 0..200u64 {
        let seats = 3 + (n % 2) as usize;
        let mut picker = seed(n).dealer(n);
        let mut state = Altitude::initial(&setup::<Altitude>(seats));
        let mut version = 0;
        for event in Altitude::start(&state, &Context::new(seed(n), 0, test_time())) {
            Altitude::evolve(&mut state, &event);
            version += 1;
        }
        let mut steps = 0;
        while Altitude::outcome(&state).is_none() {
            steps += 1;
            assert!(steps < 5000, "game {n} did not end");
            let active = (0..seats).filter(|&s| state.is_active(s)).count();
            if active > 2 && picker.uniform_inclusive(60) == 0 {
                let seat: Seat = picker.uniform_inclusive(seats as u32 - 1) as usize;
                for event in Altitude::retire(&state, seat) {
                    Altitude::evolve(&mut state, &event);
                    version += 1;
                }
                assert_conserved(&state);
                continue;
            }
            let to_act = Altitude::to_act(&state);
            assert!(!to_act.is_empty(), "game {n}: nobody to act");
            let seat = to_act[picker.uniform_inclusive(to_act.len() as u32 - 1) as usize];
            assert!(state.is_active(seat));
            let legal = Altitude::legal(&state, seat);
            let choice = &legal[picker.uniform_inclusive(legal.len() as u32 - 1) as usize];
            let ctx = Context::new(seed(n), version + 1, test_time());
            let events = Altitude::decide(&state, seat, &choice.command, &ctx)
                .unwrap_or_else(|e| panic!("{}: {e}", choice.notation));
            for event in &events {
                Altitude::evolve(&mut state, event);
                version += 1;
            }
            assert_conserved(&state);
        }
        let outcome = Altitude::outcome(&state).unwrap();
        assert!(outcome.winners.iter().all(|&w| state.is_active(w)));
    }
}
