//! `avalanche backup --to FILE`: fetches a backup of a running server's sled store from its
//! `GET /backup` into a new file, with a progress line a second; written to `FILE.partial`,
//! checked whole (`format::verify`), synced, and only then named `FILE`.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::configuration::BackupArgs;

use app::backup::format::{self, FileError, Line};

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("the store is PostgreSQL: back it up with pg_dump (such as `pg_dump --format=custom --file=avalanche.dump DATABASE`), which copies a consistent snapshot while the nodes play; keep the secrets key apart from the dump")]
    Postgres,
    #[error("{0} exists already: name a new file")]
    Exists(PathBuf),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read the token file {path}: {source}")]
    Token {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot reach the server at {server}: {detail}")]
    Unreachable { server: String, detail: String },
    #[error("the server refused the backup ({status}): {detail}")]
    Refused { status: u16, detail: String },
    #[error("the backup was cut short while it was sent ({0}); nothing was kept, take it again")]
    Interrupted(String),
    #[error("{0}")]
    File(#[from] FileError),
}

/// Takes the backup `args` ask for; the summary to print.
pub fn backup(args: &BackupArgs) -> Result<String, BackupError> {
    if args.database.is_some() {
        return Err(BackupError::Postgres);
    }
    if args.to.exists() {
        return Err(BackupError::Exists(args.to.clone()));
    }
    let token = match &args.token_file {
        None => None,
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|source| BackupError::Token {
                    path: path.clone(),
                    source,
                })?
                .trim()
                .to_string(),
        ),
    };
    let partial = PathBuf::from(format!("{}.partial", args.to.display()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| BackupError::Interrupted(e.to_string()))?;
    let started = Instant::now();
    let fetched = runtime.block_on(fetch(&args.server, token.as_deref(), &partial, started));
    let checked = fetched.and_then(|()| Ok(format::verify(&partial)?));
    let checked = match checked {
        Ok(checked) => checked,
        Err(error) => {
            let _ = std::fs::remove_file(&partial);
            return Err(error);
        }
    };
    let written = |source| BackupError::Write {
        path: args.to.clone(),
        source,
    };
    std::fs::rename(&partial, &args.to).map_err(written)?;
    if let Some(folder) = args.to.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::File::open(folder)
            .and_then(|f| f.sync_all())
            .map_err(written)?;
    }
    let size = std::fs::metadata(&args.to).map_err(written)?.len();
    let e = &checked.end;
    Ok(format!(
        "backed up {} streams ({} batches, {} events, up to position {}) and {} records into {} ({:.1} MB) in {:.1} s\nthe secrets key is not in it: keep the key file backed up apart\n",
        e.streams,
        e.batches,
        e.events,
        checked.header.head,
        e.records,
        args.to.display(),
        size as f64 / 1e6,
        started.elapsed().as_secs_f64()
    ))
}

/// Streams `GET {server}/backup` into a new file at `partial`, synced.
async fn fetch(
    server: &str,
    token: Option<&str>,
    partial: &Path,
    started: Instant,
) -> Result<(), BackupError> {
    let unreachable = |e: reqwest::Error| BackupError::Unreachable {
        server: server.to_string(),
        detail: e.to_string(),
    };
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(unreachable)?;
    let mut request = client.get(format!("{}/backup", server.trim_end_matches('/')));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let mut response = request.send().await.map_err(unreachable)?;
    let status = response.status();
    if !status.is_success() {
        let body = response.text().await.unwrap_or_default();
        let detail = serde_json::from_str::<serde_json::Value>(&body)
            .ok()
            .and_then(|problem| problem["detail"].as_str().map(str::to_string))
            .unwrap_or(body);
        return Err(BackupError::Refused {
            status: status.as_u16(),
            detail,
        });
    }
    let written = |source| BackupError::Write {
        path: partial.to_path_buf(),
        source,
    };
    // A backup holds every player's record and the games' sealed secrets: owner-only, as
    // the store's own files are.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(partial)
        .map_err(written)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut progress = Progress::default();
    let mut shown = Instant::now();
    loop {
        let chunk = response
            .chunk()
            .await
            .map_err(|e| BackupError::Interrupted(e.to_string()))?;
        let Some(chunk) = chunk else { break };
        out.write_all(&chunk).map_err(written)?;
        progress.take(&chunk);
        if shown.elapsed() >= Duration::from_secs(1) {
            shown = Instant::now();
            eprintln!("{}", progress.line(started.elapsed()));
        }
    }
    eprintln!("{}", progress.line(started.elapsed()));
    let file = out.into_inner().map_err(|e| written(e.into_error()))?;
    file.sync_all().map_err(written)?;
    Ok(())
}

/// What has come so far, read from the lines as they come.
#[derive(Default)]
struct Progress {
    /// The start of a line not complete yet.
    rest: Vec<u8>,
    head: u64,
    position: u64,
    events: u64,
    bytes: u64,
}

impl Progress {
    fn take(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len() as u64;
        self.rest.extend_from_slice(chunk);
        let mut start = 0;
        while let Some(end) = self.rest[start..].iter().position(|b| *b == b'\n') {
            let line = &self.rest[start..start + end];
            match serde_json::from_slice::<Line>(line) {
                Ok(Line::Header(header)) => self.head = header.head,
                Ok(Line::Batch(batch)) => {
                    self.position = batch.last_position;
                    self.events += batch.events.len() as u64;
                }
                _ => {}
            }
            start += end + 1;
        }
        self.rest.drain(..start);
    }

    /// "received 12000 events, up to position 12000 of 33000 (36%), 4.2 MB; 9800 events/s"
    fn line(&self, elapsed: Duration) -> String {
        let percent = (self.position * 100).checked_div(self.head).unwrap_or(100);
        let rate = self.events as f64 / elapsed.as_secs_f64().max(1e-3);
        format!(
            "received {} events, up to position {} of {} ({percent}%), {:.1} MB; {rate:.0} events/s",
            self.events,
            self.position,
            self.head,
            self.bytes as f64 / 1e6
        )
    }
}
