//! What sled's flush leaves undone for a power cut: fsync of its log file and of its blob files.
//!
//! Sled 0.34 writes its log with `sync_file_range`, which neither flushes the disk's cache
//! nor the file's metadata, and writes values too big for its log (over a quarter of a
//! segment, 128 KiB) to files under `blobs/` without any sync. After each flush of sled, the
//! flusher calls `DiskSync::sync`, so that what it declares durable survives a power cut too.
//!
//! Blobs are rare, and flushes are hundreds a second under load: the `blobs/` directory is
//! listed again only when its modification time says a file may have come or gone.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How long after the directory's modification time a listing must come for that time to
/// vouch for it: a file created in the same tick of the file system's coarse clock as an
/// earlier change leaves the time as it was.
const SETTLED_AFTER: Duration = Duration::from_secs(1);

pub(crate) struct DiskSync {
    db_file: File,
    blobs: PathBuf,
    /// Blob files already synced; a blob is never rewritten in place.
    synced: HashSet<OsString>,
    /// The modification time of `blobs/` when it was last listed, if that listing came
    /// [`SETTLED_AFTER`] it: while the time is the same, no blob came or went since.
    settled: Option<SystemTime>,
    /// Listings of `blobs/` so far.
    listings: u64,
}

impl DiskSync {
    /// Opens sled's log file in `dir` again, and syncs the directory itself once so that
    /// the files of a new database are found after a power cut.
    pub(crate) fn open(dir: &Path) -> io::Result<DiskSync> {
        let db_file = File::open(dir.join("db"))?;
        File::open(dir)?.sync_all()?;
        let mut disk_sync = DiskSync {
            db_file,
            blobs: dir.join("blobs"),
            synced: HashSet::new(),
            settled: None,
            listings: 0,
        };
        // Blobs from before this opening: synced now, once.
        disk_sync.sync_blobs()?;
        Ok(disk_sync)
    }

    pub(crate) fn sync(&mut self) -> io::Result<()> {
        self.db_file.sync_data()?;
        self.sync_blobs()
    }

    fn sync_blobs(&mut self) -> io::Result<()> {
        // Creating or removing a file changes its directory's modification time. The time is
        // read before the listing: a blob created after that changes it again.
        let modified = match std::fs::metadata(&self.blobs) {
            Ok(metadata) => metadata.modified().ok(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        if modified.is_some() && modified == self.settled {
            return Ok(());
        }
        let listed_at = SystemTime::now();
        self.listings += 1;
        let entries = match std::fs::read_dir(&self.blobs) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        let mut present = HashSet::new();
        let mut new_blobs = false;
        for entry in entries {
            let name = entry?.file_name();
            if !self.synced.contains(&name) {
                match File::open(self.blobs.join(&name)) {
                    Ok(file) => file.sync_data()?,
                    // Collected by sled since it was listed.
                    Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(e),
                }
                new_blobs = true;
            }
            present.insert(name);
        }
        if new_blobs {
            File::open(&self.blobs)?.sync_all()?;
        }
        self.synced = present;
        self.settled = modified.filter(|modified| {
            listed_at
                .duration_since(*modified)
                .is_ok_and(|age| age > SETTLED_AFTER)
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::DiskSync;
    use std::fs::File;
    use std::time::{Duration, SystemTime};

    #[test]
    fn blobs_are_listed_again_only_once_the_directory_changed() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        File::create(dir.path().join("db")).expect("a log file");
        let blobs = dir.path().join("blobs");
        std::fs::create_dir(&blobs).expect("the blobs directory");
        File::create(blobs.join("1")).expect("an old blob");
        let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
        File::open(&blobs)
            .and_then(|d| d.set_modified(an_hour_ago))
            .expect("the directory's time set back");
        let mut disk_sync = DiskSync::open(dir.path()).expect("opened");
        assert_eq!(disk_sync.listings, 1);
        assert!(disk_sync.synced.contains(std::ffi::OsStr::new("1")));
        // Nothing came since a listing well after the directory last changed.
        disk_sync.sync().expect("synced");
        assert_eq!(
            disk_sync.listings, 1,
            "an unchanged directory is not listed"
        );
        File::create(blobs.join("2")).expect("a new blob");
        disk_sync.sync().expect("synced");
        assert_eq!(disk_sync.listings, 2, "a changed directory is listed");
        assert!(disk_sync.synced.contains(std::ffi::OsStr::new("2")));
        // Changed a moment ago: a blob made in the same clock tick could hide behind the
        // same time, so it is listed again.
        disk_sync.sync().expect("synced");
        assert_eq!(
            disk_sync.listings, 3,
            "a directory changed just now is listed"
        );
    }
}
