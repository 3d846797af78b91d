//! `POST /v1/games/{id}/commands`: stale versions, retries, races and every kind of bad input.

use crate::common;

use common::{ok_json, problem, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

fn chess(app: &TestApp) -> (String, Vec<common::Player>) {
    app.full_game("avalanche-chess", 2, json!({}))
}

fn version(app: &TestApp, id: &str) -> u64 {
    app.game(None, id)["version"].as_u64().unwrap()
}

#[test]
fn a_stale_if_match_is_refused_with_the_current_version() {
    let app = TestApp::spawn();
    let (id, players) = chess(&app);
    let v = version(&app, &id);
    let stale = app
        .post(&format!("/v1/games/{id}/commands"), Some(&players[0]))
        .header("If-Match", format!("\"{}\"", v - 1))
        .json(&json!({"type": "turn", "move": "e4", "push": "a6"}))
        .send()
        .unwrap();
    assert_eq!(stale.status(), StatusCode::PRECONDITION_FAILED);
    let body: Value = stale.json().unwrap();
    assert_eq!(body["code"], "version_conflict");
    assert_eq!(body["current_version"], v);
    assert_eq!(version(&app, &id), v, "nothing changed");
    let fresh = app
        .post(&format!("/v1/games/{id}/commands"), Some(&players[0]))
        .header("If-Match", format!("\"{v}\""))
        .json(&json!({"type": "turn", "move": "e4", "push": "a6"}))
        .send()
        .unwrap();
    let answer = ok_json(Ok(fresh), StatusCode::OK);
    assert_eq!(answer["version"], v + 1);
    assert_eq!(answer["events"][0]["type"], "game.turn_played");
}

#[test]
fn a_repeated_idempotency_key_returns_the_first_answer_without_a_second_event_and_refuses_another_body(
) {
    let app = TestApp::spawn();
    let (id, players) = chess(&app);
    let send = |command: Value| {
        app.post(&format!("/v1/games/{id}/commands"), Some(&players[0]))
            .header("Idempotency-Key", "move-1")
            .json(&command)
            .send()
            .unwrap()
    };
    let first = ok_json(
        Ok(send(json!({"type": "turn", "move": "e4", "push": "a6"}))),
        StatusCode::OK,
    );
    let v = version(&app, &id);
    // The retry, the same body written another way: the first answer, nothing new.
    let again = ok_json(
        Ok(send(json!({"push": "a6", "move": "e4", "type": "turn"}))),
        StatusCode::OK,
    );
    assert_eq!(again["replayed"], true);
    assert_eq!(first["replayed"], false);
    assert_eq!(again["version"], first["version"]);
    assert_eq!(again["events"], first["events"]);
    assert_eq!(again["game"]["view"], first["game"]["view"]);
    assert_eq!(version(&app, &id), v);
    // Black moves on; the retry still answers as the first time.
    ok_json(
        Ok(app.play(
            &players[1],
            &id,
            &json!({"type": "turn", "move": "e5", "push": "h3"}),
        )),
        StatusCode::OK,
    );
    let late = ok_json(
        Ok(send(json!({"type": "turn", "move": "e4", "push": "a6"}))),
        StatusCode::OK,
    );
    assert_eq!(late["events"], first["events"]);
    assert_eq!(late["game"]["view"], first["game"]["view"]);
    // The same key with another body is a client's mistake, not a retry: refused, and the
    // first answer stays what the key gives.
    let reused = send(json!({"type": "turn", "move": "d4", "push": "h6"}));
    assert_eq!(
        problem(reused, StatusCode::UNPROCESSABLE_ENTITY),
        "idempotency_key_reused"
    );
    assert_eq!(version(&app, &id), v + 1);
    // Another player's same key is another command.
    let other = app
        .post(&format!("/v1/games/{id}/commands"), Some(&players[1]))
        .header("Idempotency-Key", "move-1")
        .json(&json!({"type": "resign"}))
        .send()
        .unwrap();
    assert_eq!(ok_json(Ok(other), StatusCode::OK)["replayed"], false);
}

#[test]
fn two_clients_racing_on_one_game_exactly_one_wins_each_version() {
    let app = TestApp::spawn();
    let (id, players) = chess(&app);
    for round in 0..5 {
        let v = version(&app, &id);
        let mover = &players[round % 2];
        let legal = app.legal(mover, &id);
        let commands: Vec<Value> = legal["commands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["command"].clone())
            .filter(|c| c["type"] == "turn")
            .take(2)
            .collect();
        let statuses: Vec<StatusCode> = std::thread::scope(|scope| {
            let handles: Vec<_> = commands
                .iter()
                .map(|command| {
                    let app = &app;
                    let id = &id;
                    scope.spawn(move || {
                        app.post(&format!("/v1/games/{id}/commands"), Some(mover))
                            .header("If-Match", format!("\"{v}\""))
                            .json(command)
                            .send()
                            .unwrap()
                            .status()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let wins = statuses.iter().filter(|s| **s == StatusCode::OK).count();
        let stale = statuses
            .iter()
            .filter(|s| **s == StatusCode::PRECONDITION_FAILED)
            .count();
        assert_eq!((wins, stale), (1, 1), "{statuses:?}");
        assert_eq!(version(&app, &id), v + 1);
    }
    let log = app.events(None, &id, 0);
    let versions: Vec<u64> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["version"].as_u64().unwrap())
        .collect();
    assert_eq!(
        versions,
        (1..=versions.len() as u64).collect::<Vec<_>>(),
        "gapless"
    );
}

#[test]
fn every_bad_input_gets_the_right_problem_and_changes_nothing() {
    let app = TestApp::spawn();
    let (id, players) = chess(&app);
    let stranger = app.create_player("Stranger");
    let path = format!("/v1/games/{id}/commands");
    let v = version(&app, &id);
    let post = |player: Option<&common::Player>, body: &str| {
        app.post(&path, player)
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
            .unwrap()
    };
    let cases: Vec<(reqwest::blocking::Response, StatusCode, &str)> = vec![
        (
            post(Some(&players[0]), "{\"type\": \"turn\", "),
            StatusCode::BAD_REQUEST,
            "malformed_json",
        ),
        (
            post(
                Some(&players[0]),
                "{\"type\": \"turn\", \"move\": \"e4\", \"push\": \"a6\", \"speed\": 9}",
            ),
            StatusCode::BAD_REQUEST,
            "bad_command",
        ),
        (
            post(Some(&players[0]), "{\"type\": \"teleport\"}"),
            StatusCode::BAD_REQUEST,
            "bad_command",
        ),
        (
            post(Some(&players[0]), "[1, 2]"),
            StatusCode::BAD_REQUEST,
            "bad_command",
        ),
        (
            post(Some(&stranger), "{\"type\": \"resign\"}"),
            StatusCode::FORBIDDEN,
            "not_seated",
        ),
        (
            post(
                Some(&players[1]),
                "{\"type\": \"turn\", \"move\": \"e5\", \"push\": \"a3\"}",
            ),
            StatusCode::CONFLICT,
            "not_your_turn",
        ),
        (
            post(
                Some(&players[0]),
                "{\"type\": \"turn\", \"move\": \"e5\", \"push\": \"a6\"}",
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            "illegal_command",
        ),
        (
            post(None, "{\"type\": \"resign\"}"),
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        (
            app.post(&path, None)
                .bearer_auth("av_not-a-token")
                .json(&json!({"type": "resign"}))
                .send()
                .unwrap(),
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        (
            app.post(&path, None)
                .header("Authorization", "Basic abc")
                .json(&json!({"type": "resign"}))
                .send()
                .unwrap(),
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        (
            post(
                Some(&players[0]),
                &format!(
                    "{{\"type\": \"turn\", \"move\": \"{}\"}}",
                    "e".repeat(70 * 1024)
                ),
            ),
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
        ),
        (
            app.post("/v1/games/g-doesnotexist/commands", Some(&players[0]))
                .json(&json!({"type": "resign"}))
                .send()
                .unwrap(),
            StatusCode::NOT_FOUND,
            "game_not_found",
        ),
        (
            app.post(&path, Some(&players[0]))
                .header("If-Match", "yesterday")
                .json(&json!({"type": "resign"}))
                .send()
                .unwrap(),
            StatusCode::BAD_REQUEST,
            "bad_if_match",
        ),
    ];
    for (response, status, code) in cases {
        assert_eq!(problem(response, status), code);
        assert_eq!(version(&app, &id), v, "{code} changed nothing");
    }
    ok_json(
        Ok(post(Some(&players[0]), "{\"type\": \"resign\"}")),
        StatusCode::OK,
    );
    let over = post(
        Some(&players[1]),
        "{\"type\": \"turn\", \"move\": \"e5\", \"push\": \"a3\"}",
    );
    assert_eq!(problem(over, StatusCode::CONFLICT), "game_over");
}

#[test]
fn legal_lists_only_for_a_seated_player() {
    let app = TestApp::spawn();
    let (id, players) = chess(&app);
    let legal = app.legal(&players[0], &id);
    let notations: Vec<&str> = legal["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["notation"].as_str().unwrap())
        .collect();
    assert!(notations.contains(&"Nf3/a6"), "{notations:?}");
    assert!(notations.contains(&"resign"));
    assert_eq!(
        notations.iter().filter(|n| n.contains('/')).count(),
        160,
        "the perft's 160 first turns"
    );
    assert!(app.legal(&players[1], &id)["commands"]
        .as_array()
        .unwrap()
        .iter()
        .all(|l| l["command"]["type"] != "turn"));
    let stranger = app.create_player("Stranger");
    let response = app
        .get(&format!("/v1/games/{id}/legal"), Some(&stranger))
        .send()
        .unwrap();
    assert_eq!(problem(response, StatusCode::FORBIDDEN), "not_seated");
}

/// "Duplicate JSON keys: in a command the last one wins ({"type":"offer_draw", "type":"resign"}
/// resigned the game)": a repeated key is refused with 400 in every body.
#[test]
fn a_body_that_repeats_a_key_is_refused_everywhere_and_changes_nothing() {
    let app = TestApp::spawn();
    let (id, players) = chess(&app);
    let v = version(&app, &id);
    let raw = |path: &str, body: &str| {
        app.post(path, Some(&players[0]))
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
            .unwrap()
    };
    let commands = format!("/v1/games/{id}/commands");
    for (path, body) in [
        (
            commands.as_str(),
            r#"{"type":"offer_draw","type":"resign"}"#,
        ),
        (
            commands.as_str(),
            r#"{"type":"turn","move":"e4","push":"a6","push":"h6"}"#,
        ),
        (
            "/v1/games",
            r#"{"kind":"vamanos","seats":2,"options":{"target":30,"target":60}}"#,
        ),
        (
            "/v1/games",
            r#"{"kind":"altitude","kind":"avalanche","seats":2}"#,
        ),
        (
            "/v1/players/me/webhooks",
            r#"{"url":"https://example.com/a","url":"https://example.com/b"}"#,
        ),
        ("/v1/players", r#"{"name":"Ann","name":"Bob"}"#),
        (
            &format!("/v1/games/{id}/forks"),
            r#"{"version":3,"version":4}"#,
        ),
    ] {
        assert_eq!(
            problem(raw(path, body), StatusCode::BAD_REQUEST),
            "duplicate_key",
            "{path} {body}"
        );
    }
    assert_eq!(version(&app, &id), v, "nothing was played");
    assert_eq!(app.game(None, &id)["status"], "active");
    let open = app.create_game(&players[0], json!({"kind": "altitude", "seats": 2}));
    let join = app
        .post(&format!("/v1/games/{open}/join"), Some(&players[1]))
        .header("Content-Type", "application/json")
        .body(r#"{"seat":1,"seat":0}"#)
        .send()
        .unwrap();
    assert_eq!(problem(join, StatusCode::BAD_REQUEST), "duplicate_key");
}
