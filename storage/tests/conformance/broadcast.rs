//! Broadcasts: opaque messages to every process on the store, this one included.

use super::backend::store;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broadcast_reaches_this_processs_subscribers_in_order() {
    let store = store();
    let mut first = store.subscribe_broadcasts();
    let mut second = store.subscribe_broadcasts();
    store.broadcast("one").await.expect("sent");
    store.broadcast("two words").await.expect("sent");
    for subscriber in [&mut first, &mut second] {
        for expected in ["one", "two words"] {
            let got = tokio::time::timeout(Duration::from_secs(10), subscriber.recv())
                .await
                .expect("delivered")
                .expect("the store is open");
            assert_eq!(got, expected);
        }
    }
}

#[tokio::test]
async fn a_broadcast_too_long_is_refused() {
    let store = store();
    let long = "x".repeat(storage::MAX_MESSAGE + 1);
    assert!(store.broadcast(&long).await.is_err());
}
