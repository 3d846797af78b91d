//! Benchmark: durable appends per second with 1, 8 and 64 concurrent writers, beside this
//! machine's fsync rate, and the bytes on disk per event of a game-like stream.
//!
//! Run with `cargo run --release -p storage --example append_bench`; prints Markdown tables.

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use storage::{Batch, NewEvent, SledStore as Store};

const RUN: Duration = Duration::from_secs(3);

/// Rounds of the whole measurement: the disk is shared, so one round can be unlucky.
const ROUNDS: usize = 3;
const WRITERS: [usize; 3] = [1, 8, 64];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // BENCH_DIR=/dev/shm measures the store without the disk.
    let dir = match std::env::var_os("BENCH_DIR") {
        Some(base) => tempfile::tempdir_in(base)?,
        None => tempfile::tempdir()?,
    };
    println!("database directory: {}", dir.path().display());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;

    let mut fsyncs = Vec::new();
    let mut fdatasyncs = Vec::new();
    // Per writer count: (appends/s, appends per flush, p50 ms, p99 ms) of each round.
    let mut rows: Vec<Vec<(f64, f64, f64, f64)>> = vec![Vec::new(); WRITERS.len()];
    for round in 0..ROUNDS {
        fsyncs.push(sync_rate(dir.path(), RUN / 2, false)?);
        fdatasyncs.push(sync_rate(dir.path(), RUN / 2, true)?);
        for (row, writers) in WRITERS.iter().enumerate() {
            let path = dir.path().join(format!("round-{round}-writers-{writers}"));
            let store = Store::open(&path)?;
            let flushes_before = store.flush_count();
            let (rate, p50, p99) = runtime.block_on(append_rate(&store, *writers, RUN))?;
            let flushes = (store.flush_count() - flushes_before).max(1);
            let per_flush = rate * RUN.as_secs_f64() / flushes as f64;
            rows[row].push((rate, per_flush, p50, p99));
            eprintln!("round {round}: {writers} writers: {rate:.0} appends/s");
        }
    }

    println!("\n| writers | durable appends/s (median of {ROUNDS}) | min - max | x one writer | appends per flush | p50 ms | p99 ms |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let single = median(rows[0].iter().map(|r| r.0));
    for (row, writers) in WRITERS.iter().enumerate() {
        let rates: Vec<f64> = rows[row].iter().map(|r| r.0).collect();
        let rate = median(rates.iter().copied());
        let low = rates.iter().copied().fold(f64::INFINITY, f64::min);
        let high = rates.iter().copied().fold(0.0, f64::max);
        println!(
            "| {writers} | {rate:.0} | {low:.0} - {high:.0} | {:.1} | {:.1} | {:.2} | {:.2} |",
            rate / single,
            median(rows[row].iter().map(|r| r.1)),
            median(rows[row].iter().map(|r| r.2)),
            median(rows[row].iter().map(|r| r.3)),
        );
    }
    println!("\n| this disk, same directory, 64-byte overwrite + sync | per second (median of {ROUNDS}) | min - max |");
    println!("| --- | ---: | ---: |");
    for (name, rates) in [("fsync", &fsyncs), ("fdatasync", &fdatasyncs)] {
        let low = rates.iter().copied().fold(f64::INFINITY, f64::min);
        let high = rates.iter().copied().fold(0.0, f64::max);
        println!(
            "| {name} | {:.0} | {low:.0} - {high:.0} |",
            median(rates.iter().copied())
        );
    }

    let path = dir.path().join("size");
    let store = Store::open(&path)?;
    let events = std::env::var("BENCH_EVENTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let (events, payload_bytes) = game_like_stream(&store, events)?;
    drop(store);
    let store = Store::open(&path)?;
    let on_disk = store.size_on_disk()?;
    println!("\n| events | JSON payload bytes/event | bytes on disk | bytes on disk/event |");
    println!("| ---: | ---: | ---: | ---: |");
    println!(
        "| {events} | {:.0} | {on_disk} | {:.0} |",
        payload_bytes as f64 / events as f64,
        on_disk as f64 / events as f64
    );
    Ok(())
}

fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut values: Vec<f64> = values.collect();
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// Overwrites 64 bytes of a small file and syncs it (`fsync`, or `fdatasync` when
/// `data_only`), as often as possible for `run`.
fn sync_rate(dir: &Path, run: Duration, data_only: bool) -> std::io::Result<f64> {
    let mut file = std::fs::File::create(dir.join("sync-probe"))?;
    let start = Instant::now();
    let mut count = 0u64;
    while start.elapsed() < run {
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&[count as u8; 64])?;
        if data_only {
            file.sync_data()?;
        } else {
            file.sync_all()?;
        }
        count += 1;
    }
    Ok(count as f64 / start.elapsed().as_secs_f64())
}

