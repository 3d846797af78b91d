//! Clock notices: a mail when a seat's move is due within a warning's time (24 hours and 1 hour
//! by default), once for each warning and each turn, never once the seat has moved. Time, not
//! an event, causes them: the mail worker watches the running clocks of the games it follows
//! and, when a warning falls due, checks the game as it stands before it queues the mail. The
//! mail's id is recorded per (game, seat, deadline, warning) before it is queued, so whichever
//! node holds the mail lease, a warning is queued under one id and sent once.

use super::compose::id_part;
use crate::index;
use crate::mail::Mail;
use crate::webhooks::notification::{Notification, NotificationType};
use chrono::{DateTime, Duration, Utc};
use domain::registry::LiveGame;
use domain::table::{SeatClock, Status};
use domain::Seat;
use std::collections::HashMap;
use std::sync::Mutex;

/// The ids of clock notices queued, by (game, seat, deadline, warning).
const CLOCK_NOTICES: &str = "mail_clock_notices";
/// How long a queued clock notice's id is remembered after its deadline.
const REMEMBER: Duration = Duration::days(7);

/// The default warnings: a day and an hour before the deadline.
pub fn default_warnings() -> Vec<std::time::Duration> {
    vec![
        std::time::Duration::from_secs(24 * 3600),
        std::time::Duration::from_secs(3600),
    ]
}

/// A warning owed to a seat whose clock runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub seat: Seat,
    pub player: String,
    pub deadline: DateTime<Utc>,
    /// How long before the deadline it is given.
    pub before: Duration,
}

impl Warning {
    /// When it falls due.
    pub fn due(&self) -> DateTime<Utc> {
        self.deadline - self.before
    }

    fn record_key(&self, game: &str) -> String {
        format!(
            "{}/{game}/{}/{}",
            self.deadline.timestamp_millis(),
            self.seat,
            self.before.num_seconds()
        )
    }
}

/// The warnings owed to the seats of `game` that must act against a running clock: each
/// warning shorter than the time a move is given (a warning as long as the whole allowance
/// would say no more than the turn notice).
pub fn warnings(game: &dyn LiveGame, before: &[std::time::Duration]) -> Vec<Warning> {
    let facts = game.facts();
    let Some(allowance) = facts.time_control.allowance() else {
        return Vec::new();
    };
    if facts.status != Status::Active || facts.analysis {
        return Vec::new();
    }
    let players = facts.players;
    let clocks = facts.clocks;
    let mut owed = Vec::new();
    for seat in facts.to_act {
        let (Some(SeatClock::Running { deadline }), Some(Some(player))) =
            (clocks.get(seat), players.get(seat))
        else {
            continue;
        };
        for warning in before {
            let Ok(warning) = Duration::from_std(*warning) else {
                continue;
            };
            if warning < allowance {
                owed.push(Warning {
                    seat,
                    player: player.clone(),
                    deadline: *deadline,
                    before: warning,
                });
            }
        }
    }
    owed
}

/// Whether `warning` still holds for `game`: the seat must still act against the same deadline,
/// which has not passed.
pub fn still_owed(game: &dyn LiveGame, warning: &Warning, now: DateTime<Utc>) -> bool {
    let facts = game.facts();
    facts.status == Status::Active
        && facts.to_act.contains(&warning.seat)
        && facts
            .players
            .get(warning.seat)
            .cloned()
            .flatten()
            .as_deref()
            == Some(warning.player.as_str())
        && facts.clocks.get(warning.seat).and_then(SeatClock::deadline) == Some(warning.deadline)
        && warning.deadline > now
}

