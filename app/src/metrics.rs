//! What a node has been doing, for `GET /metrics` in the Prometheus text format (version
//! 0.0.4): requests by route and status, commands and their latency, appends and their
//! latency, the cache of folded games, open streams, and the process's memory and CPU.
//! Counters are atomics or a short lock; nothing here reads the store.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The upper bounds of the latency buckets, in seconds: from half a millisecond (a command on
/// an idle server) to ten seconds (a long-poll or a stuck database).
const BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// A latency histogram with fixed buckets.
#[derive(Default)]
pub struct Histogram {
    /// How many observations fell in each bucket (not cumulative; made so when written).
    buckets: [AtomicU64; BUCKETS.len()],
    /// Observations above the last bucket.
    over: AtomicU64,
    count: AtomicU64,
    sum_nanos: AtomicU64,
}

impl Histogram {
    pub fn observe(&self, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        match BUCKETS.iter().position(|bound| seconds <= *bound) {
            Some(i) => self.buckets[i].fetch_add(1, Ordering::Relaxed),
            None => self.over.fetch_add(1, Ordering::Relaxed),
        };
        self.count.fetch_add(1, Ordering::Relaxed);
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// The histogram's lines: cumulative buckets, `+Inf`, sum and count.
    fn write(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        let mut cumulative = 0;
        for (bound, bucket) in BUCKETS.iter().zip(&self.buckets) {
            cumulative += bucket.load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "{name}_bucket{{{labels}{sep}le=\"{bound}\"}} {cumulative}"
            );
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {count}");
        let sum = self.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        let braces = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{labels}}}")
        };
        let _ = writeln!(out, "{name}_sum{braces} {sum}");
        let _ = writeln!(out, "{name}_count{braces} {count}");
    }
}

/// How a posted command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Decided and stored (2xx).
    Played,
    /// Refused: by the rules, the table, its version or its caller (4xx).
    Refused,
    /// Our fault (5xx).
    Failed,
}

impl Outcome {
    const ALL: [Outcome; 3] = [Outcome::Played, Outcome::Refused, Outcome::Failed];

    /// Its label in `/metrics`.
    fn label(self) -> &'static str {
        match self {
            Outcome::Played => "played",
            Outcome::Refused => "refused",
            Outcome::Failed => "failed",
        }
    }

    /// Its place in [`Metrics`]'s command counters.
    fn index(self) -> usize {
        match self {
            Outcome::Played => 0,
            Outcome::Refused => 1,
            Outcome::Failed => 2,
        }
    }
}

/// The node's counters.
#[derive(Default)]
pub struct Metrics {
    /// route pattern -> its requests by (method, status) and their latency. By route first,
    /// so that counting a request looks its route up by `&str` and allocates nothing once the
    /// label exists (a route sees a handful of methods and statuses: a short list).
    requests: Mutex<HashMap<String, RouteStats>>,
    /// Played, refused, failed.
    commands: [AtomicU64; 3],
    pub command_seconds: Histogram,
    appends: AtomicU64,
    append_conflicts: AtomicU64,
    append_failures: AtomicU64,
    events_appended: AtomicU64,
    pub append_seconds: Histogram,
    /// Why the store takes no write until it is reopened, once a write said so.
    store_broken: Mutex<Option<String>>,
    /// Timeouts the clock keeper recorded on this node.
    timeouts: AtomicU64,
    /// When the clock keeper last finished a look at the deadlines on this node.
    clock_looked: Mutex<Option<Instant>>,
}

/// What the application tells at the moment of writing: gauges and counters it keeps itself.
#[derive(Debug, Default)]
pub struct Snapshot {
    pub games_cached: usize,
    pub cache_hits: u64,
    pub cache_misses: u64,
    /// Reads of a cached game on a shared store answered after a fence on this node's
    /// appends without reading the store, and those that read it.
    pub reads_fenced: u64,
    pub reads_read: u64,
    pub open_streams: usize,
    /// Whether this node runs the clock keeper now.
    pub clock_held: bool,
    /// Webhooks this node delivers now, and how many events of the log each has not looked at
    /// yet (its backlog).
    pub webhooks: Vec<(String, u64)>,
    /// Webhook posts tried, failed, and webhooks marked failing, by this node.
    pub webhook_counts: (u64, u64, u64),
    /// The outbox: mail sent and failed by this node, mail waiting (all nodes).
    pub mail: crate::mail::MailMetrics,
    /// The connections to PostgreSQL (its pool and its listener), on PostgreSQL only.
    pub database: Option<storage::DatabaseGauges>,
}

