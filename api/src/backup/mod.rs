//! Backups of a running sled store: the `avalanche backup` command that fetches the file the
//! server writes behind `GET /backup` (`command`), and `avalanche restore` (`restore`). The
//! file's format and its writing are the application's (`app::backup`).

pub mod command;
pub mod restore;
