//! The web table as correspondence players use it, in a real browser through the pages' own
//! controls: every kind created through the New game form (nested options as their own
//! fields) and cancelled by its creator; an invitation accepted by a person without an account;
//! a takeback asked, withdrawn, declined and accepted, followed by both pages to the game that
//! goes on; moves typed; the replay by its move list; out of sight (title count, notification,
//! the banner when the server cannot be reached); and axe-core on every page. Driven by
//! `tests/browser/{create,correspondence,axe}.mjs` (see `browser_harness`).

use crate::browser_harness;
use crate::common;

use common::TestApp;
use serde_json::Value;

#[test]
fn every_kind_is_created_through_the_form_and_an_invited_friend_signs_up_and_takes_the_seat() {
    let app = TestApp::spawn();
    let result = browser_harness::run("create.mjs", &app.base);
    let created = result["created"].as_object().expect("created games");
    for kind in [
        "avalanche-chess",
        "avalanche",
        "ski-runs",
        "vamanos",
        "altitude",
    ] {
        assert!(
            created.contains_key(kind),
            "{kind} was created: {created:?}"
        );
    }
    // Ski Runs's deck is drawn as one field per card kind.
    let fields = created["ski-runs"]["fields"].as_array().expect("fields");
    assert!(
        fields.iter().any(|f| f == "deck.lift"),
        "the deck's own fields: {fields:?}"
    );
    let invited = result["invited"].as_str().expect("the invited game");
    let game: Value = app
        .get(&format!("/v1/games/{invited}"), None)
        .send()
        .expect("GET game")
        .json()
        .expect("json");
    assert_eq!(game["status"], "active");
    assert_eq!(game["seats"][1]["player_name"], "Cleo");
    browser_harness::no_overflow_nor_unnamed(&result);
}

#[test]
fn a_takeback_is_followed_by_both_players_and_the_game_reads_as_one() {
    let app = TestApp::spawn();
    let result = browser_harness::run("correspondence.mjs", &app.base);
    let old = result["superseded"].as_str().expect("the superseded game");
    let id = result["game"].as_str().expect("the game that went on");
    let get = |id: &str| -> Value {
        app.get(&format!("/v1/games/{id}"), None)
            .send()
            .expect("GET game")
            .json()
            .expect("json")
    };
    assert_eq!(get(old)["continued_in"], id);
    let game = get(id);
    assert_eq!(game["outcome"]["winners"], serde_json::json!([0]));
    assert_eq!(result["final"], "Ana won: Ben resigned.");
    assert!(
        result["notified"].as_array().is_some_and(|n| !n.is_empty()),
        "a notification was shown: {}",
        result["notified"]
    );
    assert!(result["hiddenTitle"]
        .as_str()
        .is_some_and(|t| t.starts_with("(1) Your turn")));
    browser_harness::no_overflow_nor_unnamed(&result);
}

#[test]
fn axe_finds_no_serious_or_critical_violation_on_any_page() {
    let app = TestApp::spawn();
    let result = browser_harness::run("axe.mjs", &app.base);
    let pages = result["pages"].as_object().expect("pages checked");
    assert!(pages.len() >= 20, "{pages:?}");
    assert_eq!(
        result["violations"],
        serde_json::json!({}),
        "serious or critical violations"
    );
    // Each table, light at 1280 px and dark at 375 px, fits its width.
    for (shot, overflow) in result["overflow"].as_object().expect("overflow") {
        assert!(
            overflow.as_f64() <= Some(0.0),
            "{shot} scrolls sideways by {overflow}"
        );
    }
    // The rule outside axe's default set (a control's name holds its visible text) ran where
    // controls are named apart from their text: Vamanos's pile, the lobby's Join buttons.
    let checked = result["nameHoldsText"].as_array().expect("pages");
    for page in ["light:game-vamanos", "dark:game-vamanos", "light:lobby"] {
        assert!(
            checked.iter().any(|p| p == page),
            "the name/visible-text rule ran on {page}: {checked:?}"
        );
    }
}
