//! The rules of Avalanche (`rules/avalanche.md`), one test per rule, driven through the engine
//! contract: positions are built by folding a recorded deal, then commands are decided.

use domain::engine::{Context, Engine, Seat, Viewer};
use domain::fairness::Seed;
use domain::games::avalanche::cards::{deck, Cards, Rank, DECK, DECK_SIZE};
use domain::games::avalanche::deal::{dealer_draw, HAND_SIZE};
use domain::games::avalanche::view::PhaseView;
use domain::games::avalanche::{Avalanche, Command, DrawnCard, Event, Play, SecretCards};
use domain::testing::{context, dealt as dealt_from, given, setup, test_time, under, Given};

type State = <Avalanche as Engine>::State;

/// Cards from their symbols: `cards("Q Q Q")`.
fn cards(text: &str) -> Vec<Rank> {
    text.split_whitespace()
        .map(|symbol| {
            serde_json::from_value(serde_json::Value::String(symbol.into()))
                .unwrap_or_else(|_| panic!("no rank {symbol}"))
        })
        .collect()
}

/// A game dealt with the given hands and draw pile (top card first), `first` to play.
fn dealt(hands: &[&str], pile: &str, first: Seat) -> Given<Avalanche> {
    let seats = hands.len();
    let events = [
        Event::DealerDrawn {
            rounds: Vec::new(),
            dealer: (first + seats - 1) % seats,
        },
        Event::Dealt {
            hands: hands.iter().map(|h| SecretCards::shown(cards(h))).collect(),
            draw_pile: SecretCards::shown(cards(pile)),
            first,
        },
    ];
    given::<Avalanche>(setup::<Avalanche>(seats), events)
}

fn play(state: &mut Given<Avalanche>, seat: Seat, text: &str) -> Vec<Event> {
    state
        .play(seat, Command::Play { cards: cards(text) })
        .unwrap_or_else(|e| panic!("seat {seat} could not play {text}: {e}"))
}

fn snow_fall(state: &mut Given<Avalanche>, seat: Seat) -> Vec<Event> {
    state
        .play(seat, Command::SnowFall)
        .unwrap_or_else(|e| panic!("seat {seat} could not snow fall: {e}"))
}

fn what_it_does(events: &[Event]) -> Option<Play> {
    events.iter().find_map(|event| match event {
        Event::Played { play, .. } => Some(*play),
        _ => None,
    })
}

fn hand(state: &State, seat: Seat) -> Vec<Rank> {
    state.hand(seat).to_vec()
}

fn table(state: &State) -> Vec<Rank> {
    state.table_cards()
}

fn collected(state: &State, seat: Seat) -> usize {
    state.collected[seat].len()
}

fn notations(state: &State, seat: Seat) -> Vec<String> {
    Avalanche::legal(state, seat)
        .into_iter()
        .map(|l| l.notation)
        .collect()
}

// ---------------------------------------------------------------------------------------
// Cards

/// "110 cards: two 52-card French decks and 6 Jokers."
#[test]
fn the_deck_is_110_cards_two_french_decks_and_6_jokers() {
    let deck = deck();
    assert_eq!(deck.len(), 110);
    assert_eq!(DECK_SIZE, 110);
    let counts = Cards::of(&deck);
    for rank in &Rank::ALL[..13] {
        assert_eq!(counts.count(*rank), 8, "two French decks hold 8 {rank}");
    }
    assert_eq!(counts.count(Rank::Joker), 6);
    assert_eq!(DECK.len(), 14);
}

/// "Ranks, low to high: 2 3 4 5 6 7 8 9 10 J Q K A Joker."
#[test]
fn ranks_run_low_to_high_from_2_to_joker() {
    let written = cards("2 3 4 5 6 7 8 9 10 J Q K A Joker");
    assert_eq!(written, Rank::ALL.to_vec());
    assert!(written.windows(2).all(|pair| pair[0] < pair[1]));
}

/// "Suits do not matter." A card is its rank alone, so a hand is a count per rank.
#[test]
fn suits_do_not_matter() {
    let json = serde_json::to_value(Command::Play {
        cards: cards("Q Q"),
    })
    .unwrap();
    assert_eq!(
        json,
        serde_json::json!({"type": "play", "cards": ["Q", "Q"]})
    );
}

/// "**Ruling:** Jokers are simply the highest rank, not wild."
#[test]
fn jokers_are_simply_the_highest_rank_not_wild() {
    let mut state = dealt(&["A A", "Joker Joker 2", "5"], "", 0);
    play(&mut state, 0, "A A");
    // A Joker does not join a set of Aces: a single Joker is fewer cards and falls.
    assert_eq!(
        what_it_does(&play(&mut state, 1, "Joker")),
        Some(Play::Fall)
    );
    let mut state = dealt(&["A A", "Joker Joker", "5"], "", 0);
    play(&mut state, 0, "A A");
    assert_eq!(
        what_it_does(&play(&mut state, 1, "Joker Joker")),
        Some(Play::Grow)
    );
}

// ---------------------------------------------------------------------------------------
// Deal

