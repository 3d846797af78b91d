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
//! read from sled's page cache costs too, only longer); an append sends a job and awaits a
//! tokio oneshot, so it holds no thread while the database commits. A connection that breaks
//! is opened again by the next job on its thread.
//!
//! # One statement per append
//!
//! An append is one call of the SQL function `avalanche_append` (`migrations/0001_*.sql`), one
//! round trip and one transaction: it locks the stream's row, answers a repeated command id
//! with the first result, checks the expected version, then writes the batch, its events, tags
//! and secrets. PostgreSQL's commit (with the default `synchronous_commit = on`) is flushed to
//! the WAL before it answers, so an append is durable when its future resolves.
//!
//! # A global order no reader can skip
//!
//! The usual PostgreSQL event store numbers events from a sequence. A sequence value is taken
//! at insert and becomes visible at commit, so with two concurrent appends the one holding the
//! smaller position may commit second: a reader following "everything after P" reads the
//! larger one, moves P past the smaller, and never sees it (Eventuous issue 222,
//! commanded/eventstore issue 3, SQLStreamStore issue 121, Marten's lost events). The known
//! remedies: Emmett and Marten keep each event's transaction id and let readers see only what
//! is below `pg_snapshot_xmin(pg_current_snapshot())`, the oldest transaction still running;
//! Message DB serialises writers per category with advisory locks.
//!
//! This store hands positions out from one row, `log_head`, which the append function updates
//! as the last step before its commit. The row lock is held until the transaction ends, and a
//! waiting append gets it only after the holder's commit is visible to every new snapshot
//! (PostgreSQL releases a transaction's locks after it has left the list of running ones). So
//! positions are handed out in commit order and every snapshot sees a prefix of the log:
//! position P+1 is never visible without P, and `read_all` is a plain `WHERE position > $1`.
//! The positions are also gapless (a refused append takes none), as on sled, so positions and
//! event ids are the same in a store migrated from sled.
//!
//! Why this and not transaction ids: the traits promise positions "increasing in commit order"
//! and a `subscribe_all` value below which everything is durable; with transaction-id
//! filtering a reader needs a compound checkpoint and may wait behind any long transaction in
//! the database, and positions would not be in commit order. The price is that appends to any
//! stream are serialised for the short span from the position update to the commit (the
//! insert of the events and the WAL flush), while the stream checks, tags and secrets run
//! concurrently before it; a group-committing writer could batch several appends into one
//! transaction if one database ever needs more than that gives. The test
//! `postgres_global_order.rs` holds an append uncommitted on purpose while another commits
//! and a follower reads.
//!
//! # Waking readers, in this process and in others
//!
//! Appends made by this process announce their stream's head and the global position at once
//! (`wait_for`, `subscribe_all`). Every append also sends `NOTIFY avalanche_appends`
//! (delivered at commit, in commit order); each store listens on its own connection
//! (`listener.rs`) and announces the appends of other processes on the same database too.
//! The same connection listens for the application's broadcasts (`NOTIFY
//! avalanche_broadcasts`, see `broadcasts.rs`).
//!
//! # Several processes
//!
//! [`EventStore::shared`](crate::EventStore::shared) is true here: another process may append
//! to any stream, so the application checks a stream's head before it trusts a fold. Jobs one
//! process at a time must run (the clock keeper, each webhook's deliveries) take leases,
//! session advisory locks on a connection of their own that die with their holder
//! (`leases.rs`).

mod export;
mod leases;
mod listener;
mod pool;
mod schema;
mod seam;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::watch;

use crate::error::{OpenError, StorageError};
use crate::sled_store::watchers::Watchers;
use pool::Pool;

/// The event store in a PostgreSQL database, reached by a `postgres://` URL.
#[derive(Clone)]
pub struct PostgresStore {
    inner: Arc<Inner>,
}

struct Inner {
    pool: Pool,
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
    /// Wakes this process's readers on other processes' appends; stops when dropped.
    _listener: listener::Listener,
    /// The leases this process holds, on their own connection (`leases.rs`).
    leases: leases::Leases,
}

impl PostgresStore {
    /// How many connections (and threads) a store opens unless told otherwise.
    pub const DEFAULT_CONNECTIONS: usize = 8;

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
        let (store_id, last_position) = pool
            .run(|connection| {
                schema::migrate(connection.client()?)?;
                let proposed = format!("{:016x}", random_u64());
                let rows = connection.query(seam::sql::STORE_ID, &[&proposed])?;
                let id: String = seam::column(&rows[0], 0)?;
                let store_id = u64::from_str_radix(&id, 16)
                    .map_err(|_| StorageError::Corrupt(format!("store id {id:?}")))?;
                let rows = connection.query(seam::sql::LOG_HEAD, &[])?;
                let head: i64 = seam::column(&rows[0], 0)?;
                Ok((store_id, head as u64))
            })
            .map_err(failed)?;
        let positions = Arc::new(watch::Sender::new(last_position));
        let watchers: Arc<Watchers> = Arc::default();
        let broadcasts = crate::broadcasts::Broadcasts::default();
        let sender = random_u64();
        let listener = listener::start(
            url,
            listener::Announce {
                watchers: Arc::clone(&watchers),
                positions: Arc::clone(&positions),
                broadcasts: broadcasts.clone(),
                sender,
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
                store_id: AtomicU64::new(store_id),
                positions,
                watchers,
                broadcasts,
                sender,
                _listener: listener,
                leases,
            }),
        })
    }

    /// The identity of this store, part of every event id.
    pub fn store_id(&self) -> u64 {
        self.inner.store_id.load(Ordering::Relaxed)
    }
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
