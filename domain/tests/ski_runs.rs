//! The rules of Ski Runs (`rules/ski-runs.md`), one test per rule, through the engine's API.

use domain::engine::{Context, Engine, RuleError, Seat, Viewer};
use domain::fairness::Seed;
use domain::games::ski_runs::{
    Card, Cards, Command, DeckCounts, End, Event, Options, Pile, SkiRun, SkiRuns, State, Step,
};
use domain::registry::Registry;
use domain::testing::{dealt as dealt_from, given, setup, test_time, under, with_options, Given};
use serde_json::{json, Value};

use Card::{Avalanche, BlackRun, BlueRun, GreenRun, Lift, RedRun};

/// A game of `seats` players just dealt.
fn dealt(seats: usize) -> Given<SkiRuns> {
    dealt_under(seats, SkiRuns::info().revision)
}

/// A game of `seats` players just dealt, created under `revision` of the rules.
fn dealt_under(seats: usize, revision: u32) -> Given<SkiRuns> {
    dealt_from::<SkiRuns>(under(setup::<SkiRuns>(seats), revision), Seed([9; 32]))
}

fn play(card: Card) -> Command {
    Command::Play { card }
}

fn draw(a: Pile, b: Pile) -> Command {
    Command::Draw { from: [a, b] }
}

/// Seat `seat` is to act, has drawn, and holds `hand`.
fn playing(state: &mut State, seat: Seat, hand: &[Card]) {
    state.turn = seat;
    state.step = Step::Play { played: 0 };
    state.hands[seat] = hand.to_vec();
}

fn run_of(cards: &[Card]) -> SkiRun {
    let mut all = vec![Lift];
    all.extend_from_slice(cards);
    SkiRun { cards: all }
}

fn refusal(result: Result<Vec<Event>, RuleError>) -> RuleError {
    match result {
        Ok(events) => panic!("expected a refusal, got {events:?}"),
        Err(e) => e,
    }
}

/// "Ruling: 2 to 6 players."
#[test]
fn ski_runs_is_played_by_2_to_6_players() {
    for seats in 0..10 {
        let ok = SkiRuns::check(&setup::<SkiRuns>(seats)).is_ok();
        assert_eq!(ok, (2..=6).contains(&seats), "{seats} players");
    }
    let refused = SkiRuns::check(&setup::<SkiRuns>(7)).unwrap_err();
    assert_eq!(refused.code, "invalid_setup");
    assert!(refused.message.contains("2 to 6"), "{}", refused.message);
}

/// "| Lift | 14 | ... | Green run | 20 | 1 | Blue run | 18 | 2 | Red run | 14 | 3 |
/// Black run | 10 | 4 | Avalanche | 5 |"
#[test]
fn the_default_deck_is_the_rules_table() {
    let deck = DeckCounts::default();
    assert_eq!(
        [
            deck.lift,
            deck.green,
            deck.blue,
            deck.red,
            deck.black,
            deck.avalanche
        ],
        [14, 20, 18, 14, 10, 5]
    );
    let points: Vec<i64> = [GreenRun, BlueRun, RedRun, BlackRun, Lift, Avalanche]
        .iter()
        .map(|c| c.points())
        .collect();
    assert_eq!(points, vec![1, 2, 3, 4, 0, 0]);
    let registry = Registry::standard();
    let kind = registry.get("ski-runs").expect("registered");
    assert_eq!(
        kind.default_options(),
        json!({"deck": {"lift": 14, "green": 20, "blue": 18, "red": 14, "black": 10, "avalanche": 5}})
    );
}

/// "Ruling: default deck; a game may be created with other counts"
#[test]
fn a_game_may_be_created_with_other_counts() {
    let registry = Registry::standard();
    let kind = registry.get("ski-runs").expect("registered");
    let created = kind.create(
        None,
        Some(json!({"deck": {"lift": 3, "avalanche": 2}})),
        3,
        "c".into(),
    );
    let record = created.expect("a smaller deck is accepted");
    assert_eq!(record.payload["setup"]["options"]["deck"]["lift"], 3);
    assert_eq!(record.payload["setup"]["options"]["deck"]["green"], 20);

    let mut options = Options::default();
    options.deck.lift = 2;
    options.deck.green = 6;
    options.deck.blue = 0;
    options.deck.red = 0;
    options.deck.black = 0;
    options.deck.avalanche = 2;
    let setup = with_options(setup::<SkiRuns>(2), options);
    assert!(SkiRuns::check(&setup).is_ok());
    let state = dealt_from::<SkiRuns>(setup, Seed([3; 32]));
    assert_eq!(state.lift_pile, 0);
    assert_eq!(state.draw_pile.len(), 0);
    assert!(state.hands.iter().all(|h| h.len() == 5));
}

/// A deck that cannot be dealt, too large a deck, and an unknown kind of card are refused at
/// creation with a sentence that says why.
#[test]
fn a_deck_that_cannot_be_dealt_is_refused() {
    let registry = Registry::standard();
    let kind = registry.get("ski-runs").expect("registered");
    let create = |options| {
        let refused = kind.create(None, Some(options), 4, "c".into()).unwrap_err();
        refused.rule().cloned().expect("the rules refuse it")
    };

    let few_lifts = create(json!({"deck": {"lift": 3}}));
    assert_eq!(few_lifts.code, "invalid_setup");
    assert!(
        few_lifts.message.contains("at least 4 lift cards"),
        "{}",
        few_lifts.message
    );

    let few_cards =
        create(json!({"deck": {"green": 1, "blue": 1, "red": 1, "black": 1, "avalanche": 1}}));
    assert!(
        few_cards.message.contains("at least 16 cards"),
        "{}",
        few_cards.message
    );

    let huge = create(json!({"deck": {"green": 100000}}));
    assert!(huge.message.contains("at most 200"), "{}", huge.message);

    let typo = create(json!({"deck": {"gren": 3}}));
    assert_eq!(typo.code, "invalid_setup");
    assert!(typo.message.contains("gren"), "{}", typo.message);

    let negative = create(json!({"deck": {"red": -1}}));
    assert_eq!(negative.code, "invalid_setup");
}

