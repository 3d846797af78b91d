//! The store's own connection threads: each owns one synchronous `postgres::Client` and runs the
//! jobs it takes from one shared queue; callers wait on a plain channel (reads, blocking calls)
//! or on a oneshot future (appends, async writes). See the module comment of `postgres/`.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use postgres::types::ToSql;
use postgres::{Client, NoTls, Row, Statement};

use crate::error::StorageError;

/// What a connection thread runs.
type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// One connection, opened on first use and again after it broke, with its prepared statements.
pub(crate) struct Connection {
    url: Arc<str>,
    client: Option<Client>,
    statements: HashMap<&'static str, Statement>,
    /// When the client was last handed out for a statement: one idle longer than [`IDLE`] is
    /// looked at before anything is sent on it.
    used: Instant,
}

/// How long a connection may sit unused and still be sent a statement without first looking
/// whether the database ended it meanwhile. A connection in steady use is not looked at (the
/// look waits for the client's timer, about a millisecond); one that sat in the pool while the
/// database restarted (which takes longer than this), failed over or ended its session has its
/// end waiting in its socket, and is replaced before anything is sent on it.
const IDLE: Duration = Duration::from_millis(20);

/// Every connection (the pool's and the appenders') plans each prepared statement once, for
/// every value: each of the store's reads and each statement of the group append finds its rows by
/// key whatever the values, and planning them again at each call (the default, for statements
/// over arrays and for those inside a PL/pgSQL function) took longer than running them: a
/// read of several streams, and a quarter of a group's cost in PostgreSQL (BENCHMARKS.md).
const GENERIC_PLANS: &str = "SET plan_cache_mode = force_generic_plan";

/// How long a connection may take to be made before it counts as failed.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long data sent may stay unacknowledged before the connection counts as broken (Linux's
/// `TCP_USER_TIMEOUT`), and how soon an idle connection is probed (and given up after three
/// unanswered probes two seconds apart): a database host that vanished without a reset (its
/// power cut, its network gone) is noticed within seconds, not after TCP's own timeouts of
/// minutes to hours.
const USER_TIMEOUT: Duration = Duration::from_secs(10);
const KEEPALIVE_IDLE: Duration = Duration::from_secs(10);
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(2);
const KEEPALIVE_RETRIES: u32 = 3;

/// The connection settings of `url`, with the store's timeouts where the URL sets none of its
/// own (`connect_timeout`, `tcp_user_timeout`, `keepalives_idle`, `keepalives_interval`,
/// `keepalives_retries`: an operator's URL wins).
pub(crate) fn config_with(
    url: &str,
    user_timeout: Duration,
) -> Result<postgres::Config, StorageError> {
    let mut config: postgres::Config = url
        .parse()
        .map_err(|e| StorageError::Database(format!("the database URL: {e}")))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_tcp_user_timeout().is_none() {
        config.tcp_user_timeout(user_timeout);
    }
    // The client's idle time has a default (two hours) rather than none: only the URL tells
    // whether it was given.
    if !url.contains("keepalives_idle") {
        config.keepalives_idle(KEEPALIVE_IDLE);
    }
    if config.get_keepalives_interval().is_none() {
        config.keepalives_interval(KEEPALIVE_INTERVAL);
    }
    if config.get_keepalives_retries().is_none() {
        config.keepalives_retries(KEEPALIVE_RETRIES);
    }
    Ok(config)
}

/// [`config_with`] the store's [`USER_TIMEOUT`].
pub(crate) fn config(url: &str) -> Result<postgres::Config, StorageError> {
    config_with(url, USER_TIMEOUT)
}

/// A database error as the store reports it, with the server's message when there is one, and
/// its kind: a connection that failed or a server that refuses work for now (shutting down, out
/// of disk or connections, read-only, a serialization failure) is an outage; anything else
/// the server refused is a bug.
pub(crate) fn database_error(error: &postgres::Error) -> StorageError {
    match error.as_db_error() {
        Some(db) => {
            let code = db.code().code();
            let message = format!("{code}: {}", db.message());
            let transient = ["08", "40", "53", "57", "58"]
                .iter()
                .any(|class| code.starts_with(class))
                || code == "25006"
                || code == "55P03";
            if transient {
                StorageError::Unavailable(message)
            } else {
                StorageError::Database(message)
            }
        }
        None => StorageError::Unavailable(error.to_string()),
    }
}

