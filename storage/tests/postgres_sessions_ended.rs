//! A database that ends the store's sessions while they sit in its pool (a restart, a
//! failover, a proxy dropping idle connections, `pg_terminate_backend`): the reads and writes
//! that follow are answered on new connections, not refused once per connection.

use crate::cluster;
use crate::common::{batch, command_batch};

use std::time::{Duration, Instant};

use storage::{EventStore, PostgresStore, RecordStore};

/// Ends every session of the database of `url` and waits until they are gone, so that the
/// store's connections are dead when next used (its listener and leases connect again meanwhile,
/// under new pids).
fn end_every_session(cluster: &cluster::Cluster, url: &str) {
    let name = url.rsplit('/').next().expect("a database name").to_string();
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
}

#[test]
fn reads_after_the_database_ended_every_session_are_answered_on_new_connections() {
    let cluster = cluster::Cluster::shared();
    let url = cluster.new_database();
    // One pool connection: every read below goes through the one the database ends.
    let store = PostgresStore::open_with(&url, 1).expect("the PostgreSQL store opens");
    store.put_record("players", "ann", b"1").expect("writes");
    assert_eq!(
        store.get_record("players", "ann").expect("reads"),
        Some(b"1".to_vec())
    );

    end_every_session(cluster, &url);

    assert_eq!(
        store
            .get_record("players", "ann")
            .expect("read on a new connection"),
        Some(b"1".to_vec())
    );
    assert_eq!(store.read_all(0, 100).expect("reads again").len(), 0);
}

#[test]
fn writes_after_the_database_ended_every_session_are_sent_on_new_connections() {
    let cluster = cluster::Cluster::shared();
    let url = cluster.new_database();
    // One pool connection, and the appender's own: each write below is the first statement
    // on a connection the database ended.
    let store = PostgresStore::open_with(&url, 1).expect("the PostgreSQL store opens");
    store.put_record("players", "ann", b"1").expect("writes");
    store
        .append_blocking("g-1", 0, command_batch(2, "first"))
        .expect("appends");

    end_every_session(cluster, &url);
    // The connections sit in the pool a moment, as after a restart (which takes longer).
    std::thread::sleep(Duration::from_millis(100));

    store
        .put_record("players", "bob", b"2")
        .expect("a record written on a new connection");
    let appended = store
        .append_blocking("g-1", 2, batch(1))
        .expect("an append sent on a new connection");
    assert_eq!((appended.first_version, appended.duplicate), (3, false));
    assert_eq!(
        store.get_record("players", "bob").expect("reads"),
        Some(b"2".to_vec())
    );
    assert_eq!(store.head("g-1").expect("reads"), 3);
}
