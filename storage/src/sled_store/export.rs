//! What a copy of the whole store needs beyond the traits: the store's id, every secret of a
//! stream and the names of the record trees (`avalanche migrate`, `storage::copy`).

use super::trees::RECORD_TREE_PREFIX;
use super::SledStore;
use crate::error::StorageError;

impl SledStore {
    /// Every secret of the stream, in name order.
    pub fn secrets(&self, stream: &str) -> Result<Vec<(String, Vec<u8>)>, StorageError> {
        let Some(stream_id) = self.stream_id(stream)? else {
            return Ok(Vec::new());
        };
        let mut secrets = Vec::new();
        for item in self
            .inner
            .trees
            .secrets
            .scan_prefix(stream_id.to_be_bytes())
        {
            let (key, value) = item?;
            let name = String::from_utf8(key[8..].to_vec())
                .map_err(|_| StorageError::Corrupt("a secret's name is not UTF-8".into()))?;
            secrets.push((name, value.to_vec()));
        }
        Ok(secrets)
    }

    /// The names of the record trees that hold at least one record, in name order.
    pub fn record_trees(&self) -> Result<Vec<String>, StorageError> {
        let mut trees = Vec::new();
        for name in self.inner.db.tree_names() {
            let Some(tree) = name.strip_prefix(RECORD_TREE_PREFIX.as_bytes()) else {
                continue;
            };
            let tree = String::from_utf8(tree.to_vec())
                .map_err(|_| StorageError::Corrupt("a record tree's name is not UTF-8".into()))?;
            if !self.inner.db.open_tree(&name)?.is_empty() {
                trees.push(tree);
            }
        }
        trees.sort();
        Ok(trees)
    }
}
