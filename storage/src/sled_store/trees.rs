//! The store's trees, and the index writes a group makes in them (see `recovery` for the
//! order they are written in).

/// The trees written together by an append.
#[derive(Clone)]
pub(crate) struct Trees {
    /// The global log: first position of a batch -> the batch with its events.
    pub log: sled::Tree,
    /// (stream id, first version of a batch) -> first position of the batch.
    pub stream_batches: sled::Tree,
    /// stream name -> (stream id, head).
    pub streams: sled::Tree,
    /// stream id -> stream name.
    pub stream_names: sled::Tree,
    /// (stream id, command id) -> what the append returned.
    pub command_ids: sled::Tree,
    /// (tag name, tag value, stream name) -> stream id.
    pub tag_index: sled::Tree,
    /// stream id -> the stream's tags.
    pub stream_tags: sled::Tree,
    /// (stream id, secret name) -> secret.
    pub secrets: sled::Tree,
    /// The marker of the last group written (see `recovery`).
    pub last_group: sled::Tree,
}

impl Trees {
    /// The store's trees in `db`, created when missing.
    pub(crate) fn open(db: &sled::Db) -> Result<Trees, sled::Error> {
        Ok(Trees {
            log: db.open_tree("log")?,
            stream_batches: db.open_tree("stream_batches")?,
            streams: db.open_tree("streams")?,
            stream_names: db.open_tree("stream_names")?,
            command_ids: db.open_tree("command_ids")?,
            tag_index: db.open_tree("tag_index")?,
            stream_tags: db.open_tree("stream_tags")?,
            secrets: db.open_tree("secrets")?,
            last_group: db.open_tree("last_group")?,
        })
    }
}

/// The prefix of the trees that hold records (`record/<tree>`).
pub(crate) const RECORD_TREE_PREFIX: &str = "record/";

/// The trees a group writes besides `log`, by the byte that names them in a marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum IndexTree {
    StreamBatches = 1,
    Streams = 2,
    StreamNames = 3,
    CommandIds = 4,
    TagIndex = 5,
    StreamTags = 6,
    Secrets = 7,
}

impl IndexTree {
    pub(crate) fn from_byte(byte: u8) -> Option<IndexTree> {
        Some(match byte {
            1 => IndexTree::StreamBatches,
            2 => IndexTree::Streams,
            3 => IndexTree::StreamNames,
            4 => IndexTree::CommandIds,
            5 => IndexTree::TagIndex,
            6 => IndexTree::StreamTags,
            7 => IndexTree::Secrets,
            _ => return None,
        })
    }

    pub(crate) fn of(self, trees: &Trees) -> &sled::Tree {
        match self {
            IndexTree::StreamBatches => &trees.stream_batches,
            IndexTree::Streams => &trees.streams,
            IndexTree::StreamNames => &trees.stream_names,
            IndexTree::CommandIds => &trees.command_ids,
            IndexTree::TagIndex => &trees.tag_index,
            IndexTree::StreamTags => &trees.stream_tags,
            IndexTree::Secrets => &trees.secrets,
        }
    }
}

/// One write of an index: `key` set to `value`, or removed when `value` is `None`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct IndexWrite {
    pub tree: IndexTree,
    pub key: Vec<u8>,
    pub value: Option<Vec<u8>>,
}

impl IndexWrite {
    pub(crate) fn put(tree: IndexTree, key: impl Into<Vec<u8>>, value: impl Into<Vec<u8>>) -> Self {
        IndexWrite {
            tree,
            key: key.into(),
            value: Some(value.into()),
        }
    }

    pub(crate) fn remove(tree: IndexTree, key: impl Into<Vec<u8>>) -> Self {
        IndexWrite {
            tree,
            key: key.into(),
            value: None,
        }
    }
}
