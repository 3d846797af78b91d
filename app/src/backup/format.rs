//! The backup file: one JSON object a line. A header (the store's id, the global position the
//! copy goes up to), every batch of the log up to that position in log order (its command,
//! its events, and with a stream's first batch the stream's secrets, still sealed), the tags of
//! every stream, every record, and a closing line with the counts and the SHA-256 of every
//! line before it. A file cut short has no closing line; a file changed after it was written
//! fails its checksum: [`verify`] refuses both before anything is restored.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The format this build writes and reads.
pub const FORMAT: &str = "avalanche-backup/1";

/// One line of the file.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Line {
    Header(Header),
    Batch(BatchLine),
    Tags(TagsLine),
    Record(RecordLine),
    End(End),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Header {
    pub format: String,
    /// The version of the server that wrote it.
    pub version: String,
    /// The store's id, in hexadecimal: part of every event id.
    pub store_id: String,
    /// The last global position copied: every event up to it, none after.
    pub head: u64,
    pub taken_at: DateTime<Utc>,
}

/// One batch of the log: what one command appended to one stream.
#[derive(Debug, Serialize, Deserialize)]
pub struct BatchLine {
    pub stream: String,
    pub first_version: u64,
    pub last_position: u64,
    pub actor: String,
    pub command_id: Option<String>,
    pub command: Option<serde_json::Value>,
    pub recorded_at: DateTime<Utc>,
    /// The stream's secrets (with its first batch), as stored: sealed, in hexadecimal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<(String, String)>,
    pub events: Vec<EventLine>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct EventLine {
    pub event_type: String,
    pub schema_version: u32,
    pub payload: serde_json::Value,
}

/// A stream's tags as they were at its last copied batch.
#[derive(Debug, Serialize, Deserialize)]
pub struct TagsLine {
    pub stream: String,
    pub tags: Vec<(String, String)>,
}

/// A record, its value in hexadecimal.
#[derive(Debug, Serialize, Deserialize)]
pub struct RecordLine {
    pub tree: String,
    pub key: String,
    pub value: String,
}

/// The closing line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct End {
    pub streams: u64,
    pub batches: u64,
    pub events: u64,
    pub records: u64,
    /// SHA-256 of every line before this one, in hexadecimal.
    pub sha256: String,
}

/// Writes lines, counting them and hashing their bytes, then the closing line.
pub struct Writer<W: Write> {
    out: W,
    hasher: Sha256,
    pub counts: End,
}

impl<W: Write> Writer<W> {
    pub fn new(out: W) -> Writer<W> {
        Writer {
            out,
            hasher: Sha256::new(),
            counts: End::default(),
        }
    }

    pub fn line(&mut self, line: &Line) -> std::io::Result<()> {
        match line {
            Line::Batch(batch) => {
                self.counts.batches += 1;
                self.counts.events += batch.events.len() as u64;
                if batch.first_version == 1 {
                    self.counts.streams += 1;
                }
            }
            Line::Record(_) => self.counts.records += 1,
            _ => {}
        }
        let mut bytes = serde_json::to_vec(line)?;
        bytes.push(b'\n');
        self.hasher.update(&bytes);
        self.out.write_all(&bytes)
    }

    /// Writes the closing line and flushes; the counts.
    pub fn finish(mut self) -> std::io::Result<End> {
        let mut end = self.counts.clone();
        end.sha256 = hex::encode(self.hasher.finalize());
        let mut bytes = serde_json::to_vec(&Line::End(end.clone()))?;
        bytes.push(b'\n');
        self.out.write_all(&bytes)?;
        self.out.flush()?;
        Ok(end)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("cannot read the backup {path}: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a backup of this server: it does not begin with the header of an {FORMAT} file")]
    NotABackup { path: PathBuf },
    #[error("the backup {path} is cut short: it ends after {lines} lines without its closing line; nothing was restored (take the backup again, or copy it whole)")]
    CutShort { path: PathBuf, lines: u64 },
    #[error("the backup {path} was changed after it was written: its checksum does not match its content; nothing was restored")]
    Changed { path: PathBuf },
    #[error("the backup {path} is damaged at line {line}: {detail}; nothing was restored")]
    Damaged {
        path: PathBuf,
        line: u64,
        detail: String,
    },
}

/// What a sound backup holds, as [`verify`] found it.
#[derive(Debug)]
pub struct Checked {
    pub header: Header,
    pub end: End,
    /// Every stream's last copied version.
    pub heads: BTreeMap<String, u64>,
    /// Every stream's tags.
    pub tags: BTreeMap<String, Vec<(String, String)>>,
}

