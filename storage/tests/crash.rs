//! Crash test: a child process appends in a loop and is killed with SIGKILL at random moments;
//! every batch it acknowledged must be there whole after reopening, and appending goes on.
//!
//! The child is this test binary run again with `CRASH_CHILD_DIR` set and only the
//! `crash_child` test selected, so no other binary has to be found.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;
use storage::{Batch, NewEvent, SledStore as Store};

const CHILD_ENV: &str = "CRASH_CHILD_DIR";
const WRITERS: u64 = 4;
const KILLS: usize = 24;

/// The writer `writer`'s stream.
fn stream(writer: u64) -> String {
    format!("crash-{writer}")
}

/// The batch that follows `head`: its size and contents follow from the head alone, so the
/// checker can tell a whole batch from a torn one.
fn next_batch(writer: u64, head: u64) -> Batch {
    let size = 1 + (head * 7 + writer) % 4;
    Batch {
        events: (0..size)
            .map(|i| NewEvent {
                event_type: "Tick".into(),
                schema_version: 1,
                payload: json!({"first": head + 1, "size": size, "i": i, "pad": "x".repeat(120)}),
            })
            .collect(),
        actor: format!("seat:{writer}"),
        command_id: Some(format!("after-{head}")),
        command: Some(json!({"type": "Tick", "after": head})),
        recorded_at: chrono::Utc::now(),
        tags: Some(vec![("head".into(), (head + size).to_string())]),
        secrets: vec![("last".into(), (head + size).to_be_bytes().to_vec())],
    }
}

/// Runs only in the child: appends forever on several threads, printing each acknowledgement.
#[test]
fn crash_child() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let store = Store::open(Path::new(&dir)).expect("the child opens the store");
    let threads: Vec<_> = (0..WRITERS)
        .map(|writer| {
            let store = store.clone();
            std::thread::spawn(move || {
                let stream = stream(writer);
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a runtime");
                loop {
                    let head = store.head(&stream).expect("reads the head");
                    let batch = next_batch(writer, head);
                    // Half the writers go through the async append.
                    let appended = if writer % 2 == 0 {
                        store.append_blocking(&stream, head, batch)
                    } else {
                        runtime.block_on(store.append(&stream, head, batch))
                    }
                    .expect("appends");
                    let mut out = std::io::stdout().lock();
                    writeln!(out, "ack {writer} {}", appended.last_version).expect("prints");
                    out.flush().expect("flushes stdout");
                }
            })
        })
        .collect();
    for thread in threads {
        let _ = thread.join();
    }
}

/// A small deterministic generator for kill delays.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % bound
    }
}

/// Runs the child for `delay`, kills it, and returns the highest version it acknowledged per writer.
fn run_and_kill(dir: &Path, delay: Duration) -> HashMap<u64, u64> {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut child = Command::new(exe)
        .args(["crash_child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the child starts");
    let stdout = child.stdout.take().expect("the child's stdout");
    let reader = std::thread::spawn(move || {
        let mut acked = HashMap::new();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let mut words = line.split_whitespace();
            if words.next() != Some("ack") {
                continue;
            }
            let writer: u64 = words.next().and_then(|w| w.parse().ok()).expect("writer");
            let version: u64 = words.next().and_then(|w| w.parse().ok()).expect("version");
            let best = acked.entry(writer).or_insert(0);
            *best = version.max(*best);
        }
        acked
    });
    std::thread::sleep(delay);
    child.kill().expect("SIGKILL");
    child.wait().expect("the child is reaped");
    reader.join().expect("the reader finishes")
}

/// Checks the whole store; returns the heads.
fn check(store: &Store, acked: &HashMap<u64, u64>) -> HashMap<u64, u64> {
    let mut heads = HashMap::new();
    let mut total = 0;
    for writer in 0..WRITERS {
        let stream = stream(writer);
        let head = store.head(&stream).expect("reads the head");
        let acked = acked.get(&writer).copied().unwrap_or(0);
        assert!(
            head >= acked,
            "{stream}: acknowledged {acked}, found {head}"
        );
        let events = store.read_stream(&stream, 0, usize::MAX).expect("reads");
        assert_eq!(
            events.len() as u64,
            head,
            "{stream}: no gap, nothing past the head"
        );
        let mut version = 0;
        while version < head {
            let first = &events[version as usize];
            let size = first.payload["size"].as_u64().expect("size");
            assert_eq!(
                first.payload["first"],
                json!(version + 1),
                "{stream}: batch start"
            );
            assert!(
                version + size <= head,
                "{stream}: a torn batch at {}",
                version + 1
            );
            for i in 0..size {
                let event = &events[(version + i) as usize];
                assert_eq!(event.version, version + i + 1);
                assert_eq!(event.payload["first"], json!(version + 1));
                assert_eq!(event.payload["i"], json!(i));
            }
            let command = store
                .command(&stream, version + 1)
                .expect("reads")
                .expect("the batch's command");
            assert_eq!(command.command_id, Some(format!("after-{version}")));
            assert_eq!(command.last_version, version + size);
            version += size;
        }
        if head > 0 {
            assert_eq!(
                store.tags(&stream).expect("reads"),
                vec![("head".to_string(), head.to_string())]
            );
            assert_eq!(
                store.secret(&stream, "last").expect("reads"),
                Some(head.to_be_bytes().to_vec())
            );
        }
        total += head;
        heads.insert(writer, head);
    }
    let all = store.read_all(0, usize::MAX).expect("reads the log");
    let positions: Vec<u64> = all.iter().map(|e| e.position).collect();
    assert_eq!(
        positions,
        (1..=total).collect::<Vec<u64>>(),
        "a gapless global log"
    );
    heads
}

#[test]
fn acknowledged_batches_survive_kill_9_and_appending_goes_on() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("events");
    drop(Store::open(&path).expect("creates the store"));
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    println!("kill delays seeded with {seed}");
    let mut random = Lcg(seed);
    let mut acked_total = 0;
    let mut last_heads: HashMap<u64, u64> = HashMap::new();
    // CRASH_MAX_DELAY_MS=20 aims the kills at the child's opening and recovery.
    let max_delay = std::env::var("CRASH_MAX_DELAY_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .unwrap_or(400);
    for _ in 0..KILLS {
        let delay = Duration::from_millis(random.below(max_delay));
        let acked = run_and_kill(&path, delay);
        acked_total += acked.values().sum::<u64>();
        let store = Store::open(&path).expect("reopens after the kill");
        let heads = check(&store, &acked);
        for (writer, head) in &heads {
            assert!(
                head >= last_heads.get(writer).unwrap_or(&0),
                "nothing goes back"
            );
        }
        last_heads = heads;
    }
    assert!(acked_total > 0, "the child acknowledged some batches");
    // The store still takes appends after all those kills.
    let store = Store::open(&path).expect("reopens");
    let head = store.head(&stream(0)).expect("reads");
    let appended = store
        .append_blocking(&stream(0), head, next_batch(0, head))
        .expect("appends after the crashes");
    assert_eq!(appended.first_version, head + 1);
    println!("final heads {last_heads:?}");
}
