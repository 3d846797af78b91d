//! The schema's versioned migrations (`migrations/NNNN_*.sql`), applied by the store when it
//! opens: each once, in order, in its own transaction, under an advisory lock so that several
//! nodes opening one database at once apply them once.

use postgres::Client;

use super::pool::database_error;
use crate::error::StorageError;

/// (version, name, SQL) in order; a new migration is a new file added at the end.
const MIGRATIONS: &[(i32, &str, &str)] = &[
    (
        1,
        "event store",
        include_str!("migrations/0001_event_store.sql"),
    ),
    (
        2,
        "appends in groups",
        include_str!("migrations/0002_group_append.sql"),
    ),
    (
        3,
        "a group's writes in a statement each, and one notice",
        include_str!("migrations/0003_group_statements.sql"),
    ),
    (
        4,
        "no foreign keys on the appends' path",
        include_str!("migrations/0004_no_foreign_keys.sql"),
    ),
];

/// The advisory lock key the openers of one database take while migrating ("avalanch" in ASCII).
const MIGRATION_LOCK: i64 = 0x6176_616c_616e_6368;

/// The newest schema version this build knows.
pub(crate) fn latest_version() -> i32 {
    MIGRATIONS.last().map_or(0, |(version, _, _)| *version)
}

/// Brings the database's schema to [`latest_version`]; refuses a schema newer than this build.
pub(crate) fn migrate(client: &mut Client) -> Result<(), StorageError> {
    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .map_err(|e| database_error(&e))?;
    let migrated = apply_missing(client);
    let unlocked = client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
        .map_err(|e| database_error(&e));
    migrated.and(unlocked.map(drop))
}

fn apply_missing(client: &mut Client) -> Result<(), StorageError> {
    let db = |e: postgres::Error| database_error(&e);
    client
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS avalanche_migrations (
                 version    integer PRIMARY KEY,
                 name       text NOT NULL,
                 applied_at timestamptz NOT NULL DEFAULT now()
             )",
        )
        .map_err(db)?;
    let applied: Vec<i32> = client
        .query(
            "SELECT version FROM avalanche_migrations ORDER BY version",
            &[],
        )
        .map_err(db)?
        .iter()
        .map(|row| row.get(0))
        .collect();
    if let Some(newer) = applied.iter().find(|v| **v > latest_version()) {
        return Err(StorageError::Database(format!(
            "the database's schema is at version {newer}, newer than this build's {}",
            latest_version()
        )));
    }
    for (version, name, sql) in MIGRATIONS {
        if applied.contains(version) {
            continue;
        }
        let mut transaction = client.transaction().map_err(db)?;
        transaction.batch_execute(sql).map_err(db)?;
        transaction
            .execute(
                "INSERT INTO avalanche_migrations (version, name) VALUES ($1, $2)",
                &[version, name],
            )
            .map_err(db)?;
        transaction.commit().map_err(db)?;
        tracing::info!(version, name, "applied a database migration");
    }
    Ok(())
}
