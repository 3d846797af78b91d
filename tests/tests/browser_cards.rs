//! The card tables in a real browser: for Avalanche, Ski Runs, Vamanos and Altitude (and the
//! Altitude solitaire), one browser context per seat plays a whole game to a result by clicking
//! what its page offers while a spectator watches; every page follows the game live, Vamanos's
//! seats play at the same time, and no page ever holds another seat's hand or an undrawn card,
//! in its DOM or in any answer it received. Driven by `tests/browser/table-<kind>.mjs` and
//! `cards.mjs` (see `browser_harness`); screenshots go to `target/screenshots/`.

use crate::browser_harness;
use crate::common;

use common::binary::Server;
use serde_json::Value;
use std::sync::Mutex;

/// One browser game at a time: the machine that runs CI has two cores.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Plays `script` against a fresh server and checks the result against the server's record.
fn a_whole_game_in_the_browser(script: &str, kind: &str, seats: usize) -> Value {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("temporary directory");
    let server = Server::start(dir.path(), &[]);
    let result = browser_harness::run(script, &server.app.base);
    let id = result["game"].as_str().expect("the game's id");
    let game: Value = server
        .app
        .get(&format!("/v1/games/{id}"), None)
        .send()
        .expect("GET game")
        .json()
        .expect("json");
    assert_eq!(game["kind"], kind);
    assert_eq!(game["status"], "finished", "{game}");
    assert_eq!(game["seats"].as_array().map(Vec::len), Some(seats));
    assert_eq!(
        game["version"], result["version"],
        "the pages saw the last version"
    );
    let audit: Value = server
        .app
        .get(&format!("/v1/games/{id}/audit"), None)
        .send()
        .expect("GET audit")
        .json()
        .expect("json");
    assert_eq!(audit["valid"], true, "{audit}");
    assert!(
        result["snapshots"].as_u64() > Some(2) && result["answers"].as_u64() > Some(10),
        "secrecy was checked on too little: {result}"
    );
    let shots = result["screenshots"].as_array().expect("screenshots");
    assert!(shots.len() >= 4, "{shots:?}");
    for shot in shots {
        let path = shot.as_str().expect("a path");
        assert!(std::path::Path::new(path).exists(), "{path}");
    }
    println!(
        "{kind}: {} actions by clicking, {} DOM snapshots and {} answers checked for secrets",
        result["actions"], result["snapshots"], result["answers"]
    );
    result
}

#[test]
fn avalanche_two_seats_play_to_the_end_by_clicking_and_never_see_each_others_hands() {
    let result = a_whole_game_in_the_browser("table-avalanche.mjs", "avalanche", 2);
    assert!(result["actions"].as_u64() > Some(10), "{result}");
}

#[test]
fn ski_runs_two_seats_draw_play_and_bank_to_the_end_by_clicking() {
    let result = a_whole_game_in_the_browser("table-ski-runs.mjs", "ski-runs", 2);
    assert!(result["actions"].as_u64() > Some(10), "{result}");
}

#[test]
fn vamanos_both_seats_play_at_the_same_time_until_alta_ends_the_game() {
    a_whole_game_in_the_browser("table-vamanos.mjs", "vamanos", 2);
}

#[test]
fn altitude_two_seats_build_their_mountains_to_the_end_by_clicking() {
    let result = a_whole_game_in_the_browser("table-altitude.mjs", "altitude", 2);
    assert!(result["actions"].as_u64() > Some(10), "{result}");
}

#[test]
fn altitude_solitaire_is_played_to_its_score_with_one_seat() {
    let result = a_whole_game_in_the_browser("table-altitude-solitaire.mjs", "altitude", 1);
    assert!(result["outcome"]["scores"].is_array(), "{result}");
}