/// Why a statement did not run, for a caller that retries differently on each.
pub(crate) enum Failure {
    /// The database refused the statement (an error it answered); its transaction was rolled
    /// back, nothing was written.
    Refused(StorageError),
    /// No answer (no connection, or it broke): the statement may or may not have committed.
    Broken(StorageError),
}

impl Connection {
    pub(crate) fn new(url: Arc<str>) -> Connection {
        Connection {
            url,
            client: None,
            statements: HashMap::new(),
            used: Instant::now(),
        }
    }

    /// The client, connecting first when there is none, the last one broke, or the database
    /// ended it while it sat unused (see [`Connection::found_ended`]). Nothing has been sent on
    /// a client found ended, so any statement, a write too, goes on the new one as if first.
    pub(crate) fn client(&mut self) -> Result<&mut Client, StorageError> {
        if self.client.as_ref().is_some_and(Client::is_closed) {
            self.forget();
        }
        if self.used.elapsed() >= IDLE && self.found_ended() {
            tracing::info!(
                "a PostgreSQL connection was found ended by the database while unused; connecting again before sending"
            );
            self.forget();
        }
        self.used = Instant::now();
        if self.client.is_none() {
            let mut client = config(&self.url)?
                .connect(NoTls)
                .map_err(|e| StorageError::Unavailable(format!("cannot connect: {e}")))?;
            client
                .batch_execute(GENERIC_PLANS)
                .map_err(|e| database_error(&e))?;
            self.client = Some(client);
        }
        self.client.as_mut().ok_or(StorageError::Closed)
    }

    /// Whether the database ended the client's session while it sat unused, as far as its
    /// socket already tells, without sending anything: the client reads what arrived meanwhile
    /// (waiting for no more, at most until the next millisecond of its timer), which is the
    /// error a server sends as it ends a session (`57P01` at a restart or
    /// `pg_terminate_backend`) or the end of the stream. A session ended later than this look
    /// is found by the statement itself, whose outcome is then unknown.
    fn found_ended(&mut self) -> bool {
        let Some(client) = self.client.as_mut() else {
            return false;
        };
        // The synchronous client reads its socket only while it waits on something; a timeout
        // of nothing turns its event loop once, which reads what is already there.
        let read = postgres::fallible_iterator::FallibleIterator::next(
            &mut client.notifications().timeout_iter(Duration::ZERO),
        );
        read.is_err() || client.is_closed()
    }

    /// Drops the client (after a broken connection or an interrupted job).
    pub(crate) fn forget(&mut self) {
        self.client = None;
        self.statements.clear();
    }

    fn prepared(&mut self, sql: &'static str) -> Result<Statement, StorageError> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self
            .client()?
            .prepare(sql)
            .map_err(|e| database_error(&e))?;
        self.statements.insert(sql, statement.clone());
        Ok(statement)
    }

