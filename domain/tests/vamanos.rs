//! The rules of Vamanos (`rules/vamanos.md`), one test a rule, each quoting the line it checks.

use crate::vamanos_support;

use domain::engine::{Context, Engine, Viewer};
use domain::fairness::Seed;
use domain::games::vamanos::cards::{deck, COLOURS, DECK_SIZE, PICTURES};
use domain::games::vamanos::{
    Card, Colour, Combination, Command, Event, Options, Phase, Pile, SeatScore, StackScore, Vamanos,
};
use domain::testing::{given, test_time, under, Given};
use domain::{Registry, Setup};
use std::collections::HashSet;
use vamanos_support::{deck_starting_with, setup, Game};

use domain::games::vamanos::Picture::{Burro, Cactus, Hacienda, Hombre, Jalapeno, Sombrero};
use Colour::*;

fn card(picture: domain::games::vamanos::Picture, colour: Colour) -> Card {
    Card::new(picture, colour)
}

/// Seat `seat` plays its whole pile into row 1 (stacks of five in drawing order) and lays the
/// last card face down, calling Alta.
fn play_out_into_row_1(game: &mut Game, seat: usize) -> Vec<Event> {
    let mut events = Vec::new();
    if game.state.players[seat].drawn.is_some() {
        events.extend(game.place(seat, 1));
    }
    while game.state.players[seat].pile.len() > 1 {
        events.extend(game.draw_and_place(seat, 1));
    }
    events.extend(game.draw(seat));
    let round = game.round();
    events.extend(
        game.play(seat, Command::LayFaceDown { round })
            .expect("lay the last card face down"),
    );
    events
}

// ---------------------------------------------------------------- Cards

/// "Each player has their own 36-card deck: six pictures (Hombre, Cactus, Jalapeño, Hacienda,
/// Sombrero, Burro) each in six colours (**Ruling:** Yellow, Red, Green, Blue, Orange,
/// Purple), every picture/colour pair exactly once."
#[test]
fn each_player_has_a_36_card_deck_with_every_picture_colour_pair_once() {
    let cards = deck();
    assert_eq!(cards.len(), 36);
    assert_eq!(DECK_SIZE, 36);
    let distinct: HashSet<Card> = cards.iter().copied().collect();
    assert_eq!(distinct.len(), 36);
    for picture in PICTURES {
        for colour in COLOURS {
            assert!(distinct.contains(&card(picture, colour)));
        }
    }
    assert_eq!(
        PICTURES,
        [Hombre, Cactus, Jalapeno, Hacienda, Sombrero, Burro]
    );
    assert_eq!(COLOURS, [Yellow, Red, Green, Blue, Orange, Purple]);
    let game = Game::dealt(4, 500, 1);
    for player in &game.state.players {
        let mut own = player.pile.clone();
        own.sort();
        let mut full = deck();
        full.sort();
        assert_eq!(own, full, "each player has a whole deck of their own");
    }
}

/// "Every deck is shuffled for its player": one shuffle a seat, from the game's seed
/// (`ctx.dealer(seat)`), so the decks lie in different orders.
#[test]
fn every_deck_is_shuffled_for_its_player() {
    let seed = Seed([9; 32]);
    let game = Game::dealt(3, 500, 9);
    for seat in 0..3 {
        let mut expected = deck();
        Context::new(seed, 0, test_time())
            .dealer(seat as u8)
            .shuffle(&mut expected);
        assert_eq!(game.state.players[seat].pile, expected);
        assert_ne!(expected, deck());
    }
    assert_ne!(game.state.players[0].pile, game.state.players[1].pile);
    assert_ne!(game.state.players[1].pile, game.state.players[2].pile);
}

/// "2 to 6 players."
#[test]
fn vamanos_is_played_by_2_to_6_players() {
    for seats in 2..=6 {
        assert!(Vamanos::check(&setup(seats, 500)).is_ok());
    }
    for seats in [0, 1, 7] {
        let error = Vamanos::check(&setup(seats, 500)).unwrap_err();
        assert_eq!(error.code, "invalid_setup");
        assert!(error.message.contains("2 to 6"), "{}", error.message);
    }
    assert!(Registry::standard().get("vamanos").is_some());
}

// ---------------------------------------------------------------- Play

/// "There are **no turns**: every player plays their own cards as fast as they can, so
/// commands from different players arrive in any order."
#[test]
fn there_are_no_turns_every_player_may_act_while_the_round_runs() {
    let mut game = Game::dealt(3, 500, 2);
    assert_eq!(Vamanos::to_act(&game.state), vec![0, 1, 2]);
    // Interleaved: seat 2, then 0, then 2 again, then 1, each against the state at arrival.
    game.draw(2);
    game.draw(0);
    game.place(2, 3);
    game.draw(1);
    game.place(0, 1);
    game.draw(2);
    game.place(1, 2);
    assert_eq!(Vamanos::to_act(&game.state), vec![0, 1, 2]);
    let rows: Vec<usize> = (0..3)
        .map(|s| game.state.players[s].rows.iter().map(Vec::len).sum())
        .collect();
    assert_eq!(rows, vec![1, 1, 1]);
    assert_eq!(game.state.players[0].rows[0].len(), 1);
    assert_eq!(game.state.players[1].rows[1].len(), 1);
    assert_eq!(game.state.players[2].rows[2].len(), 1);
    assert!(game.state.players[2].drawn.is_some());
    for seat in 0..3 {
        assert!(!Vamanos::legal(&game.state, seat).is_empty());
        let view = game.view(Viewer::Seat(seat));
        assert_eq!(view.to_act, vec![0, 1, 2]);
        assert_eq!(view.phase, Phase::Playing);
    }
}

