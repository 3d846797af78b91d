//! Writing a group of appends without a sled transaction, and putting the store right after a
//! crash.
//!
//! A sled transaction made each group all or nothing, but it read every key's old value before
//! writing it, and it rolled sled's IO buffer before and after its batch marker: about 7% of
//! the server's CPU under load (BENCHMARKS.md, "Half the CPU per command"). The committer now
//! writes a group in three steps, in this order:
//! 1. the group's batches, into `log`;
//! 2. the group's marker, into `last_group`: the last position the group wrote, and every index
//!    write the group makes (heads, the batch index, names, command ids, tags, secrets);
//! 3. those index writes.
//!
//! After a crash sled recovers a prefix of what was written, in the order it was written: its
//! recovery stops at the first torn message of its log. So opening the store finds either
//! - the marker of the last group: every batch of that group is there (written before the
//!   marker), and its index writes are applied again (each one sets a key to a value or removes
//!   it, so applying it twice is applying it once);
//! - or the marker of the group before: batches in `log` past its last position belong to a
//!   group whose appends were never answered (an append is answered only after the flush that
//!   follows step 3), and they are removed.
//!
//! Each group is flushed before the next one starts, so the groups before the last are whole. A
//! store last written with transactions (format 1) has no marker and is whole: the marker is
//! written when it is opened, before any group.

use crate::error::StorageError;
use crate::sled_store::codec;
use crate::sled_store::keys;
use crate::sled_store::trees::{IndexWrite, Trees};

/// The key of the marker in the `last_group` tree.
pub(crate) const GROUP_KEY: &[u8] = b"group";

/// Writes a group: its batches (`(first position, record)`), its marker, its index writes.
pub(crate) fn write_group<'a>(
    trees: &Trees,
    batches: impl Iterator<Item = (u64, &'a [u8])>,
    last_position: u64,
    writes: &[IndexWrite],
) -> Result<(), StorageError> {
    for (first_position, record) in batches {
        trees.log.insert(keys::position(first_position), record)?;
    }
    trees
        .last_group
        .insert(GROUP_KEY, codec::encode_group(last_position, writes))?;
    apply(trees, writes)
}

fn apply(trees: &Trees, writes: &[IndexWrite]) -> Result<(), StorageError> {
    for write in writes {
        let tree = write.tree.of(trees);
        match &write.value {
            Some(value) => drop(tree.insert(write.key.as_slice(), value.as_slice())?),
            None => drop(tree.remove(write.key.as_slice())?),
        }
    }
    Ok(())
}

/// The last position in `log`: the last event of its last batch (0 when empty).
pub(crate) fn log_end(trees: &Trees) -> Result<u64, StorageError> {
    match trees.log.last()? {
        None => Ok(0),
        Some((key, value)) => {
            let first = keys::read_u64(&key)
                .ok_or_else(|| StorageError::Corrupt("a log key of the wrong size".into()))?;
            let batch = codec::decode_batch(&value)?;
            Ok(first + batch.events.len() as u64 - 1)
        }
    }
}

