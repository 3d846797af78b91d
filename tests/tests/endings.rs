//! The result where a client looks for it: once a game is over, its view says so as its
//! `outcome` does, however it ended. A resignation, an agreed draw, a timeout and a takeback
//! end a game at the table, not by its rules; the view shows them all the same.

use crate::common;

use common::play::{play_first, SendOk};
use common::{ok_json, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn play(app: &TestApp, id: &str, player: &Player, command: Value) -> Value {
    ok_json(app.play(player, id, &command).send_ok(), StatusCode::OK)
}

/// Checks that the game's view, read every way a client reads it (the game, its state at its
/// last version, its audit), shows `result` and nobody to act; returns the game.
fn assert_chess_result(app: &TestApp, id: &str, result: Value) -> Value {
    let game = app.game(None, id);
    assert_eq!(game["status"], "finished", "{game}");
    let version = game["version"].as_u64().unwrap();
    let state = ok_json(
        app.get(&format!("/v1/games/{id}/states/{version}"), None)
            .send(),
        StatusCode::OK,
    );
    let audit = ok_json(
        app.get(&format!("/v1/games/{id}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "{audit}");
    for view in [&game["view"], &state["view"], &audit["report"]["view"]] {
        assert_eq!(view["result"], result, "{view}");
        assert_eq!(view["phase"], "over", "{view}");
        assert!(view["seat_to_act"].is_null() && view["side_to_act"].is_null());
    }
    game
}

#[test]
fn a_resignation_in_chess_is_the_result_in_the_view() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    play_first(&app, &id, &players[0]);
    play(&app, &id, &players[1], json!({"type": "resign"}));
    let game = assert_chess_result(&app, &id, json!({"winner": 0, "reason": "resigned"}));
    assert_eq!(game["outcome"]["winners"], json!([0]));
}

#[test]
fn an_agreed_draw_in_chess_is_the_result_in_the_view() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    play_first(&app, &id, &players[0]);
    play(&app, &id, &players[1], json!({"type": "offer_draw"}));
    play(&app, &id, &players[0], json!({"type": "accept_draw"}));
    let game = assert_chess_result(&app, &id, json!({"winner": null, "reason": "draw_agreed"}));
    assert_eq!(game["outcome"]["draw"], true);
}

#[test]
fn a_timeout_in_chess_is_the_result_in_the_view() {
    let app = TestApp::spawn();
    let timed = json!({"time_control": {"type": "seconds_per_move", "seconds": 3}});
    let (id, players) = app.full_game("avalanche-chess", 2, timed);
    play_first(&app, &id, &players[0]);
    // Black lets the deadline pass: the server records the timeout by itself.
    let start = Instant::now();
    while app.game(None, &id)["status"] != "finished" {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the timeout is recorded"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let game = assert_chess_result(&app, &id, json!({"winner": 0, "reason": "timed_out"}));
    assert_eq!(game["outcome"]["winners"], json!([0]));
}

#[test]
fn a_chess_game_superseded_by_a_takeback_says_so_in_its_result() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    play_first(&app, &id, &players[0]);
    play_first(&app, &id, &players[1]);
    play(&app, &id, &players[0], json!({"type": "request_takeback"}));
    play(&app, &id, &players[1], json!({"type": "accept_takeback"}));
    let game = assert_chess_result(&app, &id, json!({"winner": null, "reason": "superseded"}));
    assert_eq!(game["outcome"]["winners"], json!([]));
}

/// How each game's view shows that it is over and nobody acts; a new game must say how.
fn assert_over(kind: &str, view: &Value) {
    match kind {
        "avalanche-chess" => {
            assert_eq!(view["result"], json!({"winner": 1, "reason": "resigned"}));
            assert_eq!(view["phase"], "over");
        }
        "avalanche" => {
            assert_eq!(view["phase"], "over");
            assert!(view["turn"].is_null());
            assert_eq!(view["snow_fall_allowed"], false);
        }
        "ski-runs" => {
            assert_eq!(view["end"], "resigned");
            assert!(view["turn"].is_null());
        }
        "vamanos" => {
            assert_eq!(view["phase"], "over");
            assert_eq!(view["to_act"], json!([]));
            assert_eq!(view["may_draw"], false);
        }
        "altitude" => {
            assert_eq!(view["phase"], "over");
            assert_eq!(view["to_act"], json!([]));
            assert!(view["turn"].is_null());
        }
        other => panic!("say how the view of {other} shows a game the table ended"),
    }
}

#[test]
fn every_game_shows_in_its_view_that_a_resignation_ended_it() {
    let app = TestApp::spawn();
    let kinds = ok_json(app.get("/v1/kinds", None).send(), StatusCode::OK);
    for kind in kinds["items"].as_array().unwrap() {
        let kind = kind["id"].as_str().unwrap();
        let (id, players) = app.full_game(kind, 2, json!({}));
        let running = app.game(None, &id);
        assert_eq!(running["status"], "active", "{kind}");
        play(&app, &id, &players[0], json!({"type": "resign"}));
        let game = app.game(Some(&players[1]), &id);
        assert_eq!(game["status"], "finished", "{kind}");
        assert_eq!(game["outcome"]["winners"], json!([1]), "{kind}");
        assert!(game["to_act"].as_array().unwrap().is_empty(), "{kind}");
        assert_over(kind, &game["view"]);
    }
}
