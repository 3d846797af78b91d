//! Reads asked for together: the reads of one kind (streams' heads, a stream's next events)
//! that callers ask for while one is on its way to the database go together in the next one,
//! a single statement for all of them, as the appends of this process go in groups
//! (`group.rs`).
//!
//! A caller is answered only by a read sent after it asked, never by one already on its way
//! (which may have started before an append another process acknowledged, and missed it), so
//! a read here is as current as one sent alone. No caller waits for a timer: while fewer than
//! the most reads of the kind are on their way, a caller sends its read at once; otherwise
//! the callers that come wait for one to end, and one of them sends the next for them all. So
//! reads go alone while the database keeps up, and together when it does not.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use crate::error::StorageError;

/// The most questions one read asks; more callers wait for the next.
pub(crate) const MAX_QUESTIONS: usize = 512;

/// The answers of one read, by question (a question not there has the empty answer).
pub(crate) type Answers<Q, A> = HashMap<Q, A>;

/// What one read answered, shared by its callers.
type Answered<Q, A> = Arc<Result<Answers<Q, A>, StorageError>>;

pub(crate) struct Together<Q, A> {
    state: Mutex<State<Q, A>>,
    answered: Condvar,
    /// The most reads on their way at once.
    most: usize,
}

struct State<Q, A> {
    /// The number of the next read to be sent; the callers asking now are answered by it.
    next: u64,
    /// The questions the next read asks.
    questions: HashSet<Q>,
    /// The callers the next read answers.
    callers: usize,
    /// The reads on their way.
    reading: usize,
    /// The answers of the reads done, with the callers that have not taken theirs yet.
    answers: HashMap<u64, (Answered<Q, A>, usize)>,
}

impl<Q: Eq + Hash + Clone, A: Clone + Default> Together<Q, A> {
    /// Reads of one kind, at most `most` of them on their way at once.
    pub(crate) fn new(most: usize) -> Self {
        Together {
            state: Mutex::new(State {
                next: 0,
                questions: HashSet::new(),
                callers: 0,
                reading: 0,
                answers: HashMap::new(),
            }),
            answered: Condvar::new(),
            most: most.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<Q, A>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The answer to `question`, from a read sent after this call began (by this caller or
    /// another): `read` gets the questions to ask and answers those with an answer.
    pub(crate) fn ask(
        &self,
        question: Q,
        read: impl FnOnce(Vec<Q>) -> Result<Answers<Q, A>, StorageError>,
    ) -> Result<A, StorageError> {
        let mut state = self.lock();
        // A full next read takes no more questions: wait for the one after it.
        while state.questions.len() >= MAX_QUESTIONS && !state.questions.contains(&question) {
            state = self.wait(state);
        }
        let round = state.next;
        state.questions.insert(question.clone());
        state.callers += 1;
        let mut read = Some(read);
        loop {
            if let Some((answer, left)) = state.answers.get_mut(&round) {
                let answer = Arc::clone(answer);
                *left -= 1;
                if *left == 0 {
                    state.answers.remove(&round);
                }
                return match answer.as_ref() {
                    Ok(answers) => Ok(answers.get(&question).cloned().unwrap_or_default()),
                    Err(error) => Err(error.clone()),
                };
            }
            if state.reading < self.most && state.next == round {
                // A read may go now and this caller's is not sent yet: it sends it.
                let questions: Vec<Q> = state.questions.drain().collect();
                let callers = std::mem::take(&mut state.callers);
                state.next += 1;
                state.reading += 1;
                drop(state);
                let answer = match read.take() {
                    // A read that panicked fails its callers; the next caller reads again.
                    Some(read) => catch_unwind(AssertUnwindSafe(|| read(questions)))
                        .unwrap_or_else(|_| Err(StorageError::Database("a read failed".into()))),
                    None => Err(StorageError::Database("a read sent twice".into())),
                };
                state = self.lock();
                state.reading -= 1;
                state.answers.insert(round, (Arc::new(answer), callers));
                self.answered.notify_all();
                continue;
            }
            state = self.wait(state);
        }
    }

    fn wait<'a>(&self, state: MutexGuard<'a, State<Q, A>>) -> MutexGuard<'a, State<Q, A>> {
        self.answered
            .wait(state)
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    /// A database whose every stream's head is the number of writes so far, read slowly.
    #[derive(Default)]
    struct Database {
        writes: AtomicU64,
        reads: AtomicU64,
    }

    impl Database {
        fn read(&self, streams: Vec<String>) -> Result<Answers<String, u64>, StorageError> {
            self.reads.fetch_add(1, Ordering::SeqCst);
            let now = self.writes.load(Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(2));
            Ok(streams.into_iter().map(|s| (s, now)).collect())
        }
    }

    #[test]
    fn every_caller_gets_a_head_read_after_it_asked_and_reads_go_together() {
        let heads: Arc<Together<String, u64>> = Arc::new(Together::new(2));
        let database = Arc::new(Database::default());
        let callers: Vec<_> = (0..16)
            .map(|n| {
                let (heads, database) = (Arc::clone(&heads), Arc::clone(&database));
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        // A write acknowledged before the read is asked for must be seen.
                        let written = database.writes.fetch_add(1, Ordering::SeqCst) + 1;
                        let stream = format!("g-{}", n % 5);
                        let head = heads
                            .ask(stream.clone(), |streams| {
                                assert!(streams.contains(&stream));
                                database.read(streams)
                            })
                            .expect("a head");
                        assert!(head >= written, "{head} read, {written} written before");
                    }
                })
            })
            .collect();
        for caller in callers {
            caller.join().expect("a caller");
        }
        let reads = database.reads.load(Ordering::SeqCst);
        assert!(reads < 16 * 50, "{reads} reads for 800 heads");
        assert!(heads.lock().answers.is_empty(), "every answer was taken");
    }

    #[test]
    fn a_failed_read_fails_each_caller_it_was_for_and_the_next_reads_again() {
        let heads: Together<&str, u64> = Together::new(1);
        let failed = heads.ask("g-1", |_| Err(StorageError::Unavailable("down".into())));
        assert_eq!(failed, Err(StorageError::Unavailable("down".into())));
        let read = heads.ask("g-1", |_| Ok(HashMap::from([("g-1", 7)])));
        assert_eq!(read, Ok(7));
        assert_eq!(heads.ask("g-2", |_| Ok(HashMap::new())), Ok(0), "no events");
    }
}