/// Puts the store right after a crash (see the module), or writes the first marker of a store
/// that has none; flushes what it wrote. Returns how many batches of a group cut short it
/// removed.
pub(crate) fn recover(trees: &Trees, db: &sled::Db) -> Result<usize, StorageError> {
    let Some(marker) = trees.last_group.get(GROUP_KEY)? else {
        let end = log_end(trees)?;
        trees
            .last_group
            .insert(GROUP_KEY, codec::encode_group(end, &[]))?;
        db.flush()?;
        return Ok(0);
    };
    let (last_position, writes) = codec::decode_group(&marker)?;
    let cut_short = trees
        .log
        .range(keys::position(last_position.saturating_add(1))..)
        .keys()
        .collect::<Result<Vec<_>, _>>()?;
    for key in &cut_short {
        trees.log.remove(key)?;
    }
    apply(trees, &writes)?;
    db.flush()?;
    Ok(cut_short.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::{Batch, NewEvent};
    use crate::sled_store::open::{FORMAT, FORMAT_KEY, META_TREE};
    use crate::sled_store::trees::IndexTree;
    use crate::SledStore;
    use std::path::Path;

    /// Two events, a command id, a tag and a secret: every kind of index write.
    fn batch(n: u64) -> Batch {
        Batch {
            events: (0..2)
                .map(|i| NewEvent {
                    event_type: "Tick".into(),
                    schema_version: 1,
                    payload: serde_json::json!({"n": n, "i": i}),
                })
                .collect(),
            actor: "seat:0".into(),
            command_id: Some(format!("c{n}")),
            command: Some(serde_json::json!({"type": "Tick"})),
            recorded_at: chrono::Utc::now(),
            tags: Some(vec![("n".into(), n.to_string())]),
            secrets: vec![("s".into(), n.to_be_bytes().to_vec())],
        }
    }

    /// The database at `dir` as sled alone opens it, for making the state a crash leaves.
    fn raw(dir: &Path, change: impl FnOnce(&sled::Db, &Trees)) {
        // A store just dropped lets go of the directory's lock when its threads end, a moment
        // later.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let db = loop {
            match sled::open(dir) {
                Err(sled::Error::Io(error))
                    if error.to_string().contains("could not acquire lock")
                        && std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                opened => break opened.expect("sled opens the store's directory"),
            }
        };
        let trees = Trees::open(&db).expect("the trees");
        change(&db, &trees);
        db.flush().expect("a flush");
    }

    /// The store at `dir` opened again after [`raw`] changed it: the raw handle just dropped
    /// lets go of the directory's lock when its threads end, a moment later.
    fn reopen(dir: &Path) -> SledStore {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            match SledStore::open(dir) {
                Err(crate::OpenError::Locked { .. }) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                opened => break opened.expect("opens again"),
            }
        }
    }

    #[test]
    fn a_marker_round_trips_and_a_torn_one_is_an_error_not_a_panic() {
        let writes = vec![
            IndexWrite::put(IndexTree::Streams, b"game-1".to_vec(), vec![0, 1, 2]),
            IndexWrite::remove(IndexTree::TagIndex, b"old".to_vec()),
            IndexWrite::put(IndexTree::Secrets, vec![9; 20], Vec::new()),
        ];
        let bytes = codec::encode_group(41, &writes);
        assert_eq!(codec::decode_group(&bytes).expect("decodes"), (41, writes));
        for len in 0..bytes.len() {
            assert!(codec::decode_group(&bytes[..len]).is_err(), "{len} bytes");
        }
        let mut unknown = bytes.clone();
        unknown[3] = 99; // the first write's tree
        assert!(codec::decode_group(&unknown).is_err());
    }

    #[test]
    fn batches_past_the_marker_are_a_group_cut_short_and_are_removed() {
        let dir = tempfile::tempdir().expect("a directory");
        {
            let store = SledStore::open(dir.path()).expect("opens");
            store.append_blocking("s-1", 0, batch(1)).expect("appends");
            store.append_blocking("s-1", 2, batch(2)).expect("appends");
        }
        // A crash after the next group wrote its batch, before its marker.
        raw(dir.path(), |_, trees| {
            assert_eq!(log_end(trees).expect("the log's end"), 4);
            let (_, record) = trees.log.last().expect("reads").expect("a batch");
            trees
                .log
                .insert(keys::position(5), record)
                .expect("inserts");
        });
        let store = reopen(dir.path());
        assert_eq!(store.head("s-1").expect("head"), 4);
        assert_eq!(store.read_all(0, 100).expect("reads").len(), 4);
        let appended = store.append_blocking("s-1", 4, batch(3)).expect("appends");
        assert_eq!((appended.last_version, appended.last_position), (6, 6));
        let events = store.read_all(0, 100).expect("reads");
        let positions: Vec<u64> = events.iter().map(|e| e.position).collect();
        assert_eq!(positions, vec![1, 2, 3, 4, 5, 6]);
        assert_eq!(events[5].payload["n"], 3);
    }

    #[test]
    fn the_index_writes_of_the_last_group_are_applied_again() {
        let dir = tempfile::tempdir().expect("a directory");
        {
            let store = SledStore::open(dir.path()).expect("opens");
            store.append_blocking("s-1", 0, batch(1)).expect("appends");
            store.append_blocking("s-2", 0, batch(2)).expect("appends");
        }
        // A crash after the last group's marker, before any of its index writes.
        raw(dir.path(), |_, trees| {
            let marker = trees
                .last_group
                .get(GROUP_KEY)
                .expect("reads")
                .expect("a marker");
            let (last_position, writes) = codec::decode_group(&marker).expect("decodes");
            assert_eq!(last_position, 4);
            assert!(writes.len() >= 6, "{writes:?}");
            for write in writes.iter().filter(|w| w.value.is_some()) {
                write.tree.of(trees).remove(&write.key).expect("removes");
            }
            assert!(trees.streams.get("s-2").expect("reads").is_none());
        });
        let store = reopen(dir.path());
        assert_eq!(store.head("s-2").expect("head"), 2);
        assert_eq!(store.read_stream("s-2", 0, 10).expect("reads").len(), 2);
        assert_eq!(
            store.tags("s-2").expect("tags"),
            vec![("n".to_string(), "2".to_string())]
        );
        assert_eq!(
            store.secret("s-2", "s").expect("reads"),
            Some(2u64.to_be_bytes().to_vec())
        );
        assert_eq!(
            store.streams_tagged("n", "2", None, 10).expect("reads"),
            vec!["s-2".to_string()]
        );
        let again = store.append_blocking("s-2", 0, batch(2)).expect("a retry");
        assert!(again.duplicate, "the command id was indexed again");
        assert_eq!(store.head("s-1").expect("head"), 2);
    }

    #[test]
    fn a_format_1_store_is_upgraded_and_gets_its_marker() {
        let dir = tempfile::tempdir().expect("a directory");
        {
            let store = SledStore::open(dir.path()).expect("opens");
            store.append_blocking("s-1", 0, batch(1)).expect("appends");
        }
        // As a build of format 1 left it: no marker tree, the old format's name.
        raw(dir.path(), |db, trees| {
            trees.last_group.clear().expect("clears");
            db.open_tree(META_TREE)
                .expect("meta")
                .insert(FORMAT_KEY, "avalanche-event-store/1")
                .expect("inserts");
        });
        {
            let store = reopen(dir.path());
            assert_eq!(store.head("s-1").expect("head"), 2);
            store.append_blocking("s-1", 2, batch(2)).expect("appends");
        }
        raw(dir.path(), |db, trees| {
            let format = db
                .open_tree(META_TREE)
                .expect("meta")
                .get(FORMAT_KEY)
                .expect("reads");
            assert_eq!(format.as_deref(), Some(FORMAT.as_bytes()));
            let marker = trees
                .last_group
                .get(GROUP_KEY)
                .expect("reads")
                .expect("a marker");
            assert_eq!(codec::decode_group(&marker).expect("decodes").0, 4);
        });
    }
}