/// "Each player draws one card at a time from their own pile and places it at the end of one
/// of their three rows."
#[test]
fn each_player_draws_from_their_own_pile_and_places_at_the_end_of_a_row() {
    let mut game = Game::dealt(2, 500, 4);
    let top = game.state.players[1].pile[0];
    let second = game.state.players[1].pile[1];
    let events = game.draw(1);
    assert_eq!(
        events,
        vec![Event::Drew {
            seat: 1,
            round: 1,
            card: Some(top)
        }]
    );
    assert_eq!(game.state.players[1].drawn, Some(top));
    assert_eq!(game.state.players[1].pile.len(), 35);
    assert_eq!(
        game.state.players[0].pile.len(),
        36,
        "the other pile is untouched"
    );
    game.place(1, 2);
    game.draw_and_place(1, 2);
    assert_eq!(game.state.players[1].rows[1], vec![top, second]);
}

/// "**Ruling:** a drawn card must be placed before the next is drawn."
#[test]
fn a_drawn_card_must_be_placed_before_the_next_is_drawn() {
    let mut game = Game::dealt(2, 500, 5);
    let card = game.draw(0);
    let Event::Drew {
        card: Some(card), ..
    } = card[0]
    else {
        panic!("a drawn card")
    };
    let error = game.play(0, Command::Draw { round: 1 }).unwrap_err();
    assert_eq!(error.code, "illegal_command");
    assert_eq!(
        error.message,
        format!("Place the {card} you drew before drawing another card.")
    );
    let legal: Vec<String> = Vamanos::legal(&game.state, 0)
        .into_iter()
        .map(|l| l.notation)
        .collect();
    assert_eq!(
        legal,
        vec!["place in row 1", "place in row 2", "place in row 3"]
    );
    let error = game
        .play(1, Command::Place { round: 1, row: 1 })
        .unwrap_err();
    assert_eq!(error.code, "illegal_command");
    assert!(error.message.contains("draw one"), "{}", error.message);
    assert_eq!(
        Vamanos::legal(&game.state, 1)
            .into_iter()
            .map(|l| l.notation)
            .collect::<Vec<_>>(),
        vec!["draw"]
    );
}

/// "**Ruling:** a player sees only the card they have drawn."
#[test]
fn a_player_sees_only_the_card_they_have_drawn() {
    let mut game = Game::dealt(3, 500, 6);
    let drawn = game.draw(1);
    let card = game.state.players[1].drawn;
    assert!(card.is_some());
    assert_eq!(game.view(Viewer::Seat(1)).players[1].drawn, card);
    for viewer in [Viewer::Seat(0), Viewer::Seat(2), Viewer::Spectator] {
        let view = game.view(viewer);
        assert_eq!(view.players[1].drawn, None);
        assert!(
            view.players[1].holds_card,
            "everyone sees that a card is held"
        );
        assert_eq!(
            Vamanos::redact(&drawn[0], viewer),
            Event::Drew {
                seat: 1,
                round: 1,
                card: None
            }
        );
        for player in &view.players {
            assert_eq!(player.pile, None, "nobody sees an undrawn card");
            assert_eq!(
                player.pile_size,
                game.state.players[player.seat].pile.len() as u32
            );
        }
    }
    assert_eq!(Vamanos::redact(&drawn[0], Viewer::Seat(1)), drawn[0]);
    // Not even the owner sees their own undrawn cards.
    let dealt = &game.events[0];
    for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
        let Event::RoundDealt { piles, .. } = Vamanos::redact(dealt, viewer) else {
            panic!("the deal")
        };
        assert!(piles.iter().all(|p| p.cards.is_none() && p.size == 36));
    }
    assert_eq!(Vamanos::redact(dealt, Viewer::Everyone), *dealt);
}

/// "Everyone sees all rows and stacks (they are face up), pile sizes and scores."
#[test]
fn rows_stacks_pile_sizes_and_scores_are_seen_by_everyone() {
    let mut game = Game::dealt(2, 500, 7);
    for _ in 0..6 {
        game.draw_and_place(0, 1);
    }
    game.draw_and_place(0, 3);
    let spectator = game.view(Viewer::Spectator);
    let rival = game.view(Viewer::Seat(1));
    for view in [&spectator, &rival] {
        assert_eq!(view.players[0].stacks, game.state.players[0].stacks);
        assert_eq!(view.players[0].rows, game.state.players[0].rows.to_vec());
        assert_eq!(view.players[0].pile_size, 29);
        assert_eq!(view.players[0].total, 0);
    }
    assert_eq!(spectator.you, None);
    assert_eq!(rival.you, Some(1));
    assert!(rival.may_draw && !rival.may_place && !rival.may_lay_face_down);
}

/// "When a row holds five cards it is gathered into a stack for scoring and the row is empty
/// again."
#[test]
fn a_row_of_five_is_gathered_into_a_stack_and_the_row_is_empty_again() {
    let mut game = Game::dealt(2, 500, 8);
    let first_five: Vec<Card> = game.state.players[0].pile[..5].to_vec();
    for _ in 0..4 {
        game.draw_and_place(0, 2);
    }
    assert_eq!(game.state.players[0].rows[1].len(), 4);
    let events = game.draw_and_place(0, 2);
    assert_eq!(
        events.last(),
        Some(&Event::RowStacked {
            seat: 0,
            round: 1,
            row: 2,
            cards: first_five.clone()
        })
    );
    assert!(game.state.players[0].rows[1].is_empty());
    assert_eq!(game.state.players[0].stacks, vec![first_five]);
    game.draw_and_place(0, 2);
    assert_eq!(
        game.state.players[0].rows[1].len(),
        1,
        "new cards go to the empty row"
    );
}

