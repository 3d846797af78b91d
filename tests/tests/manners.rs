//! HTTP manners and messages a client meets first: a wrong method on a known path
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

#[test]
fn head_of_the_page_answers_like_get_without_a_body() {
    let app = TestApp::spawn();
    let get = app.client.get(app.url("/")).send().unwrap();
    let head = app.client.head(app.url("/")).send().unwrap();
    assert_eq!(get.status(), StatusCode::OK);
    assert_eq!(head.status(), StatusCode::OK);
    for name in [
        "content-type",
        "etag",
        "content-security-policy",
        "x-frame-options",
    ] {
        assert_eq!(head.headers().get(name), get.headers().get(name), "{name}");
    }
    assert!(head.bytes().unwrap().is_empty());
    let head = app.client.head(app.url("/app.js")).send().unwrap();
    assert_eq!(head.status(), StatusCode::OK);
}

#[test]
fn every_answer_says_nosniff_and_the_docs_carry_the_pages_policy() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    for (path, player) in [
        ("/v1/players/me", Some(&ana)),
        ("/v1/players/me", None),
        ("/v1/kinds", None),
        ("/health", None),
        ("/nowhere", None),
        ("/openapi.json", None),
        ("/docs/", None),
    ] {
        let answer = app.get(path, player).send().unwrap();
        assert_eq!(
            answer
                .headers()
                .get("x-content-type-options")
                .map(|v| v.to_str().unwrap()),
            Some("nosniff"),
            "{path}"
        );
    }
    let docs = app.client.get(app.url("/docs/")).send().unwrap();
    assert_eq!(docs.status(), StatusCode::OK);
    let policy = docs.headers()["content-security-policy"].to_str().unwrap();
    assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
    assert!(policy.contains("default-src 'none'"), "{policy}");
    assert_eq!(docs.headers()["x-frame-options"], "DENY");
}

#[test]
fn the_metrics_can_be_kept_to_an_address_list_or_a_token_of_their_own() {
    let app = TestApp::spawn_limited(app::limits::LimitSettings {
        metrics_token: Some("scrape-me".into()),
        metrics_allowed: vec!["10.0.0.0/8".parse().unwrap()],
        ..app::limits::LimitSettings::unlimited()
    });
    let ana = app.create_player("Ana");
    let refused = app.admin_get("/metrics").send().unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    // A player's token is not the metrics token.
    let refused = app
        .admin_get("/metrics")
        .bearer_auth(&ana.token)
        .send()
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let allowed = app
        .admin_get("/metrics")
        .bearer_auth("scrape-me")
        .send()
        .unwrap();
    assert_eq!(allowed.status(), StatusCode::OK);
    assert!(allowed.text().unwrap().contains("avalanche_"));

    let local = TestApp::spawn_limited(app::limits::LimitSettings {
        metrics_allowed: vec!["127.0.0.0/8".parse().unwrap()],
        ..app::limits::LimitSettings::unlimited()
    });
    assert_eq!(
        local.admin_get("/metrics").send().unwrap().status(),
        StatusCode::OK
    );
    // Forwarded for someone by a proxy nobody declared: its own address proves nothing.
    let forwarded = local
        .admin_get("/metrics")
        .header("X-Forwarded-For", "8.8.8.8")
        .send()
        .unwrap();
    assert_eq!(forwarded.status(), StatusCode::FORBIDDEN);
    // The public listener serves neither the metrics nor a backup, to anyone.
    for path in ["/metrics", "/backup"] {
        let response = local.get(path, None).send().unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
    }
}
