//! Quotas and rate limits, so that one client cannot fill the store or the server's time:
//! players created per client address, games created and open seats held per player,
//! commands per player, streams open at once per player. Excess is answered `429 Too Many
//! Requests` with `Retry-After` and a problem whose `code` is `rate_limited` and whose
//! `details.limit` names the limit. Rates are token buckets kept in this server's memory (each
//! node of several counts its own); the open seats are counted from the store's index.

use crate::problem::ApiError;
use actix_web::http::StatusCode;
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The limits, each a setting of `avalanche serve`; 0 turns a limit off.
#[derive(Clone, Copy, Debug)]
pub struct LimitSettings {
    /// Players created per client address per hour.
    pub players_per_hour_per_address: u32,
    /// Games created per player per hour.
    pub games_per_hour_per_player: u32,
    /// Games still waiting for players in which one player may hold a seat.
    pub open_seats_per_player: usize,
    /// Commands (moves, table commands, joins) per player per second, with twice as many at
    /// once.
    pub commands_per_second_per_player: u32,
    /// Event streams and long-polls a player (or, without a token, a client address) may hold
    /// open at once.
    pub streams_per_player: usize,
}

impl Default for LimitSettings {
    fn default() -> Self {
        LimitSettings {
            players_per_hour_per_address: 30,
            games_per_hour_per_player: 120,
            open_seats_per_player: 50,
            commands_per_second_per_player: 20,
            streams_per_player: 16,
        }
    }
}

impl LimitSettings {
    /// No limit at all (benchmarks).
    pub fn unlimited() -> Self {
        LimitSettings {
            players_per_hour_per_address: 0,
            games_per_hour_per_player: 0,
            open_seats_per_player: 0,
            commands_per_second_per_player: 0,
            streams_per_player: 0,
        }
    }
}

/// The limits in force, with their counters.
pub struct Limits {
    pub settings: LimitSettings,
    players: RateLimit,
    games: RateLimit,
    commands: RateLimit,
    streams: Arc<Mutex<HashMap<String, usize>>>,
}

