//! The web client and a record broken at a half-turn, in a real browser: the import page shows
//! the error beside the half-turn and offers to import up to it; the replay and the game page
//! show where the game stops and why. Driven by `tests/browser/records.mjs` (see
//! `browser_harness`).

use crate::browser_harness;
use crate::common;

use common::TestApp;
use serde_json::Value;

#[test]
fn a_record_broken_at_a_half_turn_is_imported_up_to_it_and_marked_where_it_stops() {
    let app = TestApp::spawn();
    let result = browser_harness::run("records.mjs", &app.base);
    let id = result["game"].as_str().expect("the imported game's id");
    let get = |path: &str| -> Value {
        app.get(path, None)
            .send()
            .expect("GET")
            .json()
            .expect("json")
    };
    let game = get(&format!("/v1/games/{id}"));
    assert_eq!(game["status"], "finished");
    assert_eq!(game["outcome"]["winners"], serde_json::json!([]));
    let reason = game["outcome"]["reason"].as_str().expect("a reason");
    assert!(
        reason.starts_with("the record breaks at half-turn 5 (<b>Ke3</b>/b6): "),
        "{reason}"
    );
    assert_eq!(
        game["view"]["history"],
        serde_json::json!(["e4/a6", "Nf6/a3", "e5/h6", "Nd5/h3"])
    );
    let log = get(&format!("/v1/games/{id}/log"));
    let types: Vec<&str> = log["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["type"].as_str())
        .collect();
    assert!(types.contains(&"record_broken") && types.contains(&"annotated"));
    assert_eq!(get(&format!("/v1/games/{id}/audit"))["valid"], true);
    assert!(
        result["gameTurn"]
            .as_str()
            .is_some_and(|t| t.starts_with("Over: the record breaks at half-turn 5")),
        "{}",
        result["gameTurn"]
    );
    browser_harness::no_overflow_nor_unnamed(&result);
}
