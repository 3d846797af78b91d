//! `GET /health`: the process is up and can recover by itself (liveness: an orchestrator
//! restarts the node when it fails). `GET /ready`: it can serve now, its store answering a read
//! and taking a write (readiness: a load balancer sends it requests only while this says so).
//! `GET /metrics`: what it has been doing, in the Prometheus text format, on the admin
//! listener only (`--admin-addr`); on the public one it answers 404 ([`admin_only`]).
//!
//! Readiness writes this node's record of its settings (see `app/src/nodes.rs`) as its probe of
//! the store's writes, and names in its `warnings` the other nodes that run with different
//! limits or webhook addresses.
//!
//! Which fails when: a store that is unreachable or refuses writes for a while (a stopped
//! PostgreSQL, a full disk under PostgreSQL) fails `/ready` only, and the node recovers by
//! itself once the store takes writes again. A sled store whose write or flush failed (a full
//! or failing disk) takes no write again until it is reopened: from then on `/health` fails
//! too, so that the orchestrator restarts the node, which reopens the store.

use crate::problem::HttpError;
use crate::state::AppState;
use actix_web::{get, web, HttpResponse};
use app::ApiCode;
use serde_json::json;
use std::time::Duration;

/// How long readiness waits for the store.
const STORE_WAIT: Duration = Duration::from_secs(2);

#[get("/health")]
pub async fn health(state: web::Data<AppState>) -> HttpResponse {
    match state.metrics.store_broken() {
        None => HttpResponse::Ok().json(json!({ "status": "ok" })),
        Some(why) => HttpResponse::ServiceUnavailable().json(json!({
            "status": "failing",
            "detail": format!("The store takes no write until this node restarts ({why})."),
        })),
    }
}

#[get("/ready")]
pub async fn ready(state: web::Data<AppState>) -> HttpResponse {
    let unavailable = |detail: String| {
        HttpResponse::ServiceUnavailable().json(json!({
            "status": "unavailable",
            "detail": detail,
        }))
    };
    if let Some(why) = state.metrics.store_broken() {
        return unavailable(format!(
            "The store takes no write until this node restarts ({why})."
        ));
    }
    match state.games.readiness(&state.node, STORE_WAIT).await {
        Ok(differences) if differences.is_empty() => {
            HttpResponse::Ok().json(json!({ "status": "ready" }))
        }
        // Ready, but its operator should know.
        Ok(differences) => HttpResponse::Ok().json(json!({
            "status": "ready",
            "detail": "The nodes of this store run with different settings.",
            "warnings": differences,
        })),
        Err(why) => {
            tracing::warn!(%why, "not ready");
            unavailable(why)
        }
    }
}

#[get("/metrics")]
pub async fn metrics(
    state: web::Data<AppState>,
    request: actix_web::HttpRequest,
) -> Result<HttpResponse, HttpError> {
    let bearer = crate::auth::bearer(&request).ok().flatten();
    let settings = &state.limits.settings;
    let client = crate::connections::operator_client(&request, &settings.trusted_proxies);
    if !app::limits::may_read_metrics(settings, client, bearer.as_deref()) {
        return Err(app::ApiError::new(
            ApiCode::Forbidden,
            "The metrics are for the operator: from an allowed address, or with the metrics token.",
        )
        .into());
    }
    let text = state.metrics.render(&state.snapshot());
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(text))
}

/// `/metrics` and `/backup` asked on the public listener: they are served on the admin
/// listener only, so that no proxy, front end or forwarded header makes them public.
pub async fn admin_only() -> Result<HttpResponse, HttpError> {
    Err(app::ApiError::new(
        ApiCode::NotFound,
        "There is nothing at this path here: the operator's endpoints are on the admin listener.",
    )
    .into())
}
