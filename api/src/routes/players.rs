//! `/v1/players`: create a player, who am I, my games.

use crate::auth::{Authenticated, ACCOUNT, ANY, PLAY, READ};
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use crate::summary::GamePage;
use actix_web::{delete, get, post, put, web, HttpResponse};
use app::players::{Player, TokenInfo};
use app::vacations::Vacation;
use app::{ApiCode, ApiError};
use domain::table::VacationEndReason;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// A new player: the name others see.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignUp {
    /// 1 to 40 characters, kept in Unicode NFC; no control, format (bidirectional,
    /// zero-width), line or paragraph separator, or unassigned characters.
    #[schema(example = "Bea", min_length = 1, max_length = 40)]
    pub name: String,
}

/// A new player and their secret token, shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerCreated {
    pub player: Player,
    /// Send it as `Authorization: Bearer <token>`. Keep it secret: it acts for you.
    #[schema(example = "av_5c0ffee5...")]
    pub token: String,
}

/// Create a player.
#[utoipa::path(operation_id = "createPlayer", tag = "players", request_body = SignUp,
    responses(
        (status = 201, description = "The player, with their token (shown only now)", body = PlayerCreated),
        (status = 400, description = "Not a player: unreadable JSON, a repeated key, an unknown field, or `invalid_name`: a name that is not 1 to 40 characters, or holds control, format (bidirectional, zero-width), separator or unassigned characters", body = Problem),
        (status = 413, body = Problem), (status = 415, body = Problem),
        (status = 429, description = "`rate_limited`: too many players from one address; `Retry-After` says when to try again", body = Problem)))]
#[post("/v1/players")]
pub async fn create_player(
    state: web::Data<AppState>,
    request: actix_web::HttpRequest,
    body: crate::json_body::Json<SignUp>,
) -> Result<HttpResponse, HttpError> {
    state
        .limits
        .player_created(&crate::connections::client_address(&request))?;
    let (player, token) = state.players.create(&body.name).await?;
    tracing::info!(player = %player.id, "player created");
    Ok(HttpResponse::Created().json(PlayerCreated { player, token }))
}

/// The player the token belongs to, with their mail settings.
#[utoipa::path(operation_id = "getCurrentPlayer", tag = "players", security(("bearer" = ["read"])),
    responses((status = 200, description = "The token's player", body = Me),
        (status = 401, body = Problem)))]
#[get("/v1/players/me")]
pub async fn me(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<READ>,
) -> Result<HttpResponse, HttpError> {
    let account = state.mail.accounts.get(&player.id)?;
    Ok(HttpResponse::Ok().json(Me {
        player,
        email: app::mail::account::MailInfo::from(&account),
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct MyGamesQuery {
    /// `mine`: only the games where you must act now, the nearest deadline first, then the
    /// untimed games that have waited longest.
    pub turn: Option<String>,
    /// The next page: the `next` of the previous page. Pages are in id order, or with
    /// `turn=mine` most urgent first (then by id): each page goes on where the previous one
    /// ended in that order, even if a game left the list meanwhile.
    pub after: Option<String>,
    /// At most this many (default 50, at most 200).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<usize>,
}

/// My games in pages: every game I hold a seat in, by id, or with `?turn=mine` those where I
/// must act, most urgent first; each page says where the next one begins (`next`, `null`
/// after the last).
#[utoipa::path(operation_id = "listMyGames", tag = "players", security(("bearer" = ["read"])),
    params(MyGamesQuery),
    responses((status = 200, description = "A page of my games (without their views), and the cursor of the next page", body = GamePage),
        (status = 400, description = "`bad_query`: a query parameter that is not understood", body = Problem),
        (status = 401, body = Problem)))]
#[get("/v1/players/me/games")]
pub async fn my_games(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<READ>,
    query: web::Query<MyGamesQuery>,
) -> Result<HttpResponse, HttpError> {
    let only_my_turn = match query.turn.as_deref() {
        None => false,
        Some("mine") => true,
        Some(other) => {
            return Err(ApiError::new(
                ApiCode::BadQuery,
                format!("turn={other} is not understood; use turn=mine."),
            )
            .into())
        }
    };
    let limit = super::page_size(query.limit, 50, 200)?;
    let after = query.after.as_deref();
    let page = if only_my_turn {
        state.games.my_turn(&player.id, after, limit).await?
    } else {
        state.games.seated(&player.id, after, limit)?
    };
    Ok(HttpResponse::Ok()
        .json(GamePage::of(page, &state.players, &state.club, Some(&player.id)).await))
}

/// My vacation: whether I am on one, and how much of this year's 30 days is left.
#[utoipa::path(operation_id = "getMyVacation", tag = "players", security(("bearer" = ["read"])),
    responses((status = 200, description = "Whether I am away, and the days left this year", body = Vacation),
        (status = 401, body = Problem)))]
