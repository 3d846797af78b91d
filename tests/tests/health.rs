//! `GET /health` and the shape of answers to unknown paths.

mod common;

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
