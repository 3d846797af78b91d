//! Quotas and rate limits, so that one client cannot fill the store or the server's time:
//! players created per client address, games, forks and imports created and open seats held
//! per player, commands per player, vacation changes and tokens per player, streams open at
//! once per player. Excess is answered `429 Too Many Requests` with `Retry-After` and a problem
//! whose `code` is `rate_limited` and whose `details.limit` names the limit. Rates are token
//! buckets kept in this server's memory (each node of several counts its own); the open seats
//! and live tokens are counted from the store.
//!
//! A client address is the peer's, or behind a trusted proxy the one the proxy names in
//! `X-Forwarded-For`; an IPv6 address counts by its /64, the block one subscriber is given.

use crate::error::{ApiCode, ApiError};
use ipnet::IpNet;
use serde_json::json;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The limits, each a setting of `avalanche serve`; 0 turns a limit off.
#[derive(Clone, Debug)]
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
    /// Forks (analysis forks) created per player per hour.
    pub forks_per_hour_per_player: u32,
    /// Games imported per player per hour.
    pub imports_per_hour_per_player: u32,
    /// Vacations started or ended per player per day.
    pub vacation_changes_per_day_per_player: u32,
    /// Messages said per player per hour (at the tables of every game together).
    pub messages_per_hour_per_player: u32,
    /// Tokens a player may hold at once.
    pub tokens_per_player: usize,
    /// Tokens issued per player per hour.
    pub tokens_per_hour_per_player: u32,
    /// Connections one client address may hold open at once (a trusted proxy is not counted).
    pub connections_per_address: usize,
    /// Proxies (addresses or ranges) whose `X-Forwarded-For` names the client; from any other
    /// peer the header is ignored.
    pub trusted_proxies: Vec<IpNet>,
    /// Who may read `GET /metrics`: peers in these ranges, or requests carrying
    /// `metrics_token` as a bearer token. Both empty: anyone.
    pub metrics_allowed: Vec<IpNet>,
    /// A bearer token of its own for `GET /metrics` (not a player's).
    pub metrics_token: Option<String>,
}

impl Default for LimitSettings {
    fn default() -> Self {
        LimitSettings {
            players_per_hour_per_address: 30,
            games_per_hour_per_player: 120,
            open_seats_per_player: 50,
            commands_per_second_per_player: 20,
            streams_per_player: 16,
            forks_per_hour_per_player: 60,
            imports_per_hour_per_player: 60,
            vacation_changes_per_day_per_player: 10,
            messages_per_hour_per_player: 60,
            tokens_per_player: 20,
            tokens_per_hour_per_player: 10,
            connections_per_address: 64,
            trusted_proxies: Vec::new(),
            metrics_allowed: Vec::new(),
            metrics_token: None,
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
            forks_per_hour_per_player: 0,
            imports_per_hour_per_player: 0,
            vacation_changes_per_day_per_player: 0,
            messages_per_hour_per_player: 0,
            tokens_per_player: 0,
            tokens_per_hour_per_player: 0,
            connections_per_address: 0,
            trusted_proxies: Vec::new(),
            metrics_allowed: Vec::new(),
            metrics_token: None,
        }
    }
}

/// The limits in force, with their counters.
pub struct Limits {
    pub settings: LimitSettings,
    players: RateLimit,
    games: RateLimit,
    commands: RateLimit,
    forks: RateLimit,
    imports: RateLimit,
    vacations: RateLimit,
    messages: RateLimit,
    tokens: RateLimit,
    streams: Arc<Mutex<HashMap<String, usize>>>,
}

impl Limits {
    pub fn new(settings: LimitSettings) -> Limits {
        let hourly = |n: u32| (n as f64, n as f64 / 3600.0);
        let daily = |n: u32| (n as f64, n as f64 / 86400.0);
        Limits {
            forks: RateLimit::new(
                "forks_per_player",
                "forks created by one player",
                hourly(settings.forks_per_hour_per_player),
            ),
            imports: RateLimit::new(
                "imports_per_player",
                "games imported by one player",
                hourly(settings.imports_per_hour_per_player),
            ),
            vacations: RateLimit::new(
                "vacation_changes_per_player",
                "vacations started or ended by one player",
                daily(settings.vacation_changes_per_day_per_player),
            ),
            messages: RateLimit::new(
                "messages_per_player",
                "messages said by one player",
                hourly(settings.messages_per_hour_per_player),
            ),
            tokens: RateLimit::new(
                "tokens_per_hour_per_player",
                "tokens issued to one player",
                hourly(settings.tokens_per_hour_per_player),
            ),
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
            settings,
        }
    }

    /// One more fork created by `player`.
    pub fn fork_created(&self, player: &str) -> Result<(), ApiError> {
        self.forks.take(player)
    }

