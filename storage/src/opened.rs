//! A store as the startup that opened it knows it: the seam every backend shares
//! ([`Storage`]), and what only its backend has, handed over beside it rather than asked of
//! the seam: a backup of the running store (sled) and the gauges of the connections to a
//! database server (PostgreSQL).

use crate::{DatabaseGauges, MemoryStore, PostgresStore, SledStore, Storage};
use std::sync::Arc;

/// Reads the gauges of a store's connections to its database server, for an operator's metrics.
pub type Gauges = Arc<dyn Fn() -> DatabaseGauges + Send + Sync>;

/// A store just opened, with what its backend offers beside the seam.
#[derive(Clone)]
pub struct Opened {
    pub store: Arc<dyn Storage>,
    /// The sled store itself, for a consistent backup while it serves (`SledStore::secrets`,
    /// `SledStore::record_trees`); `None` on other backends.
    pub backup: Option<SledStore>,
    /// The gauges of the connections to a database server; `None` for a store without them.
    pub gauges: Option<Gauges>,
}

impl From<SledStore> for Opened {
    fn from(store: SledStore) -> Opened {
        Opened {
            store: Arc::new(store.clone()),
            backup: Some(store),
            gauges: None,
        }
    }
}

impl From<PostgresStore> for Opened {
    fn from(store: PostgresStore) -> Opened {
        let read = store.clone();
        Opened {
            store: Arc::new(store),
            backup: None,
            gauges: Some(Arc::new(move || read.gauges())),
        }
    }
}

impl From<MemoryStore> for Opened {
    fn from(store: MemoryStore) -> Opened {
        Opened::from(Arc::new(store) as Arc<dyn Storage>)
    }
}

/// A store with nothing beside the seam (or whose backend the caller does not say).
impl From<Arc<dyn Storage>> for Opened {
    fn from(store: Arc<dyn Storage>) -> Opened {
        Opened {
            store,
            backup: None,
            gauges: None,
        }
    }
}