/// "Shuffle the lift cards into the lift pile and everything else into the draw pile. Deal
/// each player 1 lift card and 4 cards from the draw pile; hands are secret."
#[test]
fn each_player_is_dealt_1_lift_card_and_4_cards_from_the_draw_pile() {
    for seats in 2..=6 {
        let state = dealt(seats);
        for hand in &state.hands {
            assert_eq!(hand.len(), 5);
            assert_eq!(hand.iter().filter(|&&c| c == Lift).count(), 1);
        }
        assert_eq!(state.lift_pile, 14 - seats);
        assert_eq!(state.draw_pile.len(), 67 - 4 * seats);
        assert!(!state.draw_pile.contains(&Lift));
        assert_eq!(state.turn, 0);
        let spectator = SkiRuns::view(&state, Viewer::Spectator);
        assert!(spectator
            .players
            .iter()
            .all(|p| p.hand.is_none() && p.hand_size == 5));
    }
}

/// "Draw: take 2 cards, each from the draw pile or the lift pile (2 from one, or 1 of each)."
#[test]
fn a_draw_takes_2_cards_from_either_pile_or_1_of_each() {
    let base = dealt(2);
    for (from, lifts) in [
        ([Pile::DrawPile, Pile::DrawPile], 0),
        ([Pile::DrawPile, Pile::LiftPile], 1),
        ([Pile::LiftPile, Pile::DrawPile], 1),
        ([Pile::LiftPile, Pile::LiftPile], 2),
    ] {
        let mut state = base.clone();
        let before = state.hands[0].clone();
        let events = state.play(0, Command::Draw { from }).unwrap();
        assert_eq!(state.hands[0].len(), 7);
        assert_eq!(state.lift_pile, base.lift_pile - lifts);
        assert_eq!(state.draw_pile.len(), base.draw_pile.len() - (2 - lifts));
        let Event::Drew {
            lifts: taken,
            cards,
            ..
        } = &events[0]
        else {
            panic!("{events:?}")
        };
        assert_eq!(*taken, lifts);
        assert_eq!(cards.count, 2 - lifts);
        let mut expected = before;
        expected.extend(std::iter::repeat_n(Lift, lifts));
        expected.extend(cards.cards.clone().unwrap());
        let (mut a, mut b) = (expected, state.hands[0].clone());
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }
    let notations: Vec<String> = SkiRuns::legal(&base, 0)
        .into_iter()
        .map(|l| l.notation)
        .collect();
    assert_eq!(
        notations,
        vec![
            "draw draw-pile + draw-pile",
            "draw draw-pile + lift",
            "draw lift + lift"
        ]
    );
}

/// "Whatever a pile cannot supply is not taken, and is not made up from the other pile."
#[test]
fn whatever_a_pile_cannot_supply_is_not_taken_nor_made_up_from_the_other_pile() {
    let one_card_left = Event::Dealt {
        hands: vec![Cards::shown(vec![Lift]), Cards::shown(vec![Lift])],
        draw_pile: Cards::shown(vec![RedRun]),
        lift_pile: 5,
    };
    let game = given::<SkiRuns>(setup::<SkiRuns>(2), [one_card_left]);
    assert_eq!(
        game.legal(0),
        vec![
            draw(Pile::DrawPile, Pile::DrawPile),
            draw(Pile::DrawPile, Pile::LiftPile),
            draw(Pile::LiftPile, Pile::LiftPile),
        ]
    );
    let after = game
        .clone()
        .when(0, draw(Pile::DrawPile, Pile::DrawPile))
        .then([Event::Drew {
            seat: 0,
            lifts: 0,
            cards: Cards::shown(vec![RedRun]),
        }]);
    assert_eq!(after.state().hands[0], vec![Lift, RedRun]);
    assert_eq!(after.state().lift_pile, 5, "the lift pile made nothing up");

    let no_lifts_left = Event::Dealt {
        hands: vec![Cards::shown(vec![Lift]), Cards::shown(vec![Lift])],
        draw_pile: Cards::shown(vec![GreenRun, BlueRun, RedRun]),
        lift_pile: 0,
    };
    let game = given::<SkiRuns>(setup::<SkiRuns>(2), [no_lifts_left]);
    game.clone()
        .when(0, draw(Pile::DrawPile, Pile::LiftPile))
        .then([Event::Drew {
            seat: 0,
            lifts: 0,
            cards: Cards::shown(vec![RedRun]),
        }]);
    // Ruling: a draw takes at least one card, or the draw pile might never run out.
    let refused = game
        .when(0, draw(Pile::LiftPile, Pile::LiftPile))
        .refused("illegal_command");
    assert!(refused.message.contains("empty"), "{}", refused.message);
}

/// Revision 1 (games created before the correction keep it): a short draw was made up from
/// the other pile, "a draw must take as many cards as the two piles can give".
#[test]
fn under_revision_1_a_short_draw_was_made_up_from_the_other_pile() {
    let mut state = dealt_under(2, 1);
    state.draw_pile.truncate(1);
    state.lift_pile = 5;
    let refused = refusal(state.clone().play(0, draw(Pile::DrawPile, Pile::DrawPile)));
    assert_eq!(refused.code, "illegal_command");
    assert!(
        refused.message.contains("must take 2 cards"),
        "{}",
        refused.message
    );
    let legal: Vec<Command> = SkiRuns::legal(&state, 0)
        .into_iter()
        .map(|l| l.command)
        .collect();
    assert_eq!(
        legal,
        vec![
            draw(Pile::DrawPile, Pile::LiftPile),
            draw(Pile::LiftPile, Pile::LiftPile)
        ]
    );

    let mut state = dealt_under(2, 1);
    state.draw_pile.clear();
    state.lift_pile = 0;
    state.play(0, draw(Pile::LiftPile, Pile::DrawPile)).unwrap();
    assert_eq!(state.hands[0].len(), 5);
    assert_eq!(state.step, Step::Play { played: 0 });
}

