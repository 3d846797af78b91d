//! `avalanche restore --from FILE --data DIR`: a backup into a new sled store in an empty
//! folder. The file is checked whole first (`format::verify`), so that a file cut short or
//! changed is refused before anything is written; then every batch is appended in the log's
//! order, so that each event gets back its version, its position and (with the store's id)
//! its id, each stream its tags with its last batch, and every record is put back. A restore
//! that fails half way removes what it wrote.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use storage::{AppendError, Batch, EventStore, NewEvent, SledStore};

use app::backup::format::{self, FileError, Line};

/// Batches appended at once: they share the store's flushes, in the file's order.
const WINDOW: usize = 256;

#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("{path} is not empty: a restore goes only into an empty folder (or one that does not exist yet); nothing was changed")]
    NotEmpty { path: PathBuf },
    #[error("{path} is not a folder; nothing was changed")]
    NotAFolder { path: PathBuf },
    #[error("cannot read {path}: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    File(#[from] FileError),
    #[error("cannot create the store in {path}: {source}")]
    Create {
        path: PathBuf,
        source: storage::OpenError,
    },
    #[error("restoring into {path} failed, and what was written there is removed: {detail}")]
    Failed { path: PathBuf, detail: String },
}

/// What a restore brought back.
#[derive(Debug)]
pub struct Restored {
    pub end: format::End,
    pub head: u64,
}

impl std::fmt::Display for Restored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let e = &self.end;
        writeln!(
            f,
            "restored {} streams ({} batches, {} events, up to position {}) and {} records",
            e.streams, e.batches, e.events, self.head, e.records
        )?;
        writeln!(
            f,
            "start the server on this folder with the key file of the backed-up store (--secrets-key FILE, or the file copied to secrets.key in the folder)"
        )?;
        writeln!(
            f,
            "its mail is held: nothing is sent until you release it on the server's admin listener (curl -X POST http://127.0.0.1:9180/mail/release)"
        )
    }
}