/// "Each player draws a card; the lowest deals."
#[test]
fn each_player_draws_a_card_and_the_lowest_deals() {
    let (rounds, dealer) = dealer_draw(&cards("7 3 9 K"), 3);
    assert_eq!(dealer, 1);
    assert_eq!(
        rounds,
        vec![vec![
            DrawnCard {
                seat: 0,
                card: Rank::Seven
            },
            DrawnCard {
                seat: 1,
                card: Rank::Three
            },
            DrawnCard {
                seat: 2,
                card: Rank::Nine
            },
        ]]
    );
}

/// "(ties draw again)": the tied seats, in seat order, take the next cards of the same
/// shuffle, round after round, until one card is lowest.
#[test]
fn ties_draw_again() {
    let (rounds, dealer) = dealer_draw(&cards("3 9 3 3 5 5 8 4 2"), 4);
    // Round 1: seats 0, 2 and 3 tie on 3. Round 2: 5, 5, 8: seats 0 and 2 tie on 5.
    // Round 3: 4 for seat 0, 2 for seat 2: seat 2 deals.
    assert_eq!(rounds.len(), 3);
    assert_eq!(
        rounds[1].iter().map(|d| d.seat).collect::<Vec<_>>(),
        [0, 2, 3]
    );
    assert_eq!(rounds[2].iter().map(|d| d.seat).collect::<Vec<_>>(), [0, 2]);
    assert_eq!(dealer, 2);
    // If the shuffle ran out, the first tied seat would deal.
    assert_eq!(dealer_draw(&cards("3 3"), 2).1, 0);
}

/// "**Ruling:** the service does the dealer draw itself, from the game's seeded shuffle, and
/// records it." The draw uses shuffle salt 0 of the start, the deal salt 1.
#[test]
fn the_service_does_the_dealer_draw_from_the_seeded_shuffle_and_records_it() {
    let mut seen_a_tie = false;
    for byte in 0..40u8 {
        let seed = Seed([byte; 32]);
        let state = Avalanche::initial(&setup::<Avalanche>(6));
        let context = Context::new(seed, 0, test_time());
        let events = Avalanche::start(&state, &context);
        assert_eq!(
            events,
            Avalanche::start(&state, &context),
            "same seed, same draw"
        );
        let mut shuffled = deck();
        context.dealer(0).shuffle(&mut shuffled);
        let (rounds, dealer) = dealer_draw(&shuffled, 6);
        assert_eq!(
            events[0],
            Event::DealerDrawn {
                rounds: rounds.clone(),
                dealer
            }
        );
        let drawn: Vec<Rank> = rounds.iter().flatten().map(|d| d.card).collect();
        assert_eq!(
            drawn,
            shuffled[..drawn.len()].to_vec(),
            "cards taken in order"
        );
        seen_a_tie |= rounds.len() > 1;
    }
    assert!(
        seen_a_tie,
        "some seed among 40 ties the first draw of 6 players"
    );
}

/// "The deck is shuffled and each player gets 10 cards; the rest is the face-down draw pile."
#[test]
fn each_player_gets_10_cards_and_the_rest_is_the_draw_pile() {
    for seats in 2..=6 {
        let mut state = Avalanche::initial(&setup::<Avalanche>(seats));
        let context = Context::new(Seed([5; 32]), 0, test_time());
        for event in Avalanche::start(&state, &context) {
            Avalanche::evolve(&mut state, &event);
        }
        for seat in 0..seats {
            assert_eq!(state.hand(seat).len(), HAND_SIZE);
        }
        assert_eq!(state.draw_pile.len(), 110 - 10 * seats);
        let mut shuffled = deck();
        context.dealer(1).shuffle(&mut shuffled);
        assert_eq!(state.draw_pile, shuffled[10 * seats..].to_vec());
        let view = Avalanche::view(&state, Viewer::Spectator);
        assert_eq!(view.draw_pile, None, "the draw pile is face down");
        assert_eq!(view.draw_pile_size, 110 - 10 * seats);
    }
}

/// "The player to the dealer's left starts; play passes to the left."
#[test]
fn the_player_to_the_dealers_left_starts_and_play_passes_to_the_left() {
    let mut state = dealt_from::<Avalanche>(setup::<Avalanche>(4), Seed([3; 32]));
    let dealer = state.dealer.unwrap();
    assert_eq!(Avalanche::to_act(&state), vec![(dealer + 1) % 4]);
    for step in 1..=4 {
        let seat = (dealer + step) % 4;
        assert_eq!(Avalanche::to_act(&state), vec![seat]);
        snow_fall(&mut state, seat);
    }
    assert_eq!(Avalanche::to_act(&state), vec![(dealer + 1) % 4]);
}

// ---------------------------------------------------------------------------------------
// A turn when no avalanche is running

/// "**Snow Fall:** draw the top card of the draw pile. That ends the turn."
#[test]
fn snow_fall_draws_the_top_card_and_ends_the_turn() {
    let mut state = dealt(&["5", "6"], "K 2 3", 0);
    let events = snow_fall(&mut state, 0);
    assert_eq!(
        events,
        vec![Event::SnowFell {
            seat: 0,
            card: Some(Rank::King)
        }]
    );
    assert_eq!(hand(&state, 0), cards("5 K"));
    assert_eq!(state.draw_pile, cards("2 3"));
    assert_eq!(Avalanche::to_act(&state), vec![1]);
}

