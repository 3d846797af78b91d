//! `/v1/players/recovery`: an owner whose tokens were taken (and maybe all revoked by the
//! thief) takes the account back by a link mailed to their confirmed address.

use super::players::PlayerCreated;
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use app::mail::render::escape_html;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Whose account to take back.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecoveryAsked {
    /// The player's id (`p-` and 16 hexadecimal digits), as their games show it.
    #[schema(example = "p-0011223344556677")]
    pub player_id: String,
}

/// Take an account back: the server mails a link to the player's confirmed address (to no
/// other), valid for 30 minutes and once. Following it revokes every token of the player and
/// gives a new key. The answer is the same whether a mail went out or not.
#[utoipa::path(operation_id = "askRecovery", tag = "players",
    request_body = RecoveryAsked,
    responses((status = 202, description = "Taken: if the player has a confirmed address, the link is on its way there", body = RecoveryAsked),
        (status = 400, body = Problem), (status = 413, body = Problem), (status = 415, body = Problem),
        (status = 429, description = "`rate_limited`: three links an hour for one player; `Retry-After` says when to try again", body = Problem),
        (status = 503, description = "`mail_not_configured`: this server sends no mail", body = Problem)))]
#[post("/v1/players/recovery")]
pub async fn ask_recovery(
    state: web::Data<AppState>,
    body: crate::json_body::Json<RecoveryAsked>,
) -> Result<HttpResponse, HttpError> {
    let asked = body.into_inner();
    state.mail.mail_recovery_link(&asked.player_id).await?;
    Ok(HttpResponse::Accepted().json(asked))
}

/// The page of a recovery link: a button that takes the account back (a link opened by a
/// mail scanner changes nothing).
#[utoipa::path(operation_id = "recoveryPage", tag = "players",
    params(("secret" = String, Path, description = "The link's secret, as mailed")),
    responses((status = 200, description = "A page with the button", body = String, content_type = "text/html"),
        (status = 404, description = "`invalid_recovery_link`: not a link of this server, used, or older than 30 minutes", body = Problem)))]
#[get("/v1/recovery/{secret}")]
pub async fn recovery_page(
    state: web::Data<AppState>,
    secret: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let player = state.players.recovery_link_player(&secret)?;
    let action = format!("/v1/recovery/{}", escape_html(&secret));
    Ok(super::mail::page(
        "Take your account back",
        &format!(
            "<p>Account {}: every token of it stops working, on every device and bot, and you get a new key.</p><form method=\"post\" action=\"{action}\"><button type=\"submit\">Take my account back</button></form>",
            escape_html(&player.id)
        ),
    ))
}

/// Follow a recovery link: every token of the player is revoked (their streams end), the link
/// is used up, and a new key with every scope is answered, shown this once (as a page when a
/// browser's form sent it).
#[utoipa::path(operation_id = "recoverAccount", tag = "players",
    params(("secret" = String, Path, description = "The link's secret, as mailed")),
    responses((status = 200, description = "The player and their new key (shown only now)", body = PlayerCreated),
        (status = 404, description = "`invalid_recovery_link`: not a link of this server, used, or older than 30 minutes", body = Problem)))]
#[post("/v1/recovery/{secret}")]
pub async fn recover(
    state: web::Data<AppState>,
    secret: web::Path<String>,
    request: HttpRequest,
) -> Result<HttpResponse, HttpError> {
    let (player, token) = state.players.recover(&secret).await?;
    tracing::info!(player = %player.id, "account taken back: every token revoked");
    let from_form = request
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/x-www-form-urlencoded"));
    if from_form {
        return Ok(super::mail::page(
            "Your account is yours again",
            &format!(
                "<p>Every other token is revoked. Your new key, shown only now (send it as <code>Authorization: Bearer</code>, or paste it on the account page):</p><p><code>{}</code></p>",
                escape_html(&token)
            ),
        ));
    }
    Ok(HttpResponse::Ok().json(PlayerCreated { player, token }))
}
