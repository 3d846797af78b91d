//! The five games. Each engine lives in its own folder, one concept a file.

use crate::registry::GameKind;

pub mod chess;

/// Every engine the service offers, in the order the lobby lists them.
pub fn all() -> Vec<Box<dyn GameKind>> {
    vec![crate::registry::Kind::<chess::AvalancheChess>::boxed()]
}
