//! The table rules common to every game, exercised with a small test-only game.

use crate::common;

use common::HighCard;
use domain::engine::Viewer;
use domain::registry::{Kind, LiveGame};
use domain::table::{Actor, Status};
use domain::testing::context;
use domain::Seed;
use serde_json::{json, Value};

const SEED: Seed = Seed([3; 32]);

/// Creates a game of `seats` seats through the type-erased registry, as the API does.
fn create(seats: usize) -> Box<dyn LiveGame> {
    let kind = Kind::<HighCard>::boxed();
    let created = kind
        .create(None, None, seats, SEED.commitment())
        .expect("valid setup");
    kind.fold(&[created.payload]).expect("created folds")
}

fn apply(
    game: &mut Box<dyn LiveGame>,
    actor: &Actor,
    command: Value,
) -> Result<Vec<Value>, String> {
    let events = game
        .decide(actor, &command, &context(game.facts().version))
        .map_err(|e| e.code().unwrap())?;
    let payloads: Vec<Value> = events.into_iter().map(|e| e.payload).collect();
    for event in &payloads {
        game.evolve(event).expect("decided events fold");
    }
    Ok(payloads)
}

fn player(n: usize) -> Actor {
    Actor::player(format!("p{n}"))
}

fn full(seats: usize) -> Box<dyn LiveGame> {
    let mut game = create(seats);
    for n in 0..seats {
        apply(&mut game, &player(n), json!({"type": "join"})).expect("join");
    }
    game
}

fn types(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("?"))
        .collect()
}

#[test]
fn a_game_starts_when_the_last_seat_is_taken_and_deals() {
    let mut game = create(3);
    assert_eq!(game.facts().status, Status::Open);
    apply(&mut game, &player(0), json!({"type": "join"})).unwrap();
    let events = apply(&mut game, &player(1), json!({"type": "join", "seat": 2})).unwrap();
    assert_eq!(types(&events), ["seat_taken"]);
    assert_eq!(game.seat_of("p1"), Some(2));
    let events = apply(&mut game, &player(2), json!({"type": "join"})).unwrap();
    assert_eq!(types(&events), ["seat_taken", "started", "game"]);
    assert_eq!(game.facts().status, Status::Active);
    assert_eq!(game.seat_of("p2"), Some(1));
    assert_eq!(game.facts().to_act, vec![0]);
}

#[test]
fn a_seat_cannot_be_taken_twice_nor_by_a_seated_player() {
    let mut game = create(2);
    apply(&mut game, &player(0), json!({"type": "join", "seat": 1})).unwrap();
    assert_eq!(
        apply(&mut game, &player(1), json!({"type": "join", "seat": 1})),
        Err("seat_taken".into())
    );
    assert_eq!(
        apply(&mut game, &player(0), json!({"type": "join"})),
        Err("already_seated".into())
    );
    assert_eq!(
        apply(&mut game, &player(1), json!({"type": "join", "seat": 5})),
        Err("bad_command".into())
    );
    apply(&mut game, &player(1), json!({"type": "join"})).unwrap();
    assert_eq!(
        apply(&mut game, &player(2), json!({"type": "join"})),
        Err("game_full".into())
    );
}

#[test]
fn nobody_plays_before_the_start_and_strangers_never_play() {
    let mut game = create(2);
    apply(&mut game, &player(0), json!({"type": "join"})).unwrap();
    assert_eq!(
        apply(&mut game, &player(0), json!({"type": "raise"})),
        Err("not_started".into())
    );
    apply(&mut game, &player(1), json!({"type": "join"})).unwrap();
    assert_eq!(
        apply(&mut game, &player(9), json!({"type": "raise"})),
        Err("not_seated".into())
    );
    // The server gives only its own commands (timeouts, vacations), never a seat's.
    assert_eq!(
        apply(&mut game, &Actor::System, json!({"type": "raise"})),
        Err("bad_command".into())
    );
    assert_eq!(
        apply(&mut game, &player(1), json!({"type": "raise"})),
        Err("not_your_turn".into())
    );
}

