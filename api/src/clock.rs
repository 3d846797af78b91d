//! The clock keeper: the server's own look at the time. It records a timeout (an event from
//! the `system` actor) within a moment of a deadline passing, even if nobody calls, and ends
//! vacations whose days are used up. The rules themselves never read a clock: the keeper
//! reads it and passes it in.

use crate::state::AppState;
use actix_web::web;
use chrono::Utc;
use domain::table::{SystemCommand, VacationEndReason};
use std::time::Duration;

/// How often the keeper looks at the deadlines: a timeout is recorded at most this late.
pub const TICK: Duration = Duration::from_millis(250);

/// Starts the keeper on the current runtime. It first folds every active game, so that their
/// deadlines are watched after a restart, and restores who is on vacation.
pub fn spawn(state: web::Data<AppState>) {
    actix_web::rt::spawn(async move {
        match state.vacations.restore(&state.games).await {
            Ok(away) => tracing::info!(players = away, "vacations restored"),
            Err(error) => tracing::error!(%error, "could not restore vacations"),
        }
        match state.games.watch_active().await {
            Ok(games) => tracing::info!(games, "clock keeper watching the active games"),
            Err(error) => tracing::error!(%error, "could not look at the active games"),
        }
        let mut tick = actix_web::rt::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            look(&state).await;
        }
    });
}

/// One look: every game whose deadline has passed, every vacation that has run out.
async fn look(state: &AppState) {
    let now = Utc::now();
    for id in state.games.due(now) {
        match state.games.system(&id, &SystemCommand::Timeout).await {
            Ok(_) => {}
            // The deadline moved (a move came in first): the new one is watched.
            Err(refused) if refused.code == "no_timeout" => {}
            Err(error) => tracing::error!(game = %id, %error, "could not record a timeout"),
        }
    }
    for player in state.vacations.expired(now).await {
        if let Err(error) = state
            .vacations
            .end(&player, VacationEndReason::AllowanceUsed, &state.games)
            .await
        {
            tracing::error!(%player, %error, "could not end a vacation whose days are used up");
        }
    }
}
