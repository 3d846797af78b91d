//! The event store on PostgreSQL: the same contract as sled's, in one database that several
//! server processes can share.
//!
//! # Threads: synchronous reads from async code
//!
//! The traits' reads are plain calls, made from inside actix's tokio worker threads; appends
//! and waits are futures. The synchronous `postgres` client drives its own small runtime with
//! `block_on`, which panics when called from a thread that already runs one. So no caller ever
//! touches a client: the store owns a few connection threads (`pool.rs`), plain OS threads with
//! no runtime, each holding one `postgres::Client`, all taking jobs from one queue. A read sends
//! a job and blocks its caller on a `std::sync::mpsc` channel (legal in any thread, and what a
//! read from sled's page cache costs too, only longer); an append (`group.rs`) or an async
//! write awaits a tokio oneshot, so it holds no thread while the database commits. A connection that breaks
//! is opened again by the next job on its thread.
//!
//! # One statement per group of appends
//!
//! Appends do not go through the pool: they are queued, and an appender thread with a
//! connection of its own (`group.rs`) takes everything waiting and writes it with one call of
//! the SQL function `avalanche_append_group` (`migrations/0003_*.sql`): one prepared statement,
//! one round trip, one transaction and one WAL flush for the whole group, as the sled committer
//! batches its writes. For each batch, in order, it locks the stream's row, answers a repeated
//! command id with the first result, checks the expected version, then writes the stream's
//! head, tags and secrets; then the batches that passed and their events, one statement each
//! for the whole group; every batch gets its own answer (appended, duplicate, conflict). The
//! appender's connection plans the function's statements once (`force_generic_plan`), and no
//! foreign key checks its rows (`migrations/0004_*.sql`): the function writes a batch's stream
//! row, batch and events together, and each check was a query a row.
//! PostgreSQL's commit (with the default `synchronous_commit = on`) is flushed to the WAL before
//! it answers, so an append is durable when its future resolves. A group the database refuses
//! as a whole is sent again batch by batch, so that only a faulty batch fails; a connection
//! lost during the call leaves every batch of the group with an unknown outcome, and each of
//! its callers is told so. (`tokio-postgres` pipelining was the other way to put several
//! appends on one round trip; one statement for the group gives one transaction and one flush
//! too, which pipelined statements in their own transactions would not.)
//!
//! # A global order no reader can skip
//!
//! The usual PostgreSQL event store numbers events from a sequence. A sequence value is taken
//! at insert and becomes visible at commit, so with two concurrent appends the one holding the
//! smaller position may commit second: a reader following "everything after P" reads the
//! larger one, moves P past the smaller, and never sees it (Eventuous issue 222,
//! commanded/eventstore issue 3, SQLStreamStore issue 121, Marten's lost events). The known
//! remedies: Emmett and Marten keep each event's transaction id and let readers see only what
//! is below `pg_snapshot_xmin(pg_current_snapshot())`, the oldest transaction still running, or
//! a high-water mark below every gap that may still fill; Message DB serialises writers per
//! category with advisory locks.
//!
//! This store hands positions out from one row, `log_head`, which the group function updates
//! after every stream check and before inserting the events, as the last step before its
//! commit. The row lock is held until the transaction ends, and a waiting group gets it only
//! after the holder's commit is visible to every new snapshot (PostgreSQL releases a
//! transaction's locks after it has left the list of running ones). So positions are handed
//! out in commit order and every snapshot sees a prefix of the log: position P+1 is never
//! visible without P, and `read_all` is a plain `WHERE position > $1`. The positions are also
//! gapless (a refused append takes none), as on sled, so positions and event ids are the same
//! in a store migrated from sled.
//!
//! The row is what made every append in the database wait for the previous one's commit. It
//! is now taken once per group, not once per append: a node's appends that arrive while a
//! group commits go together in the next one, so the serialised span (insert the events, flush
//! the WAL) is paid once for all of them, and several nodes take turns with groups. No stream
//! row is locked after the head (the group locks its streams' rows first, in name order), so
//! groups of several nodes cannot deadlock.
//!
//! Why this and not a sequence with transaction ids or a high-water mark: the traits promise
//! positions "increasing in commit order" and a `subscribe_all` value below which everything is
//! durable. With transaction-id filtering a reader needs a compound checkpoint (transaction id,
//! position), positions are not in commit order, and every reader waits behind any long
//! transaction in the database, ours or not. A high-water mark guesses when a gap will never
//! fill, and a wrong guess skips an event for good: Marten fixed such silent skips again and
//! again (its pull requests 2189, 4972, 4977; issues 2370, 4964, 5108), and a gap left by a
//! rolled-back append can also stall its mark. A counter taken in commit order cannot skip
//! and needs no guess. The test `postgres_global_order.rs` holds an append uncommitted on
//! purpose while another commits and a follower reads, and checks concurrent groups of several
//! stores on one database.
//!
//! # Waking readers, in this process and in others
//!
//! Appends made by this process announce their stream's head and the global position at once
//! (`wait_for`, `subscribe_all`). Every group of appends also sends `NOTIFY avalanche_appends`
//! (one notice for the group's batches, delivered at commit, in commit order); each store listens on its own connection
//! (`listener.rs`) and announces the appends of other processes on the same database too.
//! The same connection listens for the application's broadcasts (`NOTIFY
//! avalanche_broadcasts`, see `broadcasts.rs`).
//! The heads so heard are kept (`heads.rs`), so that a reader that starts waiting on a stream
//! whose appends this process has heard since it last knew its head waits without a query;
//! only a stream not heard of yet (or since the listener reconnected) is read once.
//!
//! # Several processes
//!
//! [`Coordination::shared`](crate::Coordination::shared) is true here: another process may append
//! to any stream, so the application reads a stream's events after its fold's version before
//! it trusts the fold for a read (a head heard from a notification is not enough there: it may
//! arrive after the other process acknowledged the append to its client, who may then read
//! here), unless the store can tell without a read
//! ([`Coordination::settled_head`](crate::Coordination::settled_head)): a fence that rides on
//! this process's next group of appends, whose notice its listener hears only after the
//! notices of every append committed before the fence was asked for (`seam.rs` says why). So
//! under load a read costs no query; with no append of this process coming within a
//! millisecond, it reads. Those reads, and reads of heads, that callers ask for while others
//! are on their way go together, one statement for all (`together.rs`); a command is
//! decided on the fold brought up to the head heard of its stream
//! ([`Coordination::heard_head`](crate::Coordination::heard_head), no query), and the
//! append's version check (a conflict) tells when another process moved the stream on unheard.
//! Jobs one
//! process at a time must run (the clock keeper, each webhook's deliveries) take leases,
//! session advisory locks on a connection of their own that die with their holder
//! (`leases.rs`).

