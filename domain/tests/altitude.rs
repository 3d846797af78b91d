//! The rules of Altitude, one test per rule of `rules/altitude.md`.

use domain::engine::{Engine, Outcome, RuleError, Seat, Viewer};
use domain::fairness::Seed;
use domain::games::altitude::*;
use domain::testing::{arranged, context, dealt, setup, with_options, Given};

fn number(id: u16, value: u8) -> Card {
    Card {
        id,
        face: Face::Mountain { value },
    }
}
fn cable_car(id: u16) -> Card {
    Card {
        id,
        face: Face::CableCar,
    }
}
fn avalanche(id: u16) -> Card {
    Card {
        id,
        face: Face::Avalanche,
    }
}
fn saint_bernard(id: u16) -> Card {
    Card {
        id,
        face: Face::SaintBernard,
    }
}
fn animal(id: u16, animal: Animal, value: u8) -> Card {
    Card {
        id,
        face: Face::Animal { animal, value },
    }
}
fn at(floor: u8, slot: i32) -> Position {
    Position::new(floor, slot)
}

/// A game of `seats` in play: seat 0 to move, hands of four 1s, a deck of 2s.
fn table(seats: usize) -> Given<Altitude> {
    let mut state = State::new(
        seats,
        Options::default(),
        Rules::of(Altitude::info().revision),
    );
    state.phase = Phase::Playing;
    state.turn = 0;
    state.turns_left = 1;
    state.hands = (0..seats)
        .map(|seat| {
            (0..4)
                .map(|i| number(500 + seat as u16 * 10 + i, 1))
                .collect()
        })
        .collect();
    state.deck = (600..640).map(|i| number(i, 2)).collect();
    arranged::<Altitude>(state)
}

fn build(state: &mut State, seat: Seat, cards: &[(Position, Card)]) {
    for &(place, card) in cards {
        state.mountains[seat].cards.insert(place, card);
    }
}

/// A base of these numbers from slot 0 (ids 100 + slot + 20 * seat).
fn base(state: &mut State, seat: Seat, values: &[u8]) {
    for (slot, &value) in values.iter().enumerate() {
        let card = number(100 + slot as u16 + 20 * seat as u16, value);
        state.mountains[seat].cards.insert(at(1, slot as i32), card);
    }
}

/// The seat to move draws `card` (put on top of the deck first).
fn draw(state: &mut Given<Altitude>, card: Card) {
    state.deck.push(card);
    let seat = state.turn;
    state.play(seat, Command::Draw).expect("draw");
    assert_eq!(state.drawn, Some(card));
}

fn lay(card: &Card, place: Position) -> Command {
    Command::Lay {
        card: card.id,
        at: place,
    }
}

fn refused(result: Result<Vec<Event>, RuleError>) -> RuleError {
    result.expect_err("the rules refuse this")
}

// ---------------------------------------------------------------- cards

/// "Ruling: default deck of 120" with the counts of the table: mountains 1 to 24 three of
/// each, 20 animals (each animal on 4 numbers spread over 5 to 24), 10 cable cars,
/// 10 avalanches, 8 Saint-Bernards.
#[test]
fn the_default_deck_has_120_cards_as_in_the_table() {
    let deck = Options::default().deck();
    assert_eq!(deck.len(), 120);
    let count = |f: &dyn Fn(&Face) -> bool| deck.iter().filter(|c| f(&c.face)).count();
    for v in 1..=24u8 {
        assert_eq!(count(&|f| *f == Face::Mountain { value: v }), 3);
    }
    assert_eq!(count(&|f| matches!(f, Face::Animal { .. })), 20);
    for a in Animal::ALL {
        let numbers: Vec<u8> = deck
            .iter()
            .filter_map(|c| match c.face {
                Face::Animal { animal, value } if animal == a => Some(value),
                _ => None,
            })
            .collect();
        assert_eq!(numbers.len(), 4);
        assert!(numbers.iter().all(|v| (5..=24).contains(v)));
    }
    assert_eq!(count(&|f| *f == Face::CableCar), 10);
    assert_eq!(count(&|f| *f == Face::Avalanche), 10);
    assert_eq!(count(&|f| *f == Face::SaintBernard), 8);
    let mut ids: Vec<u16> = deck.iter().map(|c| c.id).collect();
    ids.dedup();
    assert_eq!(ids.len(), 120, "every card has its own id");
}

