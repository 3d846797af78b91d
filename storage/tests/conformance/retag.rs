//! Retagging: a stream's index entries replaced without appending, as a reindex does.

use super::backend::store;
use crate::common::batch;
use storage::AppendError;

fn tags(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
}

#[tokio::test]
async fn a_retag_replaces_the_index_entries_and_appends_nothing() {
    let store = store();
    let mut create = batch(2);
    create.tags = Some(tags(&[("status", "open"), ("kind", "altitude")]));
    let created = store.append("game-1", 0, create).await.expect("appends");

    store
        .retag(
            "game-1",
            2,
            tags(&[
                ("status", "open"),
                ("kind", "altitude"),
                ("status_kind", "open/altitude"),
            ]),
        )
        .await
        .expect("retags");

    assert_eq!(
        store
            .streams_tagged("status_kind", "open/altitude", None, 10)
            .expect("reads"),
        vec!["game-1".to_string()]
    );
    assert_eq!(store.tags("game-1").expect("reads").len(), 3);
    assert_eq!(store.head("game-1").expect("reads"), 2);
    assert_eq!(store.read_stream("game-1", 0, 100).expect("reads").len(), 2);
    assert_eq!(store.read_all(0, 100).expect("reads").len(), 2);

    // Entries the new tags leave out are gone from the index.
    store
        .retag("game-1", 2, tags(&[("kind", "altitude")]))
        .await
        .expect("retags");
    assert!(store
        .streams_tagged("status", "open", None, 10)
        .expect("reads")
        .is_empty());
    // The stream and the global log go on from where they were: no position was taken.
    let next = store.append("game-1", 2, batch(1)).await.expect("appends");
    assert_eq!(next.last_position, created.last_position + 1);
    assert_eq!(store.head("game-1").expect("reads"), 3);
}

#[tokio::test]
async fn a_retag_is_refused_when_the_stream_moved_on() {
    let store = store();
    let mut create = batch(1);
    create.tags = Some(tags(&[("status", "open")]));
    store.append("game-1", 0, create).await.expect("appends");
    store.append("game-1", 1, batch(1)).await.expect("appends");

    let refused = store
        .retag("game-1", 1, tags(&[("status", "finished")]))
        .await;

    assert_eq!(
        refused,
        Err(AppendError::Conflict {
            expected: 1,
            actual: 2
        })
    );
    assert_eq!(
        store
            .streams_tagged("status", "open", None, 10)
            .expect("reads"),
        vec!["game-1".to_string()]
    );
}

#[tokio::test]
async fn a_retag_of_a_stream_that_does_not_exist_creates_nothing() {
    let store = store();

    let refused = store.retag("nowhere", 0, tags(&[("status", "open")])).await;

    assert!(
        matches!(refused, Err(AppendError::Invalid(_))),
        "{refused:?}"
    );
    assert_eq!(store.head("nowhere").expect("reads"), 0);
    assert!(store
        .streams_tagged("status", "open", None, 10)
        .expect("reads")
        .is_empty());
    // The name is still free for a first append.
    store.append("nowhere", 0, batch(1)).await.expect("appends");
}