/// Rows are numbered 1 to 3 in commands and notation.
#[test]
fn rows_are_numbered_1_to_3() {
    let mut game = Game::dealt(2, 500, 10);
    game.draw(0);
    for row in [0, 4, 99] {
        let error = game.play(0, Command::Place { round: 1, row }).unwrap_err();
        assert_eq!(error.code, "bad_command");
        assert_eq!(
            error.message,
            format!("Rows are numbered 1 to 3; there is no row {row}.")
        );
    }
    for row in 1..=3 {
        let legal = Vamanos::legal(&game.state, 0);
        assert!(legal
            .iter()
            .any(|l| l.command == Command::Place { round: 1, row }
                && l.notation == format!("place in row {row}")));
    }
}

/// "When a player places their last card the round stops at once ("Alta")."
#[test]
fn placing_the_last_card_stops_the_round_at_once_for_everybody() {
    let mut game = Game::arranged(500, vec![deck(), deck(), deck()]);
    game.draw(1); // seat 1 holds a card when the round stops
    game.draw_and_place(2, 3);
    while game.state.players[0].pile.len() > 1 {
        game.draw_and_place(0, 1);
    }
    game.draw(0);
    let events = game.place(0, 2);
    assert_eq!(
        events[..2],
        [
            Event::Placed {
                seat: 0,
                round: 1,
                row: 2,
                card: card(Burro, Purple)
            },
            Event::AltaCalled { seat: 0, round: 1 },
        ]
    );
    let Event::RoundScored { round: 1, scores } = &events[2] else {
        panic!("the round is scored at once: {events:?}")
    };
    assert_eq!(scores.len(), 3);
    assert_eq!(scores[1].cards_left, 36, "seat 1's drawn card still counts");
    assert_eq!(scores[2].cards_left, 35);
    assert!(matches!(events[3], Event::RoundDealt { round: 2, .. }));
    assert_eq!(game.state.altas, vec![0]);
}

/// "That last card may instead be laid face down, so that it starts no unfinished row."
#[test]
fn the_last_card_may_be_laid_face_down_and_starts_no_unfinished_row() {
    let mut game = Game::arranged(500, vec![deck(), deck()]);
    while game.state.players[0].pile.len() > 1 {
        game.draw_and_place(0, 1);
    }
    game.draw(0);
    let legal: Vec<String> = Vamanos::legal(&game.state, 0)
        .into_iter()
        .map(|l| l.notation)
        .collect();
    assert_eq!(
        legal,
        vec![
            "place in row 1",
            "place in row 2",
            "place in row 3",
            "lay last card face down"
        ]
    );
    assert!(game.view(Viewer::Seat(0)).may_lay_face_down);
    let events = game
        .play(0, Command::LayFaceDown { round: 1 })
        .expect("the last card may be laid face down");
    assert_eq!(
        events[..2],
        [
            Event::LaidFaceDown {
                seat: 0,
                round: 1,
                card: Some(card(Burro, Purple))
            },
            Event::AltaCalled { seat: 0, round: 1 },
        ]
    );
    let Event::RoundScored { scores, .. } = &events[2] else {
        panic!("scored")
    };
    assert_eq!(scores[0].unfinished_rows, 0);
    assert_eq!(scores[0].cards_left, 0);
}

/// Only the last card may be laid face down ("That last card may instead be laid face down").
#[test]
fn only_the_last_card_may_be_laid_face_down() {
    let mut game = Game::dealt(2, 500, 11);
    let error = game.play(0, Command::LayFaceDown { round: 1 }).unwrap_err();
    assert_eq!(error.code, "illegal_command");
    game.draw(0);
    let error = game.play(0, Command::LayFaceDown { round: 1 }).unwrap_err();
    assert_eq!(error.code, "illegal_command");
    assert_eq!(
        error.message,
        "Only your last card may be laid face down: 35 cards are still in your pile."
    );
}

/// Ruling (engine doc): the face-down last card is hidden from the others and spectators
/// (they see that a card lies face down), seen by its owner, and by everyone once the game is
/// over.
#[test]
fn a_face_down_card_is_hidden_from_the_others_until_the_game_is_over() {
    let mut game = Game::arranged(500, vec![deck(), deck()]);
    let events = play_out_into_row_1(&mut game, 0);
    // The round is over and round 2 is dealt; the face-down card of round 1 is in the log.
    let laid = events
        .iter()
        .find(|e| matches!(e, Event::LaidFaceDown { .. }))
        .expect("laid face down");
    assert_eq!(
        Vamanos::redact(laid, Viewer::Seat(1)),
        Event::LaidFaceDown {
            seat: 0,
            round: 1,
            card: None
        }
    );
    assert_eq!(Vamanos::redact(laid, Viewer::Spectator), {
        Event::LaidFaceDown {
            seat: 0,
            round: 1,
            card: None,
        }
    });
    assert_eq!(Vamanos::redact(laid, Viewer::Seat(0)), *laid);
    assert_eq!(Vamanos::redact(laid, Viewer::Everyone), *laid);

    // In the view, while the face-down card lies on the table (a game to a low target ends
    // on that round, so the rows stay).
    let mut short = Game::arranged(1, vec![deck(), deck()]);
    play_out_into_row_1(&mut short, 0);
    assert!(Vamanos::outcome(&short.state).is_some());
    assert_eq!(short.view(Viewer::Seat(1)).players[0].face_down_card, None);
    assert!(short.view(Viewer::Seat(1)).players[0].face_down);
    assert_eq!(
        short.view(Viewer::Spectator).players[0].face_down_card,
        None
    );
    assert_eq!(
        short.view(Viewer::Seat(0)).players[0].face_down_card,
        Some(card(Burro, Purple))
    );
    assert_eq!(
        short.view(Viewer::Everyone).players[0].face_down_card,
        Some(card(Burro, Purple))
    );
}

