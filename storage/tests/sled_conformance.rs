//! The storage conformance suite (`conformance/`) run against the sled store (in a temporary directory).
//! Every backend passes the same tests through the traits alone, as the application uses it.

mod backend {
    use std::sync::Arc;
    use storage::{SledStore, Storage};

    pub fn store() -> Arc<dyn Storage> {
        Arc::new(SledStore::temporary().expect("a temporary sled store opens"))
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
