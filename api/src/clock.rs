//! The clock keeper: the server's own look at the time. It records a timeout (an event from
//! the `system` actor) within a moment of a deadline passing, even if nobody calls, and ends
//! vacations whose days are used up. The rules themselves never read a clock: the keeper
//! reads it and passes it in. Several servers on one database share one keeper: whichever
//! holds the clock lease (see [`app::leases`]).

use crate::state::AppState;
use actix_web::web;
use app::leases::CLOCK;
use chrono::Utc;
use domain::table::{SystemCommand, VacationEndReason};
use std::time::Duration;

/// How often the keeper looks at the deadlines: a timeout is recorded at most this late.
pub const TICK: Duration = Duration::from_millis(250);

/// How many events of the log the keeper reads at a time when it follows other servers.
const PAGE: usize = 256;

/// Starts the keeper on the current runtime. One server of a store keeps the clock at a time
/// (the lease [`CLOCK`]; on sled that is always this one). When it takes the clock it first
/// folds every active game, so that their deadlines are watched (after a restart, or after the
/// server that kept the clock died), and restores who is on vacation. Where other servers
/// share the store it then follows the global log, so that the deadlines their commands set
/// are watched here too, and the timeouts fall due on time whichever server took the move.
pub fn spawn(state: web::Data<AppState>) {
    actix_web::rt::spawn(async move {
        let shared = state.games.shared();
        // The position of the log from which other servers' commands are followed, once this
        // server keeps the clock.
        let mut following: Option<u64> = None;
        let mut tick = actix_web::rt::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            if !state.leases.hold(CLOCK) {
                if following.take().is_some() {
                    tracing::warn!("the clock lease was lost: another server keeps the clock");
                }
                continue;
            }
            let from = match following {
                Some(position) => position,
                None => {
                    let from = state.games.durable_position();
                    take_over(&state).await;
                    from
                }
            };
            following = Some(if shared {
                follow(&state, from).await
            } else {
                from
            });
            look(&state).await;
            state.metrics.clock_looked();
        }
    });
}

/// What the keeper does once it takes the clock: restores who is on vacation and watches the
/// deadline of every active game.
async fn take_over(state: &AppState) {
    match state.vacations.restore(&state.games).await {
        Ok(away) => tracing::info!(players = away, "vacations restored"),
        Err(error) => tracing::error!(%error, "could not restore vacations"),
    }
    match state.games.watch_active().await {
        Ok(games) => tracing::info!(games, "clock keeper watching the active games"),
        Err(error) => tracing::error!(%error, "could not look at the active games"),
    }
}

/// Follows the log after `from`: every game written since (by any server) is brought up to
/// date here and its deadline watched, every player whose vacations moved is read again.
/// Returns the position followed to. The page is read on a blocking thread: the keeper shares
/// its thread with the node's other background tasks (and its handling of SIGTERM), which a
/// read of a database that takes its time to answer would hold.
async fn follow(state: &web::Data<AppState>, mut from: u64) -> u64 {
    loop {
        let reading = state.clone();
        let page = actix_web::rt::task::spawn_blocking(move || reading.games.log_after(from, PAGE))
            .await
            .unwrap_or_else(|panic| Err(app::ApiError::internal(panic)));
        let page = match page {
            Ok(page) => page,
            Err(error) => {
                tracing::error!(%error, "cannot follow the event log");
                return from;
            }
        };
        let Some(last) = page.last().map(|e| e.position) else {
            return from;
        };
        let full = page.len() == PAGE;
        // Each stream once, in the order of the log, with its events of the page: the game
        // folds in those its fold lacks from there, without reading its stream (which would
        // hold this worker while the database answers).
        let mut streams: Vec<(String, Vec<storage::Envelope>)> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for event in page {
            match index.get(event.stream.as_str()) {
                Some(&i) => streams[i].1.push(event),
                None => {
                    index.insert(event.stream.clone(), streams.len());
                    streams.push((event.stream.clone(), vec![event]));
                }
            }
        }
        for (stream, events) in streams {
            if stream.starts_with("g-") {
                if let Err(error) = state.games.refresh_deadline(&stream, Some(events)).await {
                    tracing::error!(game = %stream, %error, "cannot watch a game's deadline");
                }
            } else if let Some(player) = stream.strip_prefix("vacations-") {
                if let Err(error) = state.vacations.refresh(player, &state.games).await {
                    tracing::error!(%player, %error, "cannot read a player's vacations");
                }
            }
        }
        from = last;
        if !full {
            return from;
        }
    }
}

/// One look: every game whose deadline has passed, every clock that got low, every vacation
/// that has run out.
async fn look(state: &AppState) {
    let now = Utc::now();
    for id in state.games.due(now) {
        match state.games.system(&id, &SystemCommand::Timeout).await {
            Ok(_) => state.metrics.timeout_recorded(),
            // The deadline moved (a move came in first): the new one is watched.
            Err(refused) if refused.code == domain::ErrorCode::NoTimeout => {}
            Err(error) => tracing::error!(game = %id, %error, "could not record a timeout"),
        }
    }
    for id in state.games.warnings_due(now) {
        if let Err(error) = state.games.warn_low_clocks(&id, now).await {
            tracing::error!(game = %id, %error, "could not write that a clock is low");
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
