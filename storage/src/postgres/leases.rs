//! Leases across the processes sharing one database: PostgreSQL session advisory locks, held
//! on a connection of their own.
//!
//! A lock taken with `pg_try_advisory_lock` belongs to the session that took it, and the server
//! frees it when that session ends: when its holder releases it, when the holder's process dies
//! (its socket closes, even on SIGKILL), when the holder's host vanishes without closing it (a
//! power cut, a network gone: the session's keepalives give up within about 10 s, see
//! `SERVER_KEEPALIVES`), or when its connection breaks. So a lease needs no expiry and no clock:
//! whoever holds the connection holds the lease, and a surviving process's next `try_lease` takes
//! over a dead one's at once. The locks must not sit on the pool's connections (a job on any of
//! them could not tell which locks its session holds, and a reconnect would drop them unseen), so
//! one thread owns one connection for them all.
//!
//! The thread checks its connection every [`CHECK`]: once it broke, every lease is counted
//! lost (`holds_lease` answers false) before another process can have taken it over, less
//! the check's interval. What a lease guards must therefore stay safe if two processes run it
//! for that moment: the application's timeouts are appends with an expected version (the
//! second is refused), and a webhook notification is delivered at least once anyway.
//!
//! Lease names are hashed to the two-key form of the advisory locks (`'aval'`, FNV-1a of the
//! name), apart from the one-key lock the migrations take.

use std::collections::BTreeSet;
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::time::Duration;

use postgres::{Client, NoTls};

use crate::error::StorageError;

/// The leases' connection, as `pg_stat_activity` shows it.
pub const APPLICATION_NAME: &str = "avalanche-leases";

/// How often the thread makes sure its connection (and so its locks) still stands.
const CHECK: Duration = Duration::from_millis(500);

/// How long this side lets a check go unacknowledged before it counts its connection, and so
/// every lease, lost: well before the database gives the locks up (`SERVER_KEEPALIVES`).
const USER_TIMEOUT: Duration = Duration::from_secs(3);

/// The database probes the leases' connection once it has been silent 5 s, every second, and
/// ends the session (freeing its locks) after five probes unanswered: about 10 s after the
/// holder's host vanished without closing its sockets (a power cut, a network gone), rather
/// than after the operating system's default of two hours. This side, checking every
/// [`CHECK`], has counted its leases lost 3 s ([`USER_TIMEOUT`]) after its last check went
/// unanswered, so two processes do not both hold a lease. (Over a Unix socket PostgreSQL
/// ignores these settings; nothing there can vanish without closing it.)
const SERVER_KEEPALIVES: &str =
    "SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 5";

/// The longest `release` waits for the database to free a lock.
const RELEASE_WAIT: Duration = Duration::from_secs(5);

/// The first key of every lease's advisory lock: "aval" in ASCII.
const CLASS: i32 = 0x6176_616c;

/// The second key of lease `name`'s advisory lock: 32-bit FNV-1a, the same in every process.
fn key_of(name: &str) -> i32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in name.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash as i32
}

enum Request {
    Take(String, mpsc::Sender<Result<bool, StorageError>>),
    /// Answered once the lock is released (or the connection is gone, and the lock with it).
    Release(String, mpsc::Sender<()>),
}

/// The leases this process holds, and the thread that holds them.
pub(crate) struct Leases {
    requests: Mutex<mpsc::Sender<Request>>,
    held: Arc<Mutex<BTreeSet<String>>>,
}

impl Leases {
    /// Starts the thread; it connects on the first request and stops when `Leases` is dropped
    /// (its connection closes, and with it every lock).
    pub(crate) fn start(url: &str) -> std::io::Result<Leases> {
        let (requests, incoming) = mpsc::channel::<Request>();
        let held: Arc<Mutex<BTreeSet<String>>> = Arc::default();
        let holder = Holder {
            url: url.to_string(),
            client: None,
            held: Arc::clone(&held),
        };
        std::thread::Builder::new()
            .name("postgres-leases".into())
            .spawn(move || holder.run(&incoming))?;
        Ok(Leases {
            requests: Mutex::new(requests),
            held,
        })
    }

