//! Correspondence clocks over HTTP: "Each seat that must act has a deadline, shown in
//! the game summary and in `GET /v1/players/me/games?turn=mine`, which lists the most urgent
//! first"; "once a deadline passes, the opponent may claim the win (a table command) and the
//! server itself records the timeout (an event from the system actor) within a few seconds of
//! the deadline, even if nobody calls"; "while on vacation their deadlines stand still".
//!
//! These tests wait for real deadlines of one or two seconds; they assert what happened, never
//! how long it took (beyond a generous limit for "by itself").

use crate::common;

use common::{ok_json, problem, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn timed(seconds: u64) -> Value {
    json!({"time_control": {"type": "seconds_per_move", "seconds": seconds}})
}

/// Polls the game until `done` holds, for at most `limit`.
fn wait_for(
    app: &TestApp,
    id: &str,
    limit: Duration,
    done: impl Fn(&Value) -> bool,
) -> Option<Value> {
    let start = Instant::now();
    while start.elapsed() < limit {
        let game = app.game(None, id);
        if done(&game) {
            return Some(game);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

fn event_types(app: &TestApp, id: &str) -> Vec<(String, String)> {
    app.events(None, id, 0)["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap_or("?").to_string(),
                e["actor"].as_str().unwrap_or("?").to_string(),
            )
        })
        .collect()
}

#[test]
fn a_game_with_a_2_second_control_times_out_by_itself() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, timed(2));
    let game = app.game(Some(&players[0]), &id);
    assert_eq!(
        game["time_control"],
        json!({"type": "seconds_per_move", "seconds": 2})
    );
    assert_eq!(game["seats"][0]["clock"]["state"], "running");
    assert_eq!(game["seats"][1]["clock"]["state"], "idle");
    assert_eq!(game["deadline"], game["seats"][0]["clock"]["deadline"]);
    // Black's summary has no deadline of its own: it is not Black's move.
    assert!(app.game(Some(&players[1]), &id)["deadline"].is_null());

    // A claim before the deadline is refused.
    let early = app.play(&players[1], &id, &json!({"type": "claim_timeout"}));
    assert_eq!(problem(early, StatusCode::CONFLICT), "no_timeout");

    // Nobody calls: the server records the timeout by itself.
    let over = wait_for(&app, &id, Duration::from_secs(10), |g| {
        g["status"] == "finished"
    })
    .expect("the game timed out by itself");
    assert_eq!(over["outcome"]["winners"], json!([1]));
    assert_eq!(over["outcome"]["reason"], "seat 0 ran out of time");
    let events = event_types(&app, &id);
    let timed_out = events
        .iter()
        .position(|(t, _)| t == "timed_out")
        .expect("a timed_out event");
    assert_eq!(events[timed_out].1, "system");
    assert_eq!(events[timed_out + 1].0, "finished");
    assert_eq!(events[timed_out + 2].0, "seed_revealed");

    // A late move is refused; the stored log, timeout included, passes the audit.
    let late = app.play(
        &players[0],
        &id,
        &json!({"type": "turn", "move": "e4", "push": "a6"}),
    );
    assert_eq!(problem(late, StatusCode::CONFLICT), "game_over");
    let audit = ok_json(
        app.get(&format!("/v1/games/{id}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "{audit}");
}

#[test]
fn the_opponent_may_claim_the_win_once_the_deadline_passes() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, timed(1));
    // Race the server's own look: either the claim wins, or the server was first.
    std::thread::sleep(Duration::from_millis(1100));
    let claim = app.play(&players[1], &id, &json!({"type": "claim_timeout"}));
    let status = claim.status();
    let body: Value = claim.json().expect("json");
    let game = app.game(None, &id);
    assert_eq!(game["status"], "finished");
    assert_eq!(game["outcome"]["winners"], json!([1]));
    if status == StatusCode::OK {
        assert_eq!(body["events"][0]["type"], "timed_out");
        assert_eq!(body["events"][0]["actor"], "seat:1");
    } else {
        assert_eq!(body["code"], "game_over", "{body}");
    }
}

#[test]
fn moving_in_time_passes_the_clock_to_the_opponent() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, timed(60));
    let before = app.game(None, &id)["seats"][0]["clock"]["deadline"].clone();
    let legal = app.legal(&players[0], &id);
    let command = legal["commands"][0]["command"].clone();
    let answer = ok_json(Ok(app.play(&players[0], &id, &command)), StatusCode::OK);
    let types: Vec<&str> = answer["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(types.last(), Some(&"clock_set"));
    let game = app.game(None, &id);
    assert_eq!(game["seats"][0]["clock"]["state"], "idle");
    assert_eq!(game["seats"][1]["clock"]["state"], "running");
    assert!(!before.is_null());
}