/// Restores the backup `from` into a new sled store in `data` (empty or missing).
pub fn restore(from: &Path, data: &Path) -> Result<Restored, RestoreError> {
    let existed = match std::fs::metadata(data) {
        Ok(metadata) if !metadata.is_dir() => {
            return Err(RestoreError::NotAFolder { path: data.into() })
        }
        Ok(_) => {
            let mut entries =
                std::fs::read_dir(data).map_err(|source| RestoreError::Unreadable {
                    path: data.into(),
                    source,
                })?;
            if entries.next().is_some() {
                return Err(RestoreError::NotEmpty { path: data.into() });
            }
            true
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(source) => {
            return Err(RestoreError::Unreadable {
                path: data.into(),
                source,
            })
        }
    };
    let started = Instant::now();
    let checked = format::verify(from)?;
    eprintln!(
        "checked the backup: {} events up to position {}, {} records, taken at {} by version {}",
        checked.end.events,
        checked.header.head,
        checked.end.records,
        checked.header.taken_at,
        checked.header.version
    );
    let store_id =
        u64::from_str_radix(&checked.header.store_id, 16).map_err(|_| FileError::Damaged {
            path: from.into(),
            line: 1,
            detail: "the store id is not hexadecimal".into(),
        })?;
    let store = match SledStore::create_with_store_id(data, store_id) {
        Ok(store) => store,
        Err(source) => {
            remove_written(data, existed);
            return Err(RestoreError::Create {
                path: data.into(),
                source,
            });
        }
    };
    match write(&store, from, &checked, started) {
        Ok(()) => Ok(Restored {
            end: checked.end,
            head: checked.header.head,
        }),
        Err(detail) => {
            drop(store);
            remove_written(data, existed);
            Err(RestoreError::Failed {
                path: data.into(),
                detail,
            })
        }
    }
}

/// Removes what a failed restore wrote in `data` (which was empty or missing).
fn remove_written(data: &Path, existed: bool) {
    if !existed {
        let _ = std::fs::remove_dir_all(data);
        return;
    }
    if let Ok(entries) = std::fs::read_dir(data) {
        for entry in entries.flatten() {
            let path = entry.path();
            let _ = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
}

/// Appends every batch and puts every record of the checked file `from` into `store`.
fn write(
    store: &SledStore,
    from: &Path,
    checked: &format::Checked,
    started: Instant,
) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let file = std::fs::File::open(from).map_err(|e| e.to_string())?;
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut window: Vec<(String, u64, u64, Batch)> = Vec::new();
    let mut records: BTreeMap<String, Vec<(String, Vec<u8>)>> = BTreeMap::new();
    let mut events = 0u64;
    let mut shown = Instant::now();
    // Hashed again as it is read: a file changed since it was checked is not restored.
    let mut hasher = Sha256::new();
    for line in reader.lines() {
        let line = line.map_err(|e| e.to_string())?;
        let parsed = serde_json::from_str::<Line>(&line).map_err(|e| e.to_string())?;
        if !matches!(parsed, Line::End(_)) {
            hasher.update(line.as_bytes());
            hasher.update(b"\n");
        }
        match parsed {
            Line::Batch(batch) => {
                let count = batch.events.len() as u64;
                let last_version = batch.first_version + count - 1;
                let tags = (checked.heads.get(&batch.stream) == Some(&last_version))
                    .then(|| checked.tags.get(&batch.stream).cloned().unwrap_or_default());
                let mut secrets = Vec::with_capacity(batch.secrets.len());
                for (name, value) in batch.secrets {
                    secrets.push((name, hex::decode(value).map_err(|e| e.to_string())?));
                }
                window.push((
                    batch.stream,
                    batch.first_version,
                    batch.last_position,
                    Batch {
                        events: batch
                            .events
                            .into_iter()
                            .map(|e| NewEvent {
                                event_type: e.event_type,
                                schema_version: e.schema_version,
                                payload: e.payload,
                            })
                            .collect(),
                        actor: batch.actor,
                        command_id: batch.command_id,
                        command: batch.command,
                        recorded_at: batch.recorded_at,
                        tags,
                        secrets,
                    },
                ));
                events += count;
                if window.len() >= WINDOW {
                    runtime.block_on(append_window(store, &mut window))?;
                    if shown.elapsed() >= Duration::from_secs(1) {
                        shown = Instant::now();
                        eprintln!(
                            "{}",
                            progress(events, checked.end.events, started.elapsed())
                        );
                    }
                }
            }
            Line::Record(record) => {
                let value = hex::decode(record.value).map_err(|e| e.to_string())?;
                records
                    .entry(record.tree)
                    .or_default()
                    .push((record.key, value));
            }
            Line::Header(_) | Line::Tags(_) | Line::End(_) => {}
        }
    }
    if hex::encode(hasher.finalize()) != checked.end.sha256 {
        return Err(format!(
            "the backup {} changed while it was restored",
            from.display()
        ));
    }
    runtime.block_on(append_window(store, &mut window))?;
    eprintln!(
        "{}",
        progress(events, checked.end.events, started.elapsed())
    );
    for (tree, records) in records {
        store
            .put_records(&tree, records)
            .map_err(|e| format!("records of {tree}: {e}"))?;
    }
    // The mail waiting in the backup, and what the worker derives from events its players
    // already had news of, wait for the operator (`POST /mail/release`).
    let (tree, key) = app::mail::outbound::hold::HOLD;
    store
        .put_record(tree, key, app::mail::outbound::hold::RESTORED.as_bytes())
        .map_err(|e| format!("the hold of the outbox: {e}"))?;
    let durable = *store.subscribe_all().borrow();
    if durable != checked.header.head || events != checked.end.events {
        return Err(format!(
            "the store ends at position {durable} with {events} events, the backup at {} with {}",
            checked.header.head, checked.end.events
        ));
    }
    Ok(())
}

/// "restored 12000 of 33000 events (36%); 9800 events/s"
fn progress(events: u64, total: u64, elapsed: Duration) -> String {
    let percent = (events * 100).checked_div(total).unwrap_or(100);
    let rate = events as f64 / elapsed.as_secs_f64().max(1e-3);
    format!("restored {events} of {total} events ({percent}%); {rate:.0} events/s")
}

/// Appends the batches of `window` in its order, sharing flushes, and checks that each got
/// its original versions and position.
async fn append_window(
    store: &SledStore,
    window: &mut Vec<(String, u64, u64, Batch)>,
) -> Result<(), String> {
    let batches = std::mem::take(window);
    let expected: Vec<(String, u64, u64, usize)> = batches
        .iter()
        .map(|(stream, first, last_position, batch)| {
            (stream.clone(), *first, *last_position, batch.events.len())
        })
        .collect();
    // Each append joins the store's queue when first polled, and `join_all` polls them in
    // order: the batches are written in the file's order.
    let appended = futures_util::future::join_all(batches.into_iter().map(
        |(stream, first, _, batch)| async move {
            EventStore::append(store, &stream, first - 1, batch).await
        },
    ))
    .await;
    for ((stream, first, last_position, count), outcome) in expected.into_iter().zip(appended) {
        let appended = outcome.map_err(|e: AppendError| format!("{stream} v{first}: {e}"))?;
        if appended.duplicate
            || appended.first_version != first
            || appended.last_version != first + count as u64 - 1
            || appended.last_position != last_position
        {
            return Err(format!("{stream} v{first}: appended as {appended:?}"));
        }
    }
    Ok(())
}
