//! The answers written straight to JSON text (`view_json`, `legal_json_at`) say exactly what
//! the `Value` forms say (`view`, `legal_at`), for every viewer at every step of a game of
//! each kind: only the order of the keys may differ, and JSON objects have none. And a game
//! folded from the typed events it decided (`evolve_record`) is the game folded from their
//! stored payloads.

use chrono::{DateTime, Duration, Utc};
use domain::engine::{Context, Viewer};
use domain::registry::LiveGame;
use domain::table::{Actor, TimeControl};
use domain::{Registry, Seed};
use serde_json::{json, Value};

const COMMANDS: usize = 80;

fn at(step: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 0).expect("a valid time") + Duration::seconds(step)
}

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{text} is not JSON: {e}"))
}

/// Every seat, a spectator and everyone (a finished or analysis game's view).
fn viewers(seats: usize) -> impl Iterator<Item = Viewer> {
    (0..seats)
        .map(Viewer::Seat)
        .chain([Viewer::Spectator, Viewer::Everyone])
}

/// Every viewer's view and every seat's legal commands, now and once every deadline has
/// passed (when a timeout may be claimed), agree in both forms.
fn agree(kind_id: &str, game: &dyn LiveGame, step: i64) {
    let seats = game.facts().seats;
    for viewer in viewers(seats) {
        assert_eq!(
            parsed(game.view_json(viewer).get()),
            game.view(viewer),
            "{kind_id}: the view of {viewer:?} after step {step}"
        );
    }
    for seat in 0..seats {
        for now in [at(step), at(step + 1_000_000)] {
            let values: Vec<(Value, String)> = game
                .legal_at(seat, now)
                .into_iter()
                .map(|l| (l.command, l.notation))
                .collect();
            let texts: Vec<(Value, String)> = match parsed(game.legal_json_at(seat, now).get()) {
                Value::Array(offered) => offered
                    .into_iter()
                    .map(|mut o| {
                        let notation = o["notation"].as_str().map(str::to_string);
                        // A command, its notation, and where the game gives one its
                        // consequence.
                        let keys: Vec<&str> = o
                            .as_object()
                            .map(|o| o.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        assert!(
                            keys.contains(&"command")
                                && keys.contains(&"notation")
                                && keys
                                    .iter()
                                    .all(|k| ["command", "notation", "consequence"].contains(k)),
                            "{kind_id}: {o} is a command, its notation and its consequence"
                        );
                        (o["command"].take(), notation.unwrap_or_default())
                    })
                    .collect(),
                other => panic!("{kind_id}: the legal list {other} is not an array"),
            };
            assert_eq!(texts, values, "{kind_id}: seat {seat}'s legal commands");
        }
    }
}

/// Plays a timed game of `kind_id` (the first legal command of the first seat to act, as the
/// pinned streams do), checking both forms after every command.
fn plays_alike(kind_id: &str, seats: usize) {
    let registry = Registry::standard();
    let kind = registry.get(kind_id).expect("the game is offered");
    let seed = Seed([11; 32]);
    let created = kind
        .create_timed(
            None,
            None,
            seats,
            seed.commitment(),
            TimeControl::SecondsPerMove { seconds: 60 },
        )
        .expect("the setup is valid");
    let mut game = kind
        .fold(std::slice::from_ref(&created.payload))
        .expect("created folds");
    let mut step = 0;
    // The same game folded from the typed events as they are decided (as the server keeps
    // its games), beside the one folded from their stored payloads.
    let mut typed = game.clone_box();
    let mut play = |game: &mut Box<dyn LiveGame>, player: String, command: Value| {
        step += 1;
        let ctx = Context::new(seed, game.facts().version, at(step));
        let decided = game
            .decide(&Actor::player(player), &command, &ctx)
            .unwrap_or_else(|e| panic!("{kind_id}: {command} is refused: {e}"));
        for event in &decided {
            game.evolve(&event.payload).expect("own events fold");
            typed.evolve_record(event).expect("own typed events fold");
        }
        agree(kind_id, game.as_ref(), step);
        assert_eq!(typed.facts().version, game.facts().version);
        for viewer in viewers(seats) {
            assert_eq!(
                typed.view(viewer),
                game.view(viewer),
                "{kind_id}: folded from typed events, the view of {viewer:?} after step {step}"
            );
        }
        for seat in 0..seats {
            assert_eq!(
                typed.legal(seat),
                game.legal(seat),
                "{kind_id}: seat {seat}"
            );
        }
    };
    agree(kind_id, game.as_ref(), 0);
    for seat in 0..seats {
        play(
            &mut game,
            format!("p-{seat}"),
            json!({"type": "join", "seat": seat}),
        );
    }
    for _ in 0..COMMANDS {
        let Some(&seat) = game.facts().to_act.first() else {
            break;
        };
        let Some(legal) = game.legal(seat).into_iter().next() else {
            break;
        };
        play(&mut game, format!("p-{seat}"), legal.command);
    }
    assert!(
        game.facts().version > seats as u64 + 2,
        "{kind_id}: the game was played"
    );
}

#[test]
fn avalanche_chess_answers_the_same_in_text_and_in_values() {
    plays_alike("avalanche-chess", 2);
}

#[test]
fn avalanche_answers_the_same_in_text_and_in_values() {
    plays_alike("avalanche", 3);
}

#[test]
fn ski_runs_answers_the_same_in_text_and_in_values() {
    plays_alike("ski-runs", 3);
}

#[test]
fn vamanos_answers_the_same_in_text_and_in_values() {
    plays_alike("vamanos", 3);
}

#[test]
fn altitude_answers_the_same_in_text_and_in_values() {
    plays_alike("altitude", 2);
}
