//! Vacations: each player has 30 days a year during which the clocks of their timed games
//! stand still. Starting and ending one are events in the player's own stream
//! (`vacations-<player id>`), recorded before the clocks of their games are stopped or
//! started again (as `vacation_started` / `vacation_ended` events of each game).

use crate::commands::{append_error, Games};
use crate::error::{ApiCode, ApiError};
use chrono::{DateTime, Datelike, Duration, TimeZone, Utc};
use domain::table::{type_name, VacationEndReason, VacationEvent};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;
use storage::{Batch, NewEvent, Storage};
use utoipa::ToSchema;

/// The vacation days each player has in a calendar year (UTC).
pub const DAYS_A_YEAR: i64 = 30;
/// The index entry of a player on vacation now, so that a restart knows who is away.
const AWAY_TAG: (&str, &str) = ("vacation", "away");

/// A player's vacation as they see it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Vacation {
    /// Whether the player is on vacation now: the clocks of their timed games stand still.
    pub on_vacation: bool,
    /// When the current vacation began.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<DateTime<Utc>>,
    /// When the current vacation ends by itself, once this year's days are used up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ends_by: Option<DateTime<Utc>>,
    /// The calendar year (UTC) the figures below count.
    pub year: i32,
    /// Vacation time a year: 30 days.
    pub allowance_seconds: i64,
    /// Vacation time taken this year, the current vacation included.
    pub used_seconds: i64,
    /// Vacation time left this year.
    pub remaining_seconds: i64,
}

/// One player's vacations, folded from their stream.
#[derive(Debug, Clone, Default)]
struct History {
    /// (start, end) of each vacation; the last one may still run.
    periods: Vec<(DateTime<Utc>, Option<DateTime<Utc>>)>,
    /// When the running vacation ends by itself.
    ends_by: Option<DateTime<Utc>>,
    /// The stream version.
    version: u64,
}

impl History {
    fn ongoing(&self) -> Option<DateTime<Utc>> {
        match self.periods.last() {
            Some((start, None)) => Some(*start),
            _ => None,
        }
    }

    /// Vacation time taken in `now`'s year up to `now`.
    fn used(&self, now: DateTime<Utc>) -> Duration {
        let year = now.year();
        let begin = Utc.with_ymd_and_hms(year, 1, 1, 0, 0, 0).single();
        let end = Utc.with_ymd_and_hms(year + 1, 1, 1, 0, 0, 0).single();
        let (Some(begin), Some(end)) = (begin, end) else {
            return Duration::zero();
        };
        self.periods
            .iter()
            .map(|(start, stop)| {
                let from = (*start).max(begin);
                let to = stop.unwrap_or(now).min(end).min(now);
                (to - from).max(Duration::zero())
            })
            .fold(Duration::zero(), |sum, d| sum + d)
    }

    fn shown(&self, now: DateTime<Utc>) -> Vacation {
        let allowance = Duration::days(DAYS_A_YEAR);
        let used = self.used(now).min(allowance);
        let since = self.ongoing();
        Vacation {
            on_vacation: since.is_some(),
            since,
            ends_by: since.and(self.ends_by),
            year: now.year(),
            allowance_seconds: allowance.num_seconds(),
            used_seconds: used.num_seconds(),
            remaining_seconds: (allowance - used).num_seconds(),
        }
    }
}

/// Every player's vacations, read through to the store.
pub struct Vacations {
    store: Arc<dyn Storage>,
    histories: tokio::sync::Mutex<HashMap<String, History>>,
}

fn stream(player: &str) -> String {
    format!("vacations-{player}")
}

/// Whether `player` is on vacation now, as the store's index says (for a server that shares
/// its store with others, which may have recorded the vacation).
pub(crate) fn away_in_store(store: &dyn Storage, player: &str) -> Result<bool, ApiError> {
    Ok(store
        .tags(&stream(player))
        .map_err(ApiError::from)?
        .iter()
        .any(|(name, value)| name == AWAY_TAG.0 && value == AWAY_TAG.1))
}

impl Vacations {
    pub fn new(store: Arc<dyn Storage>) -> Vacations {
        Vacations {
            store,
            histories: tokio::sync::Mutex::new(HashMap::new()),
        }
    }

    fn read(&self, player: &str) -> Result<History, ApiError> {
        let envelopes = self
            .store
            .read_stream(&stream(player), 0, usize::MAX)
            .map_err(ApiError::from)?;
        let mut history = History::default();
        for envelope in envelopes {
            history.version = envelope.version;
            match VacationEvent::deserialize(&envelope.payload) {
                Ok(VacationEvent::VacationStarted { ends_by }) => {
                    history.periods.push((envelope.recorded_at, None));
                    history.ends_by = Some(ends_by);
                }
                Ok(VacationEvent::VacationEnded { .. }) => {
                    if let Some((_, end)) = history.periods.last_mut() {
                        *end = Some(envelope.recorded_at);
                    }
                    history.ends_by = None;
                }
                Err(error) => {
                    tracing::error!(%player, version = envelope.version, %error, "an unreadable vacation event")
                }
            }
        }
        Ok(history)
    }

