//! `/v1/kinds`: the games offered.

use crate::state::AppState;
use actix_web::{get, web, HttpResponse};
use domain::KindInfo;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// A game offered, with its default options and where its schemas are in the API document.
#[derive(Debug, Serialize, ToSchema)]
pub struct KindOut {
    /// The game: ids, seats, the page of its rules (`rules`), the revision of the rules new
    /// games are played under (`revision`) and what each revision changed (`revisions`).
    #[serde(flatten)]
    pub info: KindInfo,
    /// The options used when a game is created without any.
    #[schema(value_type = Object)]
    pub default_options: Value,
    /// The names of this game's schemas under `components/schemas` of `/openapi.json`.
    pub schemas: KindSchemas,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct KindSchemas {
    pub options: String,
    pub command: String,
    pub event: String,
    pub view: String,
}

/// The games offered: ids, variants, options, player counts, the current revision of each
/// game's rules with what every revision changed, and the page of the repository where the
/// rules are written (`rules`, for instance `docs/rules/ski-runs.md`). A game keeps the
/// revision it was created under.
#[utoipa::path(operation_id = "listKinds", tag = "games",
    responses((status = 200, description = "Every game offered", body = Vec<KindOut>),
        (status = 400, description = "Only a request the server cannot read as HTTP, answered by the HTTP layer itself")))]
#[get("/v1/kinds")]
pub async fn kinds(state: web::Data<AppState>) -> HttpResponse {
    let kinds: Vec<KindOut> = state
        .registry
        .kinds()
        .map(|kind| {
            let info = kind.info();
            let prefix = crate::wire::schema_prefix(&info.id);
            KindOut {
                default_options: kind.default_options(),
                schemas: KindSchemas {
                    options: format!("{prefix}.Options"),
                    command: format!("{prefix}.GameCommand"),
                    event: format!("{prefix}.Event"),
                    view: format!("{prefix}.View"),
                },
                info,
            }
        })
        .collect();
    HttpResponse::Ok().json(kinds)
}