/// "the first to empty their pile ends the round": a command for that round arriving after
/// it is refused, with the reason.
#[test]
fn a_command_for_a_round_that_has_ended_is_refused() {
    let mut game = Game::arranged(500, vec![deck(), deck(), deck()]);
    game.draw(2);
    play_out_into_row_1(&mut game, 1);
    assert_eq!(game.round(), 2);
    for command in [
        Command::Place { round: 1, row: 1 },
        Command::Draw { round: 1 },
        Command::LayFaceDown { round: 1 },
    ] {
        let error = game.play(2, command).unwrap_err();
        assert_eq!(error.code, "round_over");
        assert_eq!(error.message, "Round 1 ended when seat 1 called Alta.");
    }
    let error = game.play(0, Command::Draw { round: 3 }).unwrap_err();
    assert_eq!(error.code, "illegal_command");
    assert_eq!(
        error.message,
        "Round 3 has not begun: round 2 is being played."
    );
    let error = game.play(0, Command::Draw { round: 0 }).unwrap_err();
    assert_eq!(error.code, "bad_command");
    // The command for the running round is accepted.
    assert!(game.play(2, Command::Draw { round: 2 }).is_ok());
}

/// "otherwise the next round is dealt": every player gets a fresh shuffled deck and empty
/// rows; totals carry on.
#[test]
fn after_alta_a_new_round_is_dealt() {
    let mut game = Game::dealt(3, 500, 12);
    game.draw_and_place(2, 1);
    let events = play_out_into_row_1(&mut game, 0);
    let Some(Event::RoundDealt { round: 2, piles }) = events.last() else {
        panic!("round 2 is dealt: {events:?}")
    };
    assert_eq!(piles.len(), 3);
    // Dealt in the decision with `ctx.dealer(seat)`, from the stream of that decision (the
    // helper's nonce is the number of events before the command, plus one); the last
    // command gave four events: laid face down, Alta, scores, deal.
    let nonce = (game.events.len() - 4) as u64 + 1;
    for (seat, pile) in piles.iter().enumerate() {
        let mut expected = deck();
        Context::new(game.seed, nonce, test_time())
            .dealer(seat as u8)
            .shuffle(&mut expected);
        assert_eq!(pile.cards.as_ref(), Some(&expected));
        let player = &game.state.players[seat];
        assert_eq!(player.pile, expected);
        assert!(player.rows.iter().all(Vec::is_empty));
        assert!(player.stacks.is_empty() && player.drawn.is_none() && player.face_down.is_none());
    }
    assert_eq!(game.round(), 2);
    assert_eq!(Vamanos::to_act(&game.state), vec![0, 1, 2]);
    let view = game.view(Viewer::Seat(1));
    assert_eq!(view.round, 2);
    assert_eq!(view.altas, vec![0]);
    assert_eq!(view.last_round.as_ref().map(Vec::len), Some(3));
    assert_eq!(
        view.players.iter().map(|p| p.total).collect::<Vec<_>>(),
        game.state.totals
    );
}

// ---------------------------------------------------------------- Scoring

/// "A stack with three Cactuses and three Yellow cards scores 20."
#[test]
fn three_cactuses_and_three_yellow_cards_score_20() {
    let stack = StackScore::of(&[
        card(Cactus, Yellow),
        card(Cactus, Red),
        card(Cactus, Green),
        card(Hombre, Yellow),
        card(Burro, Yellow),
    ]);
    assert_eq!(stack.pictures, Combination::ThreeOfAKind);
    assert_eq!(stack.colours, Combination::ThreeOfAKind);
    assert_eq!(stack.points, 20);
}

/// "three of a kind 10": three Cactuses, the colours two pairs and one other (nothing).
#[test]
fn three_of_a_kind_scores_10() {
    let stack = StackScore::of(&[
        card(Cactus, Yellow),
        card(Cactus, Red),
        card(Cactus, Green),
        card(Hombre, Yellow),
        card(Burro, Red),
    ]);
    assert_eq!(
        (stack.pictures, stack.colours, stack.points),
        (Combination::ThreeOfAKind, Combination::Nothing, 10)
    );
}

/// "four of a kind 20": four Cactuses, the colours a pair and three others (nothing).
#[test]
fn four_of_a_kind_scores_20() {
    let stack = StackScore::of(&[
        card(Cactus, Yellow),
        card(Cactus, Red),
        card(Cactus, Green),
        card(Cactus, Blue),
        card(Burro, Yellow),
    ]);
    assert_eq!(
        (stack.pictures, stack.colours, stack.points),
        (Combination::FourOfAKind, Combination::Nothing, 20)
    );
}

/// "all five different 15": five different pictures, the colours two pairs (nothing).
#[test]
fn all_five_different_scores_15() {
    let stack = StackScore::of(&[
        card(Hombre, Yellow),
        card(Cactus, Yellow),
        card(Jalapeno, Red),
        card(Hacienda, Red),
        card(Sombrero, Green),
    ]);
    assert_eq!(
        (stack.pictures, stack.colours, stack.points),
        (Combination::AllDifferent, Combination::Nothing, 15)
    );
}