    /// Runs one statement of the store's (prepared once per connection) in its own transaction.
    pub(crate) fn query(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, StorageError> {
        // Reconnects first when the last connection broke, forgetting its statements.
        self.client()?;
        let statement = self.prepared(sql)?;
        self.client()?
            .query(&statement, params)
            .map_err(|e| database_error(&e))
    }
}

/// How soon a read must fail for its connection to count as found dead rather than lost while
/// it ran: a connection the database ended while it sat in the pool (a restart, a failover,
/// `pg_terminate_backend`, a proxy that dropped it) fails at once, its end already waiting in
/// the socket; one lost mid-read fails after [`USER_TIMEOUT`] or the keepalives.
const FOUND_DEAD: Duration = Duration::from_secs(1);

impl Connection {
    /// Runs one statement that only reads, as [`Connection::query`] does. When it fails at once
    /// and its connection has closed (the database ended it while it sat in the pool), the read
    /// is sent once more on a new connection, as a read changes nothing: so after the database
    /// comes back, each connection's first read is answered rather than refused. A connection
    /// lost while the read ran is not tried again: its caller has waited long enough.
    pub(crate) fn read(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, StorageError> {
        let sent = Instant::now();
        let first = self.query(sql, params);
        let found_dead = self.client.as_ref().is_some_and(Client::is_closed);
        if first.is_err() && found_dead && sent.elapsed() < FOUND_DEAD {
            tracing::info!(
                "a PostgreSQL connection of the pool was found closed; reading again on a new one"
            );
            return self.query(sql, params);
        }
        first
    }

    /// As [`Connection::query`], telling a refused statement from a lost connection.
    pub(crate) fn query_or_refused(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, Failure> {
        // Reconnects first when the last connection broke, forgetting its statements.
        self.client().map_err(Failure::Broken)?;
        let statement = self.prepared(sql).map_err(Failure::Broken)?;
        let client = self.client().map_err(Failure::Broken)?;
        client.query(&statement, params).map_err(|e| {
            // An error the server answered while the session goes on: the statement's
            // transaction was rolled back. One that ended the session (`57P01` as the server
            // shuts down, a `FATAL`) or no answer at all may have come after the commit, before
            // the answer: the statement was sent, so the server may have committed it.
            let ended_session = e.as_db_error().is_some_and(|db| {
                matches!(
                    db.parsed_severity(),
                    Some(postgres::error::Severity::Fatal | postgres::error::Severity::Panic)
                )
            });
            if e.as_db_error().is_some() && !ended_session && !client.is_closed() {
                Failure::Refused(database_error(&e))
            } else {
                Failure::Broken(match database_error(&e) {
                    StorageError::Unavailable(why) => StorageError::OutcomeUnknown(why),
                    other => other,
                })
            }
        })
    }
}

/// The connection threads and the queue they share. Dropping it ends the threads once they
/// finish the jobs under way, and closes their connections.
pub(crate) struct Pool {
    jobs: Arc<Jobs>,
    /// How many connection threads there are.
    size: usize,
    counts: Arc<Counts>,
}

/// The jobs waiting for a connection thread. A job wakes one idle thread, which takes it (a
/// shared channel's receiver behind a lock woke two: the thread that got the job, and, as it
/// let the lock go, the next to wait on the channel).
#[derive(Default)]
struct Jobs {
    queue: Mutex<JobQueue>,
    added: Condvar,
}

#[derive(Default)]
struct JobQueue {
    jobs: VecDeque<Job>,
    /// No more jobs are taken; the threads end once the queue is empty.
    closed: bool,
}

impl Jobs {
    /// The next job, once there is one; `None` once the queue is closed and empty.
    fn take(&self) -> Option<Job> {
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(job) = queue.jobs.pop_front() {
                return Some(job);
            }
            if queue.closed {
                return None;
            }
            queue = self
                .added
                .wait(queue)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// What the pool is doing now, for the gauges of `/metrics`.
#[derive(Default)]
struct Counts {
    /// Jobs a connection thread runs now.
    in_use: AtomicU64,
    /// Jobs submitted that no connection thread took yet.
    waiting: AtomicU64,
}

/// The pool's gauges: its connections in use and idle, and the calls waiting for one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolGauges {
    pub in_use: u64,
    pub idle: u64,
    pub waiting: u64,
}

impl Pool {
    pub(crate) fn start(url: &str, size: usize) -> Result<Pool, StorageError> {
        let jobs = Arc::new(Jobs::default());
        let url: Arc<str> = Arc::from(url);
        let counts = Arc::new(Counts::default());
        let size = size.max(1);
        for n in 0..size {
            let jobs = Arc::clone(&jobs);
            let counts = Arc::clone(&counts);
            let mut connection = Connection::new(Arc::clone(&url));
            std::thread::Builder::new()
                .name(format!("postgres-{n}"))
                .spawn(move || {
                    while let Some(job) = jobs.take() {
                        counts.waiting.fetch_sub(1, Ordering::Relaxed);
                        counts.in_use.fetch_add(1, Ordering::Relaxed);
                        // A job that panics drops its answer channel (its caller sees a database error); the
                        // connection may be mid-statement, so it is not used again.
                        if catch_unwind(AssertUnwindSafe(|| job(&mut connection))).is_err() {
                            connection.forget();
                        }
                        counts.in_use.fetch_sub(1, Ordering::Relaxed);
                    }
                })
                .map_err(|e| StorageError::Database(format!("cannot start a thread: {e}")))?;
        }
        Ok(Pool { jobs, size, counts })
    }

    fn submit(&self, job: Job) -> Result<(), StorageError> {
        let mut queue = self
            .jobs
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if queue.closed {
            return Err(StorageError::Closed);
        }
        // Counted before it is queued, so that the thread taking it never counts below zero.
        self.counts.waiting.fetch_add(1, Ordering::Relaxed);
        queue.jobs.push_back(job);
        drop(queue);
        self.jobs.added.notify_one();
        Ok(())
    }

    /// Its connections in use and idle now, and the calls waiting for one.
    pub(crate) fn gauges(&self) -> PoolGauges {
        let in_use = self.counts.in_use.load(Ordering::Relaxed);
        PoolGauges {
            in_use,
            idle: (self.size as u64).saturating_sub(in_use),
            waiting: self.counts.waiting.load(Ordering::Relaxed),
        }
    }

    /// Runs `work` on a connection thread and blocks the calling thread (any thread, inside an
    /// async runtime or not) on a plain channel until it is done.
    pub(crate) fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, StorageError> + Send + 'static,
    ) -> Result<T, StorageError> {
        let (answer, answered) = mpsc::sync_channel(1);
        self.submit(Box::new(move |connection| {
            let _ = answer.send(work(connection));
        }))?;
        answered.recv().map_err(|_| job_failed())?
    }

    /// Runs `work` on a connection thread; the future resolves when it is done, without holding
    /// the caller's thread meanwhile.
    pub(crate) fn run_async<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, StorageError> + Send + 'static,
    ) -> impl Future<Output = Result<T, StorageError>> + Send + 'static {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let submitted = self.submit(Box::new(move |connection| {
            let _ = answer.send(work(connection));
        }));
        async move {
            submitted?;
            answered.await.map_err(|_| job_failed())?
        }
    }

    /// Stops taking jobs; the threads end once the queue is empty.
    pub(crate) fn close(&self) {
        self.jobs
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .closed = true;
        self.jobs.added.notify_all();
    }
}

