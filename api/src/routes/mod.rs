//! One file per resource.

pub mod events;
pub mod games;
pub mod health;
pub mod kinds;
pub mod play;
pub mod players;
