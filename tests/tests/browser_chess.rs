//! The web client in a real browser: two players sign up, meet in the lobby and play Avalanche
//! Chess to checkmate by clicking, while a spectator watches; then replay, audit, export,
//! import and fork. Driven by `tests/browser/chess.mjs` (see `browser_harness`).

use crate::browser_harness;
use crate::common;

use common::TestApp;
use serde_json::Value;

/// "all the client's files together stay under 180 KB uncompressed (160 KB before the club's pages)"
#[test]
fn the_web_client_is_lighter_than_180_kb_and_served_with_a_strict_policy() {
    let total: usize = api::routes::web::files().map(|(_, size)| size).sum();
    assert!(total < 180 * 1024, "the client weighs {total} bytes");
    let app = &TestApp::spawn();
    let page = app.get("/", None).send().expect("GET /");
    assert_eq!(page.status(), 200);
    let policy = page.headers()["content-security-policy"]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"));
    assert!(page.headers()["content-type"]
        .to_str()
        .expect("ascii")
        .starts_with("text/html"));
    let html = page.text().expect("body");
    assert!(html.contains(r#"<script type="module" src="/app.js"></script>"#));
    for (path, kind) in [
        ("/app.js", "text/javascript"),
        ("/style.css", "text/css"),
        ("/tables/avalanche-chess.js", "text/javascript"),
    ] {
        let answer = app.get(path, None).send().expect("GET a file");
        assert_eq!(answer.status(), 200, "{path}");
        assert!(answer.headers()["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with(kind));
        let etag = answer.headers()["etag"].clone();
        let again = app
            .get(path, None)
            .header("if-none-match", etag)
            .send()
            .expect("GET again");
        assert_eq!(again.status(), 304, "{path} is revalidated, not sent again");
    }
    // Sent compressed, with a validator that holds whatever the encoding.
    let packed = app
        .get("/app.js", None)
        .header("accept-encoding", "gzip")
        .send()
        .expect("GET compressed");
    assert_eq!(packed.status(), 200);
    assert_eq!(packed.headers()["content-encoding"], "gzip");
    let vary = packed.headers()["vary"]
        .to_str()
        .expect("ascii")
        .to_lowercase();
    assert!(vary.contains("accept-encoding"), "{vary}");
    let etag = packed.headers()["etag"].clone();
    let raw = api::routes::web::file("app.js").expect("app.js").0.len();
    let sent = packed.bytes().expect("body").len();
    assert!(sent * 2 < raw, "{sent} bytes sent for {raw}");
    let again = app
        .get("/app.js", None)
        .header("accept-encoding", "gzip")
        .header("if-none-match", etag)
        .send()
        .expect("GET again");
    assert_eq!(again.status(), 304);
    let missing = app.get("/nothing.js", None).send().expect("GET");
    assert_eq!(missing.status(), 404);
}

#[test]
fn two_players_meet_in_the_lobby_and_play_to_checkmate_while_a_spectator_watches() {
    let app = TestApp::spawn();
    let result = browser_harness::run("chess.mjs", &app.base);

    // The server agrees with what the pages showed: Bruno (Black, seat 1) mated.
    let id = result["game"].as_str().expect("the game's id");
    let game: Value = app
        .get(&format!("/v1/games/{id}"), None)
        .send()
        .expect("GET game")
        .json()
        .expect("json");
    assert_eq!(game["status"], "finished");
    assert_eq!(game["outcome"]["winners"], serde_json::json!([1]));
    assert_eq!(
        game["view"]["history"],
        serde_json::json!(["g4/e6", "Qh4/f3#"])
    );
    assert_eq!(game["view"]["result"]["reason"], "checkmate");
    // The first turn was played by keyboard (arrows, Enter, the push by its square), the mate
    // by clicking the push square on the board.
    assert_eq!(result["keyboardTurn"], true);
    assert_eq!(result["pushSquareClicked"], true);

    // Three versions of the replay were checked against states/{version}.
    let replay = result["replay"].as_array().expect("replay checks");
    assert!(replay.len() >= 3, "{replay:?}");
    // The imported record is a game of its own; the fork too.
    assert_ne!(result["imported"], result["game"]);
    assert_ne!(result["fork"], result["game"]);
    // Every control has an accessible name; nothing overflows 375 px.
    named_and_narrow(&result);
    for shot in result["screenshots"].as_array().expect("screenshots") {
        let path = shot.as_str().expect("a path");
        assert!(std::path::Path::new(path).exists(), "{path}");
    }
    // "a game page is drawn within 200 ms on localhost": measured here and written in
    // BENCHMARKS.md, not asserted, since a wall-clock bound fails on a busy machine (speed is
    // judged from measurements, never from a timed test). That the page was drawn at all, seven
    // times, is asserted.
    let times: Vec<f64> = result["drawMs"]
        .as_array()
        .expect("draw times")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    let median = browser_harness::median(&times);
    assert_eq!(times.len(), 7, "seven loads of the game page were timed");
    println!("game page drawn in {times:?} ms (median {median:.0} ms)");
}

#[test]
fn a_push_that_loses_at_once_is_named_and_asks_before_it_is_sent() {
    let app = TestApp::spawn();
    let result = browser_harness::run("losing.mjs", &app.base);
    let game = app.game(None, result["game"].as_str().expect("the game's id"));
    // The warning came, and nothing was played: the game goes on at the version it had.
    assert_eq!(game["status"], "active", "{game}");
    assert_eq!(game["version"], result["version"], "{game}");
    let warning = result["warning"].as_str().expect("the warning's text");
    assert!(warning.contains("loses at once"), "{warning}");
    named_and_narrow(&result);
    println!("screenshots: {}", result["screenshots"]);
}

/// Every control the script checked has an accessible name, and no screenshot scrolls
/// sideways (375 px wide).
fn named_and_narrow(result: &Value) {
    for (page, unnamed) in result["unnamed"].as_object().expect("checked pages") {
        assert_eq!(
            unnamed,
            &serde_json::json!([]),
            "{page}: controls without a name"
        );
    }
    for (shot, overflow) in result["overflow"].as_object().expect("overflow") {
        assert!(
            overflow.as_f64() <= Some(0.0),
            "{shot} scrolls sideways by {overflow}"
        );
    }
}