/// "Snow Fall ... Not allowed when the draw pile is empty."
#[test]
fn snow_fall_is_not_allowed_when_the_draw_pile_is_empty() {
    let mut state = dealt(&["5", "6"], "", 0);
    let error = state.play(0, Command::SnowFall).unwrap_err();
    assert_eq!(error.code, "illegal_command");
    assert!(error.message.contains("draw pile is empty"), "{error}");
    assert!(!notations(&state, 0).contains(&"snow fall".to_string()));
}

/// "**Start the Avalanche:** play one card, or a set of cards of one rank (any size), face up."
#[test]
fn start_the_avalanche_with_one_card_or_a_set_of_one_rank() {
    let mut state = dealt(&["Q Q Q 4", "6 6"], "2", 0);
    assert_eq!(
        notations(&state, 0),
        [
            "snow fall",
            "play 4 (start)",
            "play Q (start)",
            "play Q Q (start)",
            "play Q Q Q (start)"
        ]
    );
    let error = state
        .play(
            0,
            Command::Play {
                cards: cards("Q 4"),
            },
        )
        .unwrap_err();
    assert!(error.message.contains("one rank"), "{error}");
    let events = play(&mut state, 0, "Q Q Q");
    assert_eq!(
        events,
        vec![Event::Played {
            seat: 0,
            cards: cards("Q Q Q"),
            play: Play::Start
        }]
    );
    assert_eq!(table(&state), cards("Q Q Q"));
    let view = Avalanche::view(&state, Viewer::Spectator);
    assert!(view.avalanche_running);
    assert_eq!(view.table[0].seat, 0);
}

/// "Exactly one of" Snow Fall or Start the Avalanche: a play cannot also draw.
#[test]
fn a_turn_is_exactly_one_of_snow_fall_or_a_start() {
    let mut state = dealt(&["5 5", "6 6"], "2 3", 0);
    snow_fall(&mut state, 0);
    assert_eq!(
        state.play(0, Command::SnowFall).unwrap_err().code,
        "not_your_turn"
    );
    play(&mut state, 1, "6");
    assert_eq!(Avalanche::to_act(&state), vec![0]);
    assert_eq!(state.draw_pile, cards("3"), "the start drew nothing");
}

// ---------------------------------------------------------------------------------------
// A turn when an avalanche is running

/// "No drawing: the player must play a single card or a set of one rank".
#[test]
fn no_drawing_while_an_avalanche_runs() {
    let mut state = dealt(&["5 5", "6 6"], "2 3", 0);
    play(&mut state, 0, "5");
    let error = state.play(1, Command::SnowFall).unwrap_err();
    assert_eq!(error.code, "illegal_command");
    assert!(error.message.contains("no drawing"), "{error}");
    assert!(!notations(&state, 1).contains(&"snow fall".to_string()));
}

/// "**Grow:** `n` cards of rank `r` or higher": two 4s are grown by another two 4s or two 5s
/// (the example of the original text).
#[test]
fn two_4s_are_grown_by_two_4s_or_two_5s() {
    for answer in ["4 4", "5 5"] {
        let mut state = dealt(&["4 4 9", "4 4 5 5 9", "9"], "", 0);
        play(&mut state, 0, "4 4");
        let events = play(&mut state, 1, answer);
        assert_eq!(what_it_does(&events), Some(Play::Grow), "{answer}");
        assert_eq!(events.len(), 1, "the cards stay on the table");
        assert_eq!(table(&state).len(), 4);
    }
}

/// "**Grow:** ... or more than `n` cards of any rank": two 4s are grown by three 2s or four
/// Aces (the example of the original text).
#[test]
fn two_4s_are_grown_by_three_2s_or_four_aces() {
    for answer in ["2 2 2", "A A A A"] {
        let mut state = dealt(&["4 4 9", "2 2 2 A A A A 9", "9"], "", 0);
        play(&mut state, 0, "4 4");
        let events = play(&mut state, 1, answer);
        assert_eq!(what_it_does(&events), Some(Play::Grow), "{answer}");
    }
}

/// "The cards stay on the table": a grown avalanche keeps every set, with who played it.
#[test]
fn grown_cards_stay_on_the_table() {
    let mut state = dealt(&["4 4 9", "5 5 9", "6 6 9"], "", 0);
    play(&mut state, 0, "4 4");
    play(&mut state, 1, "5 5");
    play(&mut state, 2, "6 6");
    assert_eq!(table(&state), cards("4 4 5 5 6 6"));
    let view = Avalanche::view(&state, Viewer::Seat(0));
    let who: Vec<Seat> = view.table.iter().map(|set| set.seat).collect();
    assert_eq!(who, [0, 1, 2]);
    assert_eq!(view.to_beat.unwrap().cards, cards("6 6"));
}

