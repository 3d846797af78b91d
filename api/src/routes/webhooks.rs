//! `/v1/players/me/webhooks`: register, list and delete the URLs told of your turns, of
//! offers made to you and of the ends of your games.

use crate::auth::{Authenticated, ACCOUNT, READ};
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use actix_web::{delete, get, post, web, HttpResponse};
use app::webhooks::WebhookInfo;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewWebhook {
    /// An absolute `https://` URL (`http://` where the server allows it) to a public address,
    /// at most 2000 characters.
    #[schema(
        example = "https://example.com/avalanche",
        min_length = 1,
        max_length = 2000
    )]
    pub url: String,
}

/// A new webhook with its secret, shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookCreated {
    #[schema(example = "wh-5c0ffee5d00dfeed")]
    pub id: String,
    pub url: String,
    /// The key of every notification's signature (`X-Avalanche-Signature: t=<unix
    /// seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with this whole string>`). Shown
    /// only now: keep it.
    #[schema(example = "whsec_0f1e2d3c...")]
    pub secret: String,
    pub created_at: DateTime<Utc>,
}

/// Register a webhook. From now on, the server POSTs a signed JSON `Notification` to the URL
/// when it becomes your turn in a game, when another seat offers you a draw or asks for a
/// takeback, when one of your games ends, and when a tournament you are in pairs a round,
/// closes one, finishes or has its next edition. Delivery is at least once (dedupe by the
/// notification's `id`, also sent as `X-Avalanche-Delivery`); a receiver that does not answer
/// 2xx is retried with growing waits (up to 30 s apart), never skipped; after 3 days of
/// failures the webhook is marked `failing` and waits to be re-enabled. At most 10 a player.
/// The URL is `https://` and must lead to a public address.
#[utoipa::path(operation_id = "createWebhook", tag = "players", security(("bearer" = ["account"])),
    request_body = NewWebhook,
    responses(
        (status = 201, description = "The webhook, with its secret (shown only now)", body = WebhookCreated,
            headers(("Location" = String, description = "The webhook's path"))),
        (status = 400, description = "`invalid_webhook_url` (not https, or not a public address), or unreadable JSON", body = Problem),
        (status = 401, body = Problem),
        (status = 409, description = "`too_many_webhooks`: at most 10 a player", body = Problem),
        (status = 413, body = Problem), (status = 415, body = Problem)))]
#[post("/v1/players/me/webhooks")]
pub async fn create_webhook(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<ACCOUNT>,
    body: crate::json_body::Json<NewWebhook>,
) -> Result<HttpResponse, HttpError> {
    let hook = state.webhooks.create(&player.id, &body.url).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/v1/players/me/webhooks/{}", hook.id)))
        .json(WebhookCreated {
            id: hook.id,
            url: hook.url,
            secret: hook.secret,
            created_at: hook.created_at,
        }))
}

/// A page of my webhooks, and where the next page begins.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookPage {
    /// My webhooks, in id order.
    pub items: Vec<WebhookInfo>,
    /// The cursor of the next page: send it as `after` to get it. `null` when this page is the
    /// last.
    #[schema(required = true)]
    pub next: Option<String>,
}

/// My webhooks (without their secrets), in pages ordered by id.
#[utoipa::path(operation_id = "listWebhooks", tag = "players", security(("bearer" = ["read"])),
    params(crate::routes::players::PageQuery),
    responses((status = 200, description = "A page of my webhooks, each with its status, and the cursor of the next page", body = WebhookPage),
        (status = 400, description = "`bad_query`: a query parameter that is not understood", body = Problem),
        (status = 401, body = Problem)))]
#[get("/v1/players/me/webhooks")]
pub async fn list_webhooks(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<READ>,
    query: web::Query<crate::routes::players::PageQuery>,
) -> Result<HttpResponse, HttpError> {
    let limit = super::page_size(query.limit, 50, 200)?;
    let after = app::lists::id_cursor(query.after.as_deref(), "wh-")?;
    let found: Vec<WebhookInfo> = state
        .webhooks
        .list(&player.id)?
        .iter()
        .filter(|hook| after.is_none_or(|after| hook.id.as_str() > after))
        .take(limit + 1)
        .map(WebhookInfo::from)
        .collect();
    let page = app::lists::Page::of(found, limit, |hook| hook.id.clone());
    Ok(HttpResponse::Ok().json(WebhookPage {
        items: page.items,
        next: page.next,
    }))
}

/// Delete one of my webhooks: nothing more is sent to it.
#[utoipa::path(operation_id = "deleteWebhook", tag = "players", security(("bearer" = ["account"])),
    params(("id" = String, Path, description = "The webhook's id")),
    responses((status = 204, description = "Deleted: nothing more is sent to it"),
        (status = 401, body = Problem),
        (status = 404, description = "`webhook_not_found`: none of mine has this id", body = Problem)))]
#[delete("/v1/players/me/webhooks/{id}")]
pub async fn delete_webhook(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<ACCOUNT>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    state.webhooks.delete(&player.id, &id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Re-enable one of my webhooks that is `failing`: deliveries go on from the notification
/// that was given up, nothing skipped. An active webhook is answered as it is.
#[utoipa::path(operation_id = "enableWebhook", tag = "players", security(("bearer" = ["account"])),
    params(("id" = String, Path, description = "The webhook's id")),
    responses((status = 200, description = "The webhook, active again", body = WebhookInfo),
        (status = 401, body = Problem),
        (status = 404, description = "`webhook_not_found`: none of mine has this id", body = Problem)))]
#[post("/v1/players/me/webhooks/{id}/enable")]
pub async fn enable_webhook(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<ACCOUNT>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let hook = state.webhooks.enable(&player.id, &id).await?;
    Ok(HttpResponse::Ok().json(WebhookInfo::from(&hook)))
}
