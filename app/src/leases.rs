//! The jobs one server at a time runs among those sharing a store: the clock keeper (a
//! timeout recorded once, however many servers watch the deadline) and each webhook's
//! deliveries (one worker follows the log and POSTs). Each is a lease of the store
//! ([`storage::Coordination::try_lease`]): on PostgreSQL a session advisory lock that dies with
//! its holder's connection, so a surviving server's next try takes a dead one's jobs over; on
//! sled, with no one to share with, this server holds them all.
//!
//! [`Leases::held`] says which leases this server holds now, for an operator's look.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use storage::Storage;

/// The clock keeper's lease.
pub const CLOCK: &str = "clock";

/// The lease of webhook `id`'s deliveries.
pub fn webhook(id: &str) -> String {
    format!("webhook:{id}")
}

/// The leases this server asked for and the store they are taken in.
pub struct Leases {
    store: Arc<dyn Storage>,
    /// Those this server took and has not given up (some may since be lost).
    taken: Mutex<BTreeSet<String>>,
}

impl Leases {
    pub fn new(store: Arc<dyn Storage>) -> Leases {
        Leases {
            store,
            taken: Mutex::new(BTreeSet::new()),
        }
    }

    fn taken(&self) -> MutexGuard<'_, BTreeSet<String>> {
        self.taken.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether this server holds lease `name` now, taking it if it is free. Asks the
    /// database only when this server does not hold it already.
    pub fn hold(&self, name: &str) -> bool {
        if self.store.holds_lease(name) && self.taken().contains(name) {
            return true;
        }
        match self.store.try_lease(name) {
            Ok(true) => {
                if self.taken().insert(name.to_string()) {
                    tracing::info!(lease = %name, "lease taken: this server runs it now");
                }
                true
            }
            Ok(false) => {
                self.taken().remove(name);
                false
            }
            Err(error) => {
                tracing::warn!(lease = %name, %error, "cannot ask for a lease");
                self.taken().remove(name);
                false
            }
        }
    }

    /// Whether this server still holds lease `name`, without asking the database.
    pub fn holds(&self, name: &str) -> bool {
        self.taken().contains(name) && self.store.holds_lease(name)
    }

    /// Gives lease `name` up, for another server to take.
    pub fn release(&self, name: &str) {
        if self.taken().remove(name) {
            self.store.release_lease(name);
        }
    }

    /// The leases this server holds now, in name order: `clock`, `webhook:<id>`, ...
    pub fn held(&self) -> Vec<String> {
        self.taken()
            .iter()
            .filter(|name| self.store.holds_lease(name))
            .cloned()
            .collect()
    }
}

/// Gives a lease up when dropped: a webhook's worker holds one, so that a worker stopped
/// (its webhook deleted, failing, or the server stopping) frees its deliveries at once.
pub struct Held {
    leases: Arc<Leases>,
    name: String,
}

impl Held {
    pub fn new(leases: Arc<Leases>, name: String) -> Held {
        Held { leases, name }
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.leases.release(&self.name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use storage::MemoryStore;

    #[test]
    fn a_server_alone_on_its_store_holds_every_lease_it_asks_for() {
        let leases = Leases::new(Arc::new(MemoryStore::default()));
        assert!(leases.held().is_empty());
        assert!(leases.hold(CLOCK));
        assert!(leases.hold(&webhook("wh-1")));
        assert_eq!(
            leases.held(),
            vec!["clock".to_string(), "webhook:wh-1".into()]
        );
        leases.release(CLOCK);
        assert!(!leases.holds(CLOCK));
        assert_eq!(leases.held(), vec!["webhook:wh-1".to_string()]);
    }
}
