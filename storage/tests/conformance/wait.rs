//! Waiting for new events without polling: per-stream waits and the global position.

use super::backend::store;
use crate::common::batch;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_reader_wakes_when_the_stream_grows() {
    let store = store();
    store
        .append_blocking("game-1", 0, batch(1))
        .expect("appends");
    let waiter = {
        let store = store.clone();
        tokio::spawn(async move { store.wait_for("game-1", 1, Duration::from_secs(60)).await })
    };
    // Let the waiter subscribe first; it must wake whether or not it did.
    tokio::task::yield_now().await;
    store.append("game-1", 1, batch(2)).await.expect("appends");
    assert_eq!(waiter.await.expect("the waiter finishes"), 3);
}

#[tokio::test]
async fn a_reader_behind_the_head_returns_at_once() {
    let store = store();
    store.append("game-1", 0, batch(4)).await.expect("appends");
    assert_eq!(
        store.wait_for("game-1", 2, Duration::from_secs(3600)).await,
        4
    );
}

#[tokio::test(start_paused = true)]
async fn a_wait_that_times_out_returns_the_current_head() {
    let store = store();
    store.append("game-1", 0, batch(2)).await.expect("appends");
    assert_eq!(
        store.wait_for("game-1", 2, Duration::from_secs(30)).await,
        2
    );
    assert_eq!(
        store.wait_for("nowhere", 0, Duration::from_secs(30)).await,
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_readers_of_one_stream_all_wake() {
    let store = store();
    let waiters: Vec<_> = (0..10)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.wait_for("game-1", 0, Duration::from_secs(60)).await })
        })
        .collect();
    tokio::task::yield_now().await;
    store.append("game-1", 0, batch(1)).await.expect("appends");
    for waiter in waiters {
        assert_eq!(waiter.await.expect("the waiter finishes"), 1);
    }
}

#[tokio::test]
async fn the_global_position_is_announced_once_durable() {
    let store = store();
    let mut positions = store.subscribe_all();
    assert_eq!(*positions.borrow_and_update(), 0);
    let appended = store.append("game-1", 0, batch(3)).await.expect("appends");
    let seen = *positions
        .wait_for(|p| *p >= appended.last_position)
        .await
        .expect("the store is open");
    assert_eq!(seen, 3);
    assert_eq!(store.read_all(0, 100).expect("reads").len(), 3);
}