/// "**Stop:** `n` cards of a rank lower than `r`, when `n >= 2`. Every card on the table goes
/// to the neutral pile; nobody scores them." Three 9s are stopped by three 7s (the example of
/// the original text).
#[test]
fn three_9s_are_stopped_by_three_7s() {
    let mut state = dealt(&["9 9 9 K", "7 7 7 K", "K"], "", 0);
    play(&mut state, 0, "9 9 9");
    let events = play(&mut state, 1, "7 7 7");
    assert_eq!(what_it_does(&events), Some(Play::Stop));
    assert_eq!(
        events[1],
        Event::AvalancheStopped {
            cards: cards("9 9 9 7 7 7")
        }
    );
    assert!(table(&state).is_empty());
    assert_eq!(state.neutral.len(), 6);
    assert_eq!((collected(&state, 0), collected(&state, 1)), (0, 0));
}

/// "**Fall:** ... when `n = 1`, a single card lower than `r`": a lower single on a single
/// falls (it does not stop: a Stop needs `n >= 2`).
#[test]
fn a_lower_single_on_a_single_falls() {
    let mut state = dealt(&["9 K", "7 K", "K"], "", 0);
    play(&mut state, 0, "9");
    assert!(notations(&state, 1).contains(&"play 7 (fall)".to_string()));
    let events = play(&mut state, 1, "7");
    assert_eq!(what_it_does(&events), Some(Play::Fall));
    assert_eq!(collected(&state, 0), 2);
    assert_eq!(state.neutral.len(), 0);
}

/// "**Fall:** fewer than `n` cards" (of any rank, even higher ones).
#[test]
fn fewer_cards_let_the_avalanche_fall() {
    let mut state = dealt(&["3 3 3 K", "Joker Joker K", "K"], "", 0);
    play(&mut state, 0, "3 3 3");
    let events = play(&mut state, 1, "Joker Joker");
    assert_eq!(what_it_does(&events), Some(Play::Fall));
    assert_eq!(collected(&state, 0), 5);
}

/// "Every card on the table, those just played included, goes face down to the **previous
/// player** (the one who played the set just beaten), who scores them."
#[test]
fn a_fall_awards_the_table_to_the_previous_player_with_the_cards_just_played() {
    let mut state = dealt(&["4 4 K", "5 5 K", "6 K", "K"], "", 0);
    play(&mut state, 0, "4 4");
    play(&mut state, 1, "5 5");
    let events = play(&mut state, 2, "6");
    assert_eq!(
        events[1],
        Event::AvalancheFell {
            to: 1,
            cards: cards("4 4 5 5 6")
        }
    );
    assert_eq!(
        collected(&state, 1),
        5,
        "the previous player, not the starter"
    );
    assert_eq!(collected(&state, 0), 0);
    assert_eq!(collected(&state, 2), 0);
    assert!(table(&state).is_empty());
    let view = Avalanche::view(&state, Viewer::Spectator);
    assert_eq!(view.seats[1].collected, 5);
}

/// "**Ruling:** ... After a Stop or a Fall the next player in turn order begins: Snow Fall or a
/// new avalanche."
#[test]
fn after_a_stop_or_a_fall_the_next_player_begins() {
    let mut state = dealt(&["9 9 K", "7 7 K", "K Q"], "2", 0);
    play(&mut state, 0, "9 9");
    play(&mut state, 1, "7 7");
    assert_eq!(Avalanche::to_act(&state), vec![2]);
    assert_eq!(
        notations(&state, 2),
        ["snow fall", "play Q (start)", "play K (start)"]
    );

    let mut state = dealt(&["9 K", "7 K", "K Q"], "2", 0);
    play(&mut state, 0, "9");
    play(&mut state, 1, "7");
    assert_eq!(Avalanche::to_act(&state), vec![2]);
    assert!(notations(&state, 2).contains(&"snow fall".to_string()));
    assert_eq!(what_it_does(&play(&mut state, 2, "Q")), Some(Play::Start));
}

/// "**Ruling:** a player always holds at least one card on their turn (see refilling), so a
/// contribution is always possible." Every set in hand does something, so none is refused.
#[test]
fn a_player_always_holds_a_card_and_can_always_contribute() {
    let mut state = dealt(&["9 9 9", "2 K", "K"], "", 0);
    play(&mut state, 0, "9 9 9");
    let legal = notations(&state, 1);
    assert_eq!(legal, ["play 2 (fall)", "play K (fall)"]);
    for legal in Avalanche::legal(&state, 1) {
        assert!(Avalanche::decide(&state, 1, &legal.command, &context(1)).is_ok());
    }
}

/// The legal list says what each play would do (`play Q Q Q (grow)`, `play 7 (fall)`), each
/// distinct rank and count once.
#[test]
fn the_legal_list_says_what_each_play_would_do() {
    let mut state = dealt(&["8 8 K", "7 7 8 8 Q Q Q", "K"], "", 0);
    play(&mut state, 0, "8 8");
    assert_eq!(
        notations(&state, 1),
        [
            "play 7 (fall)",
            "play 7 7 (stop)",
            "play 8 (fall)",
            "play 8 8 (grow)",
            "play Q (fall)",
            "play Q Q (grow)",
            "play Q Q Q (grow)"
        ]
    );
    assert!(notations(&state, 0).is_empty(), "not seat 0's turn");
}

// ---------------------------------------------------------------------------------------
// Refilling and leaving