/// "Each stack scores for its pictures and for its colours separately": four Cactuses (20)
/// in five different colours (15) make 35; five different of both make 30.
#[test]
fn pictures_and_colours_score_separately() {
    let stack = StackScore::of(&[
        card(Cactus, Yellow),
        card(Cactus, Red),
        card(Cactus, Green),
        card(Cactus, Blue),
        card(Burro, Orange),
    ]);
    assert_eq!(
        (stack.pictures, stack.colours, stack.points),
        (Combination::FourOfAKind, Combination::AllDifferent, 35)
    );
    let stack = StackScore::of(&[
        card(Hombre, Yellow),
        card(Cactus, Red),
        card(Jalapeno, Green),
        card(Hacienda, Blue),
        card(Sombrero, Orange),
    ]);
    assert_eq!(
        (stack.pictures, stack.colours, stack.points),
        (Combination::AllDifferent, Combination::AllDifferent, 30)
    );
}

/// "five of a kind is 40 for the whole stack (the other attribute is then necessarily all
/// different and scores nothing extra)."
#[test]
fn five_of_a_kind_scores_40_and_no_more() {
    let pictures = StackScore::of(&[
        card(Cactus, Yellow),
        card(Cactus, Red),
        card(Cactus, Green),
        card(Cactus, Blue),
        card(Cactus, Orange),
    ]);
    assert_eq!(pictures.pictures, Combination::FiveOfAKind);
    assert_eq!(pictures.colours, Combination::AllDifferent);
    assert_eq!(pictures.points, 40, "not 40 + 15");
    let colours = StackScore::of(&[
        card(Hombre, Purple),
        card(Cactus, Purple),
        card(Jalapeno, Purple),
        card(Hacienda, Purple),
        card(Burro, Purple),
    ]);
    assert_eq!(colours.colours, Combination::FiveOfAKind);
    assert_eq!(colours.points, 40);
}

/// "−2 for each stack that scored nothing".
#[test]
fn a_stack_that_scores_nothing_scores_minus_2() {
    let stack = StackScore::of(&[
        card(Cactus, Yellow),
        card(Cactus, Red),
        card(Hombre, Yellow),
        card(Hombre, Red),
        card(Burro, Green),
    ]);
    assert_eq!(
        (stack.pictures, stack.colours, stack.points),
        (Combination::Nothing, Combination::Nothing, -2)
    );
}

/// "−2 ... for each unfinished row (1 to 4 cards)"; an empty row costs nothing.
#[test]
fn each_unfinished_row_scores_minus_2() {
    let rows = vec![
        vec![card(Cactus, Yellow)],
        vec![],
        vec![
            card(Hombre, Red),
            card(Hombre, Blue),
            card(Burro, Red),
            card(Burro, Blue),
        ],
    ];
    let score = SeatScore::of(0, 0, &[], &rows, 0);
    assert_eq!(score.unfinished_rows, 2);
    assert_eq!(score.points, -4);
}

/// "−1 for each card still in the player's pile (a drawn, unplaced card counts)."
#[test]
fn each_card_left_scores_minus_1_and_a_drawn_unplaced_card_counts() {
    let mut game = Game::arranged(500, vec![deck(), deck()]);
    game.draw_and_place(1, 1);
    game.draw_and_place(1, 1);
    game.draw(1); // held, not placed
    play_out_into_row_1(&mut game, 0);
    let scores = game.state.last_scores.clone().expect("scored");
    // Seat 1: 33 in the pile + 1 drawn = 34 cards left; one unfinished row of 2.
    assert_eq!(scores[1].cards_left, 34);
    assert_eq!(scores[1].unfinished_rows, 1);
    assert_eq!(scores[1].points, -34 - 2);
}

/// A whole round computed by hand, every line of "Scoring a round" at once.
///
/// Seat 1 plays its deck in the rules' order into row 1 and lays the Purple Burro face down:
/// Hombre ×5 (40); Purple Hombre + four Cactuses, all colours different (20 + 15 = 35);
/// two Cactuses + three Jalapeños, all colours different (10 + 15 = 25); three Jalapeños + two
/// Haciendas, all colours different (25); four Haciendas + a Sombrero, all colours different
/// (35); Sombrero ×5 (40); Burro ×5 (40): 240.
///
/// Seat 0 makes the stack of the rules' example (20), puts two cards in row 2 (−2) and holds
/// a drawn card: 28 in the pile + 1 drawn = −29. Total 20 − 2 − 29 = −11.
#[test]
fn a_round_is_scored_line_by_line() {
    let example = [
        card(Cactus, Yellow),
        card(Cactus, Red),
        card(Cactus, Green),
        card(Hombre, Yellow),
        card(Burro, Yellow),
    ];
    let mut game = Game::arranged(500, vec![deck_starting_with(&example), deck()]);
    for _ in 0..5 {
        game.draw_and_place(0, 3);
    }
    game.draw_and_place(0, 2);
    game.draw_and_place(0, 2);
    game.draw(0);
    play_out_into_row_1(&mut game, 1);
    let scores = game.state.last_scores.clone().expect("scored");
    let seat_0 = &scores[0];
    assert_eq!(seat_0.stacks.len(), 1);
    assert_eq!(seat_0.stacks[0].points, 20);
    assert_eq!(seat_0.unfinished_rows, 1);
    assert_eq!(seat_0.cards_left, 29);
    assert_eq!(seat_0.points, -11);
    let seat_1 = &scores[1];
    assert_eq!(
        seat_1.stacks.iter().map(|s| s.points).collect::<Vec<_>>(),
        vec![40, 35, 25, 25, 35, 40, 40]
    );
    assert_eq!((seat_1.cards_left, seat_1.unfinished_rows), (0, 0));
    assert_eq!(seat_1.points, 240);
    assert_eq!(game.state.totals, vec![-11, 240]);
}