/// A duration as a player reads it: "24 hours", "1 hour", "90 minutes", "14 seconds".
pub fn span(duration: Duration) -> String {
    let seconds = duration.num_seconds().max(0);
    let (n, unit) = if seconds >= 3600 && seconds % 3600 == 0 {
        (seconds / 3600, "hour")
    } else if seconds >= 60 && seconds % 60 == 0 {
        (seconds / 60, "minute")
    } else {
        (seconds, "second")
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

/// The warnings the worker waits for, by game: rebuilt when it takes the mail lease, brought
/// up to date with every batch of the log it follows.
#[derive(Default)]
pub struct Watch(Mutex<HashMap<String, Vec<Warning>>>);

impl Watch {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Warning>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Watches the warnings of `game` as it now stands (none: stops watching it).
    pub fn set(&self, id: &str, owed: Vec<Warning>) {
        let mut watched = self.lock();
        if owed.is_empty() {
            watched.remove(id);
        } else {
            watched.insert(id.to_string(), owed);
        }
    }

    pub fn clear(&self) {
        self.lock().clear();
    }

    /// The warnings due at `now`, taken out of the watch.
    fn take_due(&self, now: DateTime<Utc>) -> Vec<(String, Warning)> {
        let mut watched = self.lock();
        let mut due = Vec::new();
        for (game, owed) in watched.iter_mut() {
            owed.retain(|w| {
                if w.due() <= now {
                    due.push((game.clone(), w.clone()));
                    false
                } else {
                    true
                }
            });
        }
        watched.retain(|_, owed| !owed.is_empty());
        due
    }
}

impl Mail {
    /// Game `id` folded up to its stream's head, from the store (the worker's folds are not
    /// kept up to date by the commands of this or another node).
    pub(crate) fn game_now(&self, id: &str) -> Result<Box<dyn LiveGame>, String> {
        let head = self
            .repository
            .store()
            .head(id)
            .map_err(|e| e.to_string())?;
        self.repository
            .game_at(id, head)
            .map_err(|e| e.detail.clone())
    }

    /// Watches the running clocks of every timed active game whose players take mail: when the
    /// worker takes the mail lease.
    pub(crate) fn watch_running_clocks(&self) {
        self.clock_watch.clear();
        let (name, value) = index::CLOCK_RUNNING;
        let mut after: Option<String> = None;
        let mut watched = 0;
        loop {
            let page = match self
                .repository
                .ids_tagged(name, value, after.as_deref(), 500)
            {
                Ok(page) => page,
                Err(error) => {
                    tracing::error!(%error, "mail: cannot list the games whose clocks run");
                    return;
                }
            };
            for id in &page {
                match self.game_now(id) {
                    Ok(game) => {
                        self.watch_clocks(id, game.as_ref());
                        watched += 1;
                    }
                    Err(error) => tracing::warn!(game = %id, %error, "mail: cannot fold a game"),
                }
            }
            match page.last() {
                Some(last) if page.len() == 500 => after = Some(last.clone()),
                _ => break,
            }
        }
        tracing::info!(games = watched, "mail: watching the running clocks");
    }

    /// Watches the warnings owed to the players of `game` who take mail.
    pub(crate) fn watch_clocks(&self, id: &str, game: &dyn LiveGame) {
        let owed: Vec<Warning> = warnings(game, &self.settings.clock_warnings)
            .into_iter()
            .filter(|w| self.accounts.any_mail(&w.player))
            .collect();
        self.clock_watch.set(id, owed);
    }

    /// Queues the clock notices due at `now` that still hold.
    pub(crate) async fn queue_clock_notices(&self, now: DateTime<Utc>) {
        for (id, warning) in self.clock_watch.take_due(now) {
            let game = match self.game_now(&id) {
                Ok(game) => game,
                Err(error) => {
                    tracing::warn!(game = %id, %error, "mail: cannot fold a game for its clock");
                    continue;
                }
            };
            let now = Utc::now();
            // A shorter warning already due says it better (after a restart, or a clock that
            // came back from a vacation with little time left): one mail, not two.
            let shorter_due = self.settings.clock_warnings.iter().any(|w| {
                Duration::from_std(*w)
                    .is_ok_and(|w| w < warning.before && warning.deadline - w <= now)
            });
            if shorter_due || !still_owed(game.as_ref(), &warning, now) {
                continue;
            }
            let Some(address) = self
                .accounts
                .wants(&warning.player, NotificationType::ClockLow)
            else {
                continue;
            };
            if let Err(error) = self
                .queue_clock_notice(&id, game.as_ref(), &warning, &address)
                .await
            {
                tracing::error!(game = %id, %error, "mail: cannot queue a clock notice");
            }
        }
    }

    async fn queue_clock_notice(
        &self,
        id: &str,
        game: &dyn LiveGame,
        warning: &Warning,
        address: &str,
    ) -> Result<(), String> {
        let store = self.repository.store();
        let key = warning.record_key(id);
        // The id chosen the first time, by whichever node: the outbox sends an id once.
        let notice_id = match store
            .get_record(CLOCK_NOTICES, &key)
            .map_err(|e| e.to_string())?
        {
            Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            None => {
                let notice_id = format!(
                    "{id}:{}:{}:{}:{}",
                    game.facts().version,
                    warning.player,
                    NotificationType::ClockLow.as_str(),
                    warning.before.num_seconds()
                );
                store
                    .put_record_async(CLOCK_NOTICES, &key, notice_id.as_bytes())
                    .await
                    .map_err(|e| e.to_string())?;
                notice_id
            }
        };
        let notice = Notification {
            deadline: Some(warning.deadline),
            ..super::worker::mail_notice(
                (&notice_id, NotificationType::ClockLow),
                (id, game),
                (&warning.player, warning.seat),
            )
        };
        let mut letter = self.notice_letter(game, &notice, address, false);
        letter.id = id_part(&notice.id);
        letter.still = Some(super::outbox::ClockStill {
            game: id.to_string(),
            seat: warning.seat,
            deadline: warning.deadline,
        });
        let line = self.line_of(id, game);
        self.send_in_line(&letter, &line, &warning.player)
            .await
            .map_err(|e| e.detail.clone())?;
        Ok(())
    }

    /// Forgets the ids of clock notices whose deadline passed a week ago.
    pub(crate) async fn prune_clock_notices(&self) {
        let store = self.repository.store();
        let Ok(records) = store.records_with_prefix(CLOCK_NOTICES, "") else {
            return;
        };
        let cutoff = (Utc::now() - REMEMBER).timestamp_millis();
        for (key, _) in records {
            let old = key
                .split('/')
                .next()
                .and_then(|ms| ms.parse::<i64>().ok())
                .is_some_and(|ms| ms < cutoff);
            if old {
                let _ = store.remove_record_async(CLOCK_NOTICES, &key).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_read_as_a_player_says_them() {
        assert_eq!(span(Duration::hours(24)), "24 hours");
        assert_eq!(span(Duration::hours(1)), "1 hour");
        assert_eq!(span(Duration::minutes(90)), "90 minutes");
        assert_eq!(span(Duration::seconds(14)), "14 seconds");
    }

    #[test]
    fn the_default_warnings_are_a_day_and_an_hour() {
        assert_eq!(
            default_warnings(),
            vec![
                std::time::Duration::from_secs(86_400),
                std::time::Duration::from_secs(3_600)
            ]
        );
    }
}
