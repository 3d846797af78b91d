//! Backups of a running sled store: the file's format (`format`) and its writing by the server
//! (`dump`, behind `GET /backup`). The `avalanche backup` and `restore` commands are `api`'s.

pub mod dump;
pub mod format;