#[get("/v1/players/me/vacation")]
pub async fn my_vacation(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<READ>,
) -> Result<HttpResponse, HttpError> {
    Ok(HttpResponse::Ok().json(state.vacations.get(&player.id).await?))
}

/// Go on vacation: the clocks of all my timed games stand still until I come back, or until
/// this year's 30 days are used up. Recorded as `vacation_started` in each game.
#[utoipa::path(operation_id = "startVacation", tag = "players", security(("bearer" = ["play"])),
    responses((status = 200, description = "On vacation from now on", body = Vacation),
        (status = 401, body = Problem),
        (status = 409, description = "Already on vacation (nothing is written), or no days left", body = Problem),
        (status = 429, description = "`rate_limited`: too many vacations started or ended today; `Retry-After` says when to try again", body = Problem)))]
#[post("/v1/players/me/vacation")]
pub async fn start_vacation(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
) -> Result<HttpResponse, HttpError> {
    state.limits.vacation_changed(&player.id)?;
    let shown = state.vacations.start(&player.id, &state.games).await?;
    Ok(HttpResponse::Ok().json(shown))
}

/// Come back from vacation: the clocks of my games run again with the time they had left.
#[utoipa::path(operation_id = "endVacation", tag = "players", security(("bearer" = ["play"])),
    responses((status = 200, description = "Back: the clocks run again", body = Vacation),
        (status = 401, body = Problem),
        (status = 409, description = "Not on vacation (nothing is written)", body = Problem),
        (status = 429, description = "`rate_limited`: too many vacations started or ended today; `Retry-After` says when to try again", body = Problem)))]
#[delete("/v1/players/me/vacation")]
pub async fn end_vacation(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
) -> Result<HttpResponse, HttpError> {
    state.limits.vacation_changed(&player.id)?;
    let shown = state
        .vacations
        .end(&player.id, VacationEndReason::Returned, &state.games)
        .await?;
    Ok(HttpResponse::Ok().json(shown))
}

/// A new token, shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenIssued {
    /// Send it as `Authorization: Bearer <token>`. Keep it secret: it acts for you.
    #[schema(example = "av_5c0ffee5...")]
    pub token: String,
    /// How it is listed (without the secret).
    pub listed: TokenInfo,
}

/// What to call a new token (optional).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewToken {
    /// 1 to 40 characters that remind you what it is for, such as the device.
    #[schema(example = "phone", min_length = 1, max_length = 40)]
    pub label: Option<String>,
    /// What it may do: some of `read`, `play` and `account` (a bot's: `["read", "play"]`),
    /// every scope if absent. Only an `account` token issues, lists and revokes other
    /// tokens and changes the mail address or webhooks.
    #[schema(example = json!(["read", "play"]), min_items = 1)]
    pub scopes: Option<Vec<app::players::Scope>>,
}

