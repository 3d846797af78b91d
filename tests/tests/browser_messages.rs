//! Words at a game in a real browser: two players talk beside the table and each sees the
//! other's message arrive with an unread count; a message goes with a move; one is deleted;
//! a watcher speaks in the spectators' room, unseen by the players; the replay shows each
//! message at its place. Driven by `tests/browser/messages.mjs` (see `browser_harness`).

use crate::browser_harness;
use crate::common;

use common::TestApp;
use serde_json::{json, Value};

#[test]
fn two_players_talk_beside_the_table_and_the_replay_shows_their_words() {
    let app = TestApp::spawn();
    let result = browser_harness::run("messages.mjs", &app.base);
    assert_eq!(result["benUnread"], "1 unread");
    assert_eq!(result["anaUnread"], "1 unread");
    let thread = result["benThread"].as_array().expect("Ben's thread");
    assert!(thread[0].as_str().is_some_and(|t| t.contains("deleted")));
    assert!(thread[1]
        .as_str()
        .is_some_and(|t| t.contains("Thanks, you too.\nI will play on Monday.")));
    assert!(thread[2]
        .as_str()
        .is_some_and(|t| t.contains("There is my first move.")));
    assert_eq!(result["replayAtMove"].as_array().map(Vec::len), Some(3));
    // What the pages showed is what the game holds: three messages at the table (the first
    // hidden), one in the spectators' room.
    let game = result["game"].as_str().expect("the game");
    let page: Value = app
        .get(&format!("/v1/games/{game}/events?limit=1000"), None)
        .send()
        .expect("GET events")
        .json()
        .expect("json");
    let said: Vec<(Value, bool)> = page["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "said")
        .map(|e| (e["data"]["room"].clone(), e["data"]["hidden"] == true))
        .collect();
    assert_eq!(
        said,
        vec![
            (json!("table"), true),
            (json!("table"), false),
            (json!("table"), false),
            (json!("spectators"), false),
        ]
    );
    // Ben's report from the page reached the operator: Ana's message, in this game.
    let listed: Value = app
        .admin_get("/reports")
        .send()
        .expect("GET /reports")
        .json()
        .expect("json");
    let reports = listed["reports"].as_array().expect("reports");
    assert_eq!(reports.len(), 1, "{listed}");
    assert_eq!(reports[0]["game"], result["game"], "{listed}");
    assert_eq!(reports[0]["author"], result["anaId"], "{listed}");
    // Muted from the page, Ana's words left Ben's thread; his own stayed.
    let muted = result["benMuted"]
        .as_array()
        .expect("Ben's thread after the mute");
    assert!(muted
        .iter()
        .all(|t| t.as_str().is_some_and(|t| !t.starts_with("Ana"))));
    browser_harness::no_overflow_nor_unnamed(&result);
}