/// "Round scores add up."
#[test]
fn round_scores_add_up() {
    let mut game = Game::dealt(2, 10_000, 13);
    let mut expected = [0i64; 2];
    for round in 1..=3 {
        assert_eq!(game.round(), round);
        play_out_into_row_1(&mut game, (round as usize) % 2);
        let scores = game.state.last_scores.clone().expect("scored");
        for score in &scores {
            expected[score.seat] += score.points;
            assert_eq!(score.total, expected[score.seat]);
        }
        assert_eq!(game.state.totals, expected.to_vec());
    }
}

/// "After a round, if a player has reached more than 500, the highest total wins; otherwise
/// the next round is dealt." Seat 0 plays alone, each card in a row where its picture and
/// colour are both new when it can; the others never move.
#[test]
fn the_game_ends_after_the_round_in_which_a_total_passes_500() {
    let mut game = Game::dealt(3, 500, 14);
    assert_eq!(Options::default().target, 500);
    let mut rounds = 0;
    while Vamanos::outcome(&game.state).is_none() {
        rounds += 1;
        assert!(rounds < 20, "seat 0 should pass 500 within a few rounds");
        let before = game.state.totals.clone();
        assert!(before.iter().all(|&t| t <= 500), "{before:?}");
        let round = game.round();
        while game.round() == round && Vamanos::outcome(&game.state).is_none() {
            game.draw(0);
            let player = &game.state.players[0];
            let Some(drawn) = player.drawn else {
                panic!("drawn")
            };
            if player.pile.is_empty() {
                game.play(0, Command::LayFaceDown { round }).expect("alta");
                break;
            }
            let fit = |row: &Vec<Card>| {
                let new_picture = row.iter().all(|c| c.picture != drawn.picture);
                let new_colour = row.iter().all(|c| c.colour != drawn.colour);
                (
                    usize::from(new_picture) + usize::from(new_colour),
                    row.len(),
                )
            };
            let best = (0..3).max_by_key(|&r| fit(&player.rows[r])).unwrap_or(0);
            game.place(0, best as u32 + 1);
        }
    }
    let outcome = Vamanos::outcome(&game.state).expect("over");
    let totals = game.state.totals.clone();
    assert!(totals[0] > 500, "{totals:?}");
    assert_eq!(outcome.winners, vec![0]);
    assert_eq!(outcome.scores, Some(totals));
    assert!(!outcome.draw);
    assert_eq!(Vamanos::to_act(&game.state), Vec::<usize>::new());
    assert!(Vamanos::legal(&game.state, 1).is_empty());
    let last_round = game.round();
    assert!(
        matches!(
            game.events.as_slice(),
            [.., Event::RoundScored { .. }, Event::GameEnded { round }] if *round == last_round
        ),
        "no round is dealt after the last: the game ends (revision 2)"
    );
    assert_eq!(game.view(Viewer::Everyone).phase, Phase::Over);
    let error = game
        .play(
            1,
            Command::Draw {
                round: game.round(),
            },
        )
        .unwrap_err();
    assert_eq!(error.code, "game_over");
}

/// A round of two seats, seat 0 holding a single card, seat 1 three; seat 0's total already
/// far above `target`.
fn last_round(revision: u32, target: u32) -> Given<Vamanos> {
    let cards = deck();
    let pile = |seat: usize, cards: &[Card]| Pile {
        seat,
        size: cards.len() as u32,
        cards: Some(cards.to_vec()),
    };
    let dealt = Event::RoundDealt {
        round: 1,
        piles: vec![pile(0, &cards[..1]), pile(1, &cards[1..4])],
    };
    given::<Vamanos>(under(setup(2, target), revision), [dealt])
        .with(|state| state.totals = vec![i64::from(target) * 10, 0])
}

/// Revision 2: when a round's scores take a total past the target, the command that ended the
/// round is followed by the end of the game, instead of the next deal.
#[test]
fn the_round_that_passes_the_target_is_followed_by_the_end_of_the_game() {
    let placed = last_round(2, 100)
        .when(0, Command::Draw { round: 1 })
        .accepted()
        .when(0, Command::Place { round: 1, row: 1 });
    let events = placed.events();
    assert!(
        matches!(
            events.as_slice(),
            [
                ..,
                Event::AltaCalled { seat: 0, round: 1 },
                Event::RoundScored { .. },
                Event::GameEnded { round: 1 }
            ]
        ),
        "{events:?}"
    );
    let ended = placed.accepted();
    assert!(ended.state().over);
    assert!(Vamanos::outcome(ended.state()).is_some());
    ended
        .when(1, Command::Draw { round: 2 })
        .refused("game_over");
}

/// A stored game of revision 1 keeps its rules: no `game_ended` is decided, the fold finds the
/// end itself when the round is scored, so its stream replays and audits as recorded.
#[test]
fn under_revision_1_the_end_was_found_by_the_fold_without_an_event() {
    let placed = last_round(1, 100)
        .when(0, Command::Draw { round: 1 })
        .accepted()
        .when(0, Command::Place { round: 1, row: 1 });
    let events = placed.events();
    assert!(
        matches!(events.as_slice(), [.., Event::RoundScored { .. }]),
        "{events:?}"
    );
    assert!(placed.accepted().state().over);
}

/// "the highest total wins (**Ruling:** equal totals share the win)".
#[test]
fn equal_totals_share_the_win() {
    let mut game = Game::arranged(100, vec![deck(), deck(), deck()]);
    let line = |seat, total| SeatScore {
        seat,
        cards_left: 0,
        stacks: Vec::new(),
        unfinished_rows: 0,
        points: total,
        total,
    };
    game.apply(Event::AltaCalled { seat: 0, round: 1 });
    game.apply(Event::RoundScored {
        round: 1,
        scores: vec![line(0, 120), line(1, 90), line(2, 120)],
    });
    assert!(game.state.target_passed());
    game.apply(Event::GameEnded { round: 1 });
    let outcome = Vamanos::outcome(&game.state).expect("a total passed 100");
    assert_eq!(outcome.winners, vec![0, 2]);
    assert!(!outcome.draw);
    assert_eq!(outcome.scores, Some(vec![120, 90, 120]));
}

