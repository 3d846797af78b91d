//! Wake-ups for readers waiting on a stream: one watch channel per watched stream, removed when unwatched.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;

/// Raises a watched count (a head, a position) to `to`, waking its receivers only when it
/// rose: a count never goes back.
pub(crate) fn raise(sender: &watch::Sender<u64>, to: u64) {
    sender.send_if_modified(|last| {
        let rose = to > *last;
        *last = (*last).max(to);
        rose
    });
}

#[derive(Default)]
pub(crate) struct Watchers {
    streams: Mutex<HashMap<Arc<str>, watch::Sender<u64>>>,
}

impl Watchers {
    fn lock(&self) -> MutexGuard<'_, HashMap<Arc<str>, watch::Sender<u64>>> {
        self.streams.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Tells the stream's waiters, if any, that its head reached `head`.
    pub(crate) fn announce(&self, stream: &str, head: u64) {
        if let Some(sender) = self.lock().get(stream) {
            raise(sender, head);
        }
    }

    /// The streams someone is waiting on now.
    pub(crate) fn watched(&self) -> Vec<Arc<str>> {
        self.lock().keys().cloned().collect()
    }

    /// Watches a stream; `current_head` gives its head when nobody watched it yet.
    pub(crate) fn watch(
        self: &Arc<Self>,
        stream: &str,
        current_head: impl FnOnce() -> u64,
    ) -> Watch {
        let mut streams = self.lock();
        let receiver = match streams.get(stream) {
            Some(sender) => sender.subscribe(),
            None => {
                let (sender, receiver) = watch::channel(current_head());
                streams.insert(Arc::from(stream), sender);
                receiver
            }
        };
        Watch {
            receiver: Some(receiver),
            stream: Arc::from(stream),
            watchers: Arc::clone(self),
        }
    }
}

/// One reader's watch on a stream; dropping it removes the stream's channel when it was the last.
pub(crate) struct Watch {
    receiver: Option<watch::Receiver<u64>>,
    stream: Arc<str>,
    watchers: Arc<Watchers>,
}

impl Watch {
    /// The head once it is above `after`, or the last known head when `timeout` passes first.
    pub(crate) async fn head_after(&mut self, after: u64, timeout: std::time::Duration) -> u64 {
        let Some(receiver) = self.receiver.as_mut() else {
            return after;
        };
        let waited = tokio::time::timeout(timeout, receiver.wait_for(|head| *head > after))
            .await
            .ok()
            .and_then(Result::ok)
            .map(|head| *head);
        waited.unwrap_or_else(|| *receiver.borrow())
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        drop(self.receiver.take());
        let mut streams = self.watchers.lock();
        if streams
            .get(&self.stream)
            .is_some_and(|sender| sender.receiver_count() == 0)
        {
            streams.remove(&self.stream);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watched(watchers: &Watchers) -> usize {
        watchers.lock().len()
    }

    #[test]
    fn a_stream_is_unwatched_when_its_last_reader_leaves() {
        let watchers = Arc::new(Watchers::default());
        let first = watchers.watch("game-1", || 3);
        let second = watchers.watch("game-1", || unreachable!("already watched"));
        assert_eq!(watched(&watchers), 1);
        drop(first);
        assert_eq!(watched(&watchers), 1);
        watchers.announce("game-1", 4);
        drop(second);
        assert_eq!(watched(&watchers), 0);
        // Announcing to nobody keeps nothing.
        watchers.announce("game-2", 1);
        assert_eq!(watched(&watchers), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_reader_sees_a_head_announced_after_it_started_watching() {
        let watchers = Arc::new(Watchers::default());
        let mut watch = watchers.watch("game-1", || 3);
        let announcer = Arc::clone(&watchers);
        let waiting = tokio::spawn(async move {
            watch
                .head_after(3, std::time::Duration::from_secs(600))
                .await
        });
        tokio::task::yield_now().await;
        announcer.announce("game-1", 5);
        assert_eq!(waiting.await.expect("the reader finishes"), 5);
        assert_eq!(watched(&watchers), 0);
    }
}
