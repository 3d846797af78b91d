//! Wakes this process's waiting readers when another process appends to the same database:
//! one thread with its own connection does `LISTEN avalanche_appends` and announces every
//! append's stream head and global position (the group function sends them with
//! `pg_notify`, one notice a group, delivered at commit and in commit order, so a position
//! announced has every position below it committed). When its connection breaks, notifications sent meanwhile are
//! lost: once connected again it reads the log's head and the heads of the watched streams and
//! announces those, then listens on. It also hands the application's broadcasts (`NOTIFY
//! avalanche_broadcasts`) to this process's subscribers; those sent while it was not
//! connected are lost (`broadcasts.rs` says what a message may be used for).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::NoTls;
use tokio::sync::watch;

use super::heads::KnownHeads;
use crate::watchers::{raise, Watchers};

/// The channel the append function notifies.
pub(crate) const CHANNEL: &str = "avalanche_appends";

/// The channel of the application's broadcasts (`Coordination::broadcast`).
pub(crate) const BROADCASTS: &str = "avalanche_broadcasts";

/// The listener's connection, as `pg_stat_activity` shows it.
pub const APPLICATION_NAME: &str = "avalanche-listener";

/// How often the thread looks whether the store was closed, and waits before reconnecting.
const TICK: Duration = Duration::from_millis(200);

pub(crate) struct Listener {
    stop: Arc<AtomicBool>,
    state: Arc<State>,
}

/// Whether the listener is connected now, and how often it connected again after losing its
/// connection, for the gauges of `/metrics`.
#[derive(Default)]
struct State {
    connected: AtomicBool,
    /// Connections made after the first one.
    reconnections: AtomicU64,
    connections: AtomicU64,
}

