//! One file per resource.

pub mod health;
