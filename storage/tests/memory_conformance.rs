//! The storage conformance suite (`conformance/`) run against the in-memory store.
//! Every backend passes the same tests through the traits alone, as the application uses it.

mod backend {
    use std::sync::Arc;
    use storage::{MemoryStore, Storage};

    pub fn store() -> Arc<dyn Storage> {
        Arc::new(MemoryStore::new())
    }
}

#[path = "conformance/append.rs"]
mod append;
#[path = "conformance/broadcast.rs"]
mod broadcast;
#[path = "conformance/read.rs"]
mod read;
#[path = "conformance/retag.rs"]
mod retag;
#[path = "conformance/wait.rs"]
mod wait;
