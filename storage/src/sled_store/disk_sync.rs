//! What sled's flush leaves undone for a power cut: fsync of its log file and of its blob files.
//!
//! Sled 0.34 writes its log with `sync_file_range`, which neither flushes the disk's cache
//! nor the file's metadata, and writes values too big for its log (over a quarter of a
//! segment, 128 KiB) to files under `blobs/` without any sync. After each flush of sled, the
//! flusher calls `DiskSync::sync`, so that what it declares durable survives a power cut too.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

pub(crate) struct DiskSync {
    db_file: File,
    blobs: PathBuf,
    /// Blob files already synced; a blob is never rewritten in place.
    synced: HashSet<OsString>,
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
        Ok(())
    }
}