/// Issue a new token for me, beside the one in use (shown this once). The body, optional,
/// gives it a label. To replace a token, issue a new one, then revoke the old one with
/// `DELETE /v1/players/me/tokens/current`.
#[utoipa::path(operation_id = "issueToken", tag = "players", security(("bearer" = ["account"])),
    request_body(content = Option<NewToken>, description = "Optional: a label for the token"),
    responses((status = 201, description = "The new token (shown only now)", body = TokenIssued),
        (status = 400, description = "`invalid_label`, `invalid_scopes` (an empty list), an unknown scope, or unreadable JSON", body = Problem),
        (status = 401, body = Problem),
        (status = 429, description = "`rate_limited`: you hold the most tokens one player may (`tokens_per_player`), or asked for too many this hour (`tokens_per_hour_per_player`); `Retry-After` says when to try again", body = Problem)))]
#[post("/v1/players/me/tokens")]
pub async fn issue_token(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<ACCOUNT>,
    body: web::Bytes,
) -> Result<HttpResponse, HttpError> {
    // The body is optional: none issues a token without a label.
    let asked: NewToken = if body.iter().all(u8::is_ascii_whitespace) {
        NewToken::default()
    } else {
        crate::json_body::parse(&body)?
    };
    let (token, listed) = state
        .players
        .issue_token(
            &player,
            asked.label.as_deref(),
            asked.scopes.as_deref(),
            |live| state.limits.token_issued(&player.id, live),
        )
        .await?;
    tracing::info!(player = %player.id, token = %listed.id, "token issued");
    Ok(HttpResponse::Created().json(TokenIssued { token, listed }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// The next page: the `next` of the previous page.
    pub after: Option<String>,
    /// At most this many (default 50, at most 200).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<usize>,
}

/// A page of my tokens, and where the next page begins.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenPage {
    /// My tokens, oldest first.
    pub items: Vec<TokenInfo>,
    /// The cursor of the next page: send it as `after` to get it. `null` when this page is the
    /// last.
    #[schema(required = true)]
    pub next: Option<String>,
}

/// My tokens, oldest first, in pages: when each was issued and last used, and its label;
/// never the secret. The one this request is sent with is marked `current`.
#[utoipa::path(operation_id = "listMyTokens", tag = "players", security(("bearer" = ["account"])),
    params(PageQuery),
    responses((status = 200, description = "A page of my tokens, oldest first, and the cursor of the next page", body = TokenPage),
        (status = 400, description = "`bad_query`: a query parameter that is not understood", body = Problem),
        (status = 401, body = Problem)))]
#[get("/v1/players/me/tokens")]
pub async fn list_tokens(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<ACCOUNT>,
    query: web::Query<PageQuery>,
    request: actix_web::HttpRequest,
) -> Result<HttpResponse, HttpError> {
    let limit = super::page_size(query.limit, 50, 200)?;
    let current = crate::auth::bearer(&request)?.unwrap_or_default();
    let tokens = state.players.tokens(&player.id, &current).await?;
    // Oldest first, then by id: a page goes on after the previous page's last token, even if
    // that one was revoked meanwhile.
    // Tokens issued before the server kept when sort first, as `tokens` lists them.
    let issued = |t: &TokenInfo| {
        t.created_at
            .and_then(|at| at.timestamp_nanos_opt())
            .unwrap_or(i64::MIN)
    };
    let key = |t: &TokenInfo| format!("{}~{}", issued(t), t.id);
    let start = match query.after.as_deref() {
        None => 0,
        Some(after) => {
            let parsed = after
                .split_once('~')
                .and_then(|(nanos, id)| Some((nanos.parse::<i64>().ok()?, id)));
            let Some((nanos, id)) = parsed else {
                return Err(ApiError::new(
                    ApiCode::BadQuery,
                    format!("after={after} is not the `next` of a page of tokens."),
                )
                .into());
            };
            tokens.partition_point(|t| (issued(t), t.id.as_str()) <= (nanos, id))
        }
    };
    let found: Vec<TokenInfo> = tokens.into_iter().skip(start).take(limit + 1).collect();
    let page = app::lists::Page::of(found, limit, key);
    Ok(HttpResponse::Ok().json(TokenPage {
        items: page.items,
        next: page.next,
    }))
}