/// Reads the whole file at `path` and checks it: the header, every line, the log's positions
/// and versions without a gap, the counts and the checksum of the closing line.
pub fn verify(path: &Path) -> Result<Checked, FileError> {
    let unreadable = |source| FileError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut hasher = Sha256::new();
    let mut lines = 0u64;
    let mut header: Option<Header> = None;
    let mut end: Option<End> = None;
    // The first damage found; the checksum's verdict comes first.
    let mut damage: Option<(u64, String)> = None;
    let mut counts = End::default();
    let mut heads: BTreeMap<String, u64> = BTreeMap::new();
    let mut tags = BTreeMap::new();
    let mut position = 0u64;
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        let read = reader.read_until(b'\n', &mut buffer).map_err(unreadable)?;
        if read == 0 {
            break;
        }
        lines += 1;
        if end.is_some() {
            damage.get_or_insert((lines, "a line after the closing line".into()));
        }
        let parsed: Result<Line, _> = if buffer.ends_with(b"\n") {
            serde_json::from_slice(&buffer)
        } else {
            // The last line of a file cut short within it.
            Err(serde::de::Error::custom("the line is cut short"))
        };
        let mut damaged = |detail: String| {
            damage.get_or_insert((lines, detail));
        };
        match parsed {
            Ok(Line::End(closing)) => {
                // Not hashed: the checksum covers the lines before it.
                end = Some(closing);
                continue;
            }
            Ok(Line::Header(found)) if lines == 1 => {
                if found.format != FORMAT {
                    damaged(format!(
                        "its format is {:?}, this server reads {FORMAT:?}",
                        found.format
                    ));
                }
                header = Some(found);
            }
            Ok(_) if lines == 1 => return Err(FileError::NotABackup { path: path.into() }),
            Ok(Line::Header(_)) => damaged("a second header".into()),
            Ok(Line::Batch(batch)) => {
                counts.batches += 1;
                counts.events += batch.events.len() as u64;
                let head = heads.entry(batch.stream.clone()).or_insert(0);
                if batch.first_version == 1 {
                    counts.streams += 1;
                }
                if batch.events.is_empty() || batch.first_version != *head + 1 {
                    damaged(format!(
                        "the batch of {} at version {} does not follow version {}",
                        batch.stream, batch.first_version, head
                    ));
                }
                *head = batch.first_version + batch.events.len() as u64 - 1;
                position += batch.events.len() as u64;
                if batch.last_position != position {
                    damaged(format!(
                        "the batch of {} ends at position {}, not {position}",
                        batch.stream, batch.last_position
                    ));
                }
                for (_, value) in &batch.secrets {
                    if hex::decode(value).is_err() {
                        damaged("a secret that is not hexadecimal".into());
                    }
                }
            }
            Ok(Line::Tags(line)) => {
                if !heads.contains_key(&line.stream) {
                    damaged(format!("tags of a stream without events: {}", line.stream));
                }
                tags.insert(line.stream, line.tags);
            }
            Ok(Line::Record(record)) => {
                counts.records += 1;
                if hex::decode(&record.value).is_err() {
                    damaged("a record's value that is not hexadecimal".into());
                }
            }
            Err(_) if lines == 1 => return Err(FileError::NotABackup { path: path.into() }),
            Err(error) => damaged(error.to_string()),
        }
        hasher.update(&buffer);
    }
    let Some(header) = header else {
        return Err(FileError::NotABackup { path: path.into() });
    };
    let Some(end) = end else {
        return Err(FileError::CutShort {
            path: path.into(),
            lines,
        });
    };
    if hex::encode(hasher.finalize()) != end.sha256 {
        return Err(FileError::Changed { path: path.into() });
    }
    if let Some((line, detail)) = damage {
        return Err(FileError::Damaged {
            path: path.into(),
            line,
            detail,
        });
    }
    counts.sha256 = end.sha256.clone();
    if counts != end {
        return Err(FileError::Damaged {
            path: path.into(),
            line: lines,
            detail: format!("the closing line counts {end:?}, the file holds {counts:?}"),
        });
    }
    if position != header.head {
        return Err(FileError::Damaged {
            path: path.into(),
            line: lines,
            detail: format!(
                "the log ends at position {position}, the header says {}",
                header.head
            ),
        });
    }
    Ok(Checked {
        header,
        end,
        heads,
        tags,
    })
}
