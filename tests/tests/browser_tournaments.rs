//! A tournament in a real browser: entry and withdrawal from its page, the start by its
//! creator, and the crosstable and standings the page draws checked cell by cell against the
//! games played (mid-event and at the end), each finished game linked to its replay. axe on the
//! tournament page. Driven by `tests/browser/tournament.mjs` (see `browser_harness`).

use crate::browser_harness;
use crate::common;

use common::TestApp;
use serde_json::json;

#[test]
fn a_round_robin_entered_and_started_from_the_page_shows_its_crosstable() {
    let app = TestApp::spawn();
    let result = browser_harness::run("tournament.mjs", &app.base);
    assert_eq!(result["games"], 10, "{result}");
    assert_eq!(result["rounds"], 3, "{result}");
    assert_eq!(result["axe"]["tournament"], json!([]), "{result}");
    browser_harness::no_overflow_nor_unnamed(&result);
    assert_eq!(result["screenshots"].as_array().map(Vec::len), Some(6));
    // The standings name the players and give the winner all three points.
    let first = &result["standings"][0];
    assert!(
        first[1].as_str().is_some_and(|n| n.starts_with("Ann #")),
        "{result}"
    );
    assert_eq!(first[2], "3", "{result}");
    eprintln!("CROSSTABLE {}", result["crosstable"]);
}
