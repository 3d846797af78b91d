//! `avalanche migrate --from DIR --to postgres://...`: moves an operator's embedded sled store
//! into an empty PostgreSQL database, exactly (`storage::copy_sled_to_postgres` copies every
//! stream, record and secret and compares the copy with the original in full), then audits
//! every copied game on the target with the server's own code: each is folded as the server
//! folds it, and its commands are decided again from the start with its seeds (secret or
//! revealed) and must give exactly its stored events.

use std::path::PathBuf;
use std::sync::Arc;

use domain::audit::audit_with_secrets;
use domain::Registry;
use storage::{CopyError, CopyReport, PostgresStore, SledStore, Storage};

use app::index::LISTED;
use app::repository::Repository;
use app::sealing::{KeyError, SecretsKey, DEFAULT_KEY_FILE};

#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("cannot open the sled store in {path}: {source}")]
    Source {
        path: PathBuf,
        source: storage::OpenError,
    },
    #[error("cannot open the target: {0}")]
    Target(storage::OpenError),
    #[error("{0}")]
    Copy(#[from] CopyError),
    #[error("{0}")]
    Key(#[from] KeyError),
    #[error("game {game}: {reason}")]
    Audit { game: String, reason: String },
}

/// What a migration did.
#[derive(Debug)]
pub struct Migrated {
    pub copied: CopyReport,
    /// The games audited on the target, all sound.
    pub games: u64,
}

impl std::fmt::Display for Migrated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = &self.copied;
        writeln!(
            f,
            "copied {} streams ({} batches, {} events), {} secrets and {} records; the copy is identical",
            c.streams, c.batches, c.events, c.secrets, c.records
        )?;
        writeln!(f, "audited {} games on the target: all sound", self.games)
    }
}

/// Copies the sled store in `from` into the empty PostgreSQL database at `to` and audits it,
/// its secrets unsealed with the key in `key` (by default `secrets.key` in `from`). The
/// secrets are copied sealed as they are: the servers on the copy are given the same key.
pub fn migrate(
    from: &std::path::Path,
    to: &str,
    key: Option<&std::path::Path>,
) -> Result<Migrated, MigrateError> {
    let source = SledStore::open(from).map_err(|source| MigrateError::Source {
        path: from.to_path_buf(),
        source,
    })?;
    let key_path = key.map_or_else(|| from.join(DEFAULT_KEY_FILE), |path| path.to_path_buf());
    let key = Arc::new(SecretsKey::load_or_create(&key_path)?);
    // The source's own key (or, for a store older than sealing, the key it takes from now on).
    key.bind(&source)?;
    let target = PostgresStore::open(to).map_err(MigrateError::Target)?;
    let started = std::time::Instant::now();
    let mut shown = started;
    let copied = storage::copy_sled_to_postgres_with(&source, &target, &mut |report, total| {
        // A progress line a second at most, and the last one always.
        let now = std::time::Instant::now();
        if now.duration_since(shown).as_secs() >= 1 || (total > 0 && report.events >= total) {
            shown = now;
            eprintln!(
                "{}",
                progress_line(report, total, now.duration_since(started))
            );
        }
    })?;
    drop(source);
    let games = audit_games(Arc::new(target), key)?;
    Ok(Migrated { copied, games })
}

/// "copied 12000 of 33000 events (36%), 4100 batches, 310 streams, 120 records; 9800 events/s"
fn progress_line(report: &CopyReport, total: u64, elapsed: std::time::Duration) -> String {
    let percent = (report.events * 100).checked_div(total).unwrap_or(100);
    let rate = report.events as f64 / elapsed.as_secs_f64().max(1e-3);
    format!(
        "copied {} of {total} events ({percent}%), {} batches, {} streams, {} records; {rate:.0} events/s",
        report.events, report.batches, report.streams, report.records
    )
}

/// Folds and audits every game of `store` (those in the index's list of all games).
fn audit_games(store: Arc<dyn Storage>, key: Arc<SecretsKey>) -> Result<u64, MigrateError> {
    let registry = Arc::new(Registry::standard());
    let repository = Repository::new(store.clone(), registry.clone(), key, 16);
    let failed = |game: &str, reason: String| MigrateError::Audit {
        game: game.to_string(),
        reason,
    };
    let mut audited = 0;
    let mut after: Option<String> = None;
    loop {
        let page = store
            .streams_tagged(LISTED.0, LISTED.1, after.as_deref(), 500)
            .map_err(|e| failed("(the list of games)", e.to_string()))?;
        let Some(last) = page.last() else { break };
        after = Some(last.clone());
        for id in &page {
            let slot = repository
                .slot(id)
                .map_err(|e| failed(id, format!("does not fold: {e}")))?;
            let slot = slot.blocking_lock();
            let log = repository
                .read_log(id, slot.game.facts().kind, None)
                .map_err(|e| failed(id, format!("its log cannot be read: {e}")))?;
            let report = audit_with_secrets(&registry, &log, &slot.audit_seeds())
                .map_err(|divergence| failed(id, format!("the audit diverges: {divergence:?}")))?;
            if report.events != store.head(id).unwrap_or(0) {
                return Err(failed(id, "the audit did not cover every event".into()));
            }
            audited += 1;
        }
    }
    Ok(audited)
}
