//! `GET /v1/tournaments/{id}/export`: a tournament taken away, as its JSON log (what
//! `avalanche audit` decides again) or as text (standings, crosstable, rounds).

use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use actix_web::{get, web, HttpResponse};
use app::club::tournament_export::{tournament_text, TournamentLog};
use app::{ApiCode, ApiError};
use serde::Deserialize;
use utoipa::IntoParams;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ExportQuery {
    /// `json` (the default): the event log; `text`: standings, crosstable and rounds.
    pub format: Option<String>,
}

/// A tournament's export: `format=json`, its event log, every event with its version and the
/// time it was recorded (once it has finished, `avalanche audit FILE` decides every event
/// again with the revealed seed, without a server); `format=text`, what it is, its standings
/// with their tie-breaks, the crosstable and each round's tables with their results.
#[utoipa::path(operation_id = "exportTournament", tag = "tournaments", security(("bearer" = ["read"]), ()),
    params(("id" = String, Path, description = "The tournament's id"), ExportQuery),
    responses((status = 200, description = "The log (`format=json`) or the text (`format=text`)",
            content((TournamentLog = "application/json"), (String = "text/plain"))),
        (status = 400, description = "`bad_query`: a format other than `json` or `text`", body = Problem),
        (status = 404, description = "`tournament_not_found`", body = Problem)))]
#[get("/v1/tournaments/{id}/export")]
pub async fn export_tournament(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<ExportQuery>,
) -> Result<HttpResponse, HttpError> {
    match query.format.as_deref().unwrap_or("json") {
        "json" => {
            let log = state.club.tournament_log(&id).await?;
            Ok(HttpResponse::Ok().json(log))
        }
        "text" => {
            let tournament = state.club.tournament(&id).await?;
            let text = tournament_text(&tournament, |player| {
                state
                    .players
                    .name(player)
                    .map(|name| app::players::display_name(player, &name))
            });
            Ok(HttpResponse::Ok()
                .content_type("text/plain; charset=utf-8")
                .body(text))
        }
        other => Err(ApiError::new(
            ApiCode::BadQuery,
            format!("format={other} is not understood: json or text."),
        )
        .into()),
    }
}
