//! The five games. Each engine lives in its own folder, one concept a file.

use crate::registry::{GameKind, Kind};

pub mod altitude;
pub mod avalanche;
pub mod chess;
pub mod ski_runs;
pub mod vamanos;

/// Every engine the service offers, in the order the lobby lists them.
pub fn all() -> Vec<Box<dyn GameKind>> {
    vec![
        Kind::<chess::AvalancheChess>::boxed(),
        Kind::<avalanche::Avalanche>::boxed(),
        Kind::<ski_runs::SkiRuns>::boxed(),
        Kind::<vamanos::Vamanos>::boxed(),
        Kind::<altitude::Altitude>::boxed(),
    ]
}