/// The requests of one route: (method, status, requests answered), and how long they took.
#[derive(Default)]
struct RouteStats {
    counts: Vec<(String, u16, u64)>,
    seconds: Histogram,
}

fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl Metrics {
    /// A request answered with `status`, to `route` (the pattern it matched, not the path: a
    /// game id never becomes a label).
    pub fn request(&self, method: &str, route: &str, status: u16, elapsed: Duration) {
        let mut requests = self.requests.lock().unwrap_or_else(PoisonError::into_inner);
        let stats = match requests.get_mut(route) {
            Some(stats) => stats,
            None => requests.entry(route.to_string()).or_default(),
        };
        stats.seconds.observe(elapsed);
        let counts = &mut stats.counts;
        match counts
            .iter_mut()
            .find(|(m, s, _)| *s == status && m == method)
        {
            Some((_, _, count)) => *count += 1,
            None => counts.push((method.to_string(), status, 1)),
        }
    }

    pub fn command(&self, outcome: Outcome, elapsed: Duration) {
        self.commands[outcome.index()].fetch_add(1, Ordering::Relaxed);
        self.command_seconds.observe(elapsed);
    }

    /// An append that stored `events` events (0 and `conflict` when the head had moved, or
    /// `failed` when the store failed).
    pub fn append(&self, elapsed: Duration, events: usize, conflict: bool, failed: bool) {
        self.appends.fetch_add(1, Ordering::Relaxed);
        if conflict {
            self.append_conflicts.fetch_add(1, Ordering::Relaxed);
        }
        if failed {
            self.append_failures.fetch_add(1, Ordering::Relaxed);
        }
        self.events_appended
            .fetch_add(events as u64, Ordering::Relaxed);
        self.append_seconds.observe(elapsed);
    }

    /// A write the store failed: remembered for good when the store takes no write again
    /// until it is reopened (see [`storage::StorageError::needs_reopen`]).
    pub fn store_failed(&self, error: &storage::StorageError) {
        if error.needs_reopen() {
            let mut broken = self
                .store_broken
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if broken.is_none() {
                tracing::error!(%error, "the store takes no more writes until the node restarts: /health fails from now on");
                *broken = Some(error.to_string());
            }
        }
    }

    /// Why the store takes no write until it is reopened, if a write said so.
    pub fn store_broken(&self) -> Option<String> {
        self.store_broken
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The clock keeper recorded a timeout.
    pub fn timeout_recorded(&self) {
        self.timeouts.fetch_add(1, Ordering::Relaxed);
    }

    /// The clock keeper finished a look at the deadlines.
    pub fn clock_looked(&self) {
        *self
            .clock_looked
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
    }

    pub fn commands(&self, outcome: Outcome) -> u64 {
        self.commands[outcome.index()].load(Ordering::Relaxed)
    }

    /// Everything, in the Prometheus text format.
    pub fn render(&self, snapshot: &Snapshot) -> String {
        let mut out = String::new();
        let head = |out: &mut String, name: &str, kind: &str, help: &str| {
            let _ = writeln!(out, "# HELP {name} {help}");
            let _ = writeln!(out, "# TYPE {name} {kind}");
        };

        head(
            &mut out,
            "avalanche_build_info",
            "gauge",
            "The server's version, Cargo's package version (as `avalanche --version` and the OpenAPI document's `info.version`), in the `version` label; always 1.",
        );
        let _ = writeln!(
            out,
            "avalanche_build_info{{version=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION")
        );
        head(
            &mut out,
            "avalanche_http_requests_total",
            "counter",
            "Requests answered, by method, route pattern and status.",
        );
        let routes = self.requests.lock().unwrap_or_else(PoisonError::into_inner);
        // In the order of (method, route, status), as a sorted map would give them.
        let requests: BTreeMap<(String, String, u16), u64> = routes
            .iter()
            .flat_map(|(route, stats)| {
                stats.counts.iter().map(move |(method, status, count)| {
                    ((method.clone(), route.clone(), *status), *count)
                })
            })
            .collect();
        for ((method, route, status), count) in requests {
            let _ = writeln!(
                out,
                "avalanche_http_requests_total{{method=\"{}\",route=\"{}\",status=\"{status}\"}} {count}",
                escape(&method),
                escape(&route)
            );
        }
        head(
            &mut out,
            "avalanche_http_request_duration_seconds",
            "histogram",
            "Time from a request to its answer (to its first byte for streams), by route pattern.",
        );
        let by_route: BTreeMap<&String, &RouteStats> = routes.iter().collect();
        for (route, stats) in by_route {
            stats.seconds.write(
                &mut out,
                "avalanche_http_request_duration_seconds",
                &format!("route=\"{}\"", escape(route)),
            );
        }
        drop(routes);

        head(
            &mut out,
            "avalanche_commands_total",
            "counter",
            "Commands posted to games, by outcome: played (stored), refused (4xx), failed (5xx).",
        );
        for outcome in Outcome::ALL {
            let (label, count) = (outcome.label(), self.commands(outcome));
            let _ = writeln!(
                out,
                "avalanche_commands_total{{outcome=\"{label}\"}} {count}"
            );
        }
        head(
            &mut out,
            "avalanche_command_duration_seconds",
            "histogram",
            "Time from a command's request to its answer, whatever the outcome.",
        );
        self.command_seconds
            .write(&mut out, "avalanche_command_duration_seconds", "");

        head(
            &mut out,
            "avalanche_appends_total",
            "counter",
            "Appends to the event store (each a command's batch, durable before it returns).",
        );
        let _ = writeln!(
            out,
            "avalanche_appends_total {}",
            self.appends.load(Ordering::Relaxed)
        );
        head(&mut out, "avalanche_append_conflicts_total", "counter", "Appends refused because the stream's head had moved (another node or request was first).");
        let _ = writeln!(
            out,
            "avalanche_append_conflicts_total {}",
            self.append_conflicts.load(Ordering::Relaxed)
        );
        head(
            &mut out,
            "avalanche_append_failures_total",
            "counter",
            "Appends the store failed.",
        );
        let _ = writeln!(
            out,
            "avalanche_append_failures_total {}",
            self.append_failures.load(Ordering::Relaxed)
        );
        head(
            &mut out,
            "avalanche_events_appended_total",
            "counter",
            "Events stored by this node.",
        );
        let _ = writeln!(
            out,
            "avalanche_events_appended_total {}",
            self.events_appended.load(Ordering::Relaxed)
        );
        head(
            &mut out,
            "avalanche_append_duration_seconds",
            "histogram",
            "Time an append took until durable.",
        );
        self.append_seconds
            .write(&mut out, "avalanche_append_duration_seconds", "");

        head(
            &mut out,
            "avalanche_games_cached",
            "gauge",
            "Games kept folded in this node's memory.",
        );
        let _ = writeln!(out, "avalanche_games_cached {}", snapshot.games_cached);
        head(
            &mut out,
            "avalanche_game_cache_hits_total",
            "counter",
            "Reads and commands that found their game folded in memory.",
        );
        let _ = writeln!(
            out,
            "avalanche_game_cache_hits_total {}",
            snapshot.cache_hits
        );
        head(
            &mut out,
            "avalanche_game_cache_misses_total",
            "counter",
            "Reads and commands that folded their game from the store.",
        );
        let _ = writeln!(
            out,
            "avalanche_game_cache_misses_total {}",
            snapshot.cache_misses
        );
        head(
            &mut out,
            "avalanche_game_reads_total",
            "counter",
            "Reads of a game held in memory, on a store other nodes share: answered after a fence on this node's appends without reading the store (fenced), or after reading the events the game lacked (read).",
        );
        for (how, count) in [
            ("fenced", snapshot.reads_fenced),
            ("read", snapshot.reads_read),
        ] {
            let _ = writeln!(out, "avalanche_game_reads_total{{how=\"{how}\"}} {count}");
        }
        head(
            &mut out,
            "avalanche_open_streams",
            "gauge",
            "Event streams and long-polls open now.",
        );
        let _ = writeln!(out, "avalanche_open_streams {}", snapshot.open_streams);

        head(
            &mut out,
            "avalanche_clock_keeper",
            "gauge",
            "1 when this node runs the clock keeper (timeouts and vacations) now.",
        );
        let _ = writeln!(
            out,
            "avalanche_clock_keeper {}",
            u8::from(snapshot.clock_held)
        );
        head(
            &mut out,
            "avalanche_webhooks_delivered_here",
            "gauge",
            "Webhooks this node delivers now.",
        );
        let _ = writeln!(
            out,
            "avalanche_webhooks_delivered_here {}",
            snapshot.webhooks.len()
        );
        // No series per webhook: its id would name a player's receiver to whoever reads
        // this, and the series would grow with the players.
        head(
            &mut out,
            "avalanche_webhook_backlog_events_max",
            "gauge",
            "Events of the log the webhook furthest behind among those this node delivers has not looked at yet.",
        );
        let _ = writeln!(
            out,
            "avalanche_webhook_backlog_events_max {}",
            snapshot
                .webhooks
                .iter()
                .map(|(_, backlog)| *backlog)
                .max()
                .unwrap_or(0)
        );
        head(
            &mut out,
            "avalanche_webhook_backlog_events",
            "gauge",
            "Events of the log not looked at yet, summed over the webhooks this node delivers.",
        );
        let _ = writeln!(
            out,
            "avalanche_webhook_backlog_events {}",
            snapshot
                .webhooks
                .iter()
                .map(|(_, backlog)| *backlog)
                .sum::<u64>()
        );
        let (attempts, failures, marked_failing) = snapshot.webhook_counts;
        for (name, help, value) in [
            (
                "avalanche_webhook_attempts_total",
                "Webhook posts this node tried (every try of every notification).",
                attempts,
            ),
            (
                "avalanche_webhook_failures_total",
                "Webhook posts that failed: refused by the receiver, not delivered, or not sent.",
                failures,
            ),
            (
                "avalanche_webhooks_marked_failing_total",
                "Webhooks this node marked failing after retrying for too long.",
                marked_failing,
            ),
        ] {
            head(&mut out, name, "counter", help);
            let _ = writeln!(out, "{name} {value}");
        }

        head(
            &mut out,
            "avalanche_clock_timeouts_total",
            "counter",
            "Timeouts the clock keeper recorded on this node.",
        );
        let _ = writeln!(
            out,
            "avalanche_clock_timeouts_total {}",
            self.timeouts.load(Ordering::Relaxed)
        );
        head(
            &mut out,
            "avalanche_clock_keeper_lag_seconds",
            "gauge",
            "Seconds since the clock keeper last finished a look at the deadlines (it looks four times a second); 0 on a node that does not keep the clock.",
        );
        let lag = match *self
            .clock_looked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
        {
            Some(looked) if snapshot.clock_held => looked.elapsed().as_secs_f64(),
            _ => 0.0,
        };
        let _ = writeln!(out, "avalanche_clock_keeper_lag_seconds {lag}");

        head(
            &mut out,
            "avalanche_store_writable",
            "gauge",
            "0 once the store takes no write until the node restarts (then /health fails), else 1.",
        );
        let writable = u8::from(self.store_broken().is_none());
        let _ = writeln!(out, "avalanche_store_writable {writable}");
        write_database(&mut out, snapshot.database.as_ref());

        head(
            &mut out,
            "avalanche_mail_sent_total",
            "counter",
            "Mails this node sent (to the relay, or into the outbox folder).",
        );
        let _ = writeln!(out, "avalanche_mail_sent_total {}", snapshot.mail.sent);
        head(
            &mut out,
            "avalanche_mail_failed_total",
            "counter",
            "Attempts to send a mail that failed on this node (each is tried again later).",
        );
        let _ = writeln!(out, "avalanche_mail_failed_total {}", snapshot.mail.failed);
        head(
            &mut out,
            "avalanche_mail_rejected_total",
            "counter",
            "Mails the relay refused for good (5xx) on this node: not tried again.",
        );
        let _ = writeln!(
            out,
            "avalanche_mail_rejected_total {}",
            snapshot.mail.rejected
        );
        head(
            &mut out,
            "avalanche_mail_refused_total",
            "counter",
            "Mails this node did not send because their recipient was sent its share: confirmation codes to one address a day, invitations to one player an hour.",
        );
        let _ = writeln!(
            out,
            "avalanche_mail_refused_total{{limit=\"codes_per_address\"}} {}",
            snapshot.mail.refused_codes
        );
        let _ = writeln!(
            out,
            "avalanche_mail_refused_total{{limit=\"invitations_per_player\"}} {}",
            snapshot.mail.refused_invitations
        );
        head(
            &mut out,
            "avalanche_mail_inbound_refused_total",
            "counter",
            "Mails the SMTP listener refused on this node, by reason: authentication (they failed the DMARC policy of their From: domain).",
        );
        let _ = writeln!(
            out,
            "avalanche_mail_inbound_refused_total{{reason=\"authentication\"}} {}",
            snapshot.mail.refused_unauthenticated
        );
        head(
            &mut out,
            "avalanche_mail_waiting",
            "gauge",
            "Mails in the outbox waiting to be sent, on the node that sends them (0 on the others).",
        );
        let _ = writeln!(out, "avalanche_mail_waiting {}", snapshot.mail.waiting);
        head(
            &mut out,
            "avalanche_mail_oldest_waiting_seconds",
            "gauge",
            "How long the oldest mail in the outbox has waited, on the node that sends them (0 on the others).",
        );
        let _ = writeln!(
            out,
            "avalanche_mail_oldest_waiting_seconds {}",
            snapshot.mail.oldest_waiting_seconds
        );
        head(
            &mut out,
            "avalanche_mail_sender",
            "gauge",
            "1 on the node that sends the store's mail (it holds the mail lease), else 0.",
        );
        let _ = writeln!(
            out,
            "avalanche_mail_sender {}",
            u8::from(snapshot.mail.sender)
        );
        head(
            &mut out,
            "avalanche_mail_held",
            "gauge",
            "1 on the sending node while the outbox is held (a restored store): no mail is sent until the operator releases it.",
        );
        let _ = writeln!(out, "avalanche_mail_held {}", u8::from(snapshot.mail.held));

        let (resident, cpu) = process_usage();
        head(
            &mut out,
            "process_resident_memory_bytes",
            "gauge",
            "Resident memory of this process.",
        );
        let _ = writeln!(out, "process_resident_memory_bytes {resident}");
        head(
            &mut out,
            "process_cpu_seconds_total",
            "counter",
            "CPU time of this process, user and system.",
        );
        let _ = writeln!(out, "process_cpu_seconds_total {cpu}");
        let process = process_more();
        for (name, kind, help, value) in [
            (
                "process_virtual_memory_bytes",
                "gauge",
                "Virtual memory of this process.",
                process.virtual_bytes,
            ),
            (
                "process_open_fds",
                "gauge",
                "File descriptors this process has open.",
                process.open_fds,
            ),
            (
                "process_max_fds",
                "gauge",
                "The most file descriptors this process may open.",
                process.max_fds,
            ),
            (
                "process_start_time_seconds",
                "gauge",
                "When this process started, in seconds since the Unix epoch.",
                process.start_time,
            ),
        ] {
            if let Some(value) = value {
                head(&mut out, name, kind, help);
                let _ = writeln!(out, "{name} {value}");
            }
        }
        out
    }
}