/// "A player who started the turn with an empty hand instead takes 1 lift card and 4 cards
/// from the draw pile."
#[test]
fn a_player_who_started_the_turn_with_an_empty_hand_picks_up_1_lift_and_4_cards() {
    let mut state = dealt(3);
    state.hands[0].clear();
    let refused = refusal(state.clone().play(0, draw(Pile::DrawPile, Pile::DrawPile)));
    assert!(
        refused.message.contains("empty hand"),
        "{}",
        refused.message
    );
    let legal: Vec<String> = SkiRuns::legal(&state, 0)
        .into_iter()
        .map(|l| l.notation)
        .collect();
    assert_eq!(legal, vec!["pick up lift + 4 draw-pile"]);
    let lifts = state.lift_pile;
    let pile = state.draw_pile.len();
    state.play(0, Command::PickUp).unwrap();
    assert_eq!(state.hands[0].iter().filter(|&&c| c == Lift).count(), 1);
    assert_eq!(state.hands[0].len(), 5);
    assert_eq!(state.lift_pile, lifts - 1);
    assert_eq!(state.draw_pile.len(), pile - 4);
    assert_eq!(state.step, Step::Play { played: 0 });

    // Only after an empty hand.
    let refused = refusal(dealt(3).play(0, Command::PickUp));
    assert!(
        refused.message.contains("empty hand"),
        "{}",
        refused.message
    );

    // A hand emptied by playing is picked up again on the next turn.
    let mut state = dealt(2);
    playing(&mut state, 0, &[Lift, GreenRun]);
    state.play(0, play(Lift)).unwrap();
    state.play(0, play(GreenRun)).unwrap();
    state.play(0, Command::EndTurn).unwrap();
    state.play(1, draw(Pile::DrawPile, Pile::DrawPile)).unwrap();
    state.play(1, Command::EndTurn).unwrap();
    let legal: Vec<Command> = SkiRuns::legal(&state, 0)
        .into_iter()
        .map(|l| l.command)
        .collect();
    assert_eq!(legal, vec![Command::PickUp, Command::Bank]);
}

/// "Play: up to 3 cards from the hand, one after another"
#[test]
fn up_to_3_cards_are_played_a_turn() {
    let mut state = dealt(2);
    playing(&mut state, 0, &[Lift, GreenRun, GreenRun, GreenRun]);
    state.play(0, play(Lift)).unwrap();
    state.play(0, play(GreenRun)).unwrap();
    state.play(0, play(GreenRun)).unwrap();
    let refused = refusal(state.clone().play(0, play(GreenRun)));
    assert!(
        refused.message.contains("end your turn"),
        "{}",
        refused.message
    );
    let legal: Vec<Command> = SkiRuns::legal(&state, 0)
        .into_iter()
        .map(|l| l.command)
        .collect();
    assert_eq!(legal, vec![Command::EndTurn]);
    // Playing none at all is allowed too.
    let mut state = dealt(2);
    state.play(0, draw(Pile::DrawPile, Pile::DrawPile)).unwrap();
    state.play(0, Command::EndTurn).unwrap();
    assert_eq!(state.turn, 1);
}

/// "Either bank (the whole turn) or draw then play": cards are played after the draw, and one
/// draw a turn.
#[test]
fn a_turn_is_a_draw_then_plays_then_its_end() {
    let mut state = dealt(2);
    state.hands[0].push(GreenRun);
    let before = refusal(state.clone().play(0, play(Lift)));
    assert!(before.message.contains("Draw first"), "{}", before.message);
    let end = refusal(state.clone().play(0, Command::EndTurn));
    assert!(end.message.contains("Draw first"), "{}", end.message);
    state.play(0, draw(Pile::DrawPile, Pile::DrawPile)).unwrap();
    let again = refusal(state.clone().play(0, draw(Pile::DrawPile, Pile::DrawPile)));
    assert!(again.message.contains("already drawn"), "{}", again.message);
    let other = refusal(state.clone().play(1, Command::EndTurn));
    assert_eq!(other.code, "not_your_turn");
    assert!(SkiRuns::legal(&state, 1).is_empty());
    let view = SkiRuns::view(&state, Viewer::Seat(0));
    let turn = view.turn.unwrap();
    assert!(turn.drawn);
    assert_eq!(turn.plays_left, 3);
    assert!(turn.your_moves.contains(&"end turn".to_string()));
}

/// "a lift card starts the player's ski run" / "You must always begin a ski run with a lift
/// card."
#[test]
fn a_ski_run_begins_with_a_lift_card() {
    let mut state = dealt(2);
    playing(&mut state, 0, &[GreenRun, Lift]);
    let refused = refusal(state.clone().play(0, play(GreenRun)));
    assert!(
        refused.message.contains("begins with a lift"),
        "{}",
        refused.message
    );
    state.play(0, play(Lift)).unwrap();
    assert_eq!(state.runs[0], Some(run_of(&[])));
    state.play(0, play(GreenRun)).unwrap();
    assert_eq!(state.runs[0], Some(run_of(&[GreenRun])));
}

/// "a player has at most one unbanked run, so a lift card can only be played when they have
/// none"
#[test]
fn a_player_has_at_most_one_unbanked_run() {
    let mut state = dealt(2);
    playing(&mut state, 0, &[Lift, Lift, Lift]);
    state.play(0, play(Lift)).unwrap();
    let refused = refusal(state.clone().play(0, play(Lift)));
    assert!(
        refused.message.contains("already on a ski run"),
        "{}",
        refused.message
    );
    assert!(!SkiRuns::legal(&state, 0)
        .iter()
        .any(|l| l.command == play(Lift)));
    // Once banked, a new run may start.
    state.runs[0] = Some(run_of(&[RedRun]));
    state.play(0, Command::EndTurn).unwrap();
    state.play(1, draw(Pile::DrawPile, Pile::DrawPile)).unwrap();
    state.play(1, Command::EndTurn).unwrap();
    state.play(0, Command::Bank).unwrap();
    state.play(1, draw(Pile::DrawPile, Pile::DrawPile)).unwrap();
    state.play(1, Command::EndTurn).unwrap();
    state.play(0, draw(Pile::LiftPile, Pile::LiftPile)).unwrap();
    state.play(0, play(Lift)).unwrap();
    assert_eq!(state.runs[0], Some(run_of(&[])));
    assert_eq!(state.banked[0], vec![run_of(&[RedRun])]);
}

