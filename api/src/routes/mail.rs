//! `/v1/mail`: inbound mail posted by a mail provider, and the one-click unsubscribe link;
//! invitations to a game, which are mailed.

use crate::auth::{Authenticated, PLAY};
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use app::mail::inbound::reader::Received;
use app::{ApiCode, ApiError};

/// Wrong inbound secrets one client address may send in an hour.
const SECRET_FAILURES_PER_HOUR: u32 = 10;

/// Whether the request carries the inbound secret as `Authorization: Bearer <secret>`.
fn authorised(request: &HttpRequest, secret: &str) -> bool {
    let Ok(Some(given)) = crate::auth::bearer(request) else {
        return false;
    };
    given.len() == secret.len()
        && given
            .bytes()
            .zip(secret.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// A mail for a reply address, as a mail provider forwards it: the raw message (RFC 5322) as
/// the body, `Authorization: Bearer <--mail-inbound-secret>`. The reply is played if it is a
/// player's own answer from their confirmed address; they are answered by mail.
#[utoipa::path(operation_id = "receiveMail", tag = "mail",
    request_body(content = String, content_type = "message/rfc822", description = "The raw message"),
    responses((status = 200, description = "What became of the mail", body = Received),
        (status = 401, description = "Not the inbound secret", body = Problem),
        (status = 413, body = Problem),
        (status = 429, description = "`rate_limited`: too many wrong secrets from this address this hour", body = Problem),
        (status = 503, description = "`mail_not_configured`: this server takes no mail over HTTP", body = Problem)))]
#[post("/v1/mail/inbound")]
pub async fn inbound(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, HttpError> {
    let Some(secret) = state.mail.settings.inbound_secret.as_ref() else {
        return Err(ApiError::new(
            ApiCode::MailNotConfigured,
            "This server takes no mail over HTTP (--mail-inbound-secret is not set).",
        )
        .into());
    };
    // Guesses are few: a client address that sent a wrong secret too often this hour is
    // refused, with the right one too, until the hour has passed.
    let client = crate::connections::client_address(&request);
    if state
        .mail
        .secret_failures
        .full(&client, SECRET_FAILURES_PER_HOUR)
    {
        return Err(ApiError::new(
            ApiCode::RateLimited,
            format!("{SECRET_FAILURES_PER_HOUR} wrong inbound secrets came from this address within the hour; try again later."),
        )
        .with_retry_after(3600)
        .into());
    }
    if !authorised(&request, secret.expose()) {
        state.mail.secret_failures.count(&client);
        tracing::warn!(%client, "POST /v1/mail/inbound with a wrong secret");
        return Err(ApiError::unauthorized(
            "Send the inbound secret as `Authorization: Bearer <secret>`.",
        )
        .into());
    }
    let verdict = state
        .mail
        .receive_any(&state.club, &state.games, &state.talk(), &body, &[])
        .await;
    Ok(HttpResponse::Ok().json(Received::from(&verdict)))
}

/// Whom to invite.
#[derive(Debug, serde::Deserialize, serde::Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Invitation {
    /// The invited player's id (as the seats of a game show it).
    #[schema(example = "p-0011223344556677")]
    pub player_id: String,
}

/// Invite a player to take a seat in an open game you sit at. The server mails them the
/// game's link, once per game, if they have a confirmed address and take invitations; the
/// answer is the same either way.
#[utoipa::path(operation_id = "invitePlayer", tag = "games", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The game id")),
    request_body = Invitation,
    responses((status = 202, description = "Taken: the invitation is mailed if the player takes invitations", body = Invitation),
        (status = 400, body = Problem), (status = 401, body = Problem),
        (status = 403, description = "`not_seated`: only a seated player invites", body = Problem),
        (status = 415, body = Problem),
        (status = 404, description = "`game_not_found` or `player_not_found`", body = Problem),
        (status = 409, description = "`game_not_open` or `already_seated`", body = Problem),
        (status = 429, description = "`rate_limited`: too many invitations this hour", body = Problem),
        (status = 503, description = "`mail_not_configured`: this server sends no mail", body = Problem)))]
#[post("/v1/games/{id}/invitations")]
pub async fn invite(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
    body: crate::json_body::Json<Invitation>,
) -> Result<HttpResponse, HttpError> {
    let invitation = body.into_inner();
    state
        .mail
        .invite(&state.games, &player, &id, &invitation.player_id)
        .await?;
    Ok(HttpResponse::Accepted().json(invitation))
}

pub(crate) fn page(title: &str, body: &str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header(("Content-Security-Policy", "default-src 'none'; form-action 'self'"))
        .body(format!(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{title}</title></head><body><h1>{title}</h1>{body}</body></html>"
        ))
}

/// The page of an unsubscribe link: a button that turns all game mail off (a link opened by
/// a mail scanner changes nothing).
#[utoipa::path(operation_id = "unsubscribePage", tag = "mail",
    params(("player" = String, Path), ("tag" = String, Path)),
    responses((status = 200, description = "A page with the button", body = String, content_type = "text/html"),
        (status = 404, description = "Not an unsubscribe link of this server", body = Problem)))]
#[get("/v1/mail/unsubscribe/{player}/{tag}")]
pub async fn unsubscribe_page(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, HttpError> {
    let (player, tag) = path.into_inner();
    state.mail.check_unsubscribe_link(&player, &tag)?;
    let action = format!(
        "/v1/mail/unsubscribe/{}/{}",
        app::mail::render::escape_html(&player),
        app::mail::render::escape_html(&tag)
    );
    Ok(page(
        "No more game mail",
        &format!("<form method=\"post\" action=\"{action}\"><input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\"><button type=\"submit\">Send me no more game mail</button></form>"),
    ))
}

/// Turn all game mail off (RFC 8058 one-click: the mail program POSTs
/// `List-Unsubscribe=One-Click`). Setting the notifications again turns it back on.
#[utoipa::path(operation_id = "unsubscribe", tag = "mail",
    params(("player" = String, Path), ("tag" = String, Path)),
    responses((status = 200, description = "Done: no more game mail", body = String, content_type = "text/html"),
        (status = 404, description = "Not an unsubscribe link of this server", body = Problem)))]
#[post("/v1/mail/unsubscribe/{player}/{tag}")]
pub async fn unsubscribe(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, HttpError> {
    let (player, tag) = path.into_inner();
    state.mail.unsubscribe(&player, &tag).await?;
    Ok(page(
        "No more game mail",
        "<p>Done: this server sends you no more game mail. Your account page turns it on again.</p>",
    ))
}
