//! A database that ends the store's sessions while they sit in its pool (a restart, a
//! failover, a proxy dropping idle connections, `pg_terminate_backend`): the reads that follow
//! are answered on new connections, not refused once per connection.

use crate::cluster;

use std::time::{Duration, Instant};

use storage::{EventStore, PostgresStore, RecordStore};

#[test]
fn reads_after_the_database_ended_every_session_are_answered_on_new_connections() {
    let cluster = cluster::Cluster::shared();
    let url = cluster.new_database();
    let name = url.rsplit('/').next().expect("a database name").to_string();
    // One pool connection: every read below goes through the one the database ends.
    let store = PostgresStore::open_with(&url, 1).expect("the PostgreSQL store opens");
    store.put_record("players", "ann", b"1").expect("writes");
    assert_eq!(
        store.get_record("players", "ann").expect("reads"),
        Some(b"1".to_vec())
    );

    let sessions = |filter: &str| {
        cluster.psql(
            "postgres",
            &format!(
                "SELECT string_agg(pid::text, ',') FROM pg_stat_activity \
                 WHERE datname = '{name}' AND pid <> pg_backend_pid() {filter}"
            ),
        )
    };
    let ended = sessions("").trim().to_string();
    assert!(!ended.is_empty(), "the store holds sessions");
    cluster.psql(
        "postgres",
        &format!(
            "SELECT count(pg_terminate_backend(pid)) FROM unnest('{{{ended}}}'::int[]) AS pid"
        ),
    );
    // Until every ended session is gone, so that the pool's connection is dead when it is used
    // (the store's listener and leases connect again meanwhile, under new pids).
    let deadline = Instant::now() + Duration::from_secs(10);
    while !sessions(&format!("AND pid = ANY('{{{ended}}}'::int[])"))
        .trim()
        .is_empty()
    {
        assert!(
            Instant::now() < deadline,
            "the sessions {ended} did not end"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    assert_eq!(
        store
            .get_record("players", "ann")
            .expect("read on a new connection"),
        Some(b"1".to_vec())
    );
    assert_eq!(store.read_all(0, 100).expect("reads again").len(), 0);
}