    async fn history(
        &self,
        histories: &mut HashMap<String, History>,
        player: &str,
    ) -> Result<History, ApiError> {
        if let Some(history) = histories.get(player) {
            // With other servers on the store, the player may have started or ended a
            // vacation on one of them.
            let current = !self.store.shared()
                || self.store.head(&stream(player)).map_err(ApiError::from)? == history.version;
            if current {
                return Ok(history.clone());
            }
        }
        let history = self.read(player)?;
        histories.insert(player.to_string(), history.clone());
        Ok(history)
    }

    /// Reads `player`'s vacations again after another server recorded one (the clock keeper
    /// follows the log): whether they are away, and when their vacation runs out.
    pub async fn refresh(&self, player: &str, games: &Games) -> Result<(), ApiError> {
        let mut histories = self.histories.lock().await;
        let history = self.history(&mut histories, player).await?;
        games.set_away(player, history.ongoing().is_some());
        Ok(())
    }

    /// `player`'s vacation now.
    pub async fn get(&self, player: &str) -> Result<Vacation, ApiError> {
        let mut histories = self.histories.lock().await;
        Ok(self
            .history(&mut histories, player)
            .await?
            .shown(Utc::now()))
    }

    /// Starts a vacation: recorded, then the clocks of the player's games stop.
    pub async fn start(&self, player: &str, games: &Games) -> Result<Vacation, ApiError> {
        let mut histories = self.histories.lock().await;
        let mut history = self.history(&mut histories, player).await?;
        let now = Utc::now();
        if history.ongoing().is_some() {
            return Err(ApiError::new(
                ApiCode::AlreadyOnVacation,
                "You are already on vacation.",
            ));
        }
        let left = Duration::days(DAYS_A_YEAR) - history.used(now);
        if left <= Duration::zero() {
            return Err(ApiError::new(
                ApiCode::NoVacationLeft,
                format!(
                    "You have used your {DAYS_A_YEAR} vacation days of {}.",
                    now.year()
                ),
            ));
        }
        let ends_by = now + left;
        let event = VacationEvent::VacationStarted { ends_by };
        self.record(player, &history, event, now, true).await?;
        history.periods.push((now, None));
        history.ends_by = Some(ends_by);
        history.version += 1;
        histories.insert(player.to_string(), history.clone());
        drop(histories);
        tracing::info!(%player, %ends_by, "vacation started");
        games.set_away(player, true);
        let changed = games.apply_vacation(player, true).await?;
        tracing::info!(%player, games = changed, "vacation: clocks stopped");
        Ok(history.shown(now))
    }

    /// Ends a vacation (`reason`: `returned`, or `allowance_used` when the server ends it):
    /// recorded, then the clocks of the player's games run again.
    pub async fn end(
        &self,
        player: &str,
        reason: VacationEndReason,
        games: &Games,
    ) -> Result<Vacation, ApiError> {
        let mut histories = self.histories.lock().await;
        let mut history = self.history(&mut histories, player).await?;
        let now = Utc::now();
        if history.ongoing().is_none() {
            return Err(ApiError::new(
                ApiCode::NotOnVacation,
                "You are not on vacation.",
            ));
        }
        let event = VacationEvent::VacationEnded { reason };
        self.record(player, &history, event, now, false).await?;
        if let Some((_, end)) = history.periods.last_mut() {
            *end = Some(now);
        }
        history.ends_by = None;
        history.version += 1;
        histories.insert(player.to_string(), history.clone());
        drop(histories);
        tracing::info!(%player, reason = reason.as_str(), "vacation ended");
        games.set_away(player, false);
        let changed = games.apply_vacation(player, false).await?;
        tracing::info!(%player, games = changed, "vacation over: clocks running again");
        Ok(history.shown(now))
    }

    async fn record(
        &self,
        player: &str,
        history: &History,
        event: VacationEvent,
        now: DateTime<Utc>,
        away: bool,
    ) -> Result<(), ApiError> {
        let id = stream(player);
        let tags = if away {
            vec![(AWAY_TAG.0.to_string(), AWAY_TAG.1.to_string())]
        } else {
            Vec::new()
        };
        let payload = serde_json::to_value(&event).map_err(ApiError::internal)?;
        let batch = Batch {
            events: vec![NewEvent {
                event_type: type_name(&payload),
                schema_version: 1,
                payload,
            }],
            actor: format!("player:{player}"),
            command_id: None,
            command: None,
            recorded_at: now,
            tags: Some(tags),
            secrets: Vec::new(),
        };
        self.store
            .append(&id, history.version, batch)
            .await
            .map_err(|e| append_error(&id, e))?;
        Ok(())
    }

    /// After a restart: marks every player on vacation as away, for the games.
    pub async fn restore(&self, games: &Games) -> Result<usize, ApiError> {
        let streams = self
            .store
            .streams_tagged(AWAY_TAG.0, AWAY_TAG.1, None, usize::MAX)
            .map_err(ApiError::from)?;
        let mut histories = self.histories.lock().await;
        for id in &streams {
            let Some(player) = id.strip_prefix("vacations-") else {
                continue;
            };
            self.history(&mut histories, player).await?;
            games.set_away(player, true);
        }
        Ok(streams.len())
    }

    /// The players whose vacation has used up this year's days by `now`.
    pub async fn expired(&self, now: DateTime<Utc>) -> Vec<String> {
        self.histories
            .lock()
            .await
            .iter()
            .filter(|(_, h)| h.ongoing().is_some() && h.ends_by.is_some_and(|end| end <= now))
            .map(|(player, _)| player.clone())
            .collect()
    }
}
