//! What every handler shares: the games, the players, their vacations and the store.

use crate::games::Games;
use crate::players::Players;
use crate::vacation::Vacations;
use crate::webhooks::delivery::DeliverySettings;
use crate::webhooks::Webhooks;
use domain::Registry;
use std::sync::Arc;
use storage::Store;

pub struct AppState {
    pub games: Games,
    pub players: Players,
    pub vacations: Vacations,
    pub store: Store,
    pub registry: Arc<Registry>,
    pub webhooks: Webhooks,
}

impl AppState {
    /// The state over `store`; starts the delivery of every registered webhook.
    pub fn new(
        store: Store,
        registry: Registry,
        delivery: DeliverySettings,
    ) -> std::io::Result<AppState> {
        let registry = Arc::new(registry);
        Ok(AppState {
            webhooks: Webhooks::start(store.clone(), registry.clone(), delivery)?,
            games: Games::new(store.clone(), registry.clone()),
            players: Players::new(store.clone()),
            vacations: Vacations::new(store.clone()),
            store,
            registry,
        })
    }
}