    /// One more game imported by `player`.
    pub fn import_created(&self, player: &str) -> Result<(), ApiError> {
        self.imports.take(player)
    }

    /// One more vacation started or ended by `player`.
    pub fn vacation_changed(&self, player: &str) -> Result<(), ApiError> {
        self.vacations.take(player)
    }

    /// One more token for `player`, who holds `live` already.
    pub fn token_issued(&self, player: &str, live: usize) -> Result<(), ApiError> {
        let most = self.settings.tokens_per_player;
        if most != 0 && live >= most {
            return Err(too_many(
                "tokens_per_player",
                format!("You hold {live} tokens, the most one player may: revoke some you no longer use (GET /v1/players/me/tokens lists them) before you ask for another."),
                Duration::from_secs(60),
            ));
        }
        self.tokens.take(player)
    }

    /// One more player created from `address`.
    pub fn player_created(&self, address: &str) -> Result<(), ApiError> {
        self.players.take(address)
    }

    /// One more message said by `player`.
    pub fn message_said(&self, player: &str) -> Result<(), ApiError> {
        self.messages.take(player)
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

/// The client of a request from `peer` that carried the `X-Forwarded-For` headers
/// `forwarded`: `peer` itself unless it is one of the `trusted` proxies; then the last address
/// of the list that is not a trusted proxy (each proxy appends the address it got the request
/// from, so what a client wrote itself stands further left and is never believed).
pub fn forwarded_client<'a>(
    peer: IpAddr,
    forwarded: impl Iterator<Item = &'a str>,
    trusted: &[IpNet],
) -> IpAddr {
    let is_trusted =
        |address: &IpAddr| trusted.iter().any(|net| net.contains(&canonical(*address)));
    if !is_trusted(&peer) {
        return peer;
    }
    let named: Vec<&str> = forwarded.flat_map(|header| header.split(',')).collect();
    let mut client = peer;
    for entry in named.iter().rev() {
        match parse_forwarded(entry) {
            Some(address) => {
                client = address;
                if !is_trusted(&address) {
                    break;
                }
            }
            // Something unreadable: what stands left of it cannot be trusted either.
            None => break,
        }
    }
    client
}

/// One entry of `X-Forwarded-For`: an address, maybe with a port, IPv6 maybe in brackets.
fn parse_forwarded(entry: &str) -> Option<IpAddr> {
    let entry = entry.trim();
    if let Ok(address) = entry.parse::<IpAddr>() {
        return Some(address);
    }
    if let Ok(socket) = entry.parse::<std::net::SocketAddr>() {
        return Some(socket.ip());
    }
    entry
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .and_then(|inner| inner.parse().ok())
}

/// An IPv4 address written as IPv6 (`::ffff:a.b.c.d`) as the IPv4 address it is.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    }
}

/// The key an address counts under: an IPv4 address itself, an IPv6 address its /64 (one
/// subscriber is given a whole /64, and may pick any address in it).
pub fn address_key(address: IpAddr) -> String {
    match canonical(address) {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            let prefix = Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0);
            format!("{prefix}/64")
        }
    }
}

/// Whether a request from `client` (the peer, or the client a trusted proxy names) carrying the bearer token
/// `bearer` may read `/metrics`.
pub fn may_read_metrics(
    settings: &LimitSettings,
    client: Option<IpAddr>,
    bearer: Option<&str>,
) -> bool {
    if settings.metrics_allowed.is_empty() && settings.metrics_token.is_none() {
        return true;
    }
    operator_allowed(settings, client, bearer)
}

/// Whether a request from `client` with `bearer` may take a backup (`GET /backup`): as for
/// the metrics, from an address of `--metrics-allow` or with the metrics token; with neither
/// set, only from this machine: a backup holds every player's record and every running
/// game's secrets, unlike the metrics.
pub fn may_take_backup(
    settings: &LimitSettings,
    client: Option<IpAddr>,
    bearer: Option<&str>,
) -> bool {
    if settings.metrics_allowed.is_empty() && settings.metrics_token.is_none() {
        return client.is_some_and(|client| canonical(client).is_loopback());
    }
    operator_allowed(settings, client, bearer)
}

/// From an address of `--metrics-allow`, or with the metrics token.
fn operator_allowed(
    settings: &LimitSettings,
    client: Option<IpAddr>,
    bearer: Option<&str>,
) -> bool {
    use sha2::{Digest, Sha256};
    let by_address =
        client.is_some_and(|client| is_trusted_proxy(client, &settings.metrics_allowed));
    // Compared as hashes, so that the time taken says nothing of the token.
    let by_token = match (&settings.metrics_token, bearer) {
        (Some(token), Some(bearer)) => {
            Sha256::digest(token.as_bytes()) == Sha256::digest(bearer.as_bytes())
        }
        _ => false,
    };
    by_address || by_token
}