    fn send(&self, request: Request) -> Result<(), StorageError> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .send(request)
            .map_err(|_| StorageError::Closed)
    }

    pub(crate) fn try_take(&self, name: &str) -> Result<bool, StorageError> {
        if self.holds(name) {
            return Ok(true);
        }
        let (reply, answer) = mpsc::channel();
        self.send(Request::Take(name.to_string(), reply))?;
        answer.recv().map_err(|_| StorageError::Closed)?
    }

    pub(crate) fn holds(&self, name: &str) -> bool {
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(name)
    }

    /// Counts the lease given up at once, and returns once its lock is released on the
    /// thread, so that another process may take it from then on (or after [`RELEASE_WAIT`]
    /// when the database does not answer; the lock then goes with the connection).
    pub(crate) fn release(&self, name: &str) {
        let held = self
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(name);
        if held {
            let (done, released) = mpsc::channel();
            if self.send(Request::Release(name.to_string(), done)).is_ok() {
                let _ = released.recv_timeout(RELEASE_WAIT);
            }
        }
    }
}

/// The thread's side: its connection and what it holds on it.
struct Holder {
    url: String,
    client: Option<Client>,
    held: Arc<Mutex<BTreeSet<String>>>,
}

impl Holder {
    fn run(mut self, incoming: &mpsc::Receiver<Request>) {
        loop {
            match incoming.recv_timeout(CHECK) {
                Ok(Request::Take(name, reply)) => {
                    let _ = reply.send(self.take(&name));
                }
                Ok(Request::Release(name, done)) => {
                    self.release(&name);
                    let _ = done.send(());
                }
                Err(mpsc::RecvTimeoutError::Timeout) => self.check(),
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The connection broke: every lock on it is gone.
    fn lost(&mut self, error: &postgres::Error) {
        let lost: Vec<String> = std::mem::take(&mut *self.held()).into_iter().collect();
        if !lost.is_empty() {
            tracing::warn!(%error, leases = ?lost, "the leases' connection broke: leases lost");
        }
        self.client = None;
    }

    fn client(&mut self) -> Result<&mut Client, StorageError> {
        if self.client.as_ref().is_some_and(Client::is_closed) {
            self.held().clear();
            self.client = None;
        }
        if self.client.is_none() {
            let mut config = super::pool::config_with(&self.url, USER_TIMEOUT)?;
            config.application_name(APPLICATION_NAME);
            let mut client = config
                .connect(NoTls)
                .map_err(|e| StorageError::Database(format!("cannot connect: {e}")))?;
            client
                .batch_execute(SERVER_KEEPALIVES)
                .map_err(|e| super::pool::database_error(&e))?;
            self.client = Some(client);
        }
        self.client.as_mut().ok_or(StorageError::Closed)
    }

    fn take(&mut self, name: &str) -> Result<bool, StorageError> {
        if self.held().contains(name) {
            return Ok(true);
        }
        let taken = self.client()?.query_one(
            "SELECT pg_try_advisory_lock($1, $2)",
            &[&CLASS, &key_of(name)],
        );
        match taken {
            Ok(row) => {
                let taken: bool = row
                    .try_get(0)
                    .map_err(|e| StorageError::Corrupt(e.to_string()))?;
                if taken {
                    self.held().insert(name.to_string());
                }
                Ok(taken)
            }
            Err(error) => {
                let failure = super::pool::database_error(&error);
                self.lost(&error);
                Err(failure)
            }
        }
    }

    fn release(&mut self, name: &str) {
        let Some(client) = self.client.as_mut() else {
            return;
        };
        if let Err(error) = client.execute(
            "SELECT pg_advisory_unlock($1, $2)",
            &[&CLASS, &key_of(name)],
        ) {
            self.lost(&error);
        }
    }

    /// Makes sure the connection stands while anything is held on it.
    fn check(&mut self) {
        if self.held().is_empty() {
            return;
        }
        let Some(client) = self.client.as_mut() else {
            self.held().clear();
            return;
        };
        if let Err(error) = client.simple_query("SELECT 1") {
            self.lost(&error);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::key_of;

    #[test]
    fn a_lease_name_has_the_same_key_in_every_process() {
        assert_eq!(key_of("clock"), key_of("clock"));
        assert_ne!(key_of("clock"), key_of("webhook:wh-1"));
        // FNV-1a of the empty name is its offset basis.
        assert_eq!(key_of(""), 0x811c_9dc5_u32 as i32);
    }
}
