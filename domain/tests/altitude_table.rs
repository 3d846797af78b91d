//! Altitude through the type-erased registry, as the service drives it: JSON in and out.

use domain::engine::{Context, Viewer};
use domain::fairness::Seed;
use domain::table::Actor;
use domain::testing::test_time;
use domain::{LiveGame, Registry};
use serde_json::{json, Value};

fn play(game: &mut Box<dyn LiveGame>, player: &str, command: Value) -> Vec<String> {
    let ctx = Context::new(Seed([5; 32]), game.facts().version, test_time());
    let records = game
        .decide(&Actor::player(player), &command, &ctx)
        .unwrap_or_else(|e| panic!("{command} by {player}: {e}"));
    for record in &records {
        game.evolve(&record.payload).unwrap();
    }
    records.into_iter().map(|r| r.event_type).collect()
}

/// A game of 3 created with other deck counts, played with JSON commands: the deal, the
/// choices made at once, a turn of two commands, and a resignation the others play on from.
#[test]
fn a_game_is_played_through_the_registry_with_json_commands() {
    let registry = Registry::standard();
    let kind = registry.get("altitude").expect("altitude is registered");
    assert_eq!(kind.default_options()["avalanches"], 10);
    let refused = kind.create(None, Some(json!({"mountain_copies": 0, "animal_copies": 0, "cable_cars": 5, "avalanches": 0, "saint_bernards": 0})), 2, "c".into());
    assert_eq!(refused.unwrap_err().code().unwrap(), "invalid_setup");
    let created = kind
        .create(None, Some(json!({"avalanches": 4})), 3, "c".into())
        .unwrap();
    let mut game = kind.fold(&[created.payload]).unwrap();
    play(&mut game, "ann", json!({"type": "join"}));
    play(&mut game, "bea", json!({"type": "join"}));
    let started = play(&mut game, "cid", json!({"type": "join"}));
    assert!(started.contains(&"game.dealt".to_string()), "{started:?}");
    assert_eq!(game.facts().to_act, vec![0, 1, 2]);

    for (seat, player) in ["ann", "bea", "cid"].into_iter().enumerate() {
        let view = game.view(Viewer::Seat(seat));
        assert_eq!(view["phase"], "choosing");
        assert_eq!(view["hand"].as_array().unwrap().len(), 6);
        let others = (0..3).filter(|&s| s != seat);
        for other in others {
            assert!(view["players"][other]["hand"].is_null());
        }
        let legal = game.legal(seat);
        let returns = legal
            .iter()
            .filter(|l| l.command["type"] == "return_cards")
            .count();
        assert_eq!(returns, 15, "every pair of the 6 cards");
        play(&mut game, player, legal[0].command.clone());
    }
    assert_eq!(game.facts().to_act, vec![0]);
    let drew = play(&mut game, "ann", json!({"type": "draw"}));
    assert_eq!(drew, vec!["game.drew"]);
    assert!(!game.view(Viewer::Seat(0))["drawn"].is_null());
    assert!(game.view(Viewer::Seat(1))["drawn"].is_null());
    play(&mut game, "ann", json!({"type": "discard"}));
    play(&mut game, "bea", json!({"type": "draw"}));
    let resigned = play(&mut game, "bea", json!({"type": "resign"}));
    assert_eq!(resigned, vec!["resigned", "game.retired"]);
    assert_eq!(game.facts().to_act, vec![2]);
    let error = game
        .decide(
            &Actor::player("cid"),
            &json!({"type": "lay", "card": 9999, "at": {"floor": 1, "slot": 0}}),
            &Context::new(Seed([5; 32]), game.facts().version, test_time()),
        )
        .unwrap_err();
    assert_eq!(error.code().unwrap(), "illegal_command");
    let error = game
        .decide(
            &Actor::player("cid"),
            &json!({"type": "fly"}),
            &Context::new(Seed([5; 32]), game.facts().version, test_time()),
        )
        .unwrap_err();
    assert_eq!(error.code().unwrap(), "bad_command");
}