/// "a run card extends the player's run to the right; it must be the same colour as the last
/// run card or a neighbouring one" / "A blue run card can link to a green, blue or red run
/// card but is unable to link to a black run card."
#[test]
fn a_run_card_links_to_the_same_or_a_neighbouring_colour() {
    for (last, card, links) in [
        (BlueRun, GreenRun, true),
        (BlueRun, BlueRun, true),
        (BlueRun, RedRun, true),
        (BlueRun, BlackRun, false),
        (GreenRun, GreenRun, true),
        (GreenRun, BlueRun, true),
        (GreenRun, RedRun, false),
        (GreenRun, BlackRun, false),
        (RedRun, BlueRun, true),
        (RedRun, BlackRun, true),
        (RedRun, GreenRun, false),
        (BlackRun, RedRun, true),
        (BlackRun, BlackRun, true),
        (BlackRun, BlueRun, false),
        (BlackRun, GreenRun, false),
    ] {
        let mut state = dealt(2);
        playing(&mut state, 0, &[card]);
        state.runs[0] = Some(run_of(&[GreenRun, last]));
        let result = state.play(0, play(card));
        assert_eq!(result.is_ok(), links, "{card} after {last}");
        let listed = SkiRuns::legal(&dealt_with_run(last, card), 0)
            .iter()
            .any(|l| l.command == play(card));
        assert_eq!(listed, links, "{card} after {last} in the legal list");
        if !links {
            let message = result.unwrap_err().message;
            assert!(message.contains("cannot link"), "{message}");
        }
    }
}

fn dealt_with_run(last: Card, card: Card) -> Given<SkiRuns> {
    let mut state = dealt(2);
    playing(&mut state, 0, &[card]);
    state.runs[0] = Some(run_of(&[last]));
    state
}

/// "the first run card after the lift may be any colour" / "You may start a ski run with any
/// colour of run."
#[test]
fn the_first_run_card_after_the_lift_may_be_any_colour() {
    for card in [GreenRun, BlueRun, RedRun, BlackRun] {
        let mut state = dealt(2);
        playing(&mut state, 0, &[Lift, card]);
        state.play(0, play(Lift)).unwrap();
        state.play(0, play(card)).unwrap();
        assert_eq!(state.runs[0], Some(run_of(&[card])));
    }
}

/// "an avalanche card goes to the centre of the table. Ruling: it sweeps away every player's
/// unbanked ski run, the player's own included; those cards go to the discard pile." /
/// "Banked runs are safe from avalanches"
#[test]
fn an_avalanche_sweeps_every_unbanked_run_and_never_a_banked_one() {
    let mut state = dealt(3);
    playing(&mut state, 1, &[Avalanche]);
    state.runs[0] = Some(run_of(&[GreenRun, BlueRun]));
    state.runs[1] = Some(run_of(&[RedRun]));
    state.runs[2] = None;
    state.banked[0] = vec![run_of(&[BlackRun])];
    state.banked[2] = vec![run_of(&[GreenRun, GreenRun])];
    state.play(1, play(Avalanche)).unwrap();
    assert_eq!(state.runs, vec![None, None, None]);
    assert_eq!(state.banked[0], vec![run_of(&[BlackRun])]);
    assert_eq!(state.banked[2], vec![run_of(&[GreenRun, GreenRun])]);
    let mut discarded = state.discard_pile.clone();
    discarded.sort();
    assert_eq!(discarded, vec![Lift, Lift, GreenRun, BlueRun, RedRun]);
    assert_eq!(state.avalanches, vec![1]);
    let view = SkiRuns::view(&state, Viewer::Spectator);
    assert_eq!(view.avalanches, vec![1]);
    assert_eq!(view.avalanches_to_end, 4);
    assert_eq!(view.discard_pile_size, 5);
    assert_eq!(state.end, None);
}

/// "Bank: the player's unbanked run, if it has at least one run card, is set aside as a
/// banked run." / "Banking will count as your whole turn."
#[test]
fn banking_is_the_whole_turn() {
    let mut state = dealt(3);
    state.runs[0] = Some(run_of(&[BlueRun, RedRun]));
    let hand = state.hands[0].clone();
    let draw_pile = state.draw_pile.len();
    let events = state.play(0, Command::Bank).unwrap();
    assert_eq!(
        events,
        vec![Event::Banked {
            seat: 0,
            run: run_of(&[BlueRun, RedRun])
        }]
    );
    assert_eq!(state.banked[0], vec![run_of(&[BlueRun, RedRun])]);
    assert_eq!(state.runs[0], None);
    assert_eq!(state.hands[0], hand, "no draw with a bank");
    assert_eq!(state.draw_pile.len(), draw_pile);
    assert_eq!(
        (state.turn, state.step),
        (1, Step::Start),
        "the turn passed"
    );

    // Not after drawing.
    let mut state = dealt(3);
    state.runs[0] = Some(run_of(&[BlueRun]));
    state.play(0, draw(Pile::DrawPile, Pile::DrawPile)).unwrap();
    let refused = refusal(state.play(0, Command::Bank));
    assert!(
        refused.message.contains("whole turn"),
        "{}",
        refused.message
    );
}

/// "Bank: the player's unbanked run, if it has at least one run card, is set aside"
#[test]
fn a_run_without_a_run_card_cannot_be_banked() {
    let mut state = dealt(2);
    let none = refusal(state.clone().play(0, Command::Bank));
    assert!(
        none.message.contains("no unbanked ski run"),
        "{}",
        none.message
    );
    state.runs[0] = Some(run_of(&[]));
    let empty = refusal(state.clone().play(0, Command::Bank));
    assert!(empty.message.contains("no run card"), "{}", empty.message);
    assert!(!SkiRuns::legal(&state, 0)
        .iter()
        .any(|l| l.command == Command::Bank));
}