/// "A player whose hand is empty at the end of their turn draws back up to 10 cards".
#[test]
fn an_empty_hand_at_the_end_of_a_turn_draws_back_up_to_10() {
    let pile = "2 3 4 5 6 7 8 9 10 J Q K";
    let mut state = dealt(&["9 9", "5 K"], pile, 0);
    let events = play(&mut state, 0, "9 9");
    assert_eq!(
        events[1],
        Event::Refilled {
            seat: 0,
            cards: SecretCards::shown(cards("2 3 4 5 6 7 8 9 10 J"))
        }
    );
    assert_eq!(hand(&state, 0).len(), 10);
    assert_eq!(state.draw_pile, cards("Q K"));
    assert_eq!(Avalanche::to_act(&state), vec![1]);
}

/// "... or the rest of the draw pile if fewer remain."
#[test]
fn a_short_draw_pile_gives_the_rest_of_the_pile() {
    let mut state = dealt(&["9", "5 K"], "2 3 4", 0);
    let events = play(&mut state, 0, "9");
    assert_eq!(
        events[1],
        Event::Refilled {
            seat: 0,
            cards: SecretCards::shown(cards("2 3 4"))
        }
    );
    assert_eq!(hand(&state, 0), cards("2 3 4"));
    assert!(state.draw_pile.is_empty());
}

/// A hand emptied by a Fall refills too: the Fall scores for the previous player, and the
/// player who let it fall draws at the end of their turn.
#[test]
fn a_hand_emptied_by_a_fall_refills() {
    let mut state = dealt(&["9 9 K", "5", "K"], "2 3", 0);
    play(&mut state, 0, "9 9");
    let events = play(&mut state, 1, "5");
    assert!(matches!(events[1], Event::AvalancheFell { to: 0, .. }));
    assert!(matches!(events[2], Event::Refilled { seat: 1, .. }));
    assert_eq!(hand(&state, 1), cards("2 3"));
}

/// "Once the draw pile is empty, Snow Fall is impossible: a player with no running avalanche
/// must start one."
#[test]
fn once_the_draw_pile_is_empty_a_player_must_start_an_avalanche() {
    let state = dealt(&["9 5", "K"], "", 0);
    let legal = Avalanche::legal(&state, 0);
    assert!(legal
        .iter()
        .all(|l| matches!(l.command, Command::Play { .. })));
    assert_eq!(notations(&state, 0), ["play 5 (start)", "play 9 (start)"]);
    assert!(!Avalanche::view(&state, Viewer::Seat(0)).snow_fall_allowed);
}

/// "A player who has no cards and cannot draw is out of the game; turns skip them."
#[test]
fn a_player_with_no_cards_who_cannot_draw_is_out_and_skipped() {
    let mut state = dealt(&["9 K", "5", "4 K", "K"], "", 0);
    play(&mut state, 0, "9");
    let events = play(&mut state, 1, "5");
    assert!(events.contains(&Event::WentOut { seat: 1 }));
    assert!(Avalanche::view(&state, Viewer::Spectator).seats[1].out);
    // Round the table: 2, 3, 0, then 2 again, never 1.
    let mut order = Vec::new();
    for _ in 0..3 {
        let seat = Avalanche::to_act(&state)[0];
        order.push(seat);
        let first = Avalanche::legal(&state, seat)[0].command.clone();
        state.play(seat, first).unwrap();
    }
    assert_eq!(order, [2, 3, 0]);
    assert!(Avalanche::legal(&state, 1).is_empty());
}

/// "They keep the cards they collected and can still be awarded a Fall as the previous
/// player."
#[test]
fn an_out_player_keeps_collected_cards_and_can_still_be_awarded_a_fall() {
    let mut state = dealt(&["9 K", "5 A", "4 K", "K 2"], "", 0);
    play(&mut state, 0, "9");
    play(&mut state, 1, "5"); // falls: seat 0 collects 9 and 5
    assert_eq!(collected(&state, 0), 2);
    play(&mut state, 2, "K");
    play(&mut state, 3, "K");
    play(&mut state, 0, "K");
    // Seat 1 grows with its last card and is out; seat 2 lets it fall to seat 1.
    let events = play(&mut state, 1, "A");
    assert!(events.contains(&Event::WentOut { seat: 1 }));
    let events = play(&mut state, 2, "4");
    assert_eq!(
        events[1],
        Event::AvalancheFell {
            to: 1,
            cards: cards("K K K A 4")
        }
    );
    assert_eq!(collected(&state, 1), 5);
    assert!(state.hand(1).is_empty());
}