/// The other standard process metrics, from `/proc` (absent elsewhere).
#[derive(Default)]
struct ProcessMore {
    virtual_bytes: Option<f64>,
    open_fds: Option<f64>,
    max_fds: Option<f64>,
    start_time: Option<f64>,
}

/// The gauges of the connections to PostgreSQL. Their heads are written on every store, so
/// that a dashboard and the alert rules name the same metrics whatever the store; their values
/// only on PostgreSQL (a sled store has neither a pool nor a listener).
fn write_database(out: &mut String, database: Option<&storage::DatabaseGauges>) {
    let gauges = [
        (
            "avalanche_postgres_connections_in_use",
            "gauge",
            "Connections of this node's pool to PostgreSQL running a statement now.",
            database.map(|d| d.pool.in_use),
        ),
        (
            "avalanche_postgres_connections_idle",
            "gauge",
            "Connections of this node's pool to PostgreSQL free now.",
            database.map(|d| d.pool.idle),
        ),
        (
            "avalanche_postgres_requests_waiting",
            "gauge",
            "Reads and writes waiting for a free connection of the pool now (the pool is too small, or the database slow).",
            database.map(|d| d.pool.waiting),
        ),
        (
            "avalanche_postgres_listener_connected",
            "gauge",
            "1 while the connection that hears other nodes' appends is up; while 0, waiting readers hear of other nodes' moves late.",
            database.map(|d| u64::from(d.listener_connected)),
        ),
        (
            "avalanche_postgres_listener_reconnections_total",
            "counter",
            "Times the listening connection was made again after it was lost.",
            database.map(|d| d.listener_reconnections),
        ),
    ];
    for (name, kind, help, value) in gauges {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} {kind}");
        if let Some(value) = value {
            let _ = writeln!(out, "{name} {value}");
        }
    }
}

