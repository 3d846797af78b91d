//! One file per resource.

pub mod events;
pub mod forks;
pub mod games;
pub mod health;
pub mod imports;
pub mod kinds;
pub mod licence;
pub mod mail;
pub mod play;
pub mod players;
pub mod replay;
pub mod web;
pub mod webhooks;
