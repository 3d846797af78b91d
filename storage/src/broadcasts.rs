//! Short messages from one process to every process on the same store (this one included),
//! for what the application must tell all of them at once: opaque text, the store reads none
//! of it. A subscriber gets each message sent after it subscribed, in order, at most once; a
//! process whose connection to a shared store was broken misses what was sent meanwhile, so a
//! message must only hasten what the application would also find out by itself later (an
//! entry of a cache that expires anyway). A subscriber that falls more than [`BACKLOG`]
//! messages behind is told it lagged (`RecvError::Lagged`) and should assume the worst.

use crate::event_store::{BoxFuture, Coordination};
use crate::StorageError;
use tokio::sync::broadcast;

/// Messages kept for a slow subscriber.
pub const BACKLOG: usize = 1024;

/// The longest message, in bytes (PostgreSQL's limit of a notification's payload is 8000).
pub const MAX_MESSAGE: usize = 4000;

/// This process's subscribers.
#[derive(Clone)]
pub(crate) struct Broadcasts {
    sender: broadcast::Sender<String>,
}

impl Default for Broadcasts {
    fn default() -> Self {
        Broadcasts {
            sender: broadcast::channel(BACKLOG).0,
        }
    }
}

impl Broadcasts {
    /// Hands `message` to this process's subscribers (none listening is no error).
    pub(crate) fn deliver(&self, message: &str) {
        let _ = self.sender.send(message.to_string());
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<String> {
        self.sender.subscribe()
    }
}

/// Refuses a message too long to send.
pub(crate) fn check(message: &str) -> Result<(), crate::StorageError> {
    if message.len() > MAX_MESSAGE {
        return Err(crate::StorageError::Database(format!(
            "a broadcast of {} bytes, over the {MAX_MESSAGE} a message may have",
            message.len()
        )));
    }
    Ok(())
}

/// A store only this process writes (sled, memory): its [`Coordination`] is the one below,
/// written once. Nobody to share with, every lease is its own, and a message goes to this
/// process's own subscribers.
pub(crate) trait SingleProcess: Send + Sync {
    /// This process's subscribers to broadcasts.
    fn broadcasts(&self) -> &Broadcasts;
}

impl<T: SingleProcess> Coordination for T {
    fn shared(&self) -> bool {
        false
    }

    fn try_lease(&self, _name: &str) -> Result<bool, StorageError> {
        Ok(true)
    }

    fn holds_lease(&self, _name: &str) -> bool {
        true
    }

    fn release_lease(&self, _name: &str) {}

    fn broadcast<'a>(&'a self, message: &'a str) -> BoxFuture<'a, Result<(), StorageError>> {
        Box::pin(async move {
            check(message)?;
            self.broadcasts().deliver(message);
            Ok(())
        })
    }

    fn subscribe_broadcasts(&self) -> broadcast::Receiver<String> {
        self.broadcasts().subscribe()
    }
}
