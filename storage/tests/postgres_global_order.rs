//! A global order no reader can skip, on PostgreSQL: an append holding a position that has not
//! committed yet keeps every later position invisible, so a follower of `read_all` (polling,
//! or woken by `subscribe_all`) never passes over an event that commits late.
//!
//! The held append is the store's own append function called in a transaction this test keeps
//! open; with positions from a sequence, the second append would commit the next position
//! first and the follower would move past the held one for good.

use crate::common;

use crate::cluster;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::batch;
use storage::{EventStore, PostgresStore};

/// Opens a store on a fresh database, and a plain connection to the same database.
fn store_and_connection() -> (PostgresStore, postgres::Client) {
    let url = cluster::Cluster::shared().new_database();
    let store = PostgresStore::open_with(&url, 4).expect("the PostgreSQL store opens");
    let client = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    (store, client)
}

/// Follows the global log by polling `read_all` until it has read `total` events or `stop` is
/// set; fails if a position ever comes out of order or with a hole before it.
fn follow(
    store: PostgresStore,
    total: u64,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Vec<u64>> {
    std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut cursor = 0;
        let deadline = Instant::now() + Duration::from_secs(60);
        while cursor < total && !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
            for envelope in store.read_all(cursor, 100).expect("reads") {
                assert_eq!(
                    envelope.position,
                    cursor + 1,
                    "the follower after {cursor} was shown {} first",
                    envelope.position
                );
                cursor = envelope.position;
                seen.push(cursor);
            }
        }
        seen
    })
}

#[test]
fn a_later_append_waits_for_an_earlier_uncommitted_one_and_the_follower_skips_nothing() {
    let (store, mut held) = store_and_connection();
    store
        .append_blocking("first", 0, batch(2))
        .expect("appends");
    let stop = Arc::new(AtomicBool::new(false));
    let follower = follow(store.clone(), 4, Arc::clone(&stop));

    // An append that takes position 3 and does not commit yet.
    let mut transaction = held.transaction().expect("begins");
    let row = transaction
        .query_one(
            "SELECT outcome, last_position FROM avalanche_append(
                 'held', 0, 'seat:0', NULL, NULL, 0, ARRAY['Moved'], ARRAY[1],
                 ARRAY['{\"n\": 0}'::json], false, '{}', '{}', '{}', '{}')",
            &[],
        )
        .expect("the held append runs");
    assert_eq!(row.get::<_, String>(0), "appended");
    assert_eq!(row.get::<_, i64>(1), 3);

    // A second append, to another stream, while the first is uncommitted.
    let quick = {
        let store = store.clone();
        std::thread::spawn(move || store.append_blocking("quick", 0, batch(1)))
    };
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !quick.is_finished(),
        "the second append must not commit a later position before the held one"
    );
    let visible: Vec<u64> = store
        .read_all(0, 100)
        .expect("reads")
        .iter()
        .map(|e| e.position)
        .collect();
    assert_eq!(
        visible,
        vec![1, 2],
        "nothing after an uncommitted position shows"
    );

    transaction.commit().expect("the held append commits, last");
    let quick = quick
        .join()
        .expect("joins")
        .expect("the second append commits");
    assert_eq!(quick.last_position, 4);
    let seen = follower.join().expect("the follower never skipped");
    assert_eq!(seen, vec![1, 2, 3, 4]);
    let streams: Vec<String> = store
        .read_all(0, 100)
        .expect("reads")
        .into_iter()
        .map(|e| e.stream)
        .collect();
    assert_eq!(streams, ["first", "first", "held", "quick"]);
}

