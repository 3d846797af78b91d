//! Appending: gapless versions, conflicts, idempotency and all-or-nothing batches.

use super::backend::store;
use crate::common::{batch, command_batch};
use storage::{AppendError, Appended};

#[test]
fn versions_follow_each_other_without_gaps() {
    let store = store();
    let first = store
        .append_blocking("game-1", 0, batch(2))
        .expect("appends");
    let second = store
        .append_blocking("game-1", 2, batch(3))
        .expect("appends");
    assert_eq!((first.first_version, first.last_version), (1, 2));
    assert_eq!((second.first_version, second.last_version), (3, 5));
    assert!(!first.duplicate && !second.duplicate);
    assert_eq!(store.head("game-1").expect("reads"), 5);
    let versions: Vec<u64> = store
        .read_stream("game-1", 0, 100)
        .expect("reads")
        .iter()
        .map(|e| e.version)
        .collect();
    assert_eq!(versions, vec![1, 2, 3, 4, 5]);
}

#[test]
fn a_missing_stream_has_head_zero_and_no_events() {
    let store = store();
    assert_eq!(store.head("nowhere").expect("reads"), 0);
    assert!(store
        .read_stream("nowhere", 0, 10)
        .expect("reads")
        .is_empty());
    assert_eq!(store.command("nowhere", 1).expect("reads"), None);
    assert!(store.tags("nowhere").expect("reads").is_empty());
    assert_eq!(store.secret("nowhere", "seed").expect("reads"), None);
}

#[test]
fn a_stale_expected_version_is_a_conflict_that_names_the_actual_version() {
    let store = store();
    store
        .append_blocking("game-1", 0, batch(3))
        .expect("appends");
    let stale = store.append_blocking("game-1", 1, batch(1));
    assert_eq!(
        stale,
        Err(AppendError::Conflict {
            expected: 1,
            actual: 3
        })
    );
    let ahead = store.append_blocking("game-1", 7, batch(1));
    assert_eq!(
        ahead,
        Err(AppendError::Conflict {
            expected: 7,
            actual: 3
        })
    );
    let new_stream = store.append_blocking("game-2", 1, batch(1));
    assert_eq!(
        new_stream,
        Err(AppendError::Conflict {
            expected: 1,
            actual: 0
        })
    );
    assert_eq!(store.head("game-1").expect("reads"), 3);
    assert_eq!(store.head("game-2").expect("reads"), 0);
}

#[test]
fn an_empty_batch_is_refused() {
    let store = store();
    assert_eq!(
        store.append_blocking("game-1", 0, batch(0)),
        Err(AppendError::EmptyBatch)
    );
    assert_eq!(store.head("game-1").expect("reads"), 0);
}

#[test]
fn a_repeated_command_id_returns_the_original_result_and_appends_nothing() {
    let store = store();
    let original = store
        .append_blocking("game-1", 0, command_batch(2, "cmd-a"))
        .expect("appends");
    store
        .append_blocking("game-1", 2, command_batch(1, "cmd-b"))
        .expect("appends");
    // The retry carries the version it was decided on, now stale.
    let retried = store
        .append_blocking("game-1", 0, command_batch(2, "cmd-a"))
        .expect("a retry is not an error");
    assert_eq!(
        retried,
        Appended {
            duplicate: true,
            ..original
        }
    );
    assert_eq!(store.head("game-1").expect("reads"), 3);
    assert_eq!(store.read_all(0, 100).expect("reads").len(), 3);
}

#[tokio::test]
async fn a_repeated_command_id_is_recognised_by_the_async_append_too() {
    let store = store();
    let original = store
        .append("game-1", 0, command_batch(1, "cmd-a"))
        .await
        .expect("appends");
    let retried = store
        .append("game-1", 1, command_batch(1, "cmd-a"))
        .await
        .expect("appends");
    assert!(retried.duplicate);
    assert_eq!(retried.last_position, original.last_position);
    assert_eq!(store.head("game-1").expect("reads"), 1);
}

#[test]
fn command_ids_are_per_stream() {
    let store = store();
    store
        .append_blocking("game-1", 0, command_batch(1, "same"))
        .expect("appends");
    let other = store
        .append_blocking("game-2", 0, command_batch(1, "same"))
        .expect("appends");
    assert!(!other.duplicate);
    assert_eq!(store.head("game-2").expect("reads"), 1);
}

