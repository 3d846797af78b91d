//! Timeouts in every game of the service: "In games of more than two, a timed-out player is
//! treated as resigned and the game goes on without them, as the rules of each game allow."
//! Random games of each kind are played on a clock; at a random point the deadline passes and
//! the server records the timeout; play then goes on to the end with every legal command
//! accepted, the timed-out seat never asked to act again, and the stored events folding back
//! into the same game.

use chrono::{DateTime, Duration, Utc};
use domain::engine::{Context, Viewer};
use domain::registry::LiveGame;
use domain::table::{Actor, Status, TimeControl, TABLE_COMMAND_TYPES};
use domain::{Registry, Seed};
use serde_json::{json, Value};

fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::UNIX_EPOCH + Duration::seconds(2_000_000 + seconds)
}

struct Chooser(u64);

impl Chooser {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Decides `command` at `seconds` and folds its events into `game` and `log`.
fn apply(
    game: &mut Box<dyn LiveGame>,
    log: &mut Vec<Value>,
    seed: Seed,
    actor: &Actor,
    command: &Value,
    seconds: i64,
) -> Vec<Value> {
    let ctx = Context::new(seed, game.facts().version, at(seconds));
    let events = game
        .decide(actor, command, &ctx)
        .unwrap_or_else(|e| panic!("{command} refused at version {}: {e}", game.facts().version));
    let payloads: Vec<Value> = events.into_iter().map(|e| e.payload).collect();
    for event in &payloads {
        game.evolve(event).expect("decided events fold");
        log.push(event.clone());
    }
    payloads
}

#[test]
fn a_timed_out_seat_leaves_every_game_as_its_rules_allow_and_play_goes_on() {
    let registry = Registry::standard();
    for id in registry.ids() {
        let mut timeouts = 0;
        let kind = registry.get(&id).expect("registered");
        let seats = kind.info().max_seats.min(3);
        for round in 0..40u64 {
            let seed = Seed([round as u8 + 1; 32]);
            let mut chooser = Chooser(0x9E37_79B9_7F4A_7C15 ^ ((round + 1) * 7919));
            let options = (id == "vamanos").then(|| json!({"target": 30}));
            let control = TimeControl::SecondsPerMove { seconds: 60 };
            let created = kind
                .create_timed(None, options, seats, seed.commitment(), control)
                .expect("valid setup");
            let mut log = vec![created.payload.clone()];
            let mut game = kind.fold(&log).expect("folds");
            let mut now = 0;
            for n in 0..seats {
                let join = json!({"type": "join"});
                apply(
                    &mut game,
                    &mut log,
                    seed,
                    &Actor::player(format!("p{n}")),
                    &join,
                    now,
                );
            }
            let timeout_at = 1 + chooser.below(40);
            let mut out: Vec<usize> = Vec::new();
            for step in 0..400 {
                if game.facts().status != Status::Active {
                    break;
                }
                now += 1;
                if step == timeout_at {
                    now += 61;
                    let overdue: Vec<usize> = game.facts().to_act;
                    let events = apply(
                        &mut game,
                        &mut log,
                        seed,
                        &Actor::System,
                        &json!({"type": "timeout"}),
                        now,
                    );
                    let timed_out: Vec<usize> = events
                        .iter()
                        .filter(|e| e["type"] == "timed_out")
                        .map(|e| e["seat"].as_u64().unwrap() as usize)
                        .collect();
                    assert_eq!(timed_out, overdue, "{id}: every seat to act ran out");
                    out.extend(timed_out);
                    continue;
                }
                let to_act = game.facts().to_act;
                for seat in &out {
                    assert!(!to_act.contains(seat), "{id}: seat {seat} timed out");
                }
                let seat = to_act[chooser.below(to_act.len())];
                let commands: Vec<Value> = game
                    .legal(seat)
                    .into_iter()
                    .map(|l| l.command)
                    .filter(|c| {
                        !TABLE_COMMAND_TYPES.contains(&c["type"].as_str().unwrap_or_default())
                    })
                    .collect();
                assert!(!commands.is_empty(), "{id}: seat {seat} to act can act");
                let command = &commands[chooser.below(commands.len())];
                let player = game.facts().players[seat].clone().expect("seated");
                apply(
                    &mut game,
                    &mut log,
                    seed,
                    &Actor::player(player),
                    command,
                    now,
                );
            }
            if out.is_empty() {
                // The game ended by its rules before the deadline passed.
                assert_eq!(game.facts().status, Status::Finished, "{id} round {round}");
                continue;
            }
            timeouts += 1;
            if seats == 2 || out.len() + 1 >= seats {
                assert_eq!(
                    game.facts().status,
                    Status::Finished,
                    "{id}: one seat left wins"
                );
            }
            let folded = kind.fold(&log).expect("the log folds");
            assert_eq!(folded.facts().version, game.facts().version);
            assert_eq!(folded.view(Viewer::Everyone), game.view(Viewer::Everyone));
            assert_eq!(folded.facts().clocks, game.facts().clocks);
        }
        assert!(timeouts >= 20, "{id}: most rounds reach their timeout");
    }
}