/// "You may bank as many ski runs as you like." / "Make sure not to mix your banked ski runs
/// together."
#[test]
fn banked_runs_are_kept_apart() {
    let mut state = dealt(2);
    state.runs[0] = Some(run_of(&[GreenRun]));
    state.play(0, Command::Bank).unwrap();
    state.play(1, draw(Pile::DrawPile, Pile::DrawPile)).unwrap();
    state.play(1, Command::EndTurn).unwrap();
    state.runs[0] = Some(run_of(&[RedRun, RedRun]));
    state.play(0, Command::Bank).unwrap();
    assert_eq!(
        state.banked[0],
        vec![run_of(&[GreenRun]), run_of(&[RedRun, RedRun])]
    );
    assert_eq!(state.score(0), 7);
}

/// "Score: for each banked run, the points of its run cards, plus 4 if it has 5 or more run
/// cards (lift cards do not count)."
#[test]
fn a_banked_run_of_5_or_more_run_cards_earns_4_bonus_points() {
    assert_eq!(run_of(&[GreenRun, GreenRun, BlueRun, BlueRun]).points(), 6);
    assert_eq!(
        run_of(&[GreenRun, GreenRun, BlueRun, BlueRun, RedRun]).points(),
        9 + 4
    );
    assert_eq!(run_of(&[BlackRun; 7]).points(), 28 + 4);
    // Four run cards and the lift are five cards, but the lift does not count.
    let four = run_of(&[RedRun; 4]);
    assert_eq!(four.cards.len(), 5);
    assert_eq!(four.points(), 12);
    // Only banked runs score.
    let mut state = dealt(2);
    state.runs[0] = Some(run_of(&[BlackRun; 6]));
    state.banked[0] = vec![run_of(&[GreenRun; 5]), run_of(&[BlueRun])];
    assert_eq!(state.score(0), 5 + 4 + 2);
}

/// "If the draw pile runs out, "the game continues using only the cards remaining in players
/// hands": nobody draws again, from either pile." / "Once the draw pile is empty there is no
/// draw step at all: the lift pile is closed too."
#[test]
fn once_the_draw_pile_is_empty_nobody_draws_again_from_either_pile() {
    let draw_pile_empty = Event::Dealt {
        hands: vec![
            Cards::shown(vec![Lift, GreenRun]),
            Cards::shown(vec![BlueRun]),
        ],
        draw_pile: Cards::shown(vec![]),
        lift_pile: 12,
    };
    let game = given::<SkiRuns>(setup::<SkiRuns>(2), [draw_pile_empty]);
    assert_eq!(game.legal(0), vec![play(Lift), Command::EndTurn]);
    for no_draw in [
        draw(Pile::LiftPile, Pile::LiftPile),
        draw(Pile::DrawPile, Pile::LiftPile),
        Command::PickUp,
    ] {
        let refused = game.clone().when(0, no_draw).refused("illegal_command");
        assert!(
            refused.message.contains("nobody draws again"),
            "{}",
            refused.message
        );
    }
    let game = game
        .when(0, play(Lift))
        .then([Event::Played {
            seat: 0,
            card: Lift,
        }])
        .when(0, play(GreenRun))
        .then([Event::Played {
            seat: 0,
            card: GreenRun,
        }])
        .when(0, Command::EndTurn)
        .then([Event::TurnEnded { seat: 0 }]);
    assert_eq!(game.state().lift_pile, 12, "nobody took a lift card");
    // Seat 1 holds a blue run and no run to put it on: only the end of the turn is left.
    assert_eq!(game.legal(1), vec![Command::EndTurn]);
    let game = game
        .when(1, Command::EndTurn)
        .then([Event::TurnEnded { seat: 1 }]);
    // Seat 0 may bank its run without drawing, or play on.
    assert_eq!(game.legal(0), vec![Command::EndTurn, Command::Bank]);
    game.when(0, Command::Bank).then([Event::Banked {
        seat: 0,
        run: run_of(&[GreenRun]),
    }]);
}

/// Revision 1 (games created before the correction keep it): once the draw pile was empty the
/// draw stayed compulsory, from the lift pile alone.
#[test]
fn under_revision_1_the_draw_went_on_from_the_lift_pile_after_the_draw_pile_ran_out() {
    let mut state = dealt_under(2, 1);
    state.draw_pile.clear();
    state.hands[0] = vec![GreenRun];
    state.hands[1] = vec![BlueRun];
    let legal: Vec<Command> = SkiRuns::legal(&state, 0)
        .into_iter()
        .map(|l| l.command)
        .collect();
    assert_eq!(legal, vec![draw(Pile::LiftPile, Pile::LiftPile)]);
    state.play(0, draw(Pile::LiftPile, Pile::LiftPile)).unwrap();
    state.play(0, play(Lift)).unwrap();
    state.play(0, play(GreenRun)).unwrap();
    state.play(0, Command::EndTurn).unwrap();
    state.play(1, draw(Pile::LiftPile, Pile::LiftPile)).unwrap();
    state.play(1, Command::EndTurn).unwrap();
    state.play(0, Command::Bank).unwrap();
    assert_eq!(state.end, None);
    assert_eq!(SkiRuns::to_act(&state), vec![1]);
    assert_eq!(state.score(0), 1);
}