fn process_more() -> ProcessMore {
    const TICKS: f64 = 100.0;
    let stat = std::fs::read_to_string("/proc/self/stat").ok();
    let fields: Vec<String> = stat
        .as_deref()
        .and_then(|s| s.rfind(')').map(|at| &s[at + 2..]))
        .map(|rest| rest.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    // Fields counted from the state (the third field of the line).
    let field = |n: usize| fields.get(n).and_then(|v| v.parse::<f64>().ok());
    let boot_time = std::fs::read_to_string("/proc/stat").ok().and_then(|s| {
        s.lines()
            .find_map(|line| line.strip_prefix("btime "))
            .and_then(|v| v.trim().parse::<f64>().ok())
    });
    let max_fds = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|line| line.starts_with("Max open files"))
                .and_then(|line| line.split_whitespace().nth(3))
                .and_then(|v| v.parse::<f64>().ok())
        });
    ProcessMore {
        virtual_bytes: field(20),
        open_fds: std::fs::read_dir("/proc/self/fd")
            .ok()
            .map(|dir| dir.count() as f64),
        max_fds,
        start_time: field(19)
            .zip(boot_time)
            .map(|(ticks, boot)| boot + ticks / TICKS),
    }
}

/// This process's resident bytes and CPU seconds, from `/proc/self` (zero elsewhere).
fn process_usage() -> (u64, f64) {
    // Linux's usual values; a page of 4 KiB and 100 clock ticks a second.
    const PAGE: u64 = 4096;
    const TICKS: f64 = 100.0;
    let resident = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * PAGE);
    let cpu = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // Fields after the command name (which may hold spaces, in parentheses).
            let rest = &s[s.rfind(')')? + 2..];
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let user: u64 = fields.get(11)?.parse().ok()?;
            let system: u64 = fields.get(12)?.parse().ok()?;
            Some((user + system) as f64 / TICKS)
        })
        .unwrap_or(0.0);
    (resident, cpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_counts_each_observation_in_its_bucket_and_every_wider_one() {
        let histogram = Histogram::default();
        histogram.observe(Duration::from_micros(300));
        histogram.observe(Duration::from_millis(3));
        histogram.observe(Duration::from_secs(60));
        let mut out = String::new();
        histogram.write(&mut out, "h", "");
        assert!(out.contains("h_bucket{le=\"0.0005\"} 1\n"), "{out}");
        assert!(out.contains("h_bucket{le=\"0.005\"} 2\n"), "{out}");
        assert!(out.contains("h_bucket{le=\"10\"} 2\n"), "{out}");
        assert!(out.contains("h_bucket{le=\"+Inf\"} 3\n"), "{out}");
        assert!(out.contains("h_count 3\n"), "{out}");
    }

    #[test]
    fn no_webhook_is_named() {
        let metrics = Metrics::default();
        let text = metrics.render(&Snapshot {
            webhooks: vec![("wh-0123456789abcdef".into(), 7), ("wh-fedcba".into(), 2)],
            ..Snapshot::default()
        });
        assert!(!text.contains("wh-"), "{text}");
        assert!(
            text.contains("avalanche_webhook_backlog_events_max 7\n"),
            "{text}"
        );
        assert!(
            text.contains("avalanche_webhook_backlog_events 9\n"),
            "{text}"
        );
    }

    #[test]
    fn labels_are_escaped() {
        let metrics = Metrics::default();
        metrics.request("GET", "/a\"b", 200, Duration::from_millis(1));
        let text = metrics.render(&Snapshot::default());
        assert!(
            text.contains("route=\"/a\\\"b\",status=\"200\"} 1"),
            "{text}"
        );
    }
}