#[test]
fn an_invalid_batch_writes_nothing_at_all() {
    let store = store();
    store
        .append_blocking("game-1", 0, batch(1))
        .expect("appends");
    let mut bad = command_batch(3, "cmd-x");
    bad.events[2].event_type = String::new();
    bad.tags = Some(vec![("status".into(), "finished".into())]);
    bad.secrets = vec![("seed".into(), vec![1, 2, 3])];
    assert!(matches!(
        store.append_blocking("game-1", 1, bad),
        Err(AppendError::Invalid(_))
    ));
    assert_eq!(store.head("game-1").expect("reads"), 1);
    assert_eq!(store.read_all(0, 10).expect("reads").len(), 1);
    assert!(store.tags("game-1").expect("reads").is_empty());
    assert_eq!(store.secret("game-1", "seed").expect("reads"), None);
    assert!(store
        .streams_tagged("status", "finished", None, 10)
        .expect("reads")
        .is_empty());
    // The command id was not taken by the refused batch.
    let retried = store
        .append_blocking("game-1", 1, command_batch(1, "cmd-x"))
        .expect("appends");
    assert!(!retried.duplicate);
}

#[test]
fn names_that_would_make_huge_keys_are_refused() {
    let store = store();
    let long = "x".repeat(10_000);
    assert!(matches!(
        store.append_blocking(&long, 0, batch(1)),
        Err(AppendError::Invalid(_))
    ));
    assert!(matches!(
        store.append_blocking("", 0, batch(1)),
        Err(AppendError::Invalid(_))
    ));
    assert!(matches!(
        store.append_blocking("game-1", 0, command_batch(1, &long)),
        Err(AppendError::Invalid(_))
    ));
}

#[test]
fn a_batch_writes_its_events_tags_secrets_and_command_together() {
    let store = store();
    let mut first = command_batch(2, "create");
    first.actor = "player:ann".into();
    first.tags = Some(vec![
        ("status".into(), "open".into()),
        ("player".into(), "ann".into()),
    ]);
    first.secrets = vec![("seed".into(), vec![7; 32])];
    store.append_blocking("game-1", 0, first).expect("appends");
    assert_eq!(store.head("game-1").expect("reads"), 2);
    assert_eq!(
        store.secret("game-1", "seed").expect("reads"),
        Some(vec![7; 32])
    );
    assert_eq!(
        store
            .streams_tagged("status", "open", None, 10)
            .expect("reads"),
        vec!["game-1".to_string()]
    );
    let command = store
        .command("game-1", 2)
        .expect("reads")
        .expect("the command is kept");
    assert_eq!(command.command_id.as_deref(), Some("create"));
    assert_eq!(command.actor, "player:ann");
    assert_eq!((command.first_version, command.last_version), (1, 2));
    assert_eq!(
        command.command,
        Some(serde_json::json!({"type": "Move", "id": "create"}))
    );
}