/// "Then, or at once when no avalanche is running, the game ends: "the last player to have
/// cards in their hand must surrender them to the neutral pile", together with any cards left
/// on the table."
#[test]
fn when_only_one_player_holds_cards_the_game_ends_at_once() {
    let mut state = dealt(&["9 9", "J J K Q", "4"], "", 0);
    play(&mut state, 0, "9 9"); // seat 0 is out
    let events = play(&mut state, 1, "J J"); // grows; seat 2 still holds its 4
    assert_eq!(events.len(), 1);
    let events = play(&mut state, 2, "4"); // falls to seat 1, and seat 2 is out
    assert_eq!(
        events.last(),
        Some(&Event::GameEnded {
            last: Some(1),
            hand: SecretCards::shown(cards("Q K")),
            table: Vec::new()
        })
    );
    assert_eq!(state.neutral.len(), 2);
    assert!(Avalanche::to_act(&state).is_empty());
    assert!(Avalanche::legal(&state, 1).is_empty());
    assert_eq!(
        Avalanche::view(&state, Viewer::Everyone).phase,
        PhaseView::Over
    );
    let error = state.play(1, Command::SnowFall).unwrap_err();
    assert_eq!(error.code, "game_over");
}

/// "Ruling: when only one player still holds cards and an avalanche is running, that player
/// must still answer it once (the seed: "players must contribute to it"): a Grow, a Stop or a
/// Fall as usual, so a Fall still awards the table to the previous player although they are
/// out."
#[test]
fn the_last_player_holding_cards_must_still_answer_the_running_avalanche() {
    let deal = [
        Event::DealerDrawn {
            rounds: Vec::new(),
            dealer: 1,
        },
        Event::Dealt {
            hands: vec![
                SecretCards::shown(cards("9 10 10")),
                SecretCards::shown(cards("2 2 2 5 8 Q")),
            ],
            draw_pile: SecretCards::shown(Vec::new()),
            first: 0,
        },
    ];
    let game = given::<Avalanche>(setup::<Avalanche>(2), deal.clone())
        .when(0, Command::Play { cards: cards("9") })
        .accepted()
        .when(1, Command::Play { cards: cards("Q") })
        .accepted()
        // Seat 0 grows with its last cards and is out; the game goes on for seat 1's answer.
        .when(
            0,
            Command::Play {
                cards: cards("10 10"),
            },
        )
        .then([
            Event::Played {
                seat: 0,
                cards: cards("10 10"),
                play: Play::Grow,
            },
            Event::WentOut { seat: 0 },
        ]);
    assert_eq!(Avalanche::to_act(game.state()), vec![1]);
    assert_eq!(
        notations(game.state(), 1),
        [
            "play 2 (fall)",
            "play 2 2 (stop)",
            "play 2 2 2 (grow)",
            "play 5 (fall)",
            "play 8 (fall)"
        ]
    );
    // A single against a pair falls: the table goes to seat 0, out but the previous player.
    let over = game.when(1, Command::Play { cards: cards("8") }).then([
        Event::Played {
            seat: 1,
            cards: cards("8"),
            play: Play::Fall,
        },
        Event::AvalancheFell {
            to: 0,
            cards: cards("9 Q 10 10 8"),
        },
        Event::GameEnded {
            last: Some(1),
            hand: SecretCards::shown(cards("2 2 2 5")),
            table: Vec::new(),
        },
    ]);
    let outcome = Avalanche::outcome(over.state()).expect("over");
    assert_eq!(outcome.scores, Some(vec![5, 0]));
    assert_eq!(outcome.winners, vec![0]);

    // A Grow is an answer too: then the table goes to the neutral pile with the last hand.
    let deal_again = given::<Avalanche>(setup::<Avalanche>(2), deal)
        .when(0, Command::Play { cards: cards("9") })
        .accepted()
        .when(1, Command::Play { cards: cards("Q") })
        .accepted()
        .when(
            0,
            Command::Play {
                cards: cards("10 10"),
            },
        )
        .accepted();
    deal_again
        .when(
            1,
            Command::Play {
                cards: cards("2 2 2"),
            },
        )
        .then([
            Event::Played {
                seat: 1,
                cards: cards("2 2 2"),
                play: Play::Grow,
            },
            Event::GameEnded {
                last: Some(1),
                hand: SecretCards::shown(cards("5 8")),
                table: cards("9 Q 10 10 2 2 2"),
            },
        ]);
}

/// Revision 1 (games created before the correction keep it): the game ended as soon as only
/// one player held cards, and a running avalanche went to the neutral pile unanswered.
#[test]
fn under_revision_1_the_last_running_avalanche_went_to_the_neutral_pile_unanswered() {
    let deal = [
        Event::DealerDrawn {
            rounds: Vec::new(),
            dealer: 1,
        },
        Event::Dealt {
            hands: vec![
                SecretCards::shown(cards("9 9")),
                SecretCards::shown(cards("J J K")),
            ],
            draw_pile: SecretCards::shown(Vec::new()),
            first: 0,
        },
    ];
    let over = given::<Avalanche>(under(setup::<Avalanche>(2), 1), deal)
        .when(
            0,
            Command::Play {
                cards: cards("9 9"),
            },
        )
        .then([
            Event::Played {
                seat: 0,
                cards: cards("9 9"),
                play: Play::Start,
            },
            Event::WentOut { seat: 0 },
            Event::GameEnded {
                last: Some(1),
                hand: SecretCards::shown(cards("J J K")),
                table: cards("9 9"),
            },
        ]);
    assert_eq!(over.state().neutral.len(), 5);
    assert!(over.state().table.is_empty());
}

