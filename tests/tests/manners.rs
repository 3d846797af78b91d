//! HTTP manners and messages a client meets first (issue 22): a wrong method on a known path
//! is 405 with `Allow`, `/docs` leads to `/docs/`, an import without `format` says so, an
//! unknown `kind` names the valid ones, and the log has no colour codes off a terminal.

use crate::common;

use common::binary::Server;
use common::TestApp;
use reqwest::blocking::Client;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

#[test]
fn a_wrong_method_on_a_known_path_is_405_with_the_methods_it_takes() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let id = app.create_game(&ana, json!({"kind": "altitude", "seats": 2}));
    for (method, path, allow) in [
        (Method::DELETE, "/v1/games".to_string(), "GET, POST, HEAD"),
        (Method::PUT, format!("/v1/games/{id}/commands"), "POST"),
        (Method::POST, format!("/v1/games/{id}"), "GET, HEAD"),
        (
            Method::PATCH,
            "/v1/players/me/vacation".to_string(),
            "GET, POST, DELETE, HEAD",
        ),
    ] {
        let answer = app
            .client
            .request(method.clone(), app.url(&path))
            .bearer_auth(&ana.token)
            .send()
            .unwrap();
        assert_eq!(
            answer.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        assert_eq!(
            answer.headers()["allow"].to_str().unwrap(),
            allow,
            "{method} {path}"
        );
        let problem: Value = answer.json().unwrap();
        assert_eq!(problem["code"], "method_not_allowed");
        assert!(problem["detail"].as_str().unwrap().contains(allow));
    }
    // An unknown path is still 404.
    let missing = app.get("/v1/nothing-here", None).send().unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert!(missing.headers().get("allow").is_none());
}

#[test]
fn docs_without_its_slash_leads_to_the_documentation() {
    let app = TestApp::spawn();
    let no_redirects = Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let answer = no_redirects.get(app.url("/docs")).send().unwrap();
    assert_eq!(answer.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(answer.headers()["location"], "/docs/");
    let followed = app.client.get(app.url("/docs")).send().unwrap();
    assert_eq!(followed.status(), StatusCode::OK);
    assert!(followed.text().unwrap().contains("swagger"));
}

#[test]
fn an_import_without_format_says_format_is_missing() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let answer = app
        .post("/v1/imports", Some(&ana))
        .json(&json!({"record": "1. e4/a6 Nf6/a3\n"}))
        .send()
        .unwrap();
    assert_eq!(answer.status(), StatusCode::BAD_REQUEST);
    let problem: Value = answer.json().unwrap();
    assert_ne!(problem["code"], "malformed_json");
    assert!(
        problem["detail"].as_str().unwrap().contains("format"),
        "{problem}"
    );
}

#[test]
fn an_unknown_kind_in_a_list_names_the_valid_kinds() {
    let app = TestApp::spawn();
    let answer = app.get("/v1/games?kind=chess", None).send().unwrap();
    assert_eq!(answer.status(), StatusCode::BAD_REQUEST);
    let problem: Value = answer.json().unwrap();
    assert_eq!(problem["code"], "unknown_kind");
    let detail = problem["detail"].as_str().unwrap();
    for kind in [
        "avalanche-chess",
        "avalanche",
        "ski-runs",
        "vamanos",
        "altitude",
    ] {
        assert!(detail.contains(kind), "{detail}");
    }
}

#[test]
fn the_log_has_no_colour_codes_when_it_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let data = dir.path().join("data");
    let server = Server::start_logging(&data, &log);
    server.app.create_player("Ana");
    drop(server);
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(written.contains("player created"), "{written}");
    assert!(!written.contains('\u{1b}'), "{written}");
}