/// "Ruling: if every player in turn, once the draw pile is empty, neither plays a card nor
/// banks, the game ends." Precisely: every remaining player has had a turn ending with the
/// draw pile empty, without playing or banking, since anyone last played or banked.
#[test]
fn the_game_ends_when_every_player_in_turn_neither_plays_nor_banks_once_the_draw_pile_is_empty() {
    let mut state = dealt(3);
    // The draw pile holds the last 2 cards: the turn that takes them counts already.
    let keep = state.draw_pile.len() - 2;
    state.draw_pile.drain(..keep);
    state.hands[1] = vec![Lift, GreenRun];
    state.play(0, draw(Pile::DrawPile, Pile::DrawPile)).unwrap();
    state.play(0, Command::EndTurn).unwrap();
    assert_eq!(
        SkiRuns::view(&state, Viewer::Spectator).quiet_seats,
        vec![0]
    );
    // A play starts the count again.
    state.play(1, play(Lift)).unwrap();
    state.play(1, Command::EndTurn).unwrap();
    assert!(SkiRuns::view(&state, Viewer::Spectator)
        .quiet_seats
        .is_empty());
    for seat in [2, 0] {
        state.play(seat, Command::EndTurn).unwrap();
        assert_eq!(state.end, None);
    }
    // A bank starts it again too.
    state.play(1, play(GreenRun)).unwrap();
    state.play(1, Command::EndTurn).unwrap();
    for seat in [2, 0] {
        state.play(seat, Command::EndTurn).unwrap();
    }
    state.play(1, Command::Bank).unwrap();
    for seat in [2, 0] {
        state.play(seat, Command::EndTurn).unwrap();
        assert_eq!(state.end, None);
    }
    let events = state.play(1, Command::EndTurn).unwrap();
    assert_eq!(
        events,
        vec![
            Event::TurnEnded { seat: 1 },
            Event::GameEnded {
                reason: End::NoProgress
            }
        ]
    );
    assert_eq!(state.end, Some(End::NoProgress));
    assert!(SkiRuns::to_act(&state).is_empty());
    let outcome = SkiRuns::outcome(&state).unwrap();
    assert_eq!(outcome.winners, vec![1]);
    assert_eq!(outcome.scores, Some(vec![0, 1, 0]));
    assert!(outcome.reason.contains("full round"), "{}", outcome.reason);
}

/// The end by no progress ends a game where nobody can do anything: empty piles and hands.
#[test]
fn a_game_with_no_possible_progress_ends() {
    for revision in [1, 2] {
        let mut state = dealt_under(4, revision);
        state.draw_pile.clear();
        state.lift_pile = 0;
        state.hands.iter_mut().for_each(Vec::clear);
        let mut turns = 0;
        while state.end.is_none() {
            let seat = state.turn;
            if revision == 1 {
                state.play(seat, Command::PickUp).unwrap();
            }
            state.play(seat, Command::EndTurn).unwrap();
            turns += 1;
        }
        assert_eq!(turns, 4);
        assert_eq!(state.end, Some(End::NoProgress));
        assert_eq!(SkiRuns::outcome(&state).unwrap().winners, vec![0, 1, 2, 3]);
    }
}

/// "The game ends as soon as the 5th avalanche card is played."
#[test]
fn the_game_ends_as_soon_as_the_5th_avalanche_card_is_played() {
    let mut state = dealt(3);
    for seat in [0, 1, 2, 0] {
        playing(&mut state, seat, &[Avalanche, GreenRun]);
        state.play(seat, play(Avalanche)).unwrap();
        assert_eq!(state.end, None);
    }
    playing(&mut state, 1, &[Lift, Avalanche, GreenRun]);
    state.play(1, play(Lift)).unwrap();
    let events = state.play(1, play(Avalanche)).unwrap();
    assert_eq!(
        events,
        vec![
            Event::Played {
                seat: 1,
                card: Avalanche
            },
            Event::GameEnded {
                reason: End::FinalAvalanche
            }
        ]
    );
    assert_eq!(state.end, Some(End::FinalAvalanche));
    assert!(SkiRuns::to_act(&state).is_empty());
    assert!(SkiRuns::legal(&state, 1).is_empty());
    assert_eq!(refusal(state.play(1, play(GreenRun))).code, "game_over");
    let view = SkiRuns::view(&state, Viewer::Spectator);
    assert!(view.turn.is_none());
    assert_eq!(view.avalanches_to_end, 0);
    assert!(
        view.players.iter().all(|p| p.hand.is_some()),
        "the end reveals the hands"
    );
}

/// Two seats each holding avalanches, the draw pile `draw_pile` cards of green runs.
fn avalanches_dealt(draw_pile: usize) -> Event {
    Event::Dealt {
        hands: vec![
            Cards::shown(vec![Avalanche, Avalanche, Avalanche]),
            Cards::shown(vec![Avalanche, Avalanche]),
        ],
        draw_pile: Cards::shown(vec![GreenRun; draw_pile]),
        lift_pile: 10,
    }
}

/// Four avalanches played in two turns each of two avalanches (drawing 2 lifts first).
fn four_avalanches() -> Vec<Event> {
    let mut events = vec![avalanches_dealt(8)];
    for seat in [0, 1] {
        events.push(Event::Drew {
            seat,
            lifts: 2,
            cards: Cards::shown(Vec::new()),
        });
        for _ in 0..2 {
            events.push(Event::Played {
                seat,
                card: Avalanche,
            });
        }
        events.push(Event::TurnEnded { seat });
    }
    events.push(Event::Drew {
        seat: 0,
        lifts: 2,
        cards: Cards::shown(Vec::new()),
    });
    events
}

/// Revision 3: the end of the game is decided with the command that causes it, as a
/// `game_ended` event naming why: here the 5th avalanche card.
#[test]
fn the_5th_avalanche_card_is_followed_by_the_end_of_the_game() {
    let ended = given::<SkiRuns>(setup::<SkiRuns>(2), four_avalanches())
        .when(0, play(Avalanche))
        .then([
            Event::Played {
                seat: 0,
                card: Avalanche,
            },
            Event::GameEnded {
                reason: End::FinalAvalanche,
            },
        ]);
    assert_eq!(ended.state().end, Some(End::FinalAvalanche));
    assert_eq!(
        serde_json::to_value(Event::GameEnded {
            reason: End::FinalAvalanche
        })
        .unwrap(),
        json!({"type": "game_ended", "reason": "final_avalanche"})
    );
    ended.when(1, Command::EndTurn).refused("game_over");
}