/// The end sends the cards left on the table to the neutral pile, with the last hand.
#[test]
fn the_end_sends_the_running_avalanche_to_the_neutral_pile() {
    let mut state = dealt(&["9 9", "J J K"], "", 0);
    play(&mut state, 0, "9 9");
    assert_eq!(Avalanche::to_act(&state), vec![1], "seat 1 must answer");
    let events = play(&mut state, 1, "J J");
    assert_eq!(
        events.last(),
        Some(&Event::GameEnded {
            last: Some(1),
            hand: SecretCards::shown(cards("K")),
            table: cards("9 9 J J")
        })
    );
    assert_eq!(state.neutral.len(), 5);
    assert!(state.table.is_empty());
}

// ---------------------------------------------------------------------------------------
// Winning

/// "The player with the most collected cards wins."
#[test]
fn the_most_collected_cards_wins() {
    let mut state = dealt(&["9 9 K", "2", "5"], "", 0);
    play(&mut state, 0, "9 9");
    play(&mut state, 1, "2"); // falls to seat 0 (3 cards); seat 1 is out
    play(&mut state, 2, "5"); // seat 2 is out: only seat 0 holds cards
    play(&mut state, 0, "K"); // and answers the running avalanche once: the end
    let outcome = Avalanche::outcome(&state).expect("over");
    assert_eq!(outcome.winners, vec![0]);
    assert_eq!(outcome.scores, Some(vec![3, 0, 0]));
    assert!(!outcome.draw);
}

/// "**Ruling:** equal highest counts share the win."
#[test]
fn equal_highest_counts_share_the_win() {
    let mut state = dealt(&["9 4", "8 K", "2 7"], "", 0);
    play(&mut state, 0, "9");
    play(&mut state, 1, "8"); // falls: seat 0 collects 2
    play(&mut state, 2, "7");
    play(&mut state, 0, "4"); // falls: seat 2 collects 2; seat 0 is out
    play(&mut state, 1, "K"); // seat 1 is out: only seat 2 holds cards, and answers
    play(&mut state, 2, "2"); // falls: seat 1 collects 2; nobody holds cards
    let outcome = Avalanche::outcome(&state).expect("over");
    assert_eq!(outcome.scores, Some(vec![2, 2, 2]));
    assert_eq!(outcome.winners, vec![0, 1, 2]);
}

// ---------------------------------------------------------------------------------------
// The contract around the rules

/// Refusals name the reason: cards not held, no cards, another seat's turn, a seat that does
/// not exist, a game not yet dealt.
#[test]
fn refusals_say_why() {
    let mut state = dealt(&["Q 4", "6"], "2", 0);
    let error = state
        .play(
            0,
            Command::Play {
                cards: cards("Q Q"),
            },
        )
        .unwrap_err();
    assert_eq!(error.code, "illegal_command");
    assert!(
        error.message.contains("you hold 1 of the Queens"),
        "{error}"
    );
    let error = state
        .play(0, Command::Play { cards: Vec::new() })
        .unwrap_err();
    assert!(error.message.contains("at least one card"), "{error}");
    assert_eq!(
        state.play(1, Command::SnowFall).unwrap_err().code,
        "not_your_turn"
    );
    assert_eq!(
        state.play(7, Command::SnowFall).unwrap_err().code,
        "bad_command"
    );
    let fresh = Avalanche::initial(&setup::<Avalanche>(3));
    assert!(Avalanche::decide(&fresh, 0, &Command::SnowFall, &context(1)).is_err());
    assert!(Avalanche::to_act(&fresh).is_empty());
}