/// A job that ended without an answer: it panicked (a bug), the pool itself goes on.
fn job_failed() -> StorageError {
    StorageError::Database("a connection thread failed its job".into())
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_gives_up_on_a_silent_host_within_seconds_unless_the_url_says_otherwise() {
        let ours = config("postgres://u@db.example/d").expect("a URL");
        assert_eq!(ours.get_connect_timeout(), Some(&CONNECT_TIMEOUT));
        assert_eq!(ours.get_tcp_user_timeout(), Some(&USER_TIMEOUT));
        assert_eq!(ours.get_keepalives_idle(), KEEPALIVE_IDLE);
        assert_eq!(ours.get_keepalives_retries(), Some(KEEPALIVE_RETRIES));

        let theirs = config(
            "postgres://u@db.example/d?connect_timeout=3&tcp_user_timeout=4&keepalives_idle=60\
             &keepalives_retries=9",
        )
        .expect("a URL");
        assert_eq!(theirs.get_connect_timeout(), Some(&Duration::from_secs(3)));
        assert_eq!(theirs.get_tcp_user_timeout(), Some(&Duration::from_secs(4)));
        assert_eq!(theirs.get_keepalives_idle(), Duration::from_secs(60));
        assert_eq!(theirs.get_keepalives_retries(), Some(9));
    }
}
