//! A backup is one moment of the store even while it changes: a stream that moves on while
//! the backup is written is copied up to that moment with the tags it had then, a cursor past
//! that moment is set back to it, and the nodes' records are left out; restored, every event
//! keeps its version, position and id.

use api::backup::restore;
use app::backup::{dump, format};
use serde_json::json;
use storage::{Batch, NewEvent, SledStore};

fn batch(tags: &[(&str, &str)], command_id: &str) -> Batch {
    let mut batch = Batch::new(
        "seat:0",
        vec![NewEvent {
            event_type: "Moved".into(),
            schema_version: 1,
            payload: json!({ "n": command_id }),
        }],
    );
    batch.command_id = Some(command_id.into());
    batch.tags = Some(
        tags.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
    );
    batch
}

/// A sink that appends to `store` when the backup writes its first line (after it read the
/// position it copies up to), as a player's move arriving during the backup.
struct MovesOnAtFirstLine {
    store: SledStore,
    bytes: Vec<u8>,
    moved: bool,
}

impl std::io::Write for MovesOnAtFirstLine {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if !self.moved {
            self.moved = true;
            self.store
                .append_blocking("g-1", 2, batch(&[("status", "finished")], "c3"))
                .expect("the move after the backup's moment");
        }
        self.bytes.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_stream_that_moves_on_during_a_backup_is_copied_as_it_was_and_restores_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(&dir.path().join("data")).unwrap();
    let mut first = batch(&[("status", "open")], "c1");
    first.secrets = vec![("seed".into(), vec![7; 32])];
    store.append_blocking("g-1", 0, first).unwrap();
    store
        .append_blocking("g-1", 1, batch(&[("status", "active")], "c2"))
        .unwrap();
    store
        .append_blocking("g-2", 0, batch(&[("status", "open")], "d1"))
        .unwrap();
    store.put_record("webhook_cursors", "w-1", b"999").unwrap();
    store.put_record("webhook_cursors", "w-2", b"1").unwrap();
    store.put_record("nodes", "n-1", b"{}").unwrap();
    store.put_record("tokens", "t-1", b"p-1").unwrap();
    let original: Vec<_> = store.read_all(0, 100).unwrap();
    assert_eq!(original.len(), 3);

    let asked = std::cell::RefCell::new(Vec::new());
    let tags_at = |stream: &str, version: u64| {
        asked.borrow_mut().push((stream.to_string(), version));
        Some(vec![("status".to_string(), "as-at-v2".to_string())])
    };
    let mut sink = MovesOnAtFirstLine {
        store: store.clone(),
        bytes: Vec::new(),
        moved: false,
    };
    let end = dump::write_backup(&store, &tags_at, &mut sink).unwrap();
    assert!(sink.moved);
    assert_eq!((end.streams, end.batches, end.events), (2, 3, 3));
    // Only the stream that moved on is derived again, at its last copied version.
    assert_eq!(*asked.borrow(), vec![("g-1".to_string(), 2)]);
    let file = dir.path().join("club.backup");
    std::fs::write(&file, &sink.bytes).unwrap();
    let checked = format::verify(&file).unwrap();
    assert_eq!(
        checked.header.head, 3,
        "the move during the backup is not in it"
    );
    assert_eq!(checked.tags["g-2"], vec![("status".into(), "open".into())]);
    drop(store);

    let restored_dir = dir.path().join("restored");
    restore::restore(&file, &restored_dir).unwrap();
    let restored = SledStore::open(&restored_dir).unwrap();
    assert_eq!(
        restored.read_all(0, 100).unwrap(),
        original,
        "ids and positions kept"
    );
    assert_eq!(restored.head("g-1").unwrap(), 2);
    assert_eq!(
        restored.tags("g-1").unwrap(),
        vec![("status".into(), "as-at-v2".into())]
    );
    assert_eq!(
        restored.streams_tagged("status", "open", None, 10).unwrap(),
        vec!["g-2".to_string()]
    );
    assert_eq!(restored.secret("g-1", "seed").unwrap(), Some(vec![7; 32]));
    let again = restored
        .append_blocking("g-1", 0, batch(&[], "c1"))
        .unwrap();
    assert!(again.duplicate, "a command's idempotency key is kept");
    assert_eq!(
        restored.get_record("webhook_cursors", "w-1").unwrap(),
        Some(b"3".to_vec()),
        "a cursor past the backup's moment is set back to it"
    );
    assert_eq!(
        restored.get_record("webhook_cursors", "w-2").unwrap(),
        Some(b"1".to_vec())
    );
    assert_eq!(
        restored.get_record("tokens", "t-1").unwrap(),
        Some(b"p-1".to_vec())
    );
    assert_eq!(restored.get_record("nodes", "n-1").unwrap(), None);
}
