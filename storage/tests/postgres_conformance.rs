//! The storage conformance suite (`conformance/`) run against PostgreSQL: a private cluster
//! started for this test binary (`common/cluster.rs`), a fresh database for every test.
//! Every backend passes the same tests through the traits alone, as the application uses it.

mod backend {
    use std::sync::Arc;
    use storage::{PostgresStore, Storage};

    pub fn store() -> Arc<dyn Storage> {
        let url = crate::cluster::Cluster::shared().new_database();
        Arc::new(PostgresStore::open_with(&url, 4).expect("the PostgreSQL store opens"))
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