/// "a game may be created with other counts" — and `check` refuses counts it cannot deal.
#[test]
fn a_game_may_be_created_with_other_counts() {
    let setup = |options: Options, seats| with_options(setup::<Altitude>(seats), options);
    let small = Options {
        mountain_copies: 1,
        animal_copies: 0,
        cable_cars: 0,
        avalanches: 0,
        saint_bernards: 0,
    };
    assert_eq!(small.deck().len(), 24);
    assert!(Altitude::check(&setup(small.clone(), 4)).is_ok());
    let tiny = Options {
        mountain_copies: 0,
        animal_copies: 0,
        cable_cars: 5,
        avalanches: 0,
        saint_bernards: 0,
    };
    assert_eq!(
        Altitude::check(&setup(tiny, 1)).unwrap_err().code,
        "invalid_setup"
    );
    let huge = Options {
        cable_cars: 41,
        ..Options::default()
    };
    assert_eq!(
        Altitude::check(&setup(huge, 2)).unwrap_err().code,
        "invalid_setup"
    );
    assert!(Altitude::check(&setup(Options::default(), 0)).is_err());
    assert!(Altitude::check(&setup(Options::default(), 5)).is_err());
    assert!(Altitude::check(&setup(Options::default(), 1)).is_ok());
    // Options left out take their defaults.
    let partial: Options = serde_json::from_str(r#"{"avalanches": 2}"#).unwrap();
    assert_eq!(partial.deck_size(), 112);
}

// ---------------------------------------------------------------- the mountain

/// "The base (floor 1) is one row of at most 10 cards, extended at either end."
#[test]
fn the_base_holds_at_most_10_cards() {
    let mut state = table(1);
    base(&mut state, 0, &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
    let tenth = number(1, 20);
    draw(&mut state, tenth);
    state
        .play(0, lay(&tenth, at(1, 9)))
        .expect("the tenth card");
    let eleventh = number(2, 21);
    draw(&mut state, eleventh);
    let error = refused(state.play(0, lay(&eleventh, at(1, 10))));
    assert!(error.message.contains("at most 10"), "{}", error.message);
    refused(state.play(0, lay(&eleventh, at(1, -1))));
    assert!(Altitude::legal(&state, 0)
        .iter()
        .all(|l| !matches!(l.command, Command::Lay { at: p, .. } if p.floor == 1)));
}

/// "extended at either end": slots grow to the right (1, 2, ...) and to the left (-1, -2,
/// ...), and no address already given changes.
#[test]
fn the_base_is_extended_at_either_end() {
    let mut state = table(1);
    let first = number(1, 5);
    draw(&mut state, first);
    refused(state.play(0, lay(&first, at(1, 3))));
    state.play(0, lay(&first, at(1, 0))).unwrap();
    let left = number(2, 6);
    draw(&mut state, left);
    state.play(0, lay(&left, at(1, -1))).unwrap();
    let right = number(3, 7);
    draw(&mut state, right);
    refused(state.play(0, lay(&right, at(1, 2))));
    state.play(0, lay(&right, at(1, 1))).unwrap();
    let mountain = &state.mountains[0];
    assert_eq!(mountain.get(at(1, -1)), Some(left));
    assert_eq!(mountain.get(at(1, 0)), Some(first));
    assert_eq!(mountain.get(at(1, 1)), Some(right));
}

/// The example of the original: "the card 13 ... upon 9 and 12": a card of floor k > 1 lies
/// on two neighbouring cards of floor k-1 and must be higher than both.
#[test]
fn a_13_lies_on_a_9_and_a_12() {
    let mut state = table(1);
    base(&mut state, 0, &[9, 12]);
    let thirteen = number(1, 13);
    draw(&mut state, thirteen);
    let notation = Altitude::legal(&state, 0)
        .into_iter()
        .find(|l| l.command == lay(&thirteen, at(2, 0)))
        .expect("13 on 9 and 12 is legal")
        .notation;
    assert!(
        notation.contains("lay 13 on floor 2 slot 0 between 9 and 12"),
        "{notation}"
    );
    state.play(0, lay(&thirteen, at(2, 0))).unwrap();
    assert_eq!(state.mountains[0].height(), 2);
}

/// "must be higher than both (not their sum)": a 13 on a 9 and a 12 needs no 21, and a 12
/// on a 9 and a 12 is not higher than both.
#[test]
fn a_card_must_be_higher_than_both_not_their_sum() {
    let mut state = table(1);
    base(&mut state, 0, &[9, 12]);
    let twelve = number(1, 12);
    draw(&mut state, twelve);
    let error = refused(state.play(0, lay(&twelve, at(2, 0))));
    assert!(
        error.message.contains("higher than both"),
        "{}",
        error.message
    );
    let ten = number(2, 10);
    state.drawn = Some(ten);
    refused(state.play(0, lay(&ten, at(2, 0))));
    // An animal is laid like a mountain card of its number.
    let ibex = animal(3, Animal::Ibex, 17);
    state.drawn = Some(ibex);
    state.play(0, lay(&ibex, at(2, 0))).unwrap();
}

/// "An upper floor can be started as soon as two neighbours below it exist."
#[test]
fn an_upper_floor_can_be_started_as_soon_as_two_neighbours_below_exist() {
    let mut state = table(1);
    base(&mut state, 0, &[3]);
    let eight = number(1, 8);
    draw(&mut state, eight);
    refused(state.play(0, lay(&eight, at(2, 0))));
    refused(state.play(0, lay(&eight, at(2, -1))));
    base(&mut state, 0, &[3, 4]);
    state.play(0, lay(&eight, at(2, 0))).unwrap();
    // Floor 3 as soon as two neighbours exist on floor 2, with the base still short.
    build(
        &mut state,
        0,
        &[(at(1, 2), number(60, 5)), (at(2, 1), number(61, 9))],
    );
    let ten = number(2, 10);
    draw(&mut state, ten);
    state.play(0, lay(&ten, at(3, 0))).unwrap();
    assert_eq!(state.mountains[0].height(), 3);
}

/// "A cable car may be laid anywhere a card could go, on any two cards ... and counts as
/// value 0 for the card later laid on it" — the original's 13 upon 9 and 0.
#[test]
fn a_cable_car_counts_as_0_for_the_card_laid_on_it() {
    let mut state = table(1);
    base(&mut state, 0, &[9, 20, 22]);
    let car = cable_car(1);
    draw(&mut state, car);
    state.play(0, lay(&car, at(1, 3))).unwrap();
    let high = cable_car(2);
    draw(&mut state, high);
    // On a 20 and a 22: a cable car needs no higher value.
    state.play(0, lay(&high, at(2, 1))).unwrap();
    let thirteen = number(3, 13);
    draw(&mut state, thirteen);
    // Higher than a 0 is not enough when the other neighbour is a 20 or a 22.
    refused(state.play(0, lay(&thirteen, at(2, 0))));
    refused(state.play(0, lay(&thirteen, at(2, 2))));
    // The original: a 13 upon a 9 and a cable car.
    let mut state = table(1);
    build(
        &mut state,
        0,
        &[(at(1, 0), number(50, 9)), (at(1, 1), cable_car(51))],
    );
    draw(&mut state, thirteen);
    state.play(0, lay(&thirteen, at(2, 0))).unwrap();
}

/// "even on an avalanche": a cable car may be laid on an avalanche.
#[test]
fn a_cable_car_may_be_laid_on_an_avalanche() {
    let mut state = table(2);
    build(
        &mut state,
        0,
        &[(at(1, 0), number(50, 4)), (at(1, 1), avalanche(51))],
    );
    let car = cable_car(1);
    draw(&mut state, car);
    state.play(0, lay(&car, at(2, 0))).unwrap();
    assert!(state.mountains[0].is_covered(at(1, 1)));
}

/// "A cable car may be in the base."
#[test]
fn a_cable_car_may_be_in_the_base() {
    let mut state = table(1);
    let car = cable_car(1);
    draw(&mut state, car);
    state.play(0, lay(&car, at(1, 0))).unwrap();
    assert_eq!(state.mountains[0].get(at(1, 0)), Some(car));
}

/// "An avalanche is laid only in an opponent's mountain, anywhere a card could go there" and
/// "The player is forbidden to place a card within an opponent's mountain before he/she has
/// started to build it."
#[test]
fn an_avalanche_is_laid_only_in_an_opponents_started_mountain() {
    let mut state = table(3);
    base(&mut state, 0, &[5]);
    base(&mut state, 1, &[6, 7]);
    let snow = avalanche(1);
    draw(&mut state, snow);
    let own = refused(state.play(0, lay(&snow, at(1, 1))));
    assert!(own.message.contains("opponent"), "{}", own.message);
    let unstarted = refused(state.play(
        0,
        Command::LayOnOpponent {
            opponent: 2,
            at: at(1, 0),
        },
    ));
    assert!(
        unstarted.message.contains("not started"),
        "{}",
        unstarted.message
    );
    let legal = Altitude::legal(&state, 0);
    let notation = &legal
        .iter()
        .find(|l| {
            l.command
                == Command::LayOnOpponent {
                    opponent: 1,
                    at: at(1, 2),
                }
        })
        .expect("an avalanche at the right end of seat 1's base")
        .notation;
    assert_eq!(notation, "avalanche on seat 1's mountain at floor 1 slot 2");
    assert!(legal
        .iter()
        .all(|l| !matches!(l.command, Command::LayOnOpponent { opponent: 2, .. })));
    state
        .play(
            0,
            Command::LayOnOpponent {
                opponent: 1,
                at: at(1, 2),
            },
        )
        .unwrap();
    assert_eq!(state.mountains[1].get(at(1, 2)), Some(snow));
}

/// "Ruling: without the value rule": an avalanche may lie on a 20 and a 22.
#[test]
fn an_avalanche_is_laid_without_the_value_rule() {
    let mut state = table(2);
    base(&mut state, 1, &[20, 22]);
    draw(&mut state, avalanche(1));
    state
        .play(
            0,
            Command::LayOnOpponent {
                opponent: 1,
                at: at(2, 0),
            },
        )
        .unwrap();
    assert_eq!(state.mountains[1].height(), 2);
}

/// "Only a cable car may then be laid on it" (an avalanche).
#[test]
fn only_a_cable_car_may_be_laid_on_an_avalanche() {
    let mut state = table(2);
    build(
        &mut state,
        0,
        &[(at(1, 0), number(50, 1)), (at(1, 1), avalanche(51))],
    );
    let high = number(1, 24);
    draw(&mut state, high);
    let error = refused(state.play(0, lay(&high, at(2, 0))));
    assert!(error.message.contains("cable car"), "{}", error.message);
    // Nor may an opponent lay an avalanche on it.
    state.turn = 1;
    state.drawn = Some(avalanche(2));
    refused(state.play(
        1,
        Command::LayOnOpponent {
            opponent: 0,
            at: at(2, 0),
        },
    ));
}

/// "A card is covered when any card lies on it. A covered card can never be replaced or
/// removed."
#[test]
fn a_covered_card_can_never_be_replaced_or_removed() {
    let mut state = table(1);
    build(
        &mut state,
        0,
        &[
            (at(1, 0), number(50, 3)),
            (at(1, 1), avalanche(51)),
            (at(2, 0), cable_car(52)),
        ],
    );
    draw(&mut state, number(1, 2));
    let error = refused(state.play(0, Command::Replace { at: at(1, 0) }));
    assert!(error.message.contains("covered"), "{}", error.message);
    state.drawn = Some(saint_bernard(2));
    let error = refused(state.play(
        0,
        Command::SaintBernard {
            card: 2,
            at: at(1, 1),
        },
    ));
    assert!(error.message.contains("covered"), "{}", error.message);
    // Even half covered: the cable car lies on slot 0 and slot 1.
    assert!(state.mountains[0].is_covered(at(1, 0)));
    assert!(state.mountains[0].is_covered(at(1, 1)));
}

/// "The mountain's height is its number of floors; avalanches count."
#[test]
fn the_height_is_the_number_of_floors_and_avalanches_count() {
    let mut state = table(2);
    base(&mut state, 1, &[3, 4]);
    assert_eq!(state.mountains[1].height(), 1);
    draw(&mut state, avalanche(1));
    state
        .play(
            0,
            Command::LayOnOpponent {
                opponent: 1,
                at: at(2, 0),
            },
        )
        .unwrap();
    assert_eq!(state.mountains[1].height(), 2);
    assert_eq!(score(&state, 1).floors, 2);
}

// ---------------------------------------------------------------- setup and hands

fn started(seats: usize) -> Given<Altitude> {
    dealt::<Altitude>(setup::<Altitude>(seats), Seed([9; 32]))
}

fn return_first_two(state: &mut Given<Altitude>, seat: Seat) -> Vec<Event> {
    let cards = state.hands[seat][..2].iter().map(|c| c.id).collect();
    state.play(seat, Command::ReturnCards { cards }).unwrap()
}

/// "Deal 6 cards to each player; each keeps 4 secretly and returns 2 to the deck, which is
/// then shuffled."
#[test]
fn each_player_is_dealt_6_keeps_4_and_returns_2_to_the_deck() {
    let mut state = started(3);
    assert_eq!(state.phase, Phase::Choosing);
    assert!(state.hands.iter().all(|h| h.len() == 6));
    assert_eq!(state.deck.len(), 120 - 18);
    let mine = state.hands[0][0].id;
    let error = refused(state.play(0, Command::ReturnCards { cards: vec![mine] }));
    assert!(error.message.contains("exactly 2"), "{}", error.message);
    let other = state.hands[1][0].id;
    refused(state.play(
        0,
        Command::ReturnCards {
            cards: vec![mine, other],
        },
    ));
    for seat in 0..3 {
        return_first_two(&mut state, seat);
    }
    assert!(state.hands.iter().all(|h| h.len() == 4));
    assert_eq!(state.deck.len(), 120 - 12);
}

/// "each keeps 4 secretly": every player chooses at once, and `to_act` lists all those who
/// still must choose.
#[test]
fn every_player_chooses_at_once_which_2_to_return() {
    let mut state = started(3);
    assert_eq!(Altitude::to_act(&state), vec![0, 1, 2]);
    assert_eq!(Altitude::legal(&state, 2).len(), 15);
    return_first_two(&mut state, 2);
    assert_eq!(Altitude::to_act(&state), vec![0, 1]);
    assert!(Altitude::legal(&state, 2).is_empty());
    let again = state.hands[2][..2].iter().map(|c| c.id).collect();
    let error = refused(state.play(2, Command::ReturnCards { cards: again }));
    assert_eq!(error.code, "not_your_turn");
    refused(state.play(0, Command::Draw));
    return_first_two(&mut state, 0);
    assert_eq!(Altitude::to_act(&state), vec![1]);
}

/// "returns 2 to the deck, which is then shuffled": the deck is shuffled once the last
/// choice is made, and nobody sees it.
#[test]
fn the_deck_is_shuffled_once_the_last_choice_is_made() {
    let mut state = started(2);
    let first = return_first_two(&mut state, 1);
    assert!(!first
        .iter()
        .any(|e| matches!(e, Event::DeckShuffled { .. })));
    let returned: Vec<Card> = state.hands[0][..2].to_vec();
    let last = return_first_two(&mut state, 0);
    let Some(Event::DeckShuffled { cards, count }) = last.last() else {
        panic!("the last choice shuffles the deck: {last:?}");
    };
    assert_eq!(*count, 120 - 8);
    assert!(returned.iter().all(|c| cards.contains(c)));
    let shown = Altitude::redact(last.last().unwrap(), Viewer::Seat(0));
    assert_eq!(
        shown,
        Event::DeckShuffled {
            count: 112,
            cards: vec![]
        }
    );
}

/// "The youngest player starts (Ruling: the first seat)."
#[test]
fn the_first_seat_starts() {
    let mut state = started(4);
    for seat in [3, 1, 2, 0] {
        return_first_two(&mut state, seat);
    }
    assert_eq!(state.phase, Phase::Playing);
    assert_eq!(Altitude::to_act(&state), vec![0]);
    assert_eq!(Altitude::legal(&state, 0)[0].command, Command::Draw);
}

/// "A player always holds exactly 4 cards while the deck lasts, and may never discard from
/// the hand."
#[test]
fn a_player_holds_4_cards_and_may_never_discard_from_the_hand() {
    let mut state = table(1);
    let hand = state.hands[0].clone();
    draw(&mut state, number(1, 7));
    // `discard` takes no card: it is always the drawn one.
    let events = state.play(0, Command::Discard).unwrap();
    assert_eq!(
        events,
        vec![Event::Discarded {
            seat: 0,
            card: number(1, 7)
        }]
    );
    assert_eq!(state.hands[0], hand);
    // A hand card may not replace a mountain card either: replacing takes the drawn card.
    base(&mut state, 0, &[3]);
    draw(&mut state, number(2, 8));
    state.play(0, Command::Replace { at: at(1, 0) }).unwrap();
    assert_eq!(state.mountains[0].get(at(1, 0)), Some(number(2, 8)));
    assert_eq!(state.hands[0].len(), 4);
}

// ---------------------------------------------------------------- a turn

/// "Draw the top card of the deck, then do one of": the draw is its own command, and the
/// view shows the drawn card to its holder only.
#[test]
fn a_turn_begins_with_a_draw() {
    let mut state = table(2);
    let error = refused(state.play(0, Command::Discard));
    assert!(error.message.contains("Draw"), "{}", error.message);
    assert_eq!(
        Altitude::legal(&state, 0)
            .iter()
            .map(|l| l.notation.as_str())
            .collect::<Vec<_>>(),
        vec!["draw"]
    );
    assert_eq!(refused(state.play(1, Command::Draw)).code, "not_your_turn");
    let top = number(1, 17);
    draw(&mut state, top);
    refused(state.play(0, Command::Draw));
    assert_eq!(Altitude::view(&state, Viewer::Seat(0)).drawn, Some(top));
    assert_eq!(Altitude::view(&state, Viewer::Seat(1)).drawn, None);
    assert_eq!(Altitude::view(&state, Viewer::Spectator).drawn, None);
    assert!(Altitude::view(&state, Viewer::Seat(1)).must_use_drawn);
    let event = Event::Drew {
        seat: 0,
        card: Some(top),
    };
    assert_eq!(
        Altitude::redact(&event, Viewer::Seat(1)),
        Event::Drew {
            seat: 0,
            card: None
        }
    );
}

/// "lay it in the own mountain"
#[test]
fn the_drawn_card_may_be_laid_in_the_own_mountain() {
    let mut state = table(2);
    let card = number(1, 11);
    draw(&mut state, card);
    state.play(0, lay(&card, at(1, 0))).unwrap();
    assert_eq!(state.mountains[0].get(at(1, 0)), Some(card));
    assert_eq!(state.drawn, None);
    assert_eq!(state.turn, 1);
}

/// "discard it"
#[test]
fn the_drawn_card_may_be_discarded() {
    let mut state = table(2);
    draw(&mut state, number(1, 11));
    state.play(0, Command::Discard).unwrap();
    assert_eq!(state.discard, vec![number(1, 11)]);
    assert_eq!(state.turn, 1);
}

/// "lay it (only the drawn card) in an opponent's mountain, which must already be started"
#[test]
fn only_the_drawn_card_may_be_laid_in_an_opponents_started_mountain() {
    let mut state = table(2);
    base(&mut state, 1, &[9, 12]);
    let thirteen = number(1, 13);
    draw(&mut state, thirteen);
    state
        .play(
            0,
            Command::LayOnOpponent {
                opponent: 1,
                at: at(2, 0),
            },
        )
        .unwrap();
    assert_eq!(state.mountains[1].get(at(2, 0)), Some(thirteen));
    // The placement rules hold there too.
    state.turn = 0;
    state.turns_left = 1;
    draw(&mut state, number(2, 5));
    refused(state.play(
        0,
        Command::LayOnOpponent {
            opponent: 1,
            at: at(3, 0),
        },
    ));
    refused(state.play(
        0,
        Command::LayOnOpponent {
            opponent: 0,
            at: at(1, 0),
        },
    ));
    refused(state.play(
        0,
        Command::LayOnOpponent {
            opponent: 9,
            at: at(1, 0),
        },
    ));
}

/// "put it in the hand and lay one card from the hand in the own mountain"
#[test]
fn the_drawn_card_may_go_to_the_hand_while_a_hand_card_is_laid() {
    let mut state = table(1);
    let kept = state.hands[0][0];
    let drawn = number(1, 20);
    draw(&mut state, drawn);
    let legal = Altitude::legal(&state, 0);
    assert!(legal.iter().any(|l| l.command == lay(&kept, at(1, 0))
        && l.notation == "keep the drawn 20 and lay 1 from the hand on floor 1 slot 0"));
    let events = state.play(0, lay(&kept, at(1, 0))).unwrap();
    assert_eq!(
        events,
        vec![Event::Laid {
            seat: 0,
            card: kept,
            at: at(1, 0),
            from_hand: true
        }]
    );
    assert!(state.hands[0].contains(&drawn));
    assert!(!state.hands[0].contains(&kept));
    assert_eq!(state.hands[0].len(), 4);
}

/// "replace an uncovered card of the own mountain with it (the placement rules hold for the
/// new card); the replaced card is discarded."
#[test]
fn an_uncovered_card_may_be_replaced_by_the_drawn_card() {
    let mut state = table(1);
    base(&mut state, 0, &[9, 12]);
    build(&mut state, 0, &[(at(2, 0), number(60, 13))]);
    let low = number(1, 10);
    draw(&mut state, low);
    // The new card must still beat 9 and 12.
    let error = refused(state.play(0, Command::Replace { at: at(2, 0) }));
    assert!(
        error.message.contains("higher than both"),
        "{}",
        error.message
    );
    refused(state.play(0, Command::Replace { at: at(2, 5) }));
    let high = number(2, 22);
    state.drawn = Some(high);
    state.play(0, Command::Replace { at: at(2, 0) }).unwrap();
    assert_eq!(state.mountains[0].get(at(2, 0)), Some(high));
    assert_eq!(state.discard, vec![number(60, 13)]);
}

/// "Saint-Bernard: removes an uncovered avalanche from the player's own mountain; both cards
/// go to the discard pile. It can be used as it is drawn"
#[test]
fn a_saint_bernard_removes_an_uncovered_avalanche_as_drawn() {
    let mut state = table(2);
    build(
        &mut state,
        0,
        &[(at(1, 0), number(50, 3)), (at(1, 1), avalanche(51))],
    );
    build(&mut state, 1, &[(at(1, 0), avalanche(70))]);
    let dog = saint_bernard(1);
    draw(&mut state, dog);
    // Not from an opponent's mountain, and a Saint-Bernard is never laid.
    assert!(Altitude::legal(&state, 0).iter().all(|l| !matches!(
        l.command,
        Command::LayOnOpponent { .. } | Command::Lay { card: 1, .. }
    )));
    refused(state.play(
        0,
        Command::SaintBernard {
            card: 1,
            at: at(1, 0),
        },
    ));
    state
        .play(
            0,
            Command::SaintBernard {
                card: 1,
                at: at(1, 1),
            },
        )
        .unwrap();
    assert_eq!(state.mountains[0].get(at(1, 1)), None);
    assert_eq!(state.discard, vec![avalanche(51), dog]);
}

/// "or, having drawn another card, the player keeps that card in the hand and uses a
/// Saint-Bernard from the hand instead."
#[test]
fn a_saint_bernard_may_be_used_from_the_hand_keeping_the_drawn_card() {
    let mut state = table(1);
    let dog = saint_bernard(9);
    state.hands[0][3] = dog;
    build(
        &mut state,
        0,
        &[(at(1, 0), number(50, 3)), (at(1, 1), avalanche(51))],
    );
    let drawn = number(1, 14);
    draw(&mut state, drawn);
    let legal = Altitude::legal(&state, 0);
    assert!(legal.iter().any(|l| l.notation
        == "a kept Saint-Bernard removes the avalanche at floor 1 slot 1, keeping the drawn 14"));
    // A number cannot play the Saint-Bernard's part.
    let error = refused(state.play(
        0,
        Command::SaintBernard {
            card: 1,
            at: at(1, 1),
        },
    ));
    assert!(
        error.message.contains("Only a Saint-Bernard"),
        "{}",
        error.message
    );
    state
        .play(
            0,
            Command::SaintBernard {
                card: 9,
                at: at(1, 1),
            },
        )
        .unwrap();
    assert!(state.hands[0].contains(&drawn));
    assert!(!state.hands[0].contains(&dog));
    assert_eq!(state.hands[0].len(), 4);
    assert_eq!(state.discard, vec![avalanche(51), dog]);
}

/// "A player whose mountain reaches 5 floors plays two turns each round from then on."
#[test]
fn a_player_with_5_floors_plays_two_turns_each_round() {
    let mut state = table(2);
    // A staircase of 4 floors over a base of 5.
    base(&mut state, 0, &[1, 2, 3, 4, 5]);
    for floor in 2..=4u8 {
        for slot in 0..(6 - floor as i32) {
            let id = 300 + floor as u16 * 10 + slot as u16;
            build(
                &mut state,
                0,
                &[(at(floor, slot), number(id, floor * 5 + slot as u8))],
            );
        }
    }
    assert_eq!(state.mountains[0].height(), 4);
    let top = number(1, 24);
    draw(&mut state, top);
    state.play(0, lay(&top, at(5, 0))).unwrap();
    assert!(state.two_turns[0]);
    assert_eq!(state.turn, 1, "the new rhythm starts with the next round");
    draw(&mut state, number(2, 2));
    state.play(1, Command::Discard).unwrap();
    assert_eq!((state.turn, state.turns_left), (0, 2));
    for _ in 0..2 {
        assert_eq!(Altitude::to_act(&state), vec![0]);
        draw(&mut state, number(3, 2));
        state.play(0, Command::Discard).unwrap();
    }
    assert_eq!(state.turn, 1);
    assert!(Altitude::view(&state, Viewer::Spectator).players[0].two_turns);
}

/// "Ruling: "as soon as" is read as a lasting privilege: it is kept even if a Saint-Bernard
/// later lowers the mountain"
#[test]
fn two_turns_a_round_are_kept_when_a_saint_bernard_lowers_the_mountain() {
    let mut state = table(2);
    base(&mut state, 0, &[1, 2, 3, 4, 5]);
    for floor in 2..=4u8 {
        for slot in 0..(6 - floor as i32) {
            let id = 300 + floor as u16 * 10 + slot as u16;
            build(
                &mut state,
                0,
                &[(at(floor, slot), number(id, floor * 5 + slot as u8))],
            );
        }
    }
    base(&mut state, 1, &[1, 2]);
    draw(&mut state, number(1, 2));
    state.play(0, Command::Discard).unwrap();
    // Seat 1 lays an avalanche as seat 0's 5th floor: seat 0 has reached 5 floors.
    draw(&mut state, avalanche(2));
    state
        .play(
            1,
            Command::LayOnOpponent {
                opponent: 0,
                at: at(5, 0),
            },
        )
        .unwrap();
    assert_eq!(state.mountains[0].height(), 5);
    assert_eq!((state.turn, state.turns_left), (0, 2));
    // A Saint-Bernard removes it: the mountain is 4 floors again, the privilege stays.
    draw(&mut state, saint_bernard(3));
    state
        .play(
            0,
            Command::SaintBernard {
                card: 3,
                at: at(5, 0),
            },
        )
        .unwrap();
    assert_eq!(state.mountains[0].height(), 4);
    assert_eq!((state.turn, state.turns_left), (0, 1));
    draw(&mut state, number(4, 2));
    state.play(0, Command::Discard).unwrap();
    draw(&mut state, number(5, 2));
    state.play(1, Command::Discard).unwrap();
    assert_eq!((state.turn, state.turns_left), (0, 2), "still two turns");
    assert!(Altitude::view(&state, Viewer::Spectator).players[0].two_turns);
}

/// "Ruling: an avalanche card never goes into a hand (every hand card must end in the
/// player's own mountain, where an avalanche may not be laid); a drawn avalanche is laid in
/// an opponent's mountain or discarded."
#[test]
fn a_drawn_avalanche_never_goes_into_a_hand() {
    let mut state = table(2);
    base(&mut state, 1, &[1, 2]);
    state.hands[0] = vec![
        number(10, 3),
        saint_bernard(11),
        number(12, 5),
        number(13, 6),
    ];
    build(
        &mut state,
        0,
        &[(at(1, 0), number(50, 3)), (at(1, 1), avalanche(51))],
    );
    draw(&mut state, avalanche(1));
    let legal: Vec<Command> = Altitude::legal(&state, 0)
        .into_iter()
        .map(|l| l.command)
        .collect();
    assert!(legal.contains(&Command::Discard));
    assert!(legal
        .iter()
        .any(|c| matches!(c, Command::LayOnOpponent { opponent: 1, .. })));
    assert!(
        legal
            .iter()
            .all(|c| matches!(c, Command::Discard | Command::LayOnOpponent { .. })),
        "nothing keeps the drawn avalanche: {legal:?}"
    );
    let error = refused(state.clone().play(0, lay(&number(12, 5), at(1, 2))));
    assert!(
        error.message.contains("never goes into a hand"),
        "{}",
        error.message
    );
    let error = refused(state.clone().play(
        0,
        Command::SaintBernard {
            card: 11,
            at: at(1, 1),
        },
    ));
    assert!(
        error.message.contains("never goes into a hand"),
        "{}",
        error.message
    );
}

/// Revision 1 (games created before the correction keep it): a drawn avalanche could be kept
/// in the hand while a card of the hand was laid.
#[test]
fn under_revision_1_a_drawn_avalanche_could_be_kept_in_the_hand() {
    let mut state = table(2);
    state.rules = Rules::of(1);
    base(&mut state, 1, &[1, 2]);
    draw(&mut state, avalanche(1));
    let card = state.hands[0][0];
    assert!(Altitude::legal(&state, 0)
        .iter()
        .any(|l| l.command == lay(&card, at(1, 0))));
    state.play(0, lay(&card, at(1, 0))).unwrap();
    assert!(state.hands[0].contains(&avalanche(1)));
}

// ---------------------------------------------------------------- end and score

/// "When the deck is empty, players in turn lay cards from their hands into their own
/// mountains (Ruling: one card a turn, and a player who cannot or will not lay passes"
#[test]
fn once_the_deck_is_empty_players_lay_their_hands_one_card_a_turn() {
    let mut state = table(2);
    state.deck.clear();
    draw(&mut state, number(1, 5));
    state.play(0, Command::Discard).unwrap();
    assert_eq!(state.phase, Phase::LayingHands);
    assert_eq!(state.turn, 1);
    let legal = Altitude::legal(&state, 1);
    assert!(legal.iter().any(|l| l.command == Command::Pass));
    assert!(legal
        .iter()
        .all(|l| matches!(l.command, Command::Pass | Command::Lay { .. })));
    refused(state.play(1, Command::Draw));
    refused(state.play(1, Command::Discard));
    let card = state.hands[1][0];
    state.play(1, lay(&card, at(1, 0))).unwrap();
    assert_eq!(state.hands[1].len(), 3);
    assert_eq!(state.turn, 0, "one card a turn");
}

/// "the game ends when every player passes in a row"
#[test]
fn the_game_ends_when_every_player_passes_in_a_row() {
    let mut state = table(3);
    state.phase = Phase::LayingHands;
    state.play(0, Command::Pass).unwrap();
    state.play(1, Command::Pass).unwrap();
    let card = state.hands[2][0];
    state.play(2, lay(&card, at(1, 0))).unwrap();
    assert_eq!(
        state.phase,
        Phase::LayingHands,
        "a card laid breaks the row"
    );
    for seat in [0, 1] {
        assert_eq!(Altitude::outcome(&state), None);
        state.play(seat, Command::Pass).unwrap();
    }
    assert_eq!(
        state.play(2, Command::Pass).unwrap(),
        vec![Event::Passed { seat: 2 }, Event::GameEnded],
        "the pass that completes the row ends the game (revision 3)"
    );
    assert_eq!(state.phase, Phase::Over);
    assert!(Altitude::outcome(&state).is_some());
    assert!(Altitude::to_act(&state).is_empty());
    assert_eq!(refused(state.play(0, Command::Pass)).code, "game_over");
}

/// The hands being laid: every seat has passed but `last`, whose turn it is.
fn all_passed_but(seats: usize, last: Seat, revision: u32) -> Given<Altitude> {
    let mut state = table(seats);
    state.rules = Rules::of(revision);
    state.phase = Phase::LayingHands;
    state.turn = last;
    state.passed = (0..seats).map(|s| s != last).collect();
    state
}

/// Revision 3: the end of the game is decided with the pass that completes the row, as a
/// `game_ended` event.
#[test]
fn the_pass_that_completes_the_row_is_followed_by_the_end_of_the_game() {
    let ended = all_passed_but(2, 1, 3)
        .when(1, Command::Pass)
        .then([Event::Passed { seat: 1 }, Event::GameEnded]);
    assert_eq!(ended.state().phase, Phase::Over);
    assert!(Altitude::outcome(ended.state()).is_some());
    ended.when(0, Command::Pass).refused("game_over");
}

/// Revision 3: a seat leaving while every other seat has passed completes the row too.
#[test]
fn a_seat_leaving_when_the_others_have_passed_ends_the_game_with_the_event() {
    let ended = all_passed_but(3, 2, 3).retires(
        2,
        [
            Event::Retired {
                seat: 2,
                discarded: None,
            },
            Event::GameEnded,
        ],
    );
    assert_eq!(ended.state().phase, Phase::Over);
}

/// A stored game of revision 2 keeps its rules: no `game_ended` is decided, the fold finds the
/// end itself, so its stream replays and audits as it was recorded.
#[test]
fn under_revision_2_the_end_was_found_by_the_fold_without_an_event() {
    let ended = all_passed_but(2, 1, 2)
        .when(1, Command::Pass)
        .then([Event::Passed { seat: 1 }]);
    assert_eq!(ended.state().phase, Phase::Over);
    let left = all_passed_but(3, 2, 2).retires(
        2,
        [Event::Retired {
            seat: 2,
            discarded: None,
        }],
    );
    assert_eq!(left.state().phase, Phase::Over);
}

/// "Score: the number of floors"
#[test]
fn the_score_counts_the_floors() {
    let mut state = table(1);
    base(&mut state, 0, &[1, 2, 3]);
    build(
        &mut state,
        0,
        &[(at(2, 0), number(60, 5)), (at(2, 1), cable_car(61))],
    );
    build(&mut state, 0, &[(at(3, 0), avalanche(62))]);
    assert_eq!(score(&state, 0).floors, 3);
}

/// "plus 1 for each animal on floor 4 or higher"
#[test]
fn an_animal_scores_from_floor_4() {
    let mut state = table(1);
    build(
        &mut state,
        0,
        &[
            (at(3, 0), animal(1, Animal::Dahut, 9)),
            (at(4, 0), animal(2, Animal::Chamois, 10)),
            (at(5, 0), animal(3, Animal::Marmot, 11)),
            (at(1, 0), animal(4, Animal::Ibex, 7)),
        ],
    );
    assert_eq!(score(&state, 0).high_animals, 2);
}

/// "plus 1 for each Saint-Bernard still in the hand"
#[test]
fn each_saint_bernard_kept_in_the_hand_scores_1() {
    let mut state = table(1);
    state.hands[0] = vec![saint_bernard(1), saint_bernard(2), number(3, 4)];
    assert_eq!(score(&state, 0).saint_bernards, 2);
}

/// "plus 1 if the player laid every hand card other than Saint-Bernards"
#[test]
fn laying_every_hand_card_but_saint_bernards_scores_1() {
    let mut state = table(1);
    state.hands[0] = vec![saint_bernard(1), number(3, 4)];
    assert_eq!(score(&state, 0).hand_laid_out, 0);
    state.hands[0] = vec![saint_bernard(1)];
    let sheet = score(&state, 0);
    assert_eq!(sheet.hand_laid_out, 1);
    assert_eq!(sheet.total, 2);
    state.hands[0].clear();
    assert_eq!(score(&state, 0).hand_laid_out, 1);
}

/// "Highest score wins (Ruling: equal scores share the win)."
#[test]
fn the_highest_score_wins_and_equal_scores_share_the_win() {
    let mut state = table(3);
    base(&mut state, 0, &[1, 2]);
    build(&mut state, 0, &[(at(2, 0), number(60, 5))]);
    base(&mut state, 1, &[1, 2]);
    build(&mut state, 1, &[(at(2, 0), number(61, 5))]);
    base(&mut state, 2, &[1]);
    state.phase = Phase::Over;
    let outcome: Outcome = Altitude::outcome(&state).unwrap();
    assert_eq!(outcome.winners, vec![0, 1]);
    assert!(!outcome.draw);
    assert_eq!(outcome.scores, Some(vec![2, 2, 1]));
}

/// "Alone, the same rules apply and the aim is the highest score."
#[test]
fn alone_the_same_rules_apply() {
    let setup = setup::<Altitude>(1);
    let game = domain::testing::play_random::<Altitude>(&setup, Seed([4; 32]), 1, 5000, |_, _| {})
        .unwrap();
    assert!(game.finished);
    let outcome = Altitude::outcome(&game.state).unwrap();
    assert_eq!(outcome.winners, vec![0]);
    // No opponent: an avalanche can only be discarded.
    assert!(game
        .commands
        .iter()
        .all(|(_, c)| !matches!(c, Command::LayOnOpponent { .. })));
}

// ---------------------------------------------------------------- table

/// A seat that leaves a game of 3 or more is skipped; its drawn card is discarded and it
/// keeps its mountain and hand.
#[test]
fn a_retired_seat_is_skipped_from_then_on() {
    let mut state = table(3);
    draw(&mut state, number(1, 9));
    let events = state.retire(0);
    assert_eq!(
        events,
        vec![Event::Retired {
            seat: 0,
            discarded: Some(number(1, 9))
        }]
    );
    assert_eq!(Altitude::to_act(&state), vec![1]);
    assert_eq!(state.hands[0].len(), 4);
    draw(&mut state, number(2, 9));
    state.play(1, Command::Discard).unwrap();
    draw(&mut state, number(3, 9));
    state.play(2, Command::Discard).unwrap();
    assert_eq!(state.turn, 1);
    assert_eq!(refused(state.play(0, Command::Draw)).code, "not_your_turn");
}

/// A seat retiring while the others have chosen leaves the shuffle to the next draw.
#[test]
fn a_seat_retiring_at_the_deal_leaves_the_shuffle_to_the_first_draw() {
    let mut state = started(3);
    return_first_two(&mut state, 0);
    return_first_two(&mut state, 1);
    state.retire(2);
    assert_eq!(state.phase, Phase::Playing);
    assert!(state.shuffle_owed);
    let events = state.play(0, Command::Draw).unwrap();
    assert!(matches!(events[0], Event::DeckShuffled { .. }));
    assert!(matches!(events[1], Event::Drew { .. }));
}

/// A takeback's fork reshuffles the deck with a fresh source: same cards, another order.
#[test]
fn a_reshuffle_keeps_the_cards_of_the_deck() {
    let mut state = started(2);
    return_first_two(&mut state, 0);
    return_first_two(&mut state, 1);
    let before = state.deck.clone();
    let events = Altitude::reshuffle(&state, &context(77));
    let [Event::DeckShuffled { cards, .. }] = events.as_slice() else {
        panic!("{events:?}");
    };
    assert_ne!(cards, &before);
    let mut a: Vec<u16> = cards.iter().map(|c| c.id).collect();
    let mut b: Vec<u16> = before.iter().map(|c| c.id).collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

/// The base grows at the left without renumbering: floor-2 slot j stays on base slots j and
/// j+1 (the documented addressing).
#[test]
fn positions_stay_stable_when_the_base_grows_to_the_left() {
    let mut state = table(1);
    base(&mut state, 0, &[4, 6]);
    let seven = number(1, 7);
    draw(&mut state, seven);
    state.play(0, lay(&seven, at(2, 0))).unwrap();
    let two = number(2, 2);
    draw(&mut state, two);
    state.play(0, lay(&two, at(1, -1))).unwrap();
    let five = number(3, 5);
    draw(&mut state, five);
    state.play(0, lay(&five, at(2, -1))).unwrap();
    let view = Altitude::view(&state, Viewer::Spectator);
    let places: Vec<Position> = view.players[0].mountain.iter().map(|p| p.at).collect();
    assert_eq!(
        places,
        vec![at(1, -1), at(1, 0), at(1, 1), at(2, -1), at(2, 0)]
    );
    assert!(view.players[0].mountain[1].covered);
}

/// Bad input is refused with a clear error, never a panic.
#[test]
fn nonsense_is_refused_without_panic() {
    let mut state = table(2);
    assert_eq!(refused(state.play(7, Command::Draw)).code, "not_your_turn");
    draw(&mut state, number(1, 5));
    for command in [
        lay(&number(999, 1), at(1, 0)),
        lay(&number(1, 5), at(0, 0)),
        lay(&number(1, 5), at(255, i32::MAX)),
        lay(&number(1, 5), at(2, i32::MIN)),
        Command::Replace {
            at: at(255, i32::MIN),
        },
        Command::SaintBernard {
            card: 1,
            at: at(1, i32::MAX),
        },
        Command::ReturnCards { cards: vec![1, 2] },
        Command::Pass,
        Command::LayOnOpponent {
            opponent: usize::MAX,
            at: at(1, 0),
        },
    ] {
        refused(state.play(0, command));
    }
    assert!(serde_json::from_str::<Command>(r#"{"type":"lay","card":-1}"#).is_err());
    let _ = Altitude::view(&state, Viewer::Seat(99));
}

/// "An avalanche card can be removed by using a Saint-Bernard card" (the original): the
/// owner may not replace it with the drawn card instead (our reading, which keeps the
/// avalanche a hindrance, as the original says: "They prevent your opponent from making any
/// progress").
#[test]
fn an_avalanche_is_removed_by_a_saint_bernard_not_replaced() {
    let mut state = table(2);
    build(
        &mut state,
        0,
        &[(at(1, 0), number(50, 3)), (at(1, 1), avalanche(51))],
    );
    draw(&mut state, number(1, 20));
    let error = refused(state.play(0, Command::Replace { at: at(1, 1) }));
    assert!(error.message.contains("Saint-Bernard"), "{}", error.message);
    assert!(Altitude::legal(&state, 0)
        .iter()
        .all(|l| l.command != Command::Replace { at: at(1, 1) }));
}