#[test]
fn a_time_control_out_of_range_is_refused() {
    let app = TestApp::spawn();
    let bea = app.create_player("Bea");
    for control in [
        json!({"type": "days_per_move", "days": 15}),
        json!({"type": "days_per_move", "days": 0}),
        json!({"type": "seconds_per_move", "seconds": 0}),
    ] {
        let response = app
            .post("/v1/games", Some(&bea))
            .json(&json!({"kind": "avalanche-chess", "seats": 2, "time_control": control}))
            .send()
            .expect("request");
        assert_eq!(problem(response, StatusCode::BAD_REQUEST), "invalid_setup");
    }
    let unknown = app
        .post("/v1/games", Some(&bea))
        .json(
            &json!({"kind": "avalanche-chess", "seats": 2, "time_control": {"type": "hourglass"}}),
        )
        .send()
        .expect("request");
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
}

fn vacation(
    app: &TestApp,
    player: &Player,
    method: reqwest::Method,
) -> reqwest::blocking::Response {
    app.client
        .request(method, app.url("/v1/players/me/vacation"))
        .bearer_auth(&player.token)
        .send()
        .expect("request")
}

#[test]
fn vacation_stops_the_clock_and_starts_it_again() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, timed(2));
    let white = &players[0];

    let shown = vacation(&app, white, reqwest::Method::POST);
    assert_eq!(shown.status(), StatusCode::OK);
    let shown: Value = shown.json().unwrap();
    assert_eq!(shown["on_vacation"], true);
    assert_eq!(shown["allowance_seconds"], 30 * 86_400);
    let again = vacation(&app, white, reqwest::Method::POST);
    assert_eq!(problem(again, StatusCode::CONFLICT), "already_on_vacation");

    let game = app.game(None, &id);
    assert_eq!(game["seats"][0]["on_vacation"], true);
    assert_eq!(game["seats"][0]["clock"]["state"], "paused");
    let left = game["seats"][0]["clock"]["remaining_ms"].as_u64().unwrap();
    assert!(left > 0 && left <= 2000, "{left}");

    // Well past the deadline the game has not timed out: the clock stands still.
    std::thread::sleep(Duration::from_millis(3000));
    let game = app.game(Some(white), &id);
    assert_eq!(game["status"], "active");
    assert_eq!(
        game["seats"][0]["clock"]["remaining_ms"].as_u64(),
        Some(left)
    );
    let claim = app.play(&players[1], &id, &json!({"type": "claim_timeout"}));
    assert_eq!(problem(claim, StatusCode::CONFLICT), "no_timeout");

    let back = vacation(&app, white, reqwest::Method::DELETE);
    assert_eq!(back.status(), StatusCode::OK);
    let back: Value = back.json().unwrap();
    assert_eq!(back["on_vacation"], false);
    assert!(back["used_seconds"].as_i64().unwrap() >= 3);
    let game = app.game(None, &id);
    assert_eq!(game["seats"][0]["clock"]["state"], "running");
    assert!(game["seats"][0]["on_vacation"].is_null());

    // The clock runs again with the time that was left, and then runs out.
    let over = wait_for(&app, &id, Duration::from_secs(10), |g| {
        g["status"] == "finished"
    })
    .expect("the clock ran again");
    assert_eq!(over["outcome"]["winners"], json!([1]));
    let types: Vec<String> = event_types(&app, &id).into_iter().map(|(t, _)| t).collect();
    let started = types.iter().position(|t| t == "vacation_started").unwrap();
    let ended = types.iter().position(|t| t == "vacation_ended").unwrap();
    let timed_out = types.iter().position(|t| t == "timed_out").unwrap();
    assert!(started < ended && ended < timed_out, "{types:?}");
    let not_away = vacation(&app, white, reqwest::Method::DELETE);
    assert_eq!(problem(not_away, StatusCode::CONFLICT), "not_on_vacation");
}

