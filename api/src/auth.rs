//! Bearer tokens: `Authorization: Bearer <token>` names the player a request acts for.

use crate::problem::HttpError;
use crate::state::AppState;
use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use app::players::Player;
use app::ApiError;
use std::future::{ready, Ready};

/// The player a request acts for; the request is refused without a valid token.
pub struct Authenticated(pub Player);

/// The player a request acts for, if it carries a token (spectators carry none). A token that
/// is present but wrong is refused rather than treated as a spectator.
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

fn player(req: &HttpRequest) -> Result<Option<Player>, ApiError> {
    let Some(token) = bearer(req)? else {
        return Ok(None);
    };
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| ApiError::internal("application state missing"))?;
    state.players.authenticate(&token).map(Some)
}

impl FromRequest for Authenticated {
    type Error = HttpError;
    type Future = Ready<Result<Self, HttpError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            player(req)
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
        ready(player(req).map(MaybeAuthenticated).map_err(HttpError))
    }
}
