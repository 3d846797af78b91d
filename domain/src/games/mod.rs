//! The five games. Each engine lives in its own folder, one concept a file.

pub mod altitude;

use crate::registry::GameKind;

/// Every engine the service offers, in the order the lobby lists them.
pub fn all() -> Vec<Box<dyn GameKind>> {
    vec![crate::registry::Kind::<altitude::Altitude>::boxed()]
}
