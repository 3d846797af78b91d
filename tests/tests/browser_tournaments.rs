//! Tournaments in a real browser: entry and withdrawal from a tournament's page and from the
//! lobby, the start by its creator, and the crosstable and standings the page draws checked cell
//! by cell against the games played (mid-event and at the end, a league's by division), with
//! the tie-breaks named; each finished game linked to its replay; a league's moves between
//! editions and the links from one edition to the other. axe on the tournament pages. Driven by
//! `tests/browser/tournament.mjs` and `tests/browser/league.mjs` (see `browser_harness`).

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

#[test]
fn a_league_entered_from_the_lobby_shows_its_divisions_moves_and_editions() {
    let app = TestApp::spawn();
    let result = browser_harness::run("league.mjs", &app.base);
    assert_eq!(result["games"], 9, "{result}");
    assert_eq!(result["axe"]["edition"], json!([]), "{result}");
    browser_harness::no_overflow_nor_unnamed(&result);
    assert_eq!(result["screenshots"].as_array().map(Vec::len), Some(6));
    assert_eq!(
        result["standingsHeads"],
        json!([
            "#",
            "Player",
            "Points",
            "Sonneborn-Berger",
            "Head-to-head",
            "Games"
        ])
    );
    // Divisions of four and three; the moves: one up, one down, one left, one new.
    let sizes: Vec<usize> = result["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|d| d.as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(sizes, vec![4, 3], "{result}");
    assert_eq!(
        result["moves"].as_array().map(Vec::len),
        Some(4),
        "{result}"
    );
    eprintln!("MOVES {}", result["moves"]);
}