fn event(n: u64) -> NewEvent {
    NewEvent {
        event_type: "CardPlayed".into(),
        schema_version: 1,
        payload: json!({
            "seat": n % 4,
            "card": {"suit": "spades", "rank": n % 13 + 1},
            "pile": "discard",
            "hand_size": 7,
            "note": "x".repeat(100),
        }),
    }
}

/// `writers` tasks, each on its own stream, append one event at a time for `run`.
/// Returns appends per second and the 50th and 99th percentile latency in milliseconds.
async fn append_rate(
    store: &Store,
    writers: usize,
    run: Duration,
) -> Result<(f64, f64, f64), Box<dyn std::error::Error>> {
    let done = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let tasks: Vec<_> = (0..writers)
        .map(|writer| {
            let store = store.clone();
            let done = Arc::clone(&done);
            tokio::spawn(async move {
                let stream = format!("game-{writer}");
                let mut latencies = Vec::new();
                let mut head = 0;
                while start.elapsed() < run {
                    let mut batch = Batch::new(format!("seat:{}", writer % 4), vec![event(head)]);
                    batch.command_id = Some(format!("cmd-{head}"));
                    let began = Instant::now();
                    let appended = store.append(&stream, head, batch).await?;
                    latencies.push(began.elapsed());
                    head = appended.last_version;
                    done.fetch_add(1, Ordering::Relaxed);
                }
                Ok::<_, storage::AppendError>(latencies)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await??);
    }
    let rate = done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64();
    latencies.sort();
    let percentile = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    Ok((rate, percentile(0.5), percentile(0.99)))
}

/// Appends `events` events as 100 games would: batches of one to three events with their
/// command, tags now and then, a seed secret at creation. Returns the events and payload bytes.
fn game_like_stream(store: &Store, events: u64) -> Result<(u64, u64), Box<dyn std::error::Error>> {
    let games = 100u64;
    let mut heads = vec![0u64; games as usize];
    let mut written = 0u64;
    let mut payload_bytes = 0u64;
    let mut n = 0u64;
    while written < events {
        let game = (n * 37) % games;
        let head = heads[game as usize];
        let size = (1 + n % 3).min(events - written);
        let batch_events: Vec<NewEvent> = (0..size).map(|i| event(n + i)).collect();
        for event in &batch_events {
            payload_bytes += serde_json::to_vec(&event.payload)?.len() as u64;
        }
        let mut batch = Batch::new(format!("seat:{}", n % 4), batch_events);
        batch.command_id = Some(format!("{:032x}", n.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
        batch.command =
            Some(json!({"type": "PlayCard", "card": {"suit": "spades", "rank": n % 13 + 1}}));
        if head == 0 {
            batch.secrets = vec![("seed".into(), vec![n as u8; 32])];
        }
        if head == 0 || n.is_multiple_of(10) {
            batch.tags = Some(vec![
                ("status".into(), "playing".into()),
                ("game".into(), "avalanche".into()),
                ("player".into(), format!("player-{}", game * 2)),
                ("player".into(), format!("player-{}", game * 2 + 1)),
            ]);
        }
        let appended = store.append_blocking(&format!("game-{game:04}"), head, batch)?;
        heads[game as usize] = appended.last_version;
        written += size;
        n += 1;
    }
    Ok((written, payload_bytes))
}