#[test]
fn bad_commands_are_refused_with_a_clear_reason() {
    let mut game = full(2);
    let kind = Kind::<HighCard>::boxed();
    for bad in [
        json!(42),
        json!({"no": "type"}),
        json!({"type": "fly"}),
        json!({"type": "resign", "extra": 1}),
    ] {
        let error = game
            .decide(&player(0), &bad, &context(game.facts().version))
            .unwrap_err();
        assert_eq!(error.code().unwrap(), "bad_command", "{bad}");
        assert!(!error
            .rule()
            .expect("the rules refuse it")
            .message
            .is_empty());
    }
    assert!(kind.create(None, None, 9, String::new()).is_err());
    assert!(kind
        .create(Some("turbo".into()), None, 2, String::new())
        .is_err());
    apply(&mut game, &player(0), json!({"type": "raise"})).unwrap();
}

#[test]
fn resigning_a_two_player_game_gives_the_win_to_the_other_and_reveals_the_seed() {
    let mut game = full(2);
    let events = apply(&mut game, &player(0), json!({"type": "resign"})).unwrap();
    assert_eq!(types(&events), ["resigned", "finished", "seed_revealed"]);
    assert_eq!(game.facts().status, Status::Finished);
    let outcome = game.facts().outcome.unwrap();
    assert_eq!(outcome.winners, vec![1]);
    assert!(!outcome.draw);
    assert_eq!(game.facts().revealed_seed, Some(SEED));
    assert!(SEED.matches(&game.facts().commitment));
    assert_eq!(
        apply(&mut game, &player(1), json!({"type": "raise"})),
        Err("game_over".into())
    );
}

#[test]
fn in_a_game_of_three_a_resigned_seat_is_skipped_and_play_goes_on() {
    let mut game = full(3);
    let events = apply(&mut game, &player(1), json!({"type": "resign"})).unwrap();
    assert_eq!(types(&events), ["resigned", "game"]);
    assert_eq!(game.facts().status, Status::Active);
    apply(&mut game, &player(0), json!({"type": "raise"})).unwrap();
    assert_eq!(game.facts().to_act, vec![2], "seat 1 is skipped");
    assert_eq!(
        apply(&mut game, &player(1), json!({"type": "show"})),
        Err("resigned".into())
    );
    assert!(game.legal(1).is_empty());
    // The last two: one more resignation ends the game for the one left.
    apply(&mut game, &player(2), json!({"type": "resign"})).unwrap();
    assert_eq!(game.facts().status, Status::Finished);
    assert_eq!(game.facts().outcome.unwrap().winners, vec![0]);
}

#[test]
fn resigning_a_solitaire_abandons_it_without_a_winner() {
    let mut game = full(1);
    apply(&mut game, &player(0), json!({"type": "resign"})).unwrap();
    let outcome = game.facts().outcome.unwrap();
    assert!(outcome.winners.is_empty());
    assert_eq!(outcome.reason, "abandoned");
}

#[test]
fn an_accepted_draw_offer_ends_the_game_drawn() {
    let mut game = full(2);
    apply(&mut game, &player(0), json!({"type": "offer_draw"})).unwrap();
    assert_eq!(
        apply(&mut game, &player(0), json!({"type": "accept_draw"})),
        Err("no_draw_offered".into())
    );
    assert_eq!(
        apply(&mut game, &player(0), json!({"type": "offer_draw"})),
        Err("draw_already_offered".into())
    );
    let notations: Vec<String> = game.legal(1).into_iter().map(|l| l.notation).collect();
    assert!(notations.contains(&"accept the draw (the game ends as a tie)".to_string()));
    let events = apply(&mut game, &player(1), json!({"type": "accept_draw"})).unwrap();
    assert_eq!(
        types(&events),
        ["draw_accepted", "finished", "seed_revealed"]
    );
    let outcome = game.facts().outcome.unwrap();
    assert!(outcome.draw);
    assert_eq!(outcome.winners, vec![0, 1]);
}

#[test]
fn a_draw_offer_is_declined_explicitly_or_by_playing_on() {
    let mut game = full(2);
    apply(&mut game, &player(0), json!({"type": "offer_draw"})).unwrap();
    apply(&mut game, &player(1), json!({"type": "decline_draw"})).unwrap();
    assert_eq!(
        apply(&mut game, &player(1), json!({"type": "accept_draw"})),
        Err("no_draw_offered".into())
    );
    apply(&mut game, &player(1), json!({"type": "offer_draw"})).unwrap();
    let events = apply(&mut game, &player(0), json!({"type": "raise"})).unwrap();
    assert_eq!(types(&events), ["draw_declined", "game"]);
    assert_eq!(
        apply(&mut game, &player(0), json!({"type": "accept_draw"})),
        Err("no_draw_offered".into())
    );
}