impl Listener {
    /// Whether it listens now (its connection is up), and its reconnections so far.
    pub(crate) fn state(&self) -> (bool, u64) {
        (
            self.state.connected.load(Ordering::Relaxed),
            self.state.reconnections.load(Ordering::Relaxed),
        )
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// What the listener announces to.
pub(crate) struct Announce {
    pub watchers: Arc<Watchers>,
    pub positions: Arc<watch::Sender<u64>>,
    pub broadcasts: crate::broadcasts::Broadcasts,
    /// The id this process's broadcasts carry: they were delivered here when sent.
    pub sender: u64,
    pub heads: Arc<KnownHeads>,
    /// The last global position a notice told this listener of: every append committed up to
    /// it has been heard (and its head noted), since notices come in commit order.
    pub heard: Arc<watch::Sender<u64>>,
}

impl Announce {
    pub(crate) fn head(&self, stream: &str, head: u64) {
        self.heads.note(stream, head);
        self.watchers.announce(stream, head);
    }

    pub(crate) fn position(&self, position: u64) {
        raise(&self.positions, position);
    }
}

/// Starts the listening thread; it stops soon after the returned `Listener` is dropped.
pub(crate) fn start(url: &str, announce: Announce) -> std::io::Result<Listener> {
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = Arc::clone(&stop);
    let state = Arc::new(State::default());
    let listening = Arc::clone(&state);
    let url = url.to_string();
    std::thread::Builder::new()
        .name("postgres-listen".into())
        .spawn(move || {
            let mut announced_failure = false;
            while !stopping.load(Ordering::Relaxed) {
                let outcome = listen(&url, &announce, &stopping, &listening);
                listening.connected.store(false, Ordering::Relaxed);
                match outcome {
                    Ok(()) => return,
                    Err(error) => {
                        if !announced_failure {
                            tracing::warn!(%error, "listening for other servers' appends failed; retrying");
                            announced_failure = true;
                        }
                        std::thread::sleep(TICK);
                    }
                }
            }
        })?;
    Ok(Listener { stop, state })
}

/// Listens until `stop` is set (`Ok`) or the connection fails (`Err`).
fn listen(url: &str, announce: &Announce, stop: &AtomicBool, state: &State) -> Result<(), String> {
    let failed = |e: postgres::Error| e.to_string();
    let mut config = super::pool::config(url).map_err(|e| e.to_string())?;
    config.application_name(APPLICATION_NAME);
    let mut client = config.connect(NoTls).map_err(failed)?;
    client
        .batch_execute(&format!("LISTEN {CHANNEL}; LISTEN {BROADCASTS}"))
        .map_err(failed)?;
    if state.connections.fetch_add(1, Ordering::Relaxed) > 0 {
        state.reconnections.fetch_add(1, Ordering::Relaxed);
        tracing::info!("listening for other servers' appends again");
    }
    // Heads known before may have moved unheard while nobody listened. Cleared before the
    // listener says it is connected: from then on, an own append's head is kept.
    announce.heads.clear();
    state.connected.store(true, Ordering::Relaxed);
    // Catch up with what was appended while nobody listened.
    let position: i64 = client
        .query_one("SELECT position FROM log_head", &[])
        .map_err(failed)?
        .get(0);
    announce.position(position.max(0) as u64);
    for stream in announce.watchers.watched() {
        let head: Option<i64> = client
            .query_opt("SELECT head FROM streams WHERE name = $1", &[&&*stream])
            .map_err(failed)?
            .map(|row| row.get(0));
        announce.head(&stream, head.unwrap_or(0).max(0) as u64);
    }
    while !stop.load(Ordering::Relaxed) {
        {
            let mut notifications = client.notifications();
            let mut arrived = notifications.timeout_iter(TICK);
            while let Some(notification) = arrived.next().map_err(failed)? {
                if notification.channel() == BROADCASTS {
                    // "<sender> <message>"
                    match notification.payload().split_once(' ') {
                        Some((sender, message))
                            if u64::from_str_radix(sender, 16).ok() != Some(announce.sender) =>
                        {
                            announce.broadcasts.deliver(message)
                        }
                        _ => {}
                    }
                    continue;
                }
                let Some(appends) = appends(notification.payload()) else {
                    tracing::warn!(
                        payload = notification.payload(),
                        "an append notice not understood"
                    );
                    continue;
                };
                let mut last = 0;
                for (head, position, stream) in appends {
                    announce.head(stream, head);
                    last = last.max(position);
                }
                // Once every head of the notice is noted: a fence that sees the position
                // heard finds them.
                announce.position(last);
                raise(&announce.heard, last);
            }
        }
        if client.is_closed() {
            return Err("the connection closed".into());
        }
    }
    Ok(())
}

/// The appends one notice tells of, as (head, position, stream), in commit order: a group's
/// notice is "v3" and a line a batch, "<head> <position> <characters of the name> <name>",
/// each line ended by "\n" (the name may hold spaces and line ends, so its length comes
/// first); the single-batch function of the first schema sends "<head> <position> <name>".
/// `None` for anything else.
fn appends(payload: &str) -> Option<Vec<(u64, u64, &str)>> {
    fn number(text: &str) -> Option<(u64, &str)> {
        let (number, rest) = text.split_once(' ')?;
        Some((number.parse().ok()?, rest))
    }
    let Some(mut rest) = payload.strip_prefix("v3\n") else {
        let (head, rest) = number(payload)?;
        let (position, stream) = number(rest)?;
        return (!stream.is_empty()).then(|| vec![(head, position, stream)]);
    };
    let mut appends = Vec::new();
    while !rest.is_empty() {
        let (head, after) = number(rest)?;
        let (position, after) = number(after)?;
        let (characters, after) = number(after)?;
        let (end, _) = after
            .char_indices()
            .nth(usize::try_from(characters).ok()?)?;
        let (stream, after) = after.split_at(end);
        rest = after.strip_prefix('\n')?;
        appends.push((head, position, stream));
    }
    (!appends.is_empty()).then_some(appends)
}

#[cfg(test)]
mod tests {
    use super::appends;

    #[test]
    fn a_groups_notice_tells_every_append_and_names_may_hold_anything() {
        assert_eq!(
            appends("v3\n3 17 4 g-ab\n1 18 6 a b\ncd\n2 20 2 \u{e9}\u{e9}\n"),
            Some(vec![
                (3, 17, "g-ab"),
                (1, 18, "a b\ncd"),
                (2, 20, "\u{e9}\u{e9}")
            ])
        );
        assert_eq!(appends("5 9 g one"), Some(vec![(5, 9, "g one")]));
    }

    #[test]
    fn a_notice_not_understood_tells_nothing() {
        for payload in [
            "",
            "\n",
            "5 9",
            "5 9 ",
            "x 9 g",
            "v3\n",
            "v3\n3 17 9 g-ab\n",
            "v3\n3 17 4 g-ab",
            "v3\n3 17 4 g-abc\n",
            "v3\n3 17 4 g-ab\n1 18",
            "v3\n3 17 -1 g-ab\n",
        ] {
            assert_eq!(appends(payload), None, "{payload:?}");
        }
    }
}
