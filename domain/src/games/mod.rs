//! The five games. Each engine lives in its own folder, one concept a file.

pub mod vamanos;

use crate::registry::{GameKind, Kind};

/// Every engine the service offers, in the order the lobby lists them.
pub fn all() -> Vec<Box<dyn GameKind>> {
    vec![Kind::<vamanos::Vamanos>::boxed()]
}
