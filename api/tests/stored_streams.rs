//! One stored event stream of each game, pinned byte for byte: the same commands, seed and
//! times must give exactly the same events, so that a change of the code never changes what
//! is stored (streams are kept forever and audited against the rules).
//!
//! Each game is created with a fixed seed, every seat joins, then the first legal command of
//! the first seat to act is played until the game ends or 60 commands are played. The events
//! (type and JSON payload, one a line) must equal `tests/streams/<game>.txt`. To write the
//! files afresh after a deliberate change of the stored form: `PIN_STREAMS=write cargo test
//! -p api --test integration stored_streams`, and say why in the commit.

use chrono::{DateTime, Duration, Utc};
use domain::engine::Context;
use domain::table::{Actor, TimeControl};
use domain::{Registry, Seed};
use serde_json::json;
use std::path::PathBuf;

const COMMANDS: usize = 60;

fn at(step: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 0).expect("a valid time") + Duration::seconds(step)
}

/// The stored form of one game's stream after its fixed commands.
fn stream(registry: &Registry, kind_id: &str, seats: usize) -> String {
    let kind = registry.get(kind_id).expect("the game is offered");
    let seed = Seed([7; 32]);
    let created = kind
        .create_timed(
            None,
            None,
            seats,
            seed.commitment(),
            TimeControl::SecondsPerMove { seconds: 3600 },
        )
        .expect("the setup is valid");
    let mut game = kind
        .fold(std::slice::from_ref(&created.payload))
        .expect("created folds");
    let mut events = vec![created];
    let mut step = 0;
    let mut play = |game: &mut Box<dyn domain::registry::LiveGame>,
                    events: &mut Vec<domain::registry::EventRecord>,
                    actor: Actor,
                    command: serde_json::Value| {
        step += 1;
        let ctx = Context::new(seed, game.facts().version, at(step));
        let decided = game
            .decide(&actor, &command, &ctx)
            .unwrap_or_else(|e| panic!("{kind_id}: {command} is refused: {e}"));
        for event in &decided {
            game.evolve(&event.payload).expect("own events fold");
        }
        events.extend(decided);
    };
    for seat in 0..seats {
        let player = format!("p-{seat}");
        play(
            &mut game,
            &mut events,
            Actor::player(&player),
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
        play(
            &mut game,
            &mut events,
            Actor::player(format!("p-{seat}")),
            legal.command,
        );
    }
    events
        .iter()
        .map(|e| format!("{}\t{}\n", e.event_type, e.payload))
        .collect()
}

fn pinned(kind_id: &str, seats: usize) {
    let found = stream(&Registry::standard(), kind_id, seats);
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "streams",
        &format!("{kind_id}.txt"),
    ]
    .iter()
    .collect();
    if std::env::var("PIN_STREAMS").as_deref() == Ok("write") {
        std::fs::write(&path, &found).expect("the pinned stream is written");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; write it with PIN_STREAMS=write cargo test -p api --test integration stored_streams",
            path.display()
        )
    });
    assert!(found.lines().count() > seats + 2, "the game was played");
    for (line, (found, expected)) in found.lines().zip(expected.lines()).enumerate() {
        assert_eq!(found, expected, "{kind_id}: event {} differs", line + 1);
    }
    assert_eq!(found, expected, "{kind_id}: the stream has another length");
}

#[test]
fn an_avalanche_chess_stream_is_stored_byte_for_byte_as_before() {
    pinned("avalanche-chess", 2);
}

#[test]
fn an_avalanche_stream_is_stored_byte_for_byte_as_before() {
    pinned("avalanche", 3);
}

#[test]
fn a_ski_runs_stream_is_stored_byte_for_byte_as_before() {
    pinned("ski-runs", 3);
}

#[test]
fn a_vamanos_stream_is_stored_byte_for_byte_as_before() {
    pinned("vamanos", 3);
}

#[test]
fn an_altitude_stream_is_stored_byte_for_byte_as_before() {
    pinned("altitude", 2);
}
