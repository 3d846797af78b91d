//! Clocks at the table: time controls, deadlines, timeouts (claimed or recorded by the server)
//! and vacations, exercised with the test-only "High card" game. The time is always given
//! in the context, as the API gives it.

use crate::common;

use chrono::{DateTime, Duration, Utc};
use common::HighCard;
use domain::engine::Context;
use domain::registry::{Kind, LiveGame};
use domain::table::{Actor, SeatClock, Status, TimeControl};
use domain::Seed;
use serde_json::{json, Value};

const SEED: Seed = Seed([9; 32]);
const MINUTE: TimeControl = TimeControl::SecondsPerMove { seconds: 60 };

fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::UNIX_EPOCH + Duration::seconds(1_000_000 + seconds)
}

fn create(seats: usize, control: TimeControl) -> Box<dyn LiveGame> {
    let kind = Kind::<HighCard>::boxed();
    let created = kind
        .create_timed(None, None, seats, SEED.commitment(), control)
        .expect("valid setup");
    kind.fold(&[created.payload]).expect("created folds")
}

fn apply_at(
    game: &mut Box<dyn LiveGame>,
    actor: &Actor,
    command: Value,
    seconds: i64,
) -> Result<Vec<Value>, String> {
    let ctx = Context::new(SEED, game.facts().version, at(seconds));
    let events = game.decide(actor, &command, &ctx).map_err(|e| match e {
        domain::Refusal::Rule(rule) => rule.code.into(),
        fault => fault.to_string(),
    })?;
    let payloads: Vec<Value> = events.into_iter().map(|e| e.payload).collect();
    for event in &payloads {
        game.evolve(event).expect("decided events fold");
    }
    Ok(payloads)
}

fn player(n: usize) -> Actor {
    Actor::player(format!("p{n}"))
}

/// A full game of `seats`, started at time 0.
fn started(seats: usize, control: TimeControl) -> Box<dyn LiveGame> {
    let mut game = create(seats, control);
    for n in 0..seats {
        apply_at(&mut game, &player(n), json!({"type": "join"}), 0).expect("join");
    }
    game
}

fn types(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("?"))
        .collect()
}

fn running(seconds: i64) -> SeatClock {
    SeatClock::Running {
        deadline: at(seconds),
    }
}

#[test]
fn a_time_control_is_none_or_1_to_14_days_or_1_to_86400_seconds_per_move() {
    let kind = Kind::<HighCard>::boxed();
    for good in [
        TimeControl::None,
        TimeControl::DaysPerMove { days: 1 },
        TimeControl::DaysPerMove { days: 14 },
        TimeControl::SecondsPerMove { seconds: 1 },
        TimeControl::SecondsPerMove { seconds: 86_400 },
    ] {
        assert!(kind.create_timed(None, None, 2, "c".into(), good).is_ok());
    }
    for bad in [
        TimeControl::DaysPerMove { days: 0 },
        TimeControl::DaysPerMove { days: 15 },
        TimeControl::SecondsPerMove { seconds: 0 },
        TimeControl::SecondsPerMove { seconds: 86_401 },
    ] {
        let error = kind
            .create_timed(None, None, 2, "c".into(), bad)
            .unwrap_err();
        assert_eq!(error.code().unwrap(), "invalid_setup", "{bad:?}");
    }
}

#[test]
fn an_untimed_game_has_no_clock_events_and_its_created_event_is_unchanged() {
    let mut game = started(2, TimeControl::None);
    let events = apply_at(&mut game, &player(0), json!({"type": "raise"}), 10).unwrap();
    assert_eq!(types(&events), ["game"]);
    assert_eq!(game.facts().next_deadline, None);
    assert!(game.facts().clocks.iter().all(|c| *c == SeatClock::Idle));
    let created = Kind::<HighCard>::boxed()
        .create(None, None, 2, "c".into())
        .unwrap();
    assert!(created.payload.get("time_control").is_none());
}

#[test]
fn the_seat_that_comes_to_act_gets_a_whole_allowance_and_the_other_stops() {
    let mut game = create(2, MINUTE);
    apply_at(&mut game, &player(0), json!({"type": "join"}), 0).unwrap();
    let events = apply_at(&mut game, &player(1), json!({"type": "join"}), 5).unwrap();
    assert_eq!(
        types(&events),
        ["seat_taken", "started", "game", "clock_set"]
    );
    assert_eq!(game.facts().clocks, vec![running(65), SeatClock::Idle]);
    assert_eq!(game.facts().next_deadline, Some(at(65)));
    let events = apply_at(&mut game, &player(0), json!({"type": "raise"}), 30).unwrap();
    assert_eq!(types(&events), ["game", "clock_set"]);
    assert_eq!(game.facts().clocks, vec![SeatClock::Idle, running(90)]);
    // A table command that does not pass the turn leaves the deadlines as they are.
    let events = apply_at(&mut game, &player(0), json!({"type": "offer_draw"}), 40).unwrap();
    assert_eq!(types(&events), ["draw_offered"]);
    assert_eq!(game.facts().clocks, vec![SeatClock::Idle, running(90)]);
}