/// "reached more than 500": exactly the target is not enough.
#[test]
fn reaching_exactly_the_target_does_not_end_the_game() {
    let mut game = Game::arranged(100, vec![deck(), deck()]);
    let line = |seat, total| SeatScore {
        seat,
        cards_left: 0,
        stacks: Vec::new(),
        unfinished_rows: 0,
        points: total,
        total,
    };
    game.apply(Event::AltaCalled { seat: 0, round: 1 });
    game.apply(Event::RoundScored {
        round: 1,
        scores: vec![line(0, 100), line(1, 90)],
    });
    assert!(!game.state.target_passed(), "100 does not pass 100");
    assert_eq!(Vamanos::outcome(&game.state), None);
    game.apply(Event::RoundScored {
        round: 1,
        scores: vec![line(0, 101), line(1, 90)],
    });
    assert!(game.state.target_passed(), "101 does");
}

// ---------------------------------------------------------------- Options, leaving, forks

/// The option `target` (default 500, the rules' value) sets the score to pass for shorter
/// games; it is checked at creation.
#[test]
fn the_target_option_is_500_by_default_and_checked() {
    let kind = Registry::standard();
    let kind = kind.get("vamanos").expect("registered");
    assert_eq!(kind.default_options(), serde_json::json!({"target": 500}));
    assert!(kind
        .create(None, Some(serde_json::json!({"target": 50})), 3, "c".into())
        .is_ok());
    for bad in [
        serde_json::json!({"target": 0}),
        serde_json::json!({"target": 100001}),
        serde_json::json!({"target": -5}),
        serde_json::json!({"goal": 5}),
    ] {
        let error = kind.create(None, Some(bad), 3, "c".into()).unwrap_err();
        assert_eq!(error.code().unwrap(), "invalid_setup");
    }
    let error = Vamanos::check(&Setup {
        variant: None,
        options: Options { target: 0 },
        seats: 2,
        revision: Vamanos::info().revision,
        rated: false,
    })
    .unwrap_err();
    assert!(error.message.contains("from 1 to"), "{}", error.message);
}

/// A seat that leaves a game of three or more is skipped: it is not to act, not dealt again,
/// not scored and cannot win; its cards stay where they lie.
#[test]
fn a_retired_seat_is_skipped_and_cannot_win() {
    let mut game = Game::dealt(3, 500, 15);
    game.draw_and_place(1, 1);
    let before = game.state.players[1].clone();
    for event in Vamanos::retire(&game.state, 1) {
        game.apply(event);
    }
    assert_eq!(Vamanos::to_act(&game.state), vec![0, 2]);
    assert!(Vamanos::legal(&game.state, 1).is_empty());
    let error = game.play(1, Command::Draw { round: 1 }).unwrap_err();
    assert_eq!(error.code, "illegal_command");
    let events = play_out_into_row_1(&mut game, 0);
    let Some(Event::RoundDealt { piles, .. }) = events.last() else {
        panic!("dealt")
    };
    assert_eq!(piles.iter().map(|p| p.seat).collect::<Vec<_>>(), vec![0, 2]);
    let scores = game.state.last_scores.clone().expect("scored");
    assert_eq!(
        scores.iter().map(|s| s.seat).collect::<Vec<_>>(),
        vec![0, 2]
    );
    assert_eq!(
        game.state.players[1], before,
        "its cards stay where they lie"
    );
    assert!(!game.view(Viewer::Spectator).players[1].playing);
}

/// After a takeback fork every pile still in play is shuffled again, each with its own salt.
#[test]
fn a_reshuffle_shuffles_every_pile_again() {
    let mut game = Game::dealt(2, 500, 16);
    game.draw_and_place(0, 1);
    let ctx = Context::new(Seed([77; 32]), 40, test_time());
    let events = Vamanos::reshuffle(&game.state, &ctx);
    let [Event::PilesReshuffled { round: 1, piles }] = events.as_slice() else {
        panic!("{events:?}")
    };
    for (seat, pile) in piles.iter().enumerate() {
        let mut expected = game.state.players[seat].pile.clone();
        ctx.dealer(seat as u8).shuffle(&mut expected);
        assert_eq!(pile.cards.as_ref(), Some(&expected));
        assert_eq!(pile.size as usize, expected.len());
    }
    let mut sizes = piles.iter().map(|p| p.size);
    assert_eq!((sizes.next(), sizes.next()), (Some(35), Some(36)));
    let redacted = Vamanos::redact(&events[0], Viewer::Seat(0));
    assert!(matches!(redacted, Event::PilesReshuffled { ref piles, .. }
        if piles.iter().all(|p: &Pile| p.cards.is_none())));
}

/// Commands, events and options in JSON: the stable shapes of the public API.
#[test]
fn commands_are_json_with_their_round() {
    let draw: Command =
        serde_json::from_value(serde_json::json!({"type": "draw", "round": 2})).expect("draw");
    assert_eq!(draw, Command::Draw { round: 2 });
    let place: Command =
        serde_json::from_value(serde_json::json!({"type": "place", "round": 2, "row": 1}))
            .expect("place");
    assert_eq!(place, Command::Place { round: 2, row: 1 });
    let down: Command =
        serde_json::from_value(serde_json::json!({"type": "lay_face_down", "round": 2}))
            .expect("lay face down");
    assert_eq!(down, Command::LayFaceDown { round: 2 });
    assert!(serde_json::from_value::<Command>(serde_json::json!({"type": "draw"})).is_err());
    assert!(serde_json::from_value::<Command>(
        serde_json::json!({"type": "place", "round": 1, "row": -1})
    )
    .is_err());
    assert_eq!(
        serde_json::to_value(Event::AltaCalled { seat: 1, round: 2 }).expect("json"),
        serde_json::json!({"type": "alta_called", "seat": 1, "round": 2})
    );
    assert_eq!(
        serde_json::to_value(card(Jalapeno, Purple)).expect("json"),
        serde_json::json!({"picture": "jalapeno", "colour": "purple"})
    );
}

