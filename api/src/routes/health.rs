//! `GET /health`: the server is up.

use actix_web::{get, HttpResponse};
use serde_json::json;

#[get("/health")]
pub async fn health() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "status": "ok" }))
}