#[test]
fn a_claim_before_the_deadline_is_refused() {
    let mut game = started(2, MINUTE);
    assert_eq!(
        apply_at(&mut game, &player(1), json!({"type": "claim_timeout"}), 59),
        Err("no_timeout".into())
    );
    assert_eq!(
        apply_at(&mut game, &Actor::System, json!({"type": "timeout"}), 59),
        Err("no_timeout".into())
    );
    assert_eq!(game.facts().status, Status::Active);
}

#[test]
fn once_the_deadline_passes_the_opponent_may_claim_the_win() {
    let mut game = started(2, MINUTE);
    // What `GET /legal` adds to the rules' list: the claim, for the opponent, once it is due.
    assert!(!game.may_claim_timeout(1, at(59)));
    assert!(game.may_claim_timeout(1, at(61)));
    assert!(!game.may_claim_timeout(0, at(61)), "not one's own");
    let events = apply_at(&mut game, &player(1), json!({"type": "claim_timeout"}), 61).unwrap();
    assert_eq!(types(&events), ["timed_out", "finished", "seed_revealed"]);
    assert_eq!(events[0]["seat"], 0);
    let outcome = game.facts().outcome.unwrap();
    assert_eq!(outcome.winners, vec![1]);
    assert_eq!(outcome.reason, "seat 0 ran out of time");
    assert_eq!(game.facts().status, Status::Finished);
    assert_eq!(game.facts().next_deadline, None);
}

#[test]
fn the_server_records_a_timeout_as_the_system_actor() {
    let mut game = started(2, MINUTE);
    let events = apply_at(&mut game, &Actor::System, json!({"type": "timeout"}), 60).unwrap();
    assert_eq!(types(&events), ["timed_out", "finished", "seed_revealed"]);
    assert_eq!(game.facts().outcome.unwrap().winners, vec![1]);
}

#[test]
fn a_player_cannot_claim_their_own_timeout_nor_move_after_it() {
    let mut game = started(2, MINUTE);
    assert_eq!(
        apply_at(&mut game, &player(0), json!({"type": "claim_timeout"}), 100),
        Err("no_timeout".into())
    );
    assert_eq!(
        apply_at(&mut game, &player(0), json!({"type": "raise"}), 100),
        Err("out_of_time".into())
    );
}

#[test]
fn a_player_cannot_give_the_server_s_commands() {
    let mut game = started(2, MINUTE);
    // `timeout` is the server's: posted by a player it is not a command of the game.
    assert!(apply_at(&mut game, &player(1), json!({"type": "timeout"}), 100).is_err());
    assert_eq!(game.facts().status, Status::Active);
}

#[test]
fn in_a_game_of_three_a_timed_out_seat_is_treated_as_resigned_and_play_goes_on() {
    let mut game = started(3, MINUTE);
    let events = apply_at(&mut game, &Actor::System, json!({"type": "timeout"}), 61).unwrap();
    assert_eq!(types(&events), ["timed_out", "game", "clock_set"]);
    assert_eq!(events[1]["event"]["type"], "retired");
    assert_eq!(game.facts().status, Status::Active);
    assert_eq!(game.facts().to_act, vec![1]);
    assert_eq!(
        game.facts().clocks,
        vec![SeatClock::Idle, running(121), SeatClock::Idle]
    );
    // The timed-out seat may do nothing more.
    assert_eq!(
        apply_at(&mut game, &player(0), json!({"type": "resign"}), 62),
        Err("resigned".into())
    );
    // A second timeout leaves one seat: it wins.
    let events = apply_at(&mut game, &player(2), json!({"type": "claim_timeout"}), 121).unwrap();
    assert_eq!(types(&events), ["timed_out", "finished", "seed_revealed"]);
    assert_eq!(game.facts().outcome.unwrap().winners, vec![2]);
}

#[test]
fn vacation_stops_the_clock_and_starts_it_again_with_the_time_left() {
    let mut game = started(2, MINUTE);
    let away = json!({"type": "vacation", "player": "p0", "away": true});
    let events = apply_at(&mut game, &Actor::System, away.clone(), 10).unwrap();
    assert_eq!(types(&events), ["vacation_started", "clock_set"]);
    assert_eq!(
        game.facts().clocks[0],
        SeatClock::Paused {
            remaining_ms: 50_000
        }
    );
    assert_eq!(game.facts().next_deadline, None);
    // Long past the old deadline, nothing has run out.
    assert_eq!(
        apply_at(&mut game, &Actor::System, json!({"type": "timeout"}), 500),
        Err("no_timeout".into())
    );
    // Going away twice changes nothing.
    assert_eq!(
        apply_at(&mut game, &Actor::System, away, 600)
            .unwrap()
            .len(),
        0
    );
    let back = json!({"type": "vacation", "player": "p0", "away": false});
    let events = apply_at(&mut game, &Actor::System, back, 1000).unwrap();
    assert_eq!(types(&events), ["vacation_ended", "clock_set"]);
    assert_eq!(game.facts().clocks[0], running(1050));
    assert!(apply_at(&mut game, &Actor::System, json!({"type": "timeout"}), 1050).is_ok());
    assert_eq!(game.facts().outcome.unwrap().winners, vec![1]);
}