#[test]
fn a_game_that_starts_while_a_player_is_away_waits_for_them() {
    let app = TestApp::spawn();
    let bea = app.create_player("Bea");
    let cem = app.create_player("Cem");
    let mut body = json!({"kind": "avalanche-chess", "seats": 2, "seat": 0});
    body["time_control"] = timed(1)["time_control"].clone();
    let id = app.create_game(&bea, body);
    assert_eq!(
        vacation(&app, &bea, reqwest::Method::POST).status(),
        StatusCode::OK
    );
    app.join(&cem, &id);
    let game = app.game(None, &id);
    assert_eq!(game["seats"][0]["clock"]["state"], "paused");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(app.game(None, &id)["status"], "active");
}

#[test]
fn my_turn_lists_the_nearest_deadline_first() {
    let app = TestApp::spawn();
    let bea = app.create_player("Bea");
    let cem = app.create_player("Cem");
    let mut ids = Vec::new();
    for control in [
        json!({"type": "none"}),
        json!({"type": "days_per_move", "days": 3}),
        json!({"type": "days_per_move", "days": 1}),
        json!({"type": "seconds_per_move", "seconds": 3600}),
    ] {
        let id = app.create_game(
            &bea,
            json!({"kind": "avalanche-chess", "seats": 2, "seat": 0, "time_control": control}),
        );
        app.join(&cem, &id);
        ids.push(id);
    }
    let mine = ok_json(
        app.get("/v1/players/me/games?turn=mine", Some(&bea)).send(),
        StatusCode::OK,
    )["items"]
        .clone();
    let order: Vec<&str> = mine
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, [&ids[3], &ids[2], &ids[1], &ids[0]]);
    let first = &mine[0];
    assert!(first["deadline"].is_string(), "{first}");
    // Cem must act in none of them.
    let theirs = ok_json(
        app.get("/v1/players/me/games?turn=mine", Some(&cem)).send(),
        StatusCode::OK,
    );
    assert_eq!(theirs, json!({"items": [], "next": null}));
}

/// A timed card game taken back: the fork's clocks start afresh after its reshuffle, and when
/// the fork ends on time the server unseals the superseded parent (its seed revealed) so both
/// pass the audit.
#[test]
fn a_fork_that_ends_on_time_unseals_the_game_it_superseded() {
    use common::play::{play_to_end, SendOk};
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche", 2, timed(3));
    play_to_end(&app, &id, &players, 2, 4, |_| {});
    let request = json!({"type": "request_takeback"});
    ok_json(
        app.play(&players[1], &id, &request).send_ok(),
        StatusCode::OK,
    );
    ok_json(
        app.play(&players[0], &id, &json!({"type": "accept_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    assert!(
        app.game(None, &id)["seed"].is_null(),
        "sealed while the fork runs"
    );
    let forks = ok_json(
        app.get(&format!("/v1/games/{id}/forks"), None).send(),
        StatusCode::OK,
    );
    let fork = forks["items"][0]["id"].as_str().unwrap().to_string();
    let types: Vec<String> = event_types(&app, &fork)
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    let forked = types.iter().position(|t| t == "forked").unwrap();
    assert_eq!(
        types.last().map(String::as_str),
        Some("clock_set"),
        "{types:?}"
    );
    assert!(
        types[forked + 1].starts_with("game."),
        "the reshuffle first: {types:?}"
    );

    let over = wait_for(&app, &fork, Duration::from_secs(10), |g| {
        g["status"] == "finished"
    })
    .expect("the fork timed out by itself");
    assert!(over["outcome"]["reason"]
        .as_str()
        .unwrap()
        .ends_with("ran out of time"));
    let parent = wait_for(&app, &id, Duration::from_secs(5), |g| g["seed"].is_string())
        .expect("the parent's seed is revealed once its fork has ended");
    assert_eq!(parent["status"], "finished");
    for game in [&id, &fork] {
        let audit = ok_json(
            app.get(&format!("/v1/games/{game}/audit"), None).send(),
            StatusCode::OK,
        );
        assert_eq!(audit["valid"], true, "{game}: {audit}");
    }
}
