//! `/v1/kinds`: the games offered.

use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use actix_web::{get, web, HttpResponse};
use app::{ApiCode, ApiError};
use domain::table::TABLE_COMMAND_TYPES;
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
    /// The `type`s of the table's own commands, common to every game (`join`, `cancel`,
    /// `resign`, `offer_draw`, `accept_draw`, `decline_draw`, `request_takeback`,
    /// `accept_takeback`, `decline_takeback`, `withdraw_takeback`, `claim_timeout`): a command
    /// of one of these types goes to the table (the `TableCommand` schema), any other to the
    /// game (`schemas.command`). No game command uses them.
    pub table_commands: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct KindSchemas {
    pub options: String,
    pub command: String,
    pub event: String,
    pub view: String,
}

/// A page of the games offered, and where the next page begins.
#[derive(Debug, Serialize, ToSchema)]
pub struct KindPage {
    /// The games offered, in the server's order.
    pub items: Vec<KindOut>,
    /// The cursor of the next page: send it as `after` to get it. `null` when this page is the
    /// last (with the default `limit`, the first page holds every game).
    #[schema(required = true)]
    pub next: Option<String>,
}

/// The games offered: ids, variants, options, player counts, the current revision of each
/// game's rules with what every revision changed, and the page of the repository where the
/// rules are written (`rules`, for instance `docs/rules/ski-runs.md`). A game keeps the
/// revision it was created under.
#[utoipa::path(operation_id = "listKinds", tag = "games",
    params(crate::routes::players::PageQuery),
    responses((status = 200, description = "Every game offered, in pages (one with the default `limit`), and the cursor of the next page", body = KindPage),
        (status = 400, description = "`bad_query`: a query parameter that is not understood", body = Problem)))]
#[get("/v1/kinds")]
pub async fn kinds(
    state: web::Data<AppState>,
    query: web::Query<crate::routes::players::PageQuery>,
) -> Result<HttpResponse, HttpError> {
    let limit = super::page_size(query.limit, 50, 200)?;
    let mut all = state.registry.kinds().peekable();
    if let Some(after) = query.after.as_deref() {
        // After the kind named (the previous page's `next`): the server's order never changes.
        let named = state.registry.kinds().any(|kind| kind.info().id == after);
        if !named {
            return Err(ApiError::new(
                ApiCode::BadQuery,
                format!("after={after} is not the `next` of a page of kinds."),
            )
            .into());
        }
        while all.next_if(|kind| kind.info().id != after).is_some() {}
        all.next();
    }
    let kinds: Vec<KindOut> = all
        .take(limit + 1)
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
                table_commands: TABLE_COMMAND_TYPES.iter().map(|t| t.to_string()).collect(),
            }
        })
        .collect();
    let page = app::lists::Page::of(kinds, limit, |kind| kind.info.id.clone());
    Ok(HttpResponse::Ok().json(KindPage {
        items: page.items,
        next: page.next,
    }))
}