#[test]
fn an_append_that_rolls_back_leaves_no_hole_and_blocks_nobody() {
    let (store, mut held) = store_and_connection();
    store
        .append_blocking("first", 0, batch(1))
        .expect("appends");
    let mut transaction = held.transaction().expect("begins");
    transaction
        .query_one(
            "SELECT outcome FROM avalanche_append(
                 'doomed', 0, 'seat:0', NULL, NULL, 0, ARRAY['Moved'], ARRAY[1],
                 ARRAY['{}'::json], false, '{}', '{}', '{}', '{}')",
            &[],
        )
        .expect("the held append runs");
    let next = {
        let store = store.clone();
        std::thread::spawn(move || store.append_blocking("next", 0, batch(1)))
    };
    std::thread::sleep(Duration::from_millis(300));
    transaction.rollback().expect("rolls back");
    let next = next.join().expect("joins").expect("appends");
    assert_eq!(
        next.last_position, 2,
        "the rolled back position is taken again"
    );
    let all: Vec<(String, u64)> = store
        .read_all(0, 100)
        .expect("reads")
        .into_iter()
        .map(|e| (e.stream, e.position))
        .collect();
    assert_eq!(all, [("first".to_string(), 1), ("next".to_string(), 2)]);
    assert_eq!(store.head("doomed").expect("reads"), 0);
}