/// Revision 3: the turn that completes a quiet round once the draw pile is empty is followed
/// by the end of the game.
#[test]
fn the_last_quiet_turn_once_the_draw_pile_is_empty_is_followed_by_the_end_of_the_game() {
    let nothing_left = Event::Dealt {
        hands: vec![Cards::shown(Vec::new()), Cards::shown(Vec::new())],
        draw_pile: Cards::shown(Vec::new()),
        lift_pile: 0,
    };
    let ended = given::<SkiRuns>(setup::<SkiRuns>(2), [nothing_left])
        .when(0, Command::EndTurn)
        .then([Event::TurnEnded { seat: 0 }])
        .when(1, Command::EndTurn)
        .then([
            Event::TurnEnded { seat: 1 },
            Event::GameEnded {
                reason: End::NoProgress,
            },
        ]);
    assert_eq!(ended.state().end, Some(End::NoProgress));
}

/// Revision 3: a player leaving can complete the quiet round too (the others have all had a
/// quiet turn): the leaving is followed by the end of the game.
#[test]
fn a_player_leaving_after_a_quiet_round_of_the_others_ends_the_game_with_the_event() {
    let nothing_left = Event::Dealt {
        hands: vec![Cards::shown(Vec::new()); 3],
        draw_pile: Cards::shown(Vec::new()),
        lift_pile: 0,
    };
    let quiet = given::<SkiRuns>(setup::<SkiRuns>(3), [nothing_left])
        .when(0, Command::EndTurn)
        .then([Event::TurnEnded { seat: 0 }])
        .when(1, Command::EndTurn)
        .then([Event::TurnEnded { seat: 1 }]);
    assert_eq!(
        SkiRuns::retire(quiet.state(), 2),
        vec![
            Event::Retired {
                seat: 2,
                hand: Cards::shown(Vec::new()),
                run: None
            },
            Event::GameEnded {
                reason: End::NoProgress
            }
        ]
    );
}

/// A stored game of revision 2 keeps its rules: no `game_ended` is decided, the fold finds the
/// end itself, so its stream replays and audits as it was recorded.
#[test]
fn under_revision_2_the_end_was_found_by_the_fold_without_an_event() {
    let ended = given::<SkiRuns>(under(setup::<SkiRuns>(2), 2), four_avalanches())
        .when(0, play(Avalanche))
        .then([Event::Played {
            seat: 0,
            card: Avalanche,
        }]);
    assert_eq!(ended.state().end, Some(End::FinalAvalanche));
    assert!(SkiRuns::outcome(ended.state()).is_some());
}

/// "Scores are announced starting with the player who played the final avalanche card."
/// (Going clockwise: in seat order.)
#[test]
fn scores_are_announced_starting_with_the_player_who_played_the_final_avalanche_card() {
    let mut state = dealt(4);
    state.avalanches = vec![0, 1, 3, 0];
    state.banked[0] = vec![run_of(&[RedRun])];
    state.banked[3] = vec![run_of(&[BlueRun])];
    playing(&mut state, 2, &[Avalanche]);
    state.play(2, play(Avalanche)).unwrap();
    let view = SkiRuns::view(&state, Viewer::Everyone);
    let order: Vec<(Seat, i64)> = view
        .announcements
        .unwrap()
        .iter()
        .map(|a| (a.seat, a.score))
        .collect();
    assert_eq!(order, vec![(2, 0), (3, 2), (0, 3), (1, 0)]);
    let outcome = SkiRuns::outcome(&state).unwrap();
    assert!(
        outcome
            .reason
            .contains("seat 2 0, seat 3 2, seat 0 3, seat 1 0"),
        "{}",
        outcome.reason
    );
}

/// "Highest total wins; Ruling: equal totals share the win."
#[test]
fn the_highest_total_wins_and_equal_totals_share_the_win() {
    let mut state = dealt(3);
    state.banked[0] = vec![run_of(&[GreenRun, GreenRun, GreenRun, GreenRun, GreenRun])];
    state.banked[1] = vec![run_of(&[BlackRun, BlackRun]), run_of(&[GreenRun])];
    state.banked[2] = vec![run_of(&[RedRun, RedRun])];
    state.end = Some(End::NoProgress);
    let outcome = SkiRuns::outcome(&state).unwrap();
    assert_eq!(outcome.scores, Some(vec![9, 9, 6]));
    assert_eq!(outcome.winners, vec![0, 1]);
    assert!(!outcome.draw);
    state.banked[2].push(run_of(&[RedRun, BlueRun]));
    assert_eq!(SkiRuns::outcome(&state).unwrap().winners, vec![2]);
}

/// The lift pile is face up ("a separate face-up pile"): its size and the lifts a player takes
/// from it are public; the cards drawn from the face-down draw pile are seen by the drawer only.
#[test]
fn the_lift_pile_is_face_up_and_the_draw_pile_face_down() {
    let mut state = dealt(2);
    let events = state.play(0, draw(Pile::DrawPile, Pile::LiftPile)).unwrap();
    let seen_by_other = SkiRuns::redact(&events[0], Viewer::Seat(1));
    assert_eq!(
        seen_by_other,
        Event::Drew {
            seat: 0,
            lifts: 1,
            cards: Cards {
                count: 1,
                cards: None
            }
        }
    );
    let seen_by_drawer = SkiRuns::redact(&events[0], Viewer::Seat(0));
    assert_eq!(seen_by_drawer, events[0]);
    let view = SkiRuns::view(&state, Viewer::Spectator);
    assert_eq!(view.lift_pile_size, 11);
    assert!(view.draw_pile.is_none());
    assert_eq!(view.draw_pile_size, 58);
}