#[test]
fn concurrent_writers_to_one_stream_never_leave_a_gap() {
    let store = store();
    let threads: Vec<_> = (0..4)
        .map(|writer| {
            let store = store.clone();
            std::thread::spawn(move || {
                let mut written = 0;
                while written < 25 {
                    let head = store.head("shared").expect("reads");
                    match store.append_blocking("shared", head, batch(1 + writer % 2)) {
                        Ok(_) => written += 1,
                        Err(AppendError::Conflict { actual, .. }) => assert!(actual >= head),
                        Err(other) => panic!("unexpected error {other}"),
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("the writer finishes");
    }
    let events = store.read_stream("shared", 0, 1000).expect("reads");
    assert_eq!(events.len(), 150);
    for (index, event) in events.iter().enumerate() {
        assert_eq!(event.version, index as u64 + 1);
    }
    let all = store.read_all(0, 1000).expect("reads");
    let positions: Vec<u64> = all.iter().map(|e| e.position).collect();
    assert_eq!(positions, (1..=150).collect::<Vec<u64>>());
}

#[test]
fn the_store_and_its_futures_can_be_shared_across_threads() {
    fn shareable<T: Send + Sync + Clone + 'static>(_: &T) {}
    fn sendable<T: Send>(_: &T) {}
    let store = store();
    shareable(&store);
    sendable(&store.append("game-1", 0, batch(1)));
    sendable(&store.wait_for("game-1", 0, std::time::Duration::from_secs(1)));
}

#[test]
fn one_command_sent_by_many_threads_at_once_is_appended_once() {
    let store = store();
    let threads: Vec<_> = (0..16)
        .map(|_| {
            let store = store.clone();
            std::thread::spawn(move || store.append_blocking("game-1", 0, command_batch(3, "join")))
        })
        .collect();
    let results: Vec<Appended> = threads
        .into_iter()
        .map(|t| t.join().expect("joins").expect("appends or repeats"))
        .collect();
    assert_eq!(results.iter().filter(|r| !r.duplicate).count(), 1);
    for result in &results {
        assert_eq!((result.first_version, result.last_version), (1, 3));
        assert_eq!(result.last_position, 3);
    }
    assert_eq!(store.head("game-1").expect("reads"), 3);
    assert_eq!(store.read_all(0, 100).expect("reads").len(), 3);
}

#[test]
fn concurrent_tag_changes_leave_the_index_with_the_last_tags_only() {
    let store = store();
    let threads: Vec<_> = (0..6u64)
        .map(|writer| {
            let store = store.clone();
            std::thread::spawn(move || {
                for n in 0..10u64 {
                    loop {
                        let head = store.head("shared").expect("reads");
                        let mut next = batch(1);
                        next.tags = Some(vec![("turn".into(), format!("{writer}-{n}"))]);
                        match store.append_blocking("shared", head, next) {
                            Ok(_) => break,
                            Err(AppendError::Conflict { .. }) => continue,
                            Err(other) => panic!("unexpected error {other}"),
                        }
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("the writer finishes");
    }
    let tags = store.tags("shared").expect("reads");
    assert_eq!(tags.len(), 1);
    let mut tagged = 0;
    for writer in 0..6 {
        for n in 0..10 {
            let value = format!("{writer}-{n}");
            let streams = store
                .streams_tagged("turn", &value, None, 10)
                .expect("reads");
            if !streams.is_empty() {
                assert_eq!(tags[0].1, value, "only the last tags are indexed");
                tagged += 1;
            }
        }
    }
    assert_eq!(tagged, 1);
    assert_eq!(store.head("shared").expect("reads"), 60);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appends_sent_together_at_one_version_give_one_append_and_conflicts_naming_the_new_head() {
    let store = store();
    store.append("game-1", 0, batch(2)).await.expect("appends");
    // Sent at once, so that a store that writes appends in groups gets them together, with
    // appends to other streams among them.
    let contenders: Vec<_> = (0..8)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move { store.append("game-1", 2, batch(1 + n % 2)).await })
        })
        .collect();
    let bystanders: Vec<_> = (0..8)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move { store.append(&format!("other-{n}"), 0, batch(2)).await })
        })
        .collect();
    let mut won = Vec::new();
    let mut conflicts = Vec::new();
    for contender in contenders {
        match contender.await.expect("joins") {
            Ok(appended) => won.push(appended),
            Err(AppendError::Conflict { expected, actual }) => conflicts.push((expected, actual)),
            Err(other) => panic!("unexpected error {other}"),
        }
    }
    assert_eq!(won.len(), 1, "one append at version 2: {won:?}");
    let head = won[0].last_version;
    assert_eq!(won[0].first_version, 3);
    assert!(conflicts.iter().all(|c| *c == (2, head)), "{conflicts:?}");
    assert_eq!(conflicts.len(), 7);
    for bystander in bystanders {
        let appended = bystander
            .await
            .expect("joins")
            .expect("another stream appends");
        assert_eq!((appended.first_version, appended.last_version), (1, 2));
    }
    assert_eq!(store.head("game-1").expect("reads"), head);
    let positions: Vec<u64> = store
        .read_all(0, 1000)
        .expect("reads")
        .iter()
        .map(|e| e.position)
        .collect();
    assert_eq!(
        positions,
        (1..=2 + head - 2 + 16).collect::<Vec<u64>>(),
        "no gap"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conflicted_writer_that_reads_again_and_decides_again_gets_in() {
    // What the application does on a conflict: read the head, decide again, append again.
    let store = store();
    store.append("game-1", 0, batch(1)).await.expect("appends");
    let writers: Vec<_> = (0..6)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                // Everyone decided on version 1 first.
                let mut expected = 1;
                for attempt in 1.. {
                    match store.append("game-1", expected, batch(1)).await {
                        Ok(appended) => return (appended, attempt),
                        Err(AppendError::Conflict { actual, .. }) => {
                            assert!(actual > expected, "a conflict names a newer head");
                            expected = store.head("game-1").expect("reads");
                        }
                        Err(other) => panic!("unexpected error {other}"),
                    }
                }
                unreachable!()
            })
        })
        .collect();
    let mut versions = Vec::new();
    for writer in writers {
        let (appended, _) = writer.await.expect("joins");
        versions.push(appended.first_version);
    }
    versions.sort_unstable();
    assert_eq!(
        versions,
        (2..=7).collect::<Vec<u64>>(),
        "each got in once, in turn"
    );
    assert_eq!(store.head("game-1").expect("reads"), 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_command_sent_together_with_its_first_is_a_duplicate_even_at_a_stale_version() {
    let store = store();
    store.append("game-1", 0, batch(1)).await.expect("appends");
    let sends: Vec<_> = (0..6)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.append("game-1", 1, command_batch(2, "move-1")).await })
        })
        .collect();
    let mut results = Vec::new();
    for send in sends {
        results.push(send.await.expect("joins").expect("appends or repeats"));
    }
    assert_eq!(results.iter().filter(|r| !r.duplicate).count(), 1);
    for result in &results {
        assert_eq!(
            (
                result.first_version,
                result.last_version,
                result.last_position
            ),
            (2, 3, 3)
        );
    }
    // The version moved on since; the same command is still a duplicate, not a conflict.
    let again = store
        .append("game-1", 1, command_batch(2, "move-1"))
        .await
        .expect("repeats");
    assert!(again.duplicate);
    assert_eq!(store.head("game-1").expect("reads"), 3);
}