#[test]
fn followers_of_many_concurrent_writers_see_every_position_once_in_order() {
    let (store, _) = store_and_connection();
    let writers = 6u64;
    let appends_per_writer = 40u64;
    // Each writer appends batches of 1-3 events; the total is known in advance.
    let total: u64 = (0..writers)
        .map(|w| {
            (0..appends_per_writer)
                .map(|n| 1 + (w + n) % 3)
                .sum::<u64>()
        })
        .sum();
    let stop = Arc::new(AtomicBool::new(false));
    let poller = follow(store.clone(), total, Arc::clone(&stop));

    // A follower woken by `subscribe_all`, reading up to each announced position.
    let subscriber = {
        let store = store.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let mut positions = store.subscribe_all();
                let mut cursor = 0u64;
                while cursor < total {
                    let announced = *positions
                        .wait_for(|p| *p > cursor)
                        .await
                        .expect("the store is open");
                    let page = store.read_all(cursor, usize::MAX).expect("reads");
                    assert!(
                        page.last().map_or(0, |e| e.position) >= announced,
                        "an announced position is readable"
                    );
                    for envelope in page {
                        assert_eq!(envelope.position, cursor + 1, "no hole, no repeat");
                        cursor = envelope.position;
                    }
                }
                cursor
            })
        })
    };

    let threads: Vec<_> = (0..writers)
        .map(|writer| {
            let store = store.clone();
            std::thread::spawn(move || {
                let stream = format!("game-{writer}");
                let mut head = 0;
                for n in 0..appends_per_writer {
                    let appended = store
                        .append_blocking(&stream, head, batch(1 + (writer + n) % 3))
                        .expect("appends");
                    head = appended.last_version;
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("the writer finishes");
    }
    let seen = poller.join().expect("the polling follower never skipped");
    assert_eq!(seen, (1..=total).collect::<Vec<u64>>());
    assert_eq!(
        subscriber.join().expect("the subscriber never skipped"),
        total
    );
    stop.store(true, Ordering::Relaxed);
}

#[test]
fn a_held_group_keeps_every_later_position_invisible_until_it_commits() {
    let (store, mut held) = store_and_connection();
    store
        .append_blocking("first", 0, batch(1))
        .expect("appends");
    let stop = Arc::new(AtomicBool::new(false));
    let follower = follow(store.clone(), 5, Arc::clone(&stop));
    // A group of two batches (two streams, three events) that takes positions 2-4 and does
    // not commit yet.
    let mut transaction = held.transaction().expect("begins");
    let row = transaction
        .query_one(
            "SELECT outcomes, last_positions FROM avalanche_append_group(
                 ARRAY['held-a', 'held-b'], ARRAY[0, 0]::bigint[], ARRAY['seat:0', 'seat:1'],
                 ARRAY[NULL, NULL]::text[], ARRAY[NULL, NULL]::json[], ARRAY[0, 0]::bigint[],
                 ARRAY[false, false], ARRAY[1, 3], ARRAY[2, 1], ARRAY['Moved', 'Moved', 'Moved'],
                 ARRAY[1, 1, 1], ARRAY['{\"n\": 0}', '{\"n\": 1}', '{\"n\": 2}']::json[],
                 ARRAY[1, 1], ARRAY[0, 0], '{}', '{}', ARRAY[1, 1], ARRAY[0, 0], '{}', '{}')",
            &[],
        )
        .expect("the held group runs");
    assert_eq!(row.get::<_, Vec<String>>(0), ["appended", "appended"]);
    assert_eq!(row.get::<_, Vec<i64>>(1), [3, 4]);
    let quick = {
        let store = store.clone();
        std::thread::spawn(move || store.append_blocking("quick", 0, batch(1)))
    };
    std::thread::sleep(Duration::from_millis(500));
    assert!(!quick.is_finished(), "a later group waits for the held one");
    let visible: Vec<u64> = store
        .read_all(0, 100)
        .expect("reads")
        .iter()
        .map(|e| e.position)
        .collect();
    assert_eq!(visible, vec![1]);
    transaction.commit().expect("the held group commits");
    let quick = quick.join().expect("joins").expect("appends");
    assert_eq!(quick.last_position, 5);
    assert_eq!(follower.join().expect("never skipped"), vec![1, 2, 3, 4, 5]);
    let all: Vec<(String, u64)> = store
        .read_all(0, 100)
        .expect("reads")
        .into_iter()
        .map(|e| (e.stream, e.version))
        .collect();
    assert_eq!(
        all,
        [
            ("first".to_string(), 1),
            ("held-a".to_string(), 1),
            ("held-a".to_string(), 2),
            ("held-b".to_string(), 1),
            ("quick".to_string(), 1)
        ]
    );
}

#[test]
fn followers_of_several_nodes_appending_in_groups_see_every_position_once_in_order() {
    let url = cluster::Cluster::shared().new_database();
    let nodes: Vec<PostgresStore> = (0..3)
        .map(|_| PostgresStore::open_with(&url, 2).expect("opens"))
        .collect();
    let writers_per_node = 5u64;
    let appends_per_writer = 30u64;
    // Every writer has a stream of its own; one more stream is written by one writer of each
    // node, which conflict with each other and read again.
    let own: u64 = (0..3 * writers_per_node)
        .map(|w| {
            (0..appends_per_writer)
                .map(|n| 1 + (w + n) % 3)
                .sum::<u64>()
        })
        .sum();
    let shared_appends = 20u64;
    let total = own + 3 * shared_appends;
    let stop = Arc::new(AtomicBool::new(false));
    let poller = follow(nodes[0].clone(), total, Arc::clone(&stop));
    let mut threads = Vec::new();
    for (n, node) in nodes.iter().enumerate() {
        for w in 0..writers_per_node {
            let store = node.clone();
            let writer = n as u64 * writers_per_node + w;
            threads.push(std::thread::spawn(move || {
                let stream = format!("game-{writer}");
                let mut head = 0;
                for a in 0..appends_per_writer {
                    let appended = store
                        .append_blocking(&stream, head, batch(1 + (writer + a) % 3))
                        .expect("appends");
                    head = appended.last_version;
                }
                0
            }));
        }
        let store = node.clone();
        threads.push(std::thread::spawn(move || {
            let (mut written, mut conflicts) = (0, 0);
            let mut head = 0;
            while written < shared_appends {
                match store.append_blocking("shared", head, batch(1)) {
                    Ok(appended) => {
                        head = appended.last_version;
                        written += 1;
                    }
                    Err(storage::AppendError::Conflict { actual, .. }) => {
                        assert!(actual > head, "a conflict names a newer head");
                        head = store.head("shared").expect("reads");
                        conflicts += 1;
                    }
                    Err(other) => panic!("unexpected error {other}"),
                }
            }
            conflicts
        }));
    }
    let mut conflicts = 0;
    for thread in threads {
        conflicts += thread.join().expect("the writer finishes");
    }
    let seen = poller.join().expect("the follower never skipped");
    assert_eq!(seen, (1..=total).collect::<Vec<u64>>());
    let shared: Vec<u64> = nodes[2]
        .read_stream("shared", 0, 1000)
        .expect("reads")
        .iter()
        .map(|e| e.version)
        .collect();
    assert_eq!(shared, (1..=3 * shared_appends).collect::<Vec<u64>>());
    eprintln!("{total} events from 3 nodes, {conflicts} conflicts on the shared stream");
    stop.store(true, Ordering::Relaxed);
}