/// Revoke the token this request is sent with: it acts for no one from now on, on every
/// server, and its open streams and waiting requests end. Other tokens of mine go on working;
/// without any, the account cannot be used again.
#[utoipa::path(operation_id = "revokeCurrentToken", tag = "players", security(("bearer" = [])),
    responses((status = 204, description = "Revoked: the token acts for no one from now on"),
        (status = 401, body = Problem)))]
#[delete("/v1/players/me/tokens/current")]
pub async fn revoke_token(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<ANY>,
    request: actix_web::HttpRequest,
) -> Result<HttpResponse, HttpError> {
    let token = crate::auth::bearer(&request)?.ok_or_else(|| {
        ApiError::unauthorized("Send the token to revoke as `Authorization: Bearer <token>`.")
    })?;
    state.players.revoke(&token).await?;
    tracing::info!(player = %player.id, "token revoked");
    Ok(HttpResponse::NoContent().finish())
}

/// Revoke one of my tokens by its id (as `GET /v1/players/me/tokens` lists it): it acts for no
/// one from now on, on every server, and its open streams and waiting requests end.
#[utoipa::path(operation_id = "revokeToken", tag = "players", security(("bearer" = ["account"])),
    params(("id" = String, Path, description = "The token's id, `t-` and 16 hexadecimal digits")),
    responses((status = 204, description = "Revoked"),
        (status = 401, body = Problem),
        (status = 404, description = "`token_not_found`: none of my tokens has this id", body = Problem)))]
#[delete("/v1/players/me/tokens/{id}")]
pub async fn revoke_token_by_id(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<ACCOUNT>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    state.players.revoke_by_id(&player.id, &id).await?;
    tracing::info!(player = %player.id, token = %id, "token revoked");
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct RevokeOthersQuery {
    /// `current`: keep the token this request is sent with (required, so that nobody signs
    /// out of every device by mistake).
    pub keep: Option<String>,
}

/// How many tokens were revoked.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokensRevoked {
    pub revoked: usize,
}

/// Sign out everywhere else: revoke every token of mine but the one this request is sent with
/// (`?keep=current`). Their open streams and waiting requests end, on every server.
#[utoipa::path(operation_id = "revokeOtherTokens", tag = "players", security(("bearer" = ["account"])),
    params(RevokeOthersQuery),
    responses((status = 200, description = "How many tokens were revoked", body = TokensRevoked),
        (status = 400, description = "`bad_query`: `keep=current` is missing", body = Problem),
        (status = 401, body = Problem)))]
#[delete("/v1/players/me/tokens")]
pub async fn revoke_other_tokens(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<ACCOUNT>,
    query: web::Query<RevokeOthersQuery>,
    request: actix_web::HttpRequest,
) -> Result<HttpResponse, HttpError> {
    if query.keep.as_deref() != Some("current") {
        return Err(ApiError::new(ApiCode::BadQuery,
            "Say which token to keep: DELETE /v1/players/me/tokens?keep=current revokes every other one.",
        ).into());
    }
    let current = crate::auth::bearer(&request)?.unwrap_or_default();
    let revoked = state.players.revoke_others(&player.id, &current).await?;
    tracing::info!(player = %player.id, revoked, "other tokens revoked");
    Ok(HttpResponse::Ok().json(TokensRevoked { revoked }))
}

/// The player the token belongs to, with their mail settings.
#[derive(Debug, Serialize, ToSchema)]
pub struct Me {
    #[serde(flatten)]
    pub player: Player,
    /// The mail address and which notices it is sent.
    pub email: app::mail::account::MailInfo,
}

/// A mail address to set.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewEmail {
    /// A mail address such as bea@example.org, at most 254 characters.
    #[schema(example = "bea@example.org", min_length = 1, max_length = 254)]
    pub address: String,
}

