//! What every handler shares: the application (games, players, their vacations, webhooks).
//! The store itself is held only inside the application layer.

use app::cache::DEFAULT_CAPACITY;
use app::leases::Leases;
use app::metered::Metered;
use app::metrics::{Metrics, Snapshot};
use app::players::Players;
use app::sealing::SecretsKey;
use app::vacations::Vacations;
use app::webhooks::delivery::DeliverySettings;
use app::webhooks::Webhooks;
use app::Games;
use domain::Registry;
use std::sync::Arc;

pub struct AppState {
    pub games: Games,
    pub limits: app::limits::Limits,
    pub players: Arc<Players>,
    pub vacations: Vacations,
    /// Players' private notes on games.
    pub notes: app::notes::Notes,
    /// Messages said at games' tables: their sealed texts' own keys.
    pub messages: app::messages::Messages,
    pub registry: Arc<Registry>,
    pub webhooks: Webhooks,
    /// What this node has been doing, for `GET /metrics`.
    pub metrics: Arc<Metrics>,
    /// The jobs this server runs for all the servers of its store (the clock, webhooks):
    /// `leases.held()` names them.
    pub leases: Arc<Leases>,
    /// This node, and the settings it must agree on with the other nodes of its store.
    pub node: app::nodes::ThisNode,
    /// Mail: addresses, the outbox and its worker, replies.
    pub mail: Arc<app::mail::Mail>,
    /// Ratings, players' pages, leaderboards and challenges: projections of the event log.
    pub club: Arc<app::club::Club>,
}

impl AppState {
    /// What words mailed to the server are said through (see `app::mail`).
    pub fn talk(&self) -> app::mail::inbound::reader::Talk<'_> {
        app::mail::inbound::reader::Talk {
            messages: &self.messages,
            limits: &self.limits,
        }
    }

    /// The application's own counts and gauges, for `GET /metrics`.
    pub fn snapshot(&self) -> Snapshot {
        let gauges = self.games.store_gauges();
        Snapshot {
            games_cached: gauges.cached,
            cache_hits: gauges.hits,
            cache_misses: gauges.misses,
            reads_fenced: gauges.reads_fenced,
            reads_read: gauges.reads_read,
            open_streams: self.limits.open_streams(),
            clock_held: self.leases.holds(app::leases::CLOCK),
            webhooks: self.webhooks.backlogs(),
            webhook_counts: self.webhooks.delivery_counts(),
            mail: self.mail.metrics(),
            database: gauges.database,
        }
    }
}

/// How much the server keeps in memory, and how many threads answer requests.
#[derive(Clone, Copy, Debug)]
pub struct CapacitySettings {
    /// The most games kept folded in memory (least recently used out first).
    pub game_cache: usize,
    /// The threads that answer HTTP requests; `None`: one per CPU core.
    pub workers: Option<usize>,
}

impl Default for CapacitySettings {
    fn default() -> Self {
        CapacitySettings {
            game_cache: DEFAULT_CAPACITY,
            workers: None,
        }
    }
}

impl AppState {
    /// The state over `store`; starts the delivery of every registered webhook.
    pub fn new(
        store: impl Into<storage::Opened>,
        registry: Registry,
        key: Arc<SecretsKey>,
        delivery: DeliverySettings,
        capacity: CapacitySettings,
        limits: app::limits::LimitSettings,
    ) -> std::io::Result<AppState> {
        AppState::new_with_mail(
            store,
            registry,
            key,
            delivery,
            capacity,
            limits,
            app::mail::MailSettings::default(),
        )
    }

    /// [`AppState::new`] with mail as `mail` says; starts the mail worker.
    pub fn new_with_mail(
        store: impl Into<storage::Opened>,
        registry: Registry,
        key: Arc<SecretsKey>,
        delivery: DeliverySettings,
        capacity: CapacitySettings,
        limits: app::limits::LimitSettings,
        mail: app::mail::MailSettings,
    ) -> std::io::Result<AppState> {
        let registry = Arc::new(registry);
        let metrics = Arc::new(Metrics::default());
        let opened = store.into();
        let store = Metered::wrap(opened.store, metrics.clone());
        let leases = Arc::new(Leases::new(store.clone()));
        // One token cache and one listener of revocations for the server: mail reads names
        // through the same players.
        let players = Arc::new(Players::new(store.clone()));
        // One club for the server: mail names the tournament a game was paired in from it.
        let club = Arc::new(app::club::Club::new(store.clone(), registry.clone()));
        let mail = Arc::new(app::mail::Mail::new(
            store.clone(),
            players.clone(),
            club.clone(),
            registry.clone(),
            key.clone(),
            mail,
        ));
        mail.start(leases.clone())?;
        let node = app::nodes::ThisNode::new(&limits, &delivery.addresses);
        Ok(AppState {
            node,
            mail,
            webhooks: Webhooks::start(
                store.clone(),
                registry.clone(),
                key.clone(),
                delivery,
                leases.clone(),
            )?,
            leases,
            notes: app::notes::Notes::new(store.clone(), key.clone()),
            messages: app::messages::Messages::new(store.clone(), key.clone()),
            games: Games::new(store.clone(), registry.clone(), key, capacity.game_cache)
                .with_backend(opened.backup, opened.gauges),
            limits: app::limits::Limits::new(limits),
            players,
            club,
            vacations: Vacations::new(store),
            registry,
            metrics,
        })
    }
}
