//! Reads of heads and of streams' events that callers ask for at once go to PostgreSQL together
//! (`storage/src/postgres/together.rs`): every caller still gets its own stream's answer, and
//! one as current as a read sent alone, with what another process acknowledged before the read
//! was asked for.

use crate::cluster;
use crate::common::batch;

use std::sync::{Arc, Barrier};
use storage::{EventStore, PostgresStore};

#[test]
fn many_readers_at_once_each_see_their_own_stream_with_what_another_node_just_appended() {
    let url = cluster::Cluster::shared().new_database();
    let writer = PostgresStore::open_with(&url, 4).expect("the writing node opens");
    let reader = PostgresStore::open_with(&url, 4).expect("the reading node opens");
    const THREADS: usize = 24;
    const ROUNDS: u64 = 40;
    let start = Arc::new(Barrier::new(THREADS));
    let threads: Vec<_> = (0..THREADS)
        .map(|n| {
            let (writer, reader, start) = (writer.clone(), reader.clone(), Arc::clone(&start));
            std::thread::spawn(move || {
                let stream = format!("g-together-{n}");
                start.wait();
                for version in 0..ROUNDS {
                    writer
                        .append_blocking(&stream, version, batch(1))
                        .expect("appends");
                    // Acknowledged by the other node: this one's next reads must show it.
                    assert_eq!(
                        reader.head(&stream).expect("a head"),
                        version + 1,
                        "{stream}: the head after its append"
                    );
                    let read = reader
                        .read_stream(&stream, version, 10)
                        .expect("the events after the last read");
                    assert_eq!(read.len(), 1, "{stream}: the one event appended");
                    assert_eq!(read[0].stream, stream, "another stream's answer");
                    assert_eq!(read[0].version, version + 1);
                }
                assert_eq!(
                    reader.read_stream(&stream, 0, 1000).expect("all").len() as u64,
                    ROUNDS
                );
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("a reader saw what it should");
    }
}
