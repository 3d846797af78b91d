//! Backups of a running sled store: the file's format (`format`), its writing by the server
//! (`dump`, behind `GET /backup`), the `avalanche backup` command that fetches it into a file
//! (`command`), and `avalanche restore` (`restore`).

pub mod command;
pub mod dump;
pub mod format;
pub mod restore;
