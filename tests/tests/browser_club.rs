//! The club in a real browser: a player found by name and challenged from the lobby's waiting
//! room, the challenge accepted by the other player (the game starts), a resignation, the
//! rematch offered at the end, and both players' pages with their ratings moved and charted.
//! Driven by `tests/browser/club.mjs` (see `browser_harness`).

use crate::browser_harness;
use crate::common;

use common::TestApp;

#[test]
fn a_player_found_by_name_is_challenged_accepts_plays_and_both_ratings_move() {
    let app = TestApp::spawn();
    let result = browser_harness::run("club.mjs", &app.base);
    assert!(
        result["ratings"]["ann"]
            .as_str()
            .is_some_and(|r| r.starts_with("1662")),
        "{result}"
    );
    assert!(
        result["ratings"]["bo"]
            .as_str()
            .is_some_and(|r| r.starts_with("1338")),
        "{result}"
    );
    browser_harness::no_overflow_nor_unnamed(&result);
    let shots = result["screenshots"].as_array().expect("screenshots");
    assert_eq!(shots.len(), 6, "{shots:?}");
}