/// Whether `address` is one of the trusted proxies.
pub fn is_trusted_proxy(address: IpAddr, trusted: &[IpNet]) -> bool {
    trusted.iter().any(|net| net.contains(&canonical(address)))
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
    ApiError::new(ApiCode::RateLimited, detail)
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
                period(self.per_second),
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

/// The rate of a bucket in the unit [`period`] names.
fn rate(per_second: f64) -> f64 {
    if per_second >= 1.0 {
        per_second
    } else if per_second * 3600.0 >= 1.0 {
        (per_second * 3600.0).round()
    } else {
        (per_second * 86400.0).round()
    }
}

fn period(per_second: f64) -> &'static str {
    if per_second >= 1.0 {
        "second"
    } else if per_second * 3600.0 >= 1.0 {
        "hour"
    } else {
        "day"
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
        assert_eq!(refused.code, ApiCode::RateLimited);
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
    fn ipv6_addresses_count_by_their_64_and_mapped_ipv4_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(address_key(a), address_key(b));
        assert_ne!(address_key(a), address_key(c));
        assert_eq!(address_key("::ffff:10.1.2.3".parse().unwrap()), "10.1.2.3");
        assert_eq!(address_key("10.1.2.3".parse().unwrap()), "10.1.2.3");
    }

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_proxies() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let proxy: IpAddr = "10.0.0.5".parse().unwrap();
        let stranger: IpAddr = "203.0.113.9".parse().unwrap();
        let header = ["198.51.100.1, 192.0.2.7"];
        // From a stranger, the header is the stranger's own word.
        assert_eq!(
            forwarded_client(stranger, header.into_iter(), &trusted),
            stranger
        );
        // From the proxy, the last address it appended is the client; what stands left of it
        // was written by the client and is not believed.
        assert_eq!(
            forwarded_client(proxy, header.into_iter(), &trusted),
            "192.0.2.7".parse::<IpAddr>().unwrap()
        );
        // Proxies in a chain are skipped.
        assert_eq!(
            forwarded_client(proxy, ["192.0.2.7, 10.0.0.9"].into_iter(), &trusted),
            "192.0.2.7".parse::<IpAddr>().unwrap()
        );
        // Without the header the proxy is the client; garbage stops the walk.
        assert_eq!(forwarded_client(proxy, std::iter::empty(), &trusted), proxy);
        assert_eq!(
            forwarded_client(proxy, ["not an address"].into_iter(), &trusted),
            proxy
        );
        assert_eq!(
            forwarded_client(proxy, ["[2001:db8::1]:443"].into_iter(), &trusted),
            "2001:db8::1".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn live_tokens_and_token_issuing_are_limited() {
        let limits = Limits::new(LimitSettings {
            tokens_per_player: 3,
            tokens_per_hour_per_player: 2,
            ..LimitSettings::default()
        });
        assert!(limits.token_issued("ann", 3).is_err());
        assert!(limits.token_issued("ann", 1).is_ok());
        assert!(limits.token_issued("ann", 1).is_ok());
        let refused = limits.token_issued("ann", 1).expect_err("two an hour");
        assert_eq!(refused.code, ApiCode::RateLimited);
    }

    #[test]
    fn a_backup_is_for_this_machine_unless_the_metrics_settings_name_who_else() {
        let open = LimitSettings::default();
        let local: IpAddr = "127.0.0.1".parse().unwrap();
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
        let remote: IpAddr = "10.0.0.5".parse().unwrap();
        assert!(may_take_backup(&open, Some(local), None));
        assert!(may_take_backup(&open, Some(mapped), None));
        assert!(!may_take_backup(&open, Some(remote), None));
        assert!(
            !may_take_backup(&open, None, None),
            "through an undeclared proxy"
        );
        let restricted = LimitSettings {
            metrics_allowed: vec!["10.0.0.0/8".parse().unwrap()],
            metrics_token: Some("s3cret".into()),
            ..LimitSettings::default()
        };
        assert!(may_take_backup(&restricted, Some(remote), None));
        let elsewhere: IpAddr = "192.0.2.1".parse().unwrap();
        assert!(may_take_backup(
            &restricted,
            Some(elsewhere),
            Some("s3cret")
        ));
        assert!(may_take_backup(&restricted, None, Some("s3cret")));
        assert!(!may_take_backup(
            &restricted,
            Some(elsewhere),
            Some("guess")
        ));
        assert!(!may_take_backup(&restricted, Some(local), None));
        assert!(!may_read_metrics(&restricted, None, None));
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
