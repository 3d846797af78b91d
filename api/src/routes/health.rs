//! `GET /health`: the process is up (liveness). `GET /ready`: it can serve, its store
//! answering (readiness: a load balancer sends it requests only while this says so).
//! `GET /metrics`: what it has been doing, in the Prometheus text format.

use crate::state::AppState;
use actix_web::{get, web, HttpResponse};
use serde_json::json;
use std::time::Duration;

/// How long readiness waits for the store.
const STORE_WAIT: Duration = Duration::from_secs(2);

#[get("/health")]
pub async fn health() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "status": "ok" }))
}

#[get("/ready")]
pub async fn ready(state: web::Data<AppState>) -> HttpResponse {
    match state.games.repository().store_answers(STORE_WAIT).await {
        Ok(()) => HttpResponse::Ok().json(json!({ "status": "ready" })),
        Err(why) => {
            tracing::warn!(%why, "not ready: the store does not answer");
            HttpResponse::ServiceUnavailable().json(json!({
                "status": "unavailable",
                "detail": "The store does not answer: this node cannot serve now.",
            }))
        }
    }
}

#[get("/metrics")]
pub async fn metrics(
    state: web::Data<AppState>,
    request: actix_web::HttpRequest,
) -> Result<HttpResponse, crate::problem::ApiError> {
    let bearer = crate::auth::bearer(&request).ok().flatten();
    let peer = request.peer_addr().map(|peer| peer.ip());
    if !crate::limits::may_read_metrics(&state.limits.settings, peer, bearer.as_deref()) {
        return Err(crate::problem::ApiError::new(
            actix_web::http::StatusCode::FORBIDDEN,
            "forbidden",
            "The metrics are for the operator: from an allowed address, or with the metrics token.",
        ));
    }
    let text = state.metrics.render(&state.snapshot());
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(text))
}
