//! Bearer tokens: `Authorization: Bearer <token>` names the player a request acts for, and
//! the token's scopes what it may do for them. A handler names the scope it needs in its
//! extractor (`Authenticated<PLAY>`), so no handler can forget to ask.

use crate::problem::HttpError;
use crate::state::AppState;
use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use app::players::{Player, Scope};
use app::{ApiCode, ApiError};
use std::future::{ready, Ready};

/// The scope an extractor needs: reading what a token's player may see.
pub const READ: u8 = 0;
/// Playing: commands, games created, joined, forked or imported, vacations, invitations.
pub const PLAY: u8 = 1;
/// The account: tokens, the mail address and its notices, webhooks.
pub const ACCOUNT: u8 = 2;
/// Any scope: what a token may do to itself alone (revoke itself).
pub const ANY: u8 = 3;

fn scope_of(needed: u8) -> Option<Scope> {
    match needed {
        READ => Some(Scope::Read),
        PLAY => Some(Scope::Play),
        ACCOUNT => Some(Scope::Account),
        _ => None,
    }
}

/// The player a request acts for, with a token holding scope `NEEDS` ([`READ`], [`PLAY`],
/// [`ACCOUNT`], or [`ANY`]); the request is refused without a valid token (`401`), or with one that
/// lacks the scope (`403 insufficient_scope`).
pub struct Authenticated<const NEEDS: u8>(pub Player);

/// The player a request acts for, if it carries a token (spectators carry none). A token that
/// is present but wrong, or without the `read` scope, is refused rather than treated as a
/// spectator.
pub struct MaybeAuthenticated(pub Option<Player>);

/// The bearer token of a request, if it carries one.
pub fn bearer(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(header) = req.headers().get(actix_web::http::header::AUTHORIZATION) else {
        return Ok(None);
    };
    let text = header
        .to_str()
        .map_err(|_| ApiError::unauthorized("The Authorization header is not readable text."))?;
    match text.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(Some(token.trim().to_string()))
        }
        _ => Err(ApiError::unauthorized(
            "Send your token as `Authorization: Bearer <token>`.",
        )),
    }
}

/// The player of the request's token, if it carries one that holds `needed` (if any).
fn player(req: &HttpRequest, needed: Option<Scope>) -> Result<Option<Player>, ApiError> {
    let Some(token) = bearer(req)? else {
        return Ok(None);
    };
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| ApiError::internal("application state missing"))?;
    let (player, scopes) = state.players.authenticate_scoped(&token)?;
    let Some(needed) = needed else {
        return Ok(Some(player));
    };
    if !scopes.contains(&needed) {
        return Err(ApiError::new(
            ApiCode::InsufficientScope,
            format!(
                "This token may not do this: it needs the `{needed}` scope, and holds {}. A token with the `account` scope issues one that holds it (POST /v1/players/me/tokens).",
                Scope::list(&scopes)
            ),
        ));
    }
    Ok(Some(player))
}

impl<const NEEDS: u8> FromRequest for Authenticated<NEEDS> {
    type Error = HttpError;
    type Future = Ready<Result<Self, HttpError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            player(req, scope_of(NEEDS))
                .and_then(|p| {
                    p.map(Authenticated).ok_or_else(|| {
                        ApiError::unauthorized(
                            "This needs a player's token: `Authorization: Bearer <token>` (POST /v1/players gives one).",
                        )
                    })
                })
                .map_err(HttpError),
        )
    }
}

impl FromRequest for MaybeAuthenticated {
    type Error = HttpError;
    type Future = Ready<Result<Self, HttpError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            player(req, Some(Scope::Read))
                .map(MaybeAuthenticated)
                .map_err(HttpError),
        )
    }
}