/// Commands read from JSON as documented; unknown shapes and cards are refused when read.
#[test]
fn commands_read_from_json() {
    let play: Command = serde_json::from_str(r#"{"type":"play","cards":["Q","Q","Q"]}"#).unwrap();
    assert_eq!(
        play,
        Command::Play {
            cards: cards("Q Q Q")
        }
    );
    let snow: Command = serde_json::from_str(r#"{"type":"snow_fall"}"#).unwrap();
    assert_eq!(snow, Command::SnowFall);
    assert!(serde_json::from_str::<Command>(r#"{"type":"play","cards":["Queen"]}"#).is_err());
    assert!(serde_json::from_str::<Command>(r#"{"type":"play","cards":"Q"}"#).is_err());
}

/// A seat count outside 2 to 6 is refused.
#[test]
fn avalanche_is_played_by_2_to_6_players() {
    for seats in 0..=8 {
        let ok = Avalanche::check(&setup::<Avalanche>(seats)).is_ok();
        assert_eq!(ok, (2..=6).contains(&seats), "{seats} seats");
    }
}

/// Retiring (resigned or timed out in a game of 3+): the hand goes to the neutral pile, turns
/// skip the seat, it keeps its collected cards but cannot win.
#[test]
fn a_retired_seat_gives_its_hand_to_the_neutral_pile_and_cannot_win() {
    let mut state = dealt(&["9 K K", "8 K", "Q Q", "5 5 5 6"], "", 0);
    play(&mut state, 0, "9");
    play(&mut state, 1, "8"); // seat 0 collects 2
    assert_eq!(Avalanche::to_act(&state), vec![2]);
    let events = state.retire(0);
    assert_eq!(
        events,
        vec![Event::Retired {
            seat: 0,
            hand: SecretCards::shown(cards("K K"))
        }]
    );
    assert_eq!(state.neutral.len(), 2);
    let redacted = Avalanche::redact(&events[0], Viewer::Seat(1));
    assert_eq!(
        redacted,
        Event::Retired {
            seat: 0,
            hand: SecretCards {
                count: 2,
                cards: None
            }
        }
    );
    // Retiring the seat to act passes the turn on.
    state.retire(2);
    assert_eq!(Avalanche::to_act(&state), vec![3]);
    play(&mut state, 3, "5 5 5");
    play(&mut state, 1, "K"); // falls to seat 3, and seat 1 is out: the end
    let outcome = Avalanche::outcome(&state).expect("over");
    assert_eq!(outcome.scores, Some(vec![2, 0, 0, 4]));
    assert_eq!(outcome.winners, vec![3]);
}

/// Retiring can leave one player holding cards: the game ends at once.
#[test]
fn a_retirement_that_leaves_one_holder_ends_the_game() {
    let state = dealt(&["9", "", "K"], "", 0);
    let events = Avalanche::retire(&state, 0);
    assert!(matches!(
        events.last(),
        Some(Event::GameEnded { last: Some(2), .. })
    ));
}

/// A takeback fork reshuffles the draw pile (the only face-down pile whose order matters):
/// the same cards in a new order, hidden from every seat.
#[test]
fn a_reshuffle_keeps_the_cards_of_the_draw_pile_and_hides_them() {
    let mut state = dealt_from::<Avalanche>(setup::<Avalanche>(2), Seed([3; 32]));
    let before = state.draw_pile.clone();
    let events = Avalanche::reshuffle(&state, &context(17));
    assert_eq!(events.len(), 1);
    for event in &events {
        Avalanche::evolve(&mut state, event);
        let hidden = Avalanche::redact(event, Viewer::Seat(0));
        assert_eq!(
            hidden,
            Event::Reshuffled {
                draw_pile: SecretCards {
                    count: 90,
                    cards: None
                }
            }
        );
    }
    assert_ne!(state.draw_pile, before);
    assert_eq!(Cards::of(&state.draw_pile), Cards::of(&before));
}

/// A seat sees its own hand and the public counts, never another hand.
#[test]
fn each_seat_sees_its_own_hand_and_only_counts_of_the_others() {
    let state = dealt(&["9 K", "8 8 8"], "2 3", 0);
    let view = Avalanche::view(&state, Viewer::Seat(1));
    assert_eq!(view.seats[1].hand, Some(cards("8 8 8")));
    assert_eq!(view.seats[0].hand, None);
    assert_eq!(view.seats[0].hand_size, 2);
    assert_eq!(view.draw_pile_size, 2);
    assert_eq!(view.draw_pile, None);
    assert_eq!(view.turn, Some(0));
    assert!(view.snow_fall_allowed);
    let everyone = Avalanche::view(&state, Viewer::Everyone);
    assert_eq!(everyone.seats[0].hand, Some(cards("9 K")));
    assert_eq!(everyone.draw_pile, Some(cards("2 3")));
}

/// Through the registry, as the service drives it: JSON commands from the legal list are
/// accepted, and a resignation in a game of three lets the others play on.
#[test]
fn the_registry_plays_avalanche_from_json() {
    use domain::registry::Registry;
    use domain::table::Actor;
    let registry = Registry::standard();
    let kind = registry.get("avalanche").expect("avalanche is registered");
    assert!(kind.info().hidden_information);
    let created = kind
        .create(None, None, 3, Seed([1; 32]).commitment())
        .unwrap();
    let mut game = kind.fold(&[created.payload]).unwrap();
    let players = ["ann", "bob", "cy"];
    for (i, player) in players.iter().enumerate() {
        let context = Context::new(Seed([1; 32]), game.facts().version + i as u64, test_time());
        let events = game
            .decide(
                &Actor::player(*player),
                &serde_json::json!({"type": "join"}),
                &context,
            )
            .unwrap();
        for event in events {
            game.evolve(&event.payload).unwrap();
        }
    }
    let seat = game.facts().to_act[0];
    let legal = game.legal(seat);
    let play = legal
        .iter()
        .find(|l| l.notation.starts_with("play"))
        .expect("a play");
    assert_eq!(play.command["type"], "play");
    let context = Context::new(Seed([1; 32]), game.facts().version, test_time());
    for event in game
        .decide(&Actor::player(players[seat]), &play.command, &context)
        .unwrap()
    {
        game.evolve(&event.payload).unwrap();
    }
    let next = game.facts().to_act[0];
    assert_eq!(next, (seat + 1) % 3);
    let resign = serde_json::json!({"type": "resign"});
    for event in game
        .decide(&Actor::player(players[next]), &resign, &context)
        .unwrap()
    {
        game.evolve(&event.payload).unwrap();
    }
    assert_eq!(game.facts().to_act, vec![(next + 1) % 3]);
    let view = game.view(Viewer::Seat(seat));
    assert_eq!(view["seats"][next]["retired"], true);
    assert_eq!(view["seats"][next]["hand_size"], 0);
}