impl Limits {
    pub fn new(settings: LimitSettings) -> Limits {
        let hourly = |n: u32| (n as f64, n as f64 / 3600.0);
        Limits {
            settings,
            players: RateLimit::new(
                "players_per_address",
                "players created from one address",
                hourly(settings.players_per_hour_per_address),
            ),
            games: RateLimit::new(
                "games_per_player",
                "games created by one player",
                hourly(settings.games_per_hour_per_player),
            ),
            commands: RateLimit::new(
                "commands_per_player",
                "commands by one player",
                (
                    2.0 * settings.commands_per_second_per_player as f64,
                    settings.commands_per_second_per_player as f64,
                ),
            ),
            streams: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// One more player created from `address`.
    pub fn player_created(&self, address: &str) -> Result<(), ApiError> {
        self.players.take(address)
    }

    /// One more game created by `player`.
    pub fn game_created(&self, player: &str) -> Result<(), ApiError> {
        self.games.take(player)
    }

    /// One more command by `player`.
    pub fn command(&self, player: &str) -> Result<(), ApiError> {
        self.commands.take(player)
    }

    /// Refuses one more open seat for a player who holds `held` already.
    pub fn open_seat(&self, held: usize) -> Result<(), ApiError> {
        let most = self.settings.open_seats_per_player;
        if most == 0 || held < most {
            return Ok(());
        }
        Err(too_many(
            "open_seats_per_player",
            format!("You hold a seat in {held} games still waiting for players, the most one player may: wait for them to start, or resign from some, before you create or join another that will wait."),
            Duration::from_secs(60),
        ))
    }

    /// Event streams and long-polls open now, of every holder.
    pub fn open_streams(&self) -> usize {
        lock(&self.streams).values().sum()
    }

    /// A stream held open by `holder` (a player, or an address), counted until dropped.
    pub fn stream(&self, holder: &str) -> Result<StreamPermit, ApiError> {
        let most = self.settings.streams_per_player;
        let mut open = lock(&self.streams);
        let count = open.entry(holder.to_string()).or_insert(0);
        if most != 0 && *count >= most {
            return Err(too_many(
                "streams_per_player",
                format!("You hold {count} event streams or long-polls open already, the most one player may: close one first."),
                Duration::from_secs(5),
            ));
        }
        *count += 1;
        Ok(StreamPermit {
            streams: self.streams.clone(),
            holder: holder.to_string(),
        })
    }
}

/// The address a request came from, the key of the limits counted per client address (the
/// peer's: a proxy in front counts as one client).
pub fn client_address(request: &actix_web::HttpRequest) -> String {
    request
        .peer_addr()
        .map_or_else(|| "unknown".to_string(), |peer| peer.ip().to_string())
}

/// One open stream of a holder; dropping it (the stream ends) frees its place.
pub struct StreamPermit {
    streams: Arc<Mutex<HashMap<String, usize>>>,
    holder: String,
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut open = lock(&self.streams);
        if let Some(count) = open.get_mut(&self.holder) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.holder);
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn too_many(limit: &str, detail: String, retry_after: Duration) -> ApiError {
    let seconds = retry_after.as_secs_f64().ceil().max(1.0) as u64;
    ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", detail)
        .with_details(json!({"limit": limit, "retry_after_seconds": seconds}))
        .with_retry_after(seconds)
}

/// A token bucket per key: `capacity` at once, refilled at `per_second`.
struct RateLimit {
    name: &'static str,
    what: &'static str,
    capacity: f64,
    per_second: f64,
    buckets: Mutex<HashMap<String, Bucket>>,
}

struct Bucket {
    tokens: f64,
    updated: Instant,
}

/// Buckets kept before the full ones (which hold no information) are dropped.
const MAX_BUCKETS: usize = 100_000;

impl RateLimit {
    fn new(name: &'static str, what: &'static str, (capacity, per_second): (f64, f64)) -> Self {
        RateLimit {
            name,
            what,
            capacity,
            per_second,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    fn take(&self, key: &str) -> Result<(), ApiError> {
        if self.per_second <= 0.0 {
            return Ok(());
        }
        let now = Instant::now();
        let mut buckets = lock(&self.buckets);
        if buckets.len() >= MAX_BUCKETS {
            buckets.retain(|_, bucket| self.level(bucket, now) < self.capacity);
        }
        let bucket = buckets.entry(key.to_string()).or_insert(Bucket {
            tokens: self.capacity,
            updated: now,
        });
        bucket.tokens = self.level(bucket, now);
        bucket.updated = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        let wait = Duration::from_secs_f64((1.0 - bucket.tokens) / self.per_second);
        Err(too_many(
            self.name,
            format!(
                "Too many {}: at most {} at once, then {} a {}. Try again in {} s.",
                self.what,
                self.capacity,
                rate(self.per_second),
                if self.per_second >= 1.0 {
                    "second"
                } else {
                    "hour"
                },
                wait.as_secs_f64().ceil().max(1.0)
            ),
            wait,
        ))
    }

    fn level(&self, bucket: &Bucket, now: Instant) -> f64 {
        let refill = now.duration_since(bucket.updated).as_secs_f64() * self.per_second;
        (bucket.tokens + refill).min(self.capacity)
    }
}

fn rate(per_second: f64) -> f64 {
    if per_second >= 1.0 {
        per_second
    } else {
        (per_second * 3600.0).round()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_lets_its_capacity_through_then_refuses_with_a_wait() {
        let limit = RateLimit::new("test", "tests", (3.0, 1.0));
        for _ in 0..3 {
            assert!(limit.take("ann").is_ok());
        }
        let refused = limit
            .take("ann")
            .expect_err("the fourth at once is refused");
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.retry_after, Some(1));
        assert!(limit.take("bob").is_ok(), "each key has its own bucket");
    }

    #[test]
    fn a_stream_permit_frees_its_place_when_dropped() {
        let limits = Limits::new(LimitSettings {
            streams_per_player: 2,
            ..LimitSettings::default()
        });
        let first = limits.stream("ann").expect("one");
        let _second = limits.stream("ann").expect("two");
        assert!(limits.stream("ann").is_err());
        drop(first);
        assert!(limits.stream("ann").is_ok());
    }

    #[test]
    fn zero_turns_a_limit_off() {
        let limits = Limits::new(LimitSettings::unlimited());
        for _ in 0..1000 {
            assert!(limits.command("ann").is_ok());
            assert!(limits.game_created("ann").is_ok());
        }
        assert!(limits.open_seat(1_000_000).is_ok());
    }
}