mod export;
mod group;
mod heads;
mod leases;
mod listener;
mod pool;
pub use pool::PoolGauges;
mod schema;
mod seam;
mod together;

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use tokio::sync::watch;

use crate::error::{OpenError, StorageError};
use crate::watchers::Watchers;
use pool::Pool;

/// The event store in a PostgreSQL database, reached by a `postgres://` URL.
#[derive(Clone)]
pub struct PostgresStore {
    inner: Arc<Inner>,
}

struct Inner {
    pool: Pool,
    /// The appends' queue and the threads that write it in groups (`group.rs`).
    appender: group::Appender,
    /// Set once at open; a copy from another store may adopt that store's id while empty.
    store_id: AtomicU64,
    /// The last global position known durable (this process's appends and, with a listener,
    /// everyone's).
    positions: Arc<watch::Sender<u64>>,
    watchers: Arc<Watchers>,
    /// This process's subscribers of broadcasts, fed by the listener (and by this store's
    /// own broadcasts, at once).
    broadcasts: crate::broadcasts::Broadcasts,
    /// Marks this store's broadcasts, which its listener passes over.
    sender: u64,
    /// The streams' heads known without a read (`heads.rs`).
    heads: Arc<heads::KnownHeads>,
    /// The last global position the listener heard of in a notice.
    heard: Arc<watch::Sender<u64>>,
    /// The reads of streams' heads, and of streams' events, asked for while one is on its way,
    /// each sent together in one statement (`together.rs`).
    head_reads: together::Together<String, u64>,
    stream_reads: together::Together<(String, u64, usize), Vec<crate::Envelope>>,
    /// Wakes this process's readers on other processes' appends; stops when dropped.
    listener: listener::Listener,
    /// The leases this process holds, on their own connection (`leases.rs`).
    leases: leases::Leases,
}

impl PostgresStore {
    /// How many connections (and threads) a store opens unless told otherwise.
    pub const DEFAULT_CONNECTIONS: usize = 8;

    /// How many reads of heads, and of streams' events, are on their way at once; the
    /// readers that come meanwhile go together in the next (`together.rs`). One: since the
    /// reads wait off the request threads, one at a time served 7-11% more commands than two
    /// on one node, and 4% more on three (BENCHMARKS.md).
    const READS_AT_ONCE: usize = 1;

    /// How many connections (and threads) write the groups of appends, beside the others. One:
    /// the next group gathers while one commits. Every group holds the global log's head from
    /// its positions to its commit, so two groups of one process only waited for each other,
    /// in smaller groups: one connection served 4,797-4,801 commands/s against 4,417-4,599
    /// with two, and three nodes 1,931-1,989 against 1,758-1,801 (BENCHMARKS.md).
    pub const APPEND_CONNECTIONS: usize = 1;