/// A player who leaves: hand and unbanked run to the discard pile, banked runs kept, skipped
/// from then on, and cannot win.
#[test]
fn a_player_who_leaves_is_skipped_and_keeps_only_banked_runs() {
    let mut state = dealt(3);
    state.runs[1] = Some(run_of(&[GreenRun]));
    state.banked[1] = vec![run_of(&[BlackRun; 5])];
    state.play(0, draw(Pile::DrawPile, Pile::DrawPile)).unwrap();
    state.play(0, Command::EndTurn).unwrap();
    assert_eq!(state.turn, 1);
    let events = state.retire(1);
    assert!(matches!(
        SkiRuns::redact(&events[0], Viewer::Seat(0)),
        Event::Retired {
            hand: Cards {
                count: 5,
                cards: None
            },
            ..
        }
    ));
    assert_eq!(state.turn, 2);
    assert!(state.hands[1].is_empty());
    assert_eq!(state.runs[1], None);
    assert_eq!(state.discard_pile.len(), 5 + 2);
    assert_eq!(state.score(1), 24);
    state.play(2, draw(Pile::DrawPile, Pile::DrawPile)).unwrap();
    state.play(2, Command::EndTurn).unwrap();
    assert_eq!(state.turn, 0, "seat 1 is skipped");
    state.end = Some(End::NoProgress);
    assert_eq!(SkiRuns::outcome(&state).unwrap().winners, vec![0, 2]);
}

/// Commands read as documented: `{"type": "draw", "from": [...]}`, `{"type": "play", "card":
/// "red_run"}`, and bad data is refused without a panic.
#[test]
fn commands_have_stable_json_shapes() {
    let shapes = [
        (
            json!({"type": "draw", "from": ["draw_pile", "lift_pile"]}),
            draw(Pile::DrawPile, Pile::LiftPile),
        ),
        (json!({"type": "pick_up"}), Command::PickUp),
        (json!({"type": "play", "card": "red_run"}), play(RedRun)),
        (json!({"type": "end_turn"}), Command::EndTurn),
        (json!({"type": "bank"}), Command::Bank),
    ];
    for (value, command) in shapes {
        assert_eq!(
            serde_json::from_value::<Command>(value.clone()).unwrap(),
            command
        );
        assert_eq!(serde_json::to_value(&command).unwrap(), value);
    }
    for bad in [
        json!({"type": "draw", "from": ["draw_pile"]}),
        json!({"type": "draw", "from": ["draw_pile", "lift_pile", "lift_pile"]}),
        json!({"type": "play", "card": "purple_run"}),
        json!({"type": "play"}),
    ] {
        assert!(serde_json::from_value::<Command>(bad).is_err());
    }
    let state = dealt(2);
    assert!(SkiRuns::legal(&state, 99).is_empty());
    assert!(SkiRuns::retire(&state, 99).is_empty());
    state.when(7, Command::Bank).refused("not_your_turn");
    given::<SkiRuns>(setup::<SkiRuns>(2), [])
        .when(0, Command::Bank)
        .refused("illegal_command");
}

/// The engine plays through the type-erased registry with JSON, as the service drives it:
/// seats are taken, the deal is made, commands are posted as JSON, a player of three resigns
/// and the others play on to the end.
#[test]
fn a_game_is_played_through_the_registry_with_json_commands() {
    use domain::table::{Actor, Status};
    let registry = Registry::standard();
    let kind = registry.get("ski-runs").expect("registered");
    let created = kind
        .create(None, None, 3, Seed([5; 32]).commitment())
        .unwrap();
    let mut game = kind.fold(&[created.payload]).unwrap();
    let players = ["ann", "bob", "cy"];
    let mut version = 1;
    let mut post = |game: &mut Box<dyn domain::LiveGame>, player: &str, command: Value| {
        let ctx = Context::new(Seed([5; 32]), version, test_time());
        let records = game.decide(&Actor::player(player), &command, &ctx)?;
        for record in records {
            game.evolve(&record.payload).unwrap();
            version += 1;
        }
        Ok::<(), domain::Refusal>(())
    };
    for player in players {
        post(&mut game, player, json!({"type": "join"})).unwrap();
    }
    assert_eq!(game.facts().status, Status::Active);
    let view = game.view(Viewer::Seat(0));
    assert_eq!(view["players"][0]["hand"].as_array().map(Vec::len), Some(5));
    assert_eq!(view["players"][1]["hand"], Value::Null);
    assert_eq!(view["turn"]["seat"], 0);
    assert_eq!(view["turn"]["may"], json!(["draw"]));

    let refused = post(&mut game, "bob", json!({"type": "bank"})).unwrap_err();
    assert_eq!(refused.code().unwrap(), "not_your_turn");
    let unreadable = post(&mut game, "ann", json!({"type": "draw", "from": "lift"})).unwrap_err();
    assert_eq!(unreadable.code().unwrap(), "bad_command");

    post(&mut game, "bob", json!({"type": "resign"})).unwrap();
    let mut moves = 0;
    while game.facts().status == Status::Active {
        let seat = game.facts().to_act[0];
        assert_ne!(seat, 1, "the seat that resigned is skipped");
        let legal = game.legal(seat);
        // Prefer playing cards, so that the game moves on.
        let choice = legal
            .iter()
            .find(|l| l.notation.starts_with("play"))
            .or_else(|| legal.iter().find(|l| l.notation != "resign"))
            .unwrap();
        post(&mut game, players[seat], choice.command.clone()).unwrap();
        moves += 1;
        assert!(moves < 2_000);
    }
    let outcome = game.facts().outcome.unwrap();
    assert!(!outcome.winners.contains(&1));
    assert!(game.facts().revealed_seed.is_some());
}

/// The API documents every public type: their schemas are generated.
#[test]
fn the_public_types_have_schemas() {
    use utoipa::PartialSchema;
    let schemas = [
        serde_json::to_value(Command::schema()).unwrap(),
        serde_json::to_value(Event::schema()).unwrap(),
        serde_json::to_value(domain::games::ski_runs::View::schema()).unwrap(),
        serde_json::to_value(Options::schema()).unwrap(),
    ];
    let text = serde_json::to_string(&schemas).unwrap();
    for name in [
        "draw_pile",
        "lift_pile",
        "pick_up",
        "end_turn",
        "bank",
        "red_run",
        "announcements",
    ] {
        assert!(text.contains(name), "{name} is missing from the schemas");
    }
}
