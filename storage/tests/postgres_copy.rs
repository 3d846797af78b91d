//! Moving up: a sled store copied into PostgreSQL is the same store, event ids included, and
//! a copy goes only into an empty database.

use crate::common;

use crate::cluster;

use common::{batch, command_batch};
use storage::{
    copy_sled_to_postgres, CopyError, EventStore, PostgresStore, RecordStore, SledStore,
};

fn sled_with_everything() -> SledStore {
    let sled = SledStore::temporary().expect("a temporary sled store");
    let mut create = command_batch(2, "create");
    create.tags = Some(vec![
        ("status".into(), "open".into()),
        ("player".into(), "ann".into()),
    ]);
    create.secrets = vec![("seed".into(), vec![1; 32])];
    sled.append_blocking("g-1", 0, create).expect("appends");
    sled.append_blocking("g-2", 0, batch(3)).expect("appends");
    let mut fork = command_batch(1, "fork");
    // A secret written by a later batch, and tags changed by a batch that is not the last.
    fork.secrets = vec![("fork-seed".into(), vec![2; 32])];
    fork.tags = Some(vec![("status".into(), "playing".into())]);
    sled.append_blocking("g-1", 2, fork).expect("appends");
    sled.append_blocking("g-1", 3, batch(2)).expect("appends");
    sled.put_record("players", "p-1", b"{\"name\":\"Ann\"}")
        .expect("writes");
    sled.put_record("tokens", "t-1", b"p-1").expect("writes");
    sled
}

#[test]
fn a_copy_has_every_event_command_tag_secret_and_record_of_the_original() {
    let sled = sled_with_everything();
    let postgres = PostgresStore::open_with(&cluster::Cluster::shared().new_database(), 2)
        .expect("the PostgreSQL store opens");
    let report = copy_sled_to_postgres(&sled, &postgres).expect("copies");
    assert_eq!(
        (
            report.streams,
            report.batches,
            report.events,
            report.secrets,
            report.records
        ),
        (2, 4, 8, 2, 2)
    );
    assert_eq!(postgres.store_id(), sled.store_id());
    assert_eq!(
        postgres.read_all(0, 100).expect("reads"),
        sled.read_all(0, 100).expect("reads"),
        "same envelopes, positions and event ids"
    );
    for stream in ["g-1", "g-2"] {
        assert_eq!(
            postgres.tags(stream).expect("reads"),
            sled.tags(stream).expect("reads")
        );
        assert_eq!(
            postgres.secrets(stream).expect("reads"),
            sled.secrets(stream).expect("reads")
        );
        for version in 1..=5 {
            assert_eq!(
                postgres.command(stream, version).expect("reads"),
                sled.command(stream, version).expect("reads")
            );
        }
    }
    assert_eq!(
        postgres
            .streams_tagged("status", "playing", None, 10)
            .expect("reads"),
        ["g-1"]
    );
    assert_eq!(
        postgres.get_record("players", "p-1").expect("reads"),
        Some(b"{\"name\":\"Ann\"}".to_vec())
    );
    // An idempotency key copied still answers a retry with the first result.
    let retried = postgres
        .append_blocking("g-1", 0, command_batch(2, "create"))
        .expect("a retry");
    assert!(retried.duplicate);
    assert_eq!((retried.first_version, retried.last_version), (1, 2));
}

#[test]
fn a_copy_into_a_database_that_holds_anything_is_refused() {
    let sled = sled_with_everything();
    let url = cluster::Cluster::shared().new_database();
    let postgres = PostgresStore::open_with(&url, 2).expect("opens");
    postgres
        .put_record("players", "someone", b"{}")
        .expect("writes");
    assert!(matches!(
        copy_sled_to_postgres(&sled, &postgres),
        Err(CopyError::TargetNotEmpty)
    ));
    assert!(postgres.read_all(0, 10).expect("reads").is_empty());
}
