//! For each game: players with their own tokens play a complete game through `legal` and
//! `commands` only, to a result.

use crate::common;

use common::play::play_to_end;
use common::TestApp;
use serde_json::{json, Value};

fn complete(kind: &str, seats: usize, extra: Value, max_commands: usize) {
    let app = TestApp::spawn();
    let (id, players) = app.full_game(kind, seats, extra);
    let mut last_version = app.game(None, &id)["version"].as_u64().unwrap();
    let end = play_to_end(&app, &id, &players, 7, max_commands, |answer| {
        let version = answer["version"].as_u64().unwrap();
        assert!(version > last_version, "every command adds events");
        assert_eq!(
            answer["events"].as_array().unwrap().last().unwrap()["version"],
            version
        );
        last_version = version;
    });
    assert_eq!(end["status"], "finished", "{kind} reached no result: {end}");
    let outcome = &end["outcome"];
    assert!(outcome["reason"].is_string(), "{end}");
    assert!(end["seed"].is_string(), "the seed is revealed at the end");
    let events = app.events(None, &id, 0);
    let types: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(types.first(), Some(&"created"));
    // Every game decides its end by its rules as an event, which the table's `finished`
    // follows (Ski Runs, Altitude and Vamanos since their revisions 3, 3 and 2).
    assert!(
        types.ends_with(&["game.game_ended", "finished", "seed_revealed"]),
        "{types:?}"
    );
    assert_eq!(types.len() as u64, end["version"].as_u64().unwrap());
}

#[test]
fn a_complete_game_of_avalanche() {
    complete("avalanche", 3, json!({}), 2_000);
}

#[test]
fn a_complete_game_of_ski_runs() {
    complete("ski-runs", 2, json!({}), 2_000);
}

#[test]
fn a_complete_game_of_vamanos() {
    // A lower target than the rules' 500 (a create option) keeps random play short.
    complete("vamanos", 3, json!({"options": {"target": 30}}), 5_000);
}

#[test]
fn a_complete_game_of_altitude() {
    complete("altitude", 2, json!({}), 2_000);
}

#[test]
fn a_complete_solitaire_of_altitude() {
    complete("altitude", 1, json!({}), 2_000);
}

#[test]
fn a_complete_game_of_avalanche_chess() {
    complete("avalanche-chess", 2, json!({}), 2_000);
}

#[test]
fn a_complete_game_of_balanced_reversed_avalanche_chess() {
    complete(
        "avalanche-chess",
        2,
        json!({"variant": "balanced-reversed"}),
        2_000,
    );
}