    /// Opens the store in the database at `url` with [`Self::DEFAULT_CONNECTIONS`] connections,
    /// creating or migrating its schema.
    pub fn open(url: &str) -> Result<PostgresStore, OpenError> {
        PostgresStore::open_with(url, Self::DEFAULT_CONNECTIONS)
    }

    /// Opens the store with `connections` connections (and as many threads).
    pub fn open_with(url: &str, connections: usize) -> Result<PostgresStore, OpenError> {
        let failed = |detail: StorageError| OpenError::Database {
            target: redacted(url),
            detail: detail.to_string(),
        };
        // Parse the URL first, so that a typo is reported as such and not as a refused connection.
        url.parse::<postgres::Config>()
            .map_err(|e| OpenError::Database {
                target: redacted(url),
                detail: format!("not a PostgreSQL connection string: {e}"),
            })?;
        let pool = Pool::start(url, connections).map_err(failed)?;
        let appender = group::Appender::start(url, Self::APPEND_CONNECTIONS).map_err(failed)?;
        let (store_id, last_position) = pool
            .run(|connection| {
                schema::migrate(connection.client()?)?;
                let proposed = format!("{:016x}", random_u64());
                let rows = connection.query(seam::sql::STORE_ID, &[&proposed])?;
                let id: String = seam::column(&rows[0], 0)?;
                let store_id = u64::from_str_radix(&id, 16)
                    .map_err(|_| StorageError::Corrupt(format!("store id {id:?}")))?;
                let rows = connection.read(seam::sql::LOG_HEAD, &[])?;
                let head: i64 = seam::column(&rows[0], 0)?;
                Ok((store_id, head as u64))
            })
            .map_err(failed)?;
        let positions = Arc::new(watch::Sender::new(last_position));
        let watchers: Arc<Watchers> = Arc::default();
        let broadcasts = crate::broadcasts::Broadcasts::default();
        let sender = random_u64();
        let heads: Arc<heads::KnownHeads> = Arc::default();
        let heard = Arc::new(watch::Sender::new(0));
        let listener = listener::start(
            url,
            listener::Announce {
                watchers: Arc::clone(&watchers),
                positions: Arc::clone(&positions),
                broadcasts: broadcasts.clone(),
                sender,
                heads: Arc::clone(&heads),
                heard: Arc::clone(&heard),
            },
        )
        .map_err(|e| OpenError::Database {
            target: redacted(url),
            detail: format!("cannot start the listening thread: {e}"),
        })?;
        let leases = leases::Leases::start(url).map_err(|e| OpenError::Database {
            target: redacted(url),
            detail: format!("cannot start the leases' thread: {e}"),
        })?;
        Ok(PostgresStore {
            inner: Arc::new(Inner {
                pool,
                appender,
                store_id: AtomicU64::new(store_id),
                positions,
                watchers,
                broadcasts,
                sender,
                heads,
                heard,
                head_reads: together::Together::new(Self::READS_AT_ONCE),
                stream_reads: together::Together::new(Self::READS_AT_ONCE),
                listener,
                leases,
            }),
        })
    }

    /// What the connections to the database are doing now.
    pub fn gauges(&self) -> DatabaseGauges {
        let (listener_connected, listener_reconnections) = self.inner.listener.state();
        DatabaseGauges {
            pool: self.inner.pool.gauges(),
            listener_connected,
            listener_reconnections,
        }
    }
}

/// The gauges of a database store's connections, for an operator's metrics: the pool of
/// connections that read and write (appends have their own, see `group.rs`), and the
/// connection that listens for other processes' appends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DatabaseGauges {
    pub pool: PoolGauges,
    /// Whether the listener's connection is up: while it is not, this process's waiting
    /// readers hear of other processes' appends only once it is back.
    pub listener_connected: bool,
    /// How often the listener connected again after losing its connection.
    pub listener_reconnections: u64,
}

/// The connection string without its password, for messages.
fn redacted(url: &str) -> String {
    match url.parse::<postgres::Config>() {
        Ok(config) => {
            let hosts: Vec<String> = config
                .get_hosts()
                .iter()
                .map(|host| match host {
                    postgres::config::Host::Tcp(name) => name.clone(),
                    postgres::config::Host::Unix(path) => path.display().to_string(),
                })
                .collect();
            format!(
                "postgres://{}@{}/{}",
                config.get_user().unwrap_or(""),
                hosts.join(","),
                config.get_dbname().unwrap_or("")
            )
        }
        Err(_) => "the PostgreSQL connection string".to_string(),
    }
}

/// 64 bits from the standard library's randomly keyed hasher, the time and the process id.
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    hasher.write_u128(nanos);
    hasher.write_u32(std::process::id());
    hasher.finish()
}
