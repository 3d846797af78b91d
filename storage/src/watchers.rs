//! Wake-ups for readers waiting on a stream: one watch channel per watched stream, removed when unwatched.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;

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
            sender.send_if_modified(|last| {
                let newer = head > *last;
                *last = (*last).max(head);
                newer
            });
        }
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
