//! `play_random_log` plays every game at the table as the service does, and the log it records
//! folds back into a game at the log's last version.

use domain::testing::play_random_log;
use domain::{Registry, Seed};
use serde_json::json;

#[test]
fn a_random_log_of_every_kind_folds_back_to_its_last_version() {
    let registry = Registry::standard();
    for id in registry.ids() {
        let kind = registry.get(&id).expect("registered");
        let options = (id == "vamanos").then(|| json!({"target": 30}));
        let log = play_random_log(kind, None, options, 2, Seed([3; 32]), 1, 300)
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(log.commands.len() > 2, "{id}: the joins and some moves");
        let payloads = log.payloads();
        let versions: Vec<u64> = log.events.iter().map(|e| e.version).collect();
        assert_eq!(
            versions,
            (1..=payloads.len() as u64).collect::<Vec<_>>(),
            "{id}: gapless"
        );
        let folded = kind.fold(&payloads).expect("folds");
        assert_eq!(folded.facts().version, payloads.len() as u64, "{id}");
        assert_eq!(log.kind, id);
    }
}

/// The service folds the events it decides from their typed form (`evolve_record`), and a
/// restarted server folds them from their stored payloads (`evolve`): in random games of
/// every kind, the two are the same game at every step, for every viewer; and each event
/// redacted from its typed form (`redact_record`) is the event redacted from its payload.
#[test]
fn a_game_folded_from_its_typed_events_is_the_game_folded_from_their_payloads() {
    use domain::registry::LiveGame;
    use domain::table::{Actor, Status};
    use domain::testing::{game_commands, test_time, viewers};
    use domain::{Context, Viewer};
    let registry = Registry::standard();
    let (mut steps, mut redacted) = (0, 0);
    for id in registry.ids() {
        let kind = registry.get(&id).expect("registered");
        for game_number in 0..8u64 {
            let seed = Seed([game_number as u8 + 40; 32]);
            let mut picker = Seed([0x3c; 32]).dealer(game_number);
            let created = kind
                .create(None, None, 2, seed.commitment())
                .expect("a valid setup");
            let mut stored = kind
                .fold(std::slice::from_ref(&created.payload))
                .expect("created folds");
            let mut typed: Box<dyn LiveGame> = stored.clone_box();
            // The joins, seat 0's first, then the random play.
            let mut joins = vec![
                ("p1".to_string(), json!({"type": "join", "seat": 1})),
                ("p0".to_string(), json!({"type": "join", "seat": 0})),
            ];
            for step in 0..400u64 {
                let (player, command) = match joins.pop() {
                    Some(join) => join,
                    None => {
                        if stored.facts().status == Status::Finished {
                            break;
                        }
                        let to_act = stored.facts().to_act;
                        let seat =
                            to_act[picker.uniform_inclusive(to_act.len() as u32 - 1) as usize];
                        let legal = game_commands(stored.as_ref(), seat);
                        let pick = picker.uniform_inclusive(legal.len() as u32 - 1) as usize;
                        (format!("p{seat}"), legal[pick].clone())
                    }
                };
                let ctx = Context::new(seed, stored.facts().version, test_time());
                let events = stored
                    .decide(&Actor::player(player), &command, &ctx)
                    .unwrap_or_else(|e| panic!("{id}: {command} refused: {e}"));
                for event in &events {
                    // The answer shows a player its events redacted from their typed form;
                    // reading them back from their payloads must show the same.
                    for viewer in viewers(2).into_iter().chain([Viewer::Everyone]) {
                        assert_eq!(
                            typed.redact_record(event, viewer),
                            stored.redact(&event.payload, viewer),
                            "{id} game {game_number} step {step}: {viewer:?}"
                        );
                    }
                    redacted += 1;
                    stored
                        .evolve(&event.payload)
                        .expect("folds from its payload");
                    typed
                        .evolve_record(event)
                        .expect("folds from its typed event");
                }
                assert_eq!(typed.facts().version, stored.facts().version, "{id}");
                assert_eq!(typed.facts().status, stored.facts().status, "{id}");
                for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
                    assert_eq!(
                        typed.view(viewer),
                        stored.view(viewer),
                        "{id} game {game_number} step {step}: {viewer:?}"
                    );
                }
                for seat in 0..2 {
                    assert_eq!(typed.legal(seat), stored.legal(seat), "{id} step {step}");
                }
                steps += 1;
            }
        }
    }
    assert!(steps > 2_000, "only {steps} steps were compared");
    assert!(
        redacted > 2_000,
        "only {redacted} events were redacted both ways"
    );
}