/// The code mailed to a new address.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailCode {
    /// The six digits mailed to the address.
    #[schema(example = "042917", pattern = "^[0-9]{6}$")]
    pub code: String,
}

/// Set my mail address: a code is mailed to it, and `POST /v1/players/me/email/confirm`
/// with that code confirms it. Until then (and after a new address is set) no game mail is
/// sent.
#[utoipa::path(operation_id = "setMyEmail", tag = "players", security(("bearer" = ["account"])),
    request_body = NewEmail,
    responses((status = 202, description = "Set, unconfirmed: the code is on its way", body = app::mail::account::MailInfo),
        (status = 400, description = "`invalid_email`: not a mail address, or longer than 254 characters", body = Problem),
        (status = 401, body = Problem), (status = 415, body = Problem),
        (status = 429, description = "`rate_limited`: too many codes asked for; `Retry-After` says when to try again", body = Problem),
        (status = 503, description = "`mail_not_configured`: this server sends no mail", body = Problem)))]
#[put("/v1/players/me/email")]
pub async fn set_email(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<ACCOUNT>,
    body: crate::json_body::Json<NewEmail>,
) -> Result<HttpResponse, HttpError> {
    let info = state.mail.set_address(&player, &body.address).await?;
    Ok(HttpResponse::Accepted().json(info))
}

/// Confirm my mail address with the code mailed to it.
#[utoipa::path(operation_id = "confirmMyEmail", tag = "players", security(("bearer" = ["account"])),
    request_body = EmailCode,
    responses((status = 200, description = "Confirmed: game mail goes to this address", body = app::mail::account::MailInfo),
        (status = 400, description = "Unreadable JSON (`malformed_json`), a key repeated (`duplicate_key`), or a body that does not fit (`bad_request`), such as a code that is not six digits (no try is counted)", body = Problem), (status = 401, body = Problem),
        (status = 409, description = "`invalid_code`: not the code, or no longer valid", body = Problem),
        (status = 415, body = Problem)))]
#[post("/v1/players/me/email/confirm")]
pub async fn confirm_email(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<ACCOUNT>,
    body: crate::json_body::Json<EmailCode>,
) -> Result<HttpResponse, HttpError> {
    let account = state.mail.accounts.confirm(&player.id, &body.code).await?;
    tracing::info!(player = %player.id, "mail address confirmed");
    Ok(HttpResponse::Ok().json(app::mail::account::MailInfo::from(&account)))
}

/// Remove my mail address: no mail is sent to it from now on.
#[utoipa::path(operation_id = "deleteMyEmail", tag = "players", security(("bearer" = ["account"])),
    responses((status = 204, description = "Removed"), (status = 401, body = Problem)))]
#[delete("/v1/players/me/email")]
pub async fn delete_email(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<ACCOUNT>,
) -> Result<HttpResponse, HttpError> {
    state.mail.accounts.remove(&player.id).await?;
    tracing::info!(player = %player.id, "mail address removed");
    Ok(HttpResponse::NoContent().finish())
}

/// Choose which notices are mailed to me (each on or off); also turns game mail back on
/// after an unsubscribe link was used.
#[utoipa::path(operation_id = "setMyNotifications", tag = "players", security(("bearer" = ["account"])),
    request_body = app::mail::account::Preferences,
    responses((status = 200, description = "My mail settings now", body = app::mail::account::MailInfo),
        (status = 400, body = Problem), (status = 401, body = Problem),
        (status = 415, body = Problem)))]
#[put("/v1/players/me/notifications")]
pub async fn set_notifications(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<ACCOUNT>,
    body: crate::json_body::Json<app::mail::account::Preferences>,
) -> Result<HttpResponse, HttpError> {
    let account = state
        .mail
        .accounts
        .set_preferences(&player.id, body.into_inner())
        .await?;
    Ok(HttpResponse::Ok().json(app::mail::account::MailInfo::from(&account)))
}
