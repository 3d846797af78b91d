//! Opening a database directory: refuse foreign or damaged ones with a clear error, never a panic.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use crate::error::OpenError;

/// The marker key of the `meta` tree, and the format this build reads and writes.
pub(crate) const FORMAT_KEY: &[u8] = b"format";
pub(crate) const FORMAT: &str = "avalanche-event-store/2";
/// Older formats this build opens and upgrades. Format 1 wrote each group of appends in a sled
/// transaction; format 2 writes it without one, with a marker that puts a group cut short by a
/// crash right when the store is opened (see `recovery`). A format 1 store is whole, so the
/// upgrade is the new marker alone; a format 2 store is refused by builds that know only 1.
const OLDER_FORMATS: &[&str] = &["avalanche-event-store/1"];
/// A random number fixed at creation, so event ids differ between stores.
pub(crate) const STORE_ID_KEY: &[u8] = b"store_id";
pub(crate) const META_TREE: &str = "meta";

/// Files that sled 0.34 keeps in its directory; anything else means the directory is not ours.
const SLED_FILES: &[&str] = &["conf", "db", "blobs", "snap."];
/// The files of the server's own that the directory may hold beside sled's: the key of the
/// store's secrets (by default there; see the api's `sealing` module) and the folder of mail
/// written as files when no relay is set (the api's `mail` module).
const SERVER_FILES: &[&str] = &["secrets.key", "outbox"];

/// An opened, checked sled database and the store's id.
pub(crate) struct Opened {
    pub db: sled::Db,
    pub store_id: u64,
    /// Whether sled found a database in the directory (rather than creating one).
    pub recovered: bool,
}

pub(crate) fn open(path: &Path, cache_bytes: u64) -> Result<Opened, OpenError> {
    open_with_id(path, cache_bytes, None)
}

/// Creates a new store in `path`, which must be empty or missing, with the id `store_id`
/// rather than a new one: the restore of a backup keeps every event id.
pub(crate) fn create_with_id(
    path: &Path,
    cache_bytes: u64,
    store_id: u64,
) -> Result<Opened, OpenError> {
    if check_directory(path)? {
        return Err(OpenError::Foreign {
            path: path.to_path_buf(),
            detail: "a store is there already: a restore goes only into an empty folder".into(),
        });
    }
    open_with_id(path, cache_bytes, Some(store_id))
}

fn open_with_id(path: &Path, cache_bytes: u64, new_id: Option<u64>) -> Result<Opened, OpenError> {
    let path_buf = path.to_path_buf();
    let existing = check_directory(path)?;
    owner_only_directory(path)?;
    let config = sled::Config::new().path(path).cache_capacity(cache_bytes);
    let opened = open_config(config, path_buf, new_id)?;
    owner_only_files(path)?;
    if existing && !opened.recovered {
        // Sled found files but nothing in them: rather than start afresh over what may be
        // a truncated database, say so.
        return Err(OpenError::Damaged {
            path: path.to_path_buf(),
            detail: "the database files hold no database".into(),
        });
    }
    Ok(opened)
}

/// Creates the directory (and missing parents) readable by its owner alone, or makes an
/// existing one so: the store holds games' seeds and webhooks' secrets.
fn owner_only_directory(path: &Path) -> Result<(), OpenError> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let unreadable = |source| OpenError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    if path.exists() {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700)).map_err(unreadable)
    } else {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(path)
            .map_err(unreadable)
    }
}

/// Makes the database's files readable and writable by their owner alone (sled creates them
/// with the process's umask; the directory around them is owner-only already).
fn owner_only_files(path: &Path) -> Result<(), OpenError> {
    use std::os::unix::fs::PermissionsExt;
    let unreadable = |source| OpenError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let mut folders = vec![path.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).map_err(unreadable)? {
            let entry = entry.map_err(unreadable)?;
            let kind = entry.file_type().map_err(unreadable)?;
            let mode = if kind.is_dir() {
                folders.push(entry.path());
                0o700
            } else {
                0o600
            };
            std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(mode))
                .map_err(unreadable)?;
        }
    }
    Ok(())
}

pub(crate) fn temporary() -> Result<Opened, OpenError> {
    let config = sled::Config::new().temporary(true);
    open_config(config, PathBuf::from("(temporary)"), None)
}