#[test]
fn a_seat_that_comes_to_act_while_its_player_is_away_waits_with_a_whole_allowance() {
    let mut game = started(2, MINUTE);
    let away = json!({"type": "vacation", "player": "p1", "away": true});
    let events = apply_at(&mut game, &Actor::System, away, 10).unwrap();
    // Seat 1 need not act: only the flag changes.
    assert_eq!(types(&events), ["vacation_started"]);
    apply_at(&mut game, &player(0), json!({"type": "raise"}), 20).unwrap();
    assert_eq!(
        game.facts().clocks,
        vec![
            SeatClock::Idle,
            SeatClock::Paused {
                remaining_ms: 60_000
            }
        ]
    );
    // The player may still move while away.
    apply_at(&mut game, &player(1), json!({"type": "raise"}), 30).unwrap();
    assert_eq!(game.facts().clocks, vec![running(90), SeatClock::Idle]);
}

#[test]
fn a_vacation_of_someone_not_seated_changes_nothing() {
    let mut game = started(2, MINUTE);
    let away = json!({"type": "vacation", "player": "stranger", "away": true});
    assert!(apply_at(&mut game, &Actor::System, away, 10)
        .unwrap()
        .is_empty());
}

#[test]
fn a_takeback_fork_starts_fresh_clocks_and_an_analysis_fork_has_none() {
    let mut game = started(2, MINUTE);
    apply_at(&mut game, &player(0), json!({"type": "raise"}), 30).unwrap();
    let players = game.facts().players;
    let events = game.fork("g-parent", players, false, at(1000)).unwrap();
    let types: Vec<&str> = events.iter().map(|e| e.event_type.as_str()).collect();
    assert_eq!(types, ["forked", "clock_set"]);
    let mut fork = game.clone_box();
    for event in &events {
        fork.evolve(&event.payload).unwrap();
    }
    assert_eq!(fork.facts().clocks, vec![SeatClock::Idle, running(1060)]);

    let me = vec![Some("p0".to_string()); 2];
    let events = game.fork("g-parent", me, true, at(1000)).unwrap();
    assert_eq!(events.len(), 1);
    let mut analysis = game.clone_box();
    analysis.evolve(&events[0].payload).unwrap();
    assert_eq!(analysis.facts().next_deadline, None);
    let raise = json!({"type": "raise"});
    let ctx = Context::new(SEED, analysis.facts().version, at(5000));
    let events = analysis.decide(&player(0), &raise, &ctx).unwrap();
    assert!(events.iter().all(|e| e.event_type != "clock_set"));
}

#[test]
fn a_message_changes_nothing_of_the_game_and_is_hidden_once() {
    let mut game = started(2, MINUTE);
    let facts = game.facts();
    let say =
        json!({"type": "say", "player": "p1", "room": "table", "message": "m-1", "sealed": "00"});
    let events = apply_at(&mut game, &Actor::System, say.clone(), 30).unwrap();
    assert_eq!(types(&events), ["said"]);
    assert_eq!(events[0]["seat"], 1);
    let after = game.facts();
    assert_eq!(after.version, facts.version + 1);
    assert_eq!(after.clocks, facts.clocks, "no clock moves");
    assert_eq!(after.to_act, facts.to_act);
    assert_eq!(game.said_count(), 1);
    assert_eq!(game.message_hidden("m-1"), Some(false));
    // An id is said once; only the seated speak at the table, only watchers in their room.
    assert_eq!(
        apply_at(&mut game, &Actor::System, say, 31),
        Err("bad_command".into())
    );
    let stranger =
        json!({"type": "say", "player": "p9", "room": "table", "message": "m-2", "sealed": "00"});
    assert_eq!(
        apply_at(&mut game, &Actor::System, stranger, 31),
        Err("not_seated".into())
    );
    let seated_watcher = json!({"type": "say", "player": "p0", "room": "spectators", "message": "m-3", "sealed": "00"});
    assert_eq!(
        apply_at(&mut game, &Actor::System, seated_watcher, 31),
        Err("not_seated".into())
    );
    // A player cannot give the server's command.
    let forged =
        json!({"type": "say", "player": "p0", "room": "table", "message": "m-4", "sealed": "00"});
    assert!(apply_at(&mut game, &player(0), forged, 31).is_err());
    let hide = json!({"type": "hide", "message": "m-1"});
    let events = apply_at(&mut game, &Actor::System, hide.clone(), 40).unwrap();
    assert_eq!(types(&events), ["hidden"]);
    assert_eq!(game.message_hidden("m-1"), Some(true));
    assert_eq!(
        apply_at(&mut game, &Actor::System, hide, 41),
        Err("bad_command".into())
    );
    assert_eq!(
        apply_at(
            &mut game,
            &Actor::System,
            json!({"type": "hide", "message": "m-9"}),
            41
        ),
        Err("bad_command".into())
    );
    assert_eq!(game.facts().clocks, facts.clocks);
}
