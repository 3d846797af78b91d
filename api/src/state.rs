//! What every handler shares: the games, the players, their vacations and the store.

use crate::games::Games;
use crate::players::Players;
use crate::vacation::Vacations;
use domain::Registry;
use std::sync::Arc;
use storage::Store;

pub struct AppState {
    pub games: Games,
    pub players: Players,
    pub vacations: Vacations,
    pub store: Store,
    pub registry: Arc<Registry>,
}

impl AppState {
    pub fn new(store: Store, registry: Registry) -> AppState {
        let registry = Arc::new(registry);
        AppState {
            games: Games::new(store.clone(), registry.clone()),
            players: Players::new(store.clone()),
            vacations: Vacations::new(store.clone()),
            store,
            registry,
        }
    }
}
