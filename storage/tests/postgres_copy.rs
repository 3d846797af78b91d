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

/// The transactions that wrote the copy: every row keeps the id of the transaction that wrote
/// it (`xmin`), and batches, events and records are only ever inserted. Counted in this
/// database's own tables, so the tests writing to other databases of the shared cluster meanwhile
/// count for nothing (the cluster-wide `pg_current_xact_id()` counted them).
fn transactions_that_wrote(postgres_url: &str) -> i64 {
    let mut client = postgres::Client::connect(postgres_url, postgres::NoTls).expect("connects");
    let row = client
        .query_one(
            "SELECT count(DISTINCT xmin::text) FROM (
                 SELECT xmin FROM batches UNION ALL SELECT xmin FROM events
                 UNION ALL SELECT xmin FROM records) AS written",
            &[],
        )
        .expect("reads the transaction ids");
    row.get(0)
}

#[test]
fn a_large_copy_goes_in_groups_with_progress_and_stays_exact() {
    let sled = SledStore::temporary().expect("a temporary sled store");
    let (streams, batches_each): (usize, u64) = (150, 20);
    for s in 0..streams {
        let stream = format!("g-{s:03}");
        for b in 0..batches_each {
            let mut next = command_batch(1 + (b % 3), &format!("c-{b}"));
            if b == 0 {
                next.tags = Some(vec![("status".into(), format!("s{}", s % 4))]);
                next.secrets = vec![("seed".into(), vec![s as u8; 32])];
            }
            let head = sled.head(&stream).expect("reads");
            sled.append_blocking(&stream, head, next).expect("appends");
        }
    }
    for n in 0..1200 {
        sled.put_record(
            "players",
            &format!("p-{n:04}"),
            format!("{{\"n\":{n}}}").as_bytes(),
        )
        .expect("writes");
    }
    let total = *sled.subscribe_all().borrow();
    let url = cluster::Cluster::shared().new_database();
    let postgres = PostgresStore::open_with(&url, 2).expect("opens");
    let mut seen = Vec::new();
    let started = std::time::Instant::now();
    let mut copied_in = std::time::Duration::ZERO;
    let report = storage::copy_sled_to_postgres_with(&sled, &postgres, &mut |report, of| {
        seen.push((report.events, of));
        copied_in = started.elapsed();
    })
    .expect("copies, and the copy is audited identical");
    let took = started.elapsed();
    assert_eq!(report.batches, streams as u64 * batches_each);
    assert_eq!(report.events, total);
    assert_eq!(report.records, 1200);
    assert_eq!(
        seen.last(),
        Some(&(total, total)),
        "the last progress is the whole log"
    );
    assert!(
        seen.windows(2).all(|w| w[0].0 <= w[1].0),
        "progress only grows: {seen:?}"
    );
    // One transaction a group of batches (and one a chunk of records), not one a batch: 3000
    // batches in a few dozen at most.
    let written = transactions_that_wrote(&url);
    assert!(
        written <= 40,
        "{written} write transactions for {} batches",
        report.batches
    );
    eprintln!(
        "copied {} batches ({} events) in {:.2} s, then audited, {:.2} s in all = {:.0} events/s, {written} write transactions",
        report.batches,
        report.events,
        copied_in.as_secs_f64(),
        took.as_secs_f64(),
        report.events as f64 / took.as_secs_f64()
    );
    assert_eq!(
        postgres.read_all(0, 10_000).expect("reads"),
        sled.read_all(0, 10_000).expect("reads")
    );
    assert_eq!(
        postgres
            .streams_tagged("status", "s1", None, 1000)
            .expect("reads")
            .len(),
        streams / 4 + usize::from(streams % 4 > 1)
    );
}