/// Through the table, as the service drives it: JSON commands naming their round, events
/// redacted for each reader, a late command refused with its reason.
#[test]
fn a_game_is_played_through_the_table_with_json_commands() {
    use domain::table::Actor;
    use serde_json::json;
    let registry = Registry::standard();
    let kind = registry.get("vamanos").expect("registered");
    let created = kind
        .create(None, Some(json!({"target": 500})), 2, "commitment".into())
        .expect("created");
    let mut live = kind.fold(&[created.payload]).expect("folds");
    let seed = Seed([21; 32]);
    let mut stored: Vec<serde_json::Value> = Vec::new();
    let mut send =
        |live: &mut Box<dyn domain::LiveGame>, player: &str, command: serde_json::Value| {
            let ctx = Context::new(seed, live.facts().version, test_time());
            let records = live.decide(&Actor::player(player), &command, &ctx)?;
            for record in &records {
                live.evolve(&record.payload).expect("our events fold");
            }
            stored.extend(records.iter().map(|r| r.payload.clone()));
            Ok::<_, domain::Refusal>(records)
        };
    send(&mut live, "ana", json!({"type": "join"})).expect("join");
    let records = send(&mut live, "ben", json!({"type": "join"})).expect("join");
    assert!(records.iter().any(|r| r.event_type == "game.round_dealt"));
    assert_eq!(live.facts().to_act, vec![0, 1]);
    let legal = live.legal(0);
    assert_eq!(legal[0].command, json!({"type": "draw", "round": 1}));
    assert_eq!(legal[0].notation, "draw");
    let drew = send(&mut live, "ana", json!({"type": "draw", "round": 1})).expect("draw");
    assert_eq!(drew[0].event_type, "game.drew");
    assert!(live.redact(&drew[0].payload, Viewer::Seat(1))["event"]["card"].is_null());
    assert!(live.redact(&drew[0].payload, Viewer::Seat(0))["event"]["card"].is_object());
    send(
        &mut live,
        "ana",
        json!({"type": "place", "round": 1, "row": 2}),
    )
    .expect("place");
    let view = live.view(Viewer::Seat(1));
    assert_eq!(
        view["players"][0]["rows"][1].as_array().map(Vec::len),
        Some(1)
    );
    assert!(view["players"][0]["pile"].is_null());
    assert_eq!(view["players"][0]["pile_size"], json!(35));
    // Ben plays his whole pile; Ana's command for round 1 then arrives too late.
    send(&mut live, "ana", json!({"type": "draw", "round": 1})).expect("draw");
    for _ in 0..35 {
        send(&mut live, "ben", json!({"type": "draw", "round": 1})).expect("draw");
        send(
            &mut live,
            "ben",
            json!({"type": "place", "round": 1, "row": 1}),
        )
        .expect("place");
    }
    send(&mut live, "ben", json!({"type": "draw", "round": 1})).expect("draw");
    let alta = send(
        &mut live,
        "ben",
        json!({"type": "lay_face_down", "round": 1}),
    )
    .expect("alta");
    let types: Vec<&str> = alta.iter().map(|r| r.event_type.as_str()).collect();
    assert_eq!(
        types,
        vec![
            "game.laid_face_down",
            "game.alta_called",
            "game.round_scored",
            "game.round_dealt"
        ]
    );
    let late = send(
        &mut live,
        "ana",
        json!({"type": "place", "round": 1, "row": 3}),
    )
    .unwrap_err();
    let late = late.rule().expect("the rules refuse it");
    assert_eq!(late.code, "round_over");
    assert_eq!(late.message, "Round 1 ended when seat 1 called Alta.");
    assert_eq!(live.view(Viewer::Spectator)["round"], json!(2));
    let refold = kind.fold(&{
        let mut all = vec![
            kind.create(None, Some(json!({"target": 500})), 2, "commitment".into())
                .expect("created")
                .payload,
        ];
        all.extend(stored.iter().cloned());
        all
    });
    assert_eq!(
        refold.expect("the stream folds").view(Viewer::Everyone),
        live.view(Viewer::Everyone)
    );
}

proptest::proptest! {
    /// Any five cards of a deck score one of the values of the table, and "five of a kind is
    /// 40 for the whole stack": nothing scores more, and only five of a kind scores 40.
    #[test]
    fn any_stack_scores_a_value_of_the_table(
        picks in proptest::sample::subsequence((0..36usize).collect::<Vec<_>>(), 5),
    ) {
        let all = deck();
        let cards: Vec<Card> = picks.iter().map(|&i| all[i]).collect();
        let stack = StackScore::of(&cards);
        proptest::prop_assert!([-2, 10, 15, 20, 25, 30, 35, 40].contains(&stack.points));
        let five = stack.pictures == Combination::FiveOfAKind
            || stack.colours == Combination::FiveOfAKind;
        proptest::prop_assert_eq!(five, stack.points == 40);
        if !five {
            let sum = stack.pictures.points() + stack.colours.points();
            proptest::prop_assert_eq!(stack.points, if sum == 0 { -2 } else { sum });
        }
    }
}