/// Checks that `path` is a directory of sled's files, or empty, or missing; says whether it has files.
fn check_directory(path: &Path) -> Result<bool, OpenError> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(source) => {
            return Err(OpenError::Unreadable {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    if !metadata.is_dir() {
        return Err(OpenError::NotADirectory {
            path: path.to_path_buf(),
        });
    }
    let entries = std::fs::read_dir(path).map_err(|source| OpenError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    let mut foreign = Vec::new();
    let mut empty = true;
    for entry in entries {
        let entry = entry.map_err(|source| OpenError::Unreadable {
            path: path.to_path_buf(),
            source,
        })?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if SLED_FILES.iter().any(|known| name.starts_with(known)) {
            empty = false;
        } else if !SERVER_FILES.contains(&name.as_str()) {
            foreign.push(name);
        }
    }
    if !foreign.is_empty() {
        foreign.sort();
        foreign.truncate(5);
        return Err(OpenError::Foreign {
            path: path.to_path_buf(),
            detail: format!("unexpected files: {}", foreign.join(", ")),
        });
    }
    if !empty {
        // Sled creates the directory with its database; a directory without its
        // configuration file is something else, half made or not ours.
        let conf = path.join("conf");
        if !conf.is_file() {
            return Err(OpenError::Foreign {
                path: path.to_path_buf(),
                detail: "no database configuration file".into(),
            });
        }
    }
    Ok(!empty)
}

fn open_config(
    config: sled::Config,
    path: PathBuf,
    new_id: Option<u64>,
) -> Result<Opened, OpenError> {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let db = config.open().map_err(|e| sled_open_error(&path, e))?;
        let recovered = db.was_recovered();
        let store_id = check_format(&db, &path, new_id)?;
        Ok(Opened {
            db,
            store_id,
            recovered,
        })
    }));
    match outcome {
        Ok(result) => result,
        Err(panic) => {
            let detail = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the database library panicked".into());
            Err(OpenError::Damaged { path, detail })
        }
    }
}

fn sled_open_error(path: &Path, error: sled::Error) -> OpenError {
    let path = path.to_path_buf();
    match error {
        sled::Error::Io(io) if io.to_string().contains("could not acquire lock") => {
            OpenError::Locked { path }
        }
        sled::Error::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
            OpenError::Unreadable { path, source: io }
        }
        sled::Error::Io(io) => OpenError::Storage {
            path,
            detail: io.to_string(),
        },
        sled::Error::Corruption { .. } | sled::Error::ReportableBug(_) => OpenError::Damaged {
            path,
            detail: error.to_string(),
        },
        other => OpenError::Damaged {
            path,
            detail: other.to_string(),
        },
    }
}

/// Reads the format marker, or writes it on a new database (with `new_id`, or a random id);
/// returns the store id.
fn check_format(db: &sled::Db, path: &Path, new_id: Option<u64>) -> Result<u64, OpenError> {
    let storage = |e: sled::Error| OpenError::Storage {
        path: path.to_path_buf(),
        detail: e.to_string(),
    };
    let has_meta = db
        .tree_names()
        .iter()
        .any(|name| name == META_TREE.as_bytes());
    if has_meta {
        let meta = db.open_tree(META_TREE).map_err(storage)?;
        if let Some(found) = meta.get(FORMAT_KEY).map_err(storage)? {
            if OLDER_FORMATS.iter().any(|older| found == older.as_bytes()) {
                meta.insert(FORMAT_KEY, FORMAT.as_bytes())
                    .map_err(storage)?;
                tracing::info!(
                    from = %String::from_utf8_lossy(&found),
                    to = FORMAT,
                    "the event store's format is upgraded"
                );
            } else if found != FORMAT.as_bytes() {
                return Err(OpenError::UnsupportedFormat {
                    path: path.to_path_buf(),
                    found: String::from_utf8_lossy(&found).into_owned(),
                    expected: FORMAT,
                });
            }
            let id = meta.get(STORE_ID_KEY).map_err(storage)?;
            return id
                .as_deref()
                .and_then(crate::sled_store::keys::read_u64)
                .ok_or_else(|| OpenError::Damaged {
                    path: path.to_path_buf(),
                    detail: "the store id is missing".into(),
                });
        }
    }
    // No marker: only a database with nothing in it may become an event store.
    let only_default = db
        .tree_names()
        .iter()
        .all(|name| name == b"__sled__default".as_slice() || (name == META_TREE.as_bytes()));
    if !only_default || !db.is_empty() {
        return Err(OpenError::Foreign {
            path: path.to_path_buf(),
            detail: "a database without the event store's format marker".into(),
        });
    }
    let store_id = new_id.unwrap_or_else(random_u64);
    let meta = db.open_tree(META_TREE).map_err(storage)?;
    let mut batch = sled::Batch::default();
    batch.insert(STORE_ID_KEY, &store_id.to_be_bytes());
    batch.insert(FORMAT_KEY, FORMAT.as_bytes());
    meta.apply_batch(batch).map_err(storage)?;
    db.flush().map_err(storage)?;
    Ok(store_id)
}

/// 64 bits from the standard library's randomly keyed hasher, the time and the process id.
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    hasher.write_u128(nanos);
    hasher.write_u32(std::process::id());
    hasher.finish()
}
