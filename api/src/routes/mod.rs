//! One file per resource.

pub mod backup;
pub mod challenges;
pub mod club;
pub mod events;
pub mod forks;
pub mod games;
pub mod health;
pub mod imports;
pub mod kinds;
pub mod licence;
pub mod mail;
pub mod messages;
pub mod notes;
pub mod notices;
pub mod play;
pub mod players;
pub mod recovery;
pub mod replay;
pub mod tournament_export;
pub mod tournaments;
pub mod web;
pub mod webhooks;

/// The API's documented endpoints, each declared here once: the server registers them (in this
/// order, which is the order actix tries them: a game's two busiest routes come first) and the
/// OpenAPI document collects its paths from the same registrations.
pub fn api(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config
        .service(play::play)
        .service(play::legal)
        .service(players::create_player)
        .service(players::me)
        .service(players::my_games)
        .service(players::my_vacation)
        .service(players::start_vacation)
        .service(players::end_vacation)
        .service(players::issue_token)
        .service(players::list_tokens)
        .service(players::revoke_token)
        .service(players::revoke_token_by_id)
        .service(players::revoke_other_tokens)
        .service(players::set_email)
        .service(players::confirm_email)
        .service(players::delete_email)
        .service(players::set_notifications)
        .service(recovery::ask_recovery)
        .service(recovery::recovery_page)
        .service(recovery::recover)
        .service(club::search_players)
        .service(club::player_page)
        .service(club::player_games)
        .service(club::leaderboard)
        .service(challenges::create_challenge)
        .service(challenges::list_challenges)
        .service(challenges::get_challenge)
        .service(challenges::accept_challenge)
        .service(challenges::decline_challenge)
        .service(challenges::cancel_challenge)
        .service(challenges::rematch)
        .service(tournaments::create_tournament)
        .service(tournaments::list_tournaments)
        .service(tournaments::get_tournament)
        .service(tournaments::join_tournament)
        .service(tournaments::withdraw_from_tournament)
        .service(tournaments::start_tournament)
        .service(tournaments::audit_tournament)
        .service(tournament_export::export_tournament)
        .service(tournaments::create_next_edition)
        .service(mail::inbound)
        .service(mail::invite)
        .service(mail::unsubscribe_page)
        .service(mail::unsubscribe)
        .service(webhooks::create_webhook)
        .service(webhooks::list_webhooks)
        .service(webhooks::delete_webhook)
        .service(webhooks::enable_webhook)
        .service(kinds::kinds)
        .service(games::create_game)
        .service(games::list_games)
        .service(games::get_game)
        .service(games::join_game)
        .service(messages::say)
        .service(messages::delete_mine)
        .service(messages::report)
        .service(messages::delete_all_mine)
        .service(messages::mutes)
        .service(messages::mute)
        .service(messages::unmute)
        .service(notes::my_note)
        .service(notes::set_my_note)
        .service(events::events)
        .service(events::stream)
        .service(events::stream_ndjson)
        .service(notices::my_stream)
        .service(replay::state_at)
        .service(replay::audit)
        .service(replay::game_log)
        .service(replay::record)
        .service(forks::create_fork)
        .service(forks::list_forks)
        .service(imports::import);
}

/// The size of a page: `limit` (1 to `most`, as the document's `maximum` says), or `default`.
/// `limit=0` asks for nothing and a larger one for more than a page holds: both are refused
/// with the schema's words.
pub(crate) fn page_size(
    limit: Option<usize>,
    default: usize,
    most: usize,
) -> Result<usize, app::ApiError> {
    match limit {
        Some(limit) if limit == 0 || limit > most => Err(app::ApiError::new(
            app::ApiCode::BadQuery,
            format!("limit={limit}: limit is 1 to {most}."),
        )),
        Some(limit) => Ok(limit),
        None => Ok(default),
    }
}

/// Game `id` as its stream stands now ([`app::Games::slot`]). On a store other nodes
/// share, the cached fold when the store can tell it is current without a read
/// ([`app::Games::settled`]); otherwise that reads the database, and off the worker
/// thread: a worker blocked on the read would hold every other request it serves meanwhile.
pub(crate) async fn current_game(
    state: &actix_web::web::Data<crate::state::AppState>,
    id: &str,
) -> Result<app::SlotRef, app::ApiError> {
    if !state.games.shared() {
        return state.games.slot(id);
    }
    if let Some(slot) = state.games.settled(id).await {
        return Ok(slot);
    }
    let (state, id) = (state.clone(), id.to_string());
    actix_web::web::block(move || state.games.slot(&id))
        .await
        .map_err(app::ApiError::internal)?
}
