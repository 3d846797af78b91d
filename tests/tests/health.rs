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