#[test]
fn draws_by_agreement_are_only_for_two_players() {
    let mut game = full(3);
    assert_eq!(
        apply(&mut game, &player(0), json!({"type": "offer_draw"})),
        Err("draw_not_available".into())
    );
}

#[test]
fn the_game_ends_by_its_rules_with_finished_and_the_revealed_seed() {
    let mut game = full(2);
    let events = apply(&mut game, &player(0), json!({"type": "show"})).unwrap();
    assert_eq!(types(&events), ["game", "finished", "seed_revealed"]);
    assert_eq!(game.facts().status, Status::Finished);
    assert_eq!(game.viewer_for(Some("p0")), Viewer::Everyone);
    assert!(game.legal(0).is_empty());
}

#[test]
fn each_viewer_sees_only_its_own_card_until_the_end() {
    let mut game = create(2);
    apply(&mut game, &player(0), json!({"type": "join"})).unwrap();
    let events = apply(&mut game, &player(1), json!({"type": "join"})).unwrap();
    let dealt = &events[2];
    let mine = game.redact(dealt, Viewer::Seat(0));
    let cards = &mine["event"]["cards"];
    assert!(cards[0].is_u64() && cards[1].is_null(), "{mine}");
    let spectator = game.redact(dealt, Viewer::Spectator);
    assert!(spectator["event"]["cards"]
        .as_array()
        .unwrap()
        .iter()
        .all(Value::is_null));
    assert!(game.view(game.viewer_for(Some("p1")))["cards"][0].is_null());
    assert!(game.view(game.viewer_for(None))["cards"][1].is_null());
    apply(&mut game, &player(0), json!({"type": "show"})).unwrap();
    let all = game.view(game.viewer_for(None));
    assert!(all["cards"][0].is_u64() && all["cards"][1].is_u64());
}

#[test]
fn the_fold_of_the_stored_events_equals_the_live_game() {
    let kind = Kind::<HighCard>::boxed();
    let created = kind.create(None, None, 3, SEED.commitment()).unwrap();
    let mut game = kind.fold(std::slice::from_ref(&created.payload)).unwrap();
    let mut log = vec![created.payload];
    for n in 0..3 {
        log.extend(apply(&mut game, &player(n), json!({"type": "join"})).unwrap());
    }
    log.extend(apply(&mut game, &player(0), json!({"type": "raise"})).unwrap());
    log.extend(apply(&mut game, &player(1), json!({"type": "resign"})).unwrap());
    log.extend(apply(&mut game, &player(2), json!({"type": "show"})).unwrap());
    let folded = kind.fold(&log).unwrap();
    assert_eq!(folded.facts().version, game.facts().version);
    assert_eq!(folded.facts().version, log.len() as u64);
    assert_eq!(folded.view(Viewer::Everyone), game.view(Viewer::Everyone));
    assert_eq!(folded.facts().outcome, game.facts().outcome);
    assert!(
        kind.fold(&log[1..]).is_err(),
        "a stream must begin with created"
    );
    assert!(kind.fold(&[]).is_err());
}

#[test]
fn legal_commands_are_postable_as_is() {
    let game = full(2);
    for legal in game.legal(0) {
        assert!(
            game.decide(&player(0), &legal.command, &context(game.facts().version))
                .is_ok(),
            "{}",
            legal.notation
        );
    }
}

/// A takeback counted in turns goes back to where the log says a turn began, so the caller
/// must give the game's turns. Without them the table does not guess and does not blame the
/// player: it is our own fault, apart from every refusal of the rules.
#[test]
fn a_takeback_in_turns_decided_without_the_games_turns_is_our_fault_not_a_refusal() {
    use domain::table::TurnHistory;
    use domain::{ErrorCode, Refusal};
    let game = full(2);
    let request = json!({"type": "request_takeback"});
    let refused = game
        .decide(&player(0), &request, &context(game.facts().version))
        .unwrap_err();
    assert!(matches!(refused, Refusal::Fault(_)), "{refused:?}");
    assert_eq!(refused.rule(), None);
    assert_eq!(refused.code(), None);

    // Given the turns, the same request is the rules' to answer: nobody has moved yet.
    let ctx = context(game.facts().version).with_turns(TurnHistory::of(&[], 2));
    let refused = game.decide(&player(0), &request, &ctx).unwrap_err();
    assert_eq!(refused.code(), Some(ErrorCode::BadTakebackVersion));
    let rule = refused.rule().expect("the rules refuse it");
    assert!(rule.message.contains("not moved yet"), "{}", rule.message);
}
