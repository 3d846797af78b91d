//! `GET /health` and the shape of answers to unknown paths.

use crate::common;

use common::{problem, TestApp};
use reqwest::StatusCode;
use serde_json::Value;

#[test]
fn health_answers_ok() {
    let app = TestApp::spawn();
    let body: Value = app.get("/health", None).send().unwrap().json().unwrap();
    assert_eq!(body["status"], "ok");
}

#[test]
fn an_unknown_path_is_a_problem_not_an_empty_page() {
    let app = TestApp::spawn();
    let response = app.get("/v1/nothing-here", None).send().unwrap();
    assert_eq!(problem(response, StatusCode::NOT_FOUND), "not_found");
}

#[test]
fn the_document_and_the_bundled_swagger_ui_are_served() {
    let app = TestApp::spawn();
    let doc: Value = app
        .get("/openapi.json", None)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    assert!(doc["paths"]["/v1/games/{id}/commands"]["post"].is_object());
    let page = app.get("/docs/", None).send().unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().unwrap();
    assert!(html.contains("swagger-ui"), "the UI page: {html}");
    let config = app
        .get("/docs/swagger-initializer.js", None)
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(config.contains("/openapi.json"), "{config}");
}

#[test]
fn ready_answers_while_the_store_answers() {
    let app = TestApp::spawn();
    let response = app.get("/ready", None).send().unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().unwrap();
    assert_eq!(body["status"], "ready");
}

/// The value of the sample `name` (with its labels, as written) in a Prometheus text page.
fn sample(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("no sample {name} in:\n{text}"))
}

#[test]
fn metrics_count_the_commands_played_and_refused_and_name_routes_not_games() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, serde_json::json!({}));
    let before = app.admin_get("/metrics").send().unwrap().text().unwrap();
    common::play::play_first(&app, &id, &players[0]);
    common::play::play_first(&app, &id, &players[1]);
    // Alice's move, posted by Bruno: not his turn, refused.
    let legal = app.legal(&players[0], &id);
    let move_of_alice = legal["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["command"])
        .find(|c| !common::play::is_table_command(c))
        .unwrap();
    let refused = app.play(&players[1], &id, move_of_alice);
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    // Paths near the two busiest routes that are not them are labelled by the router's match;
    // so is a game's own route.
    for (path, status) in [
        (format!("/v1/games/{id}/legal/more"), StatusCode::NOT_FOUND),
        ("/v1/games//legal".to_string(), StatusCode::NOT_FOUND),
        (format!("/v1/games/{id}"), StatusCode::OK),
    ] {
        let response = app.get(&path, Some(&players[0])).send().unwrap();
        assert_eq!(response.status(), status, "{path}");
    }

    let response = app.admin_get("/metrics").send().unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    let text = response.text().unwrap();
    let played = r#"avalanche_commands_total{outcome="played"}"#;
    let refused = r#"avalanche_commands_total{outcome="refused"}"#;
    assert_eq!(sample(&text, played) - sample(&before, played), 2.0);
    assert_eq!(sample(&text, refused) - sample(&before, refused), 1.0);
    assert_eq!(
        sample(&text, "avalanche_command_duration_seconds_count"),
        sample(&text, played)
            + sample(&text, refused)
            + sample(&text, r#"avalanche_commands_total{outcome="failed"}"#)
    );
    // One append for the game's creation, one for the join, one for each command played;
    // none for the refused one.
    assert_eq!(sample(&text, "avalanche_appends_total"), 4.0, "{text}");
    assert!(
        sample(&text, "avalanche_events_appended_total")
            >= sample(&text, "avalanche_appends_total")
    );
    assert!(sample(&text, "avalanche_games_cached") >= 1.0);
    assert!(sample(&text, "avalanche_game_cache_hits_total") >= 3.0);
    assert!(sample(&text, "process_resident_memory_bytes") > 1e6);
    assert!(text.contains(
        r#"avalanche_http_requests_total{method="POST",route="/v1/games/{id}/commands",status="200"} 2"#
    ), "{text}");
    for line in [
        r#"avalanche_http_requests_total{method="POST",route="/v1/games/{id}/commands",status="409"} 1"#,
        r#"avalanche_http_requests_total{method="GET",route="/v1/games/{id}/legal",status="200"}"#,
        r#"avalanche_http_requests_total{method="GET",route="/v1/games/{id}",status="200"}"#,
        r#"avalanche_http_requests_total{method="GET",route="unmatched",status="404"} 2"#,
    ] {
        assert!(text.contains(line), "{line} in:\n{text}");
    }
    assert!(!text.contains(&id), "a game id is not a label: {text}");
}

#[test]
fn the_licence_the_document_points_to_is_served() {
    let app = TestApp::spawn();
    let doc: Value = app
        .get("/openapi.json", None)
        .send()
        .unwrap()
        .json()
        .unwrap();
    let url = doc["info"]["license"]["url"].as_str().unwrap();
    let path = url
        .strip_prefix("http://127.0.0.1:8080")
        .expect("on the server's address");
    let response = app.get(path, None).send().unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let text = response.text().unwrap();
    assert!(text.contains("MIT License"), "{text}");
    assert!(text.contains("Apache License"), "{text}");
    assert!(text.contains("Version 2.0, January 2004"), "{text}");
}
