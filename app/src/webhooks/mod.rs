//! Webhooks: a player's URLs that are told, with a signed POST, when it becomes their turn,
//! when a draw or takeback is offered to them and when one of their games ends. Each webhook
//! has its own worker and its own durable cursor in the event log, on a thread of their own,
//! so a slow or dead receiver delays nobody but itself.
//!
//! Several servers on one database: every server runs a worker for every webhook, but a
//! worker delivers only while its server holds the webhook's lease
//! ([`crate::leases::webhook`]), and when it takes the lease it goes on from the cursor
//! the last holder stored. A server that dies frees its leases, and the others' waiting
//! workers take them over. Each server looks at the webhooks' records every
//! [`RESCAN`], so that webhooks registered, deleted or re-enabled on another server are
//! followed here too.

pub mod address;
pub mod delivery;
pub mod notification;
pub mod signature;
pub mod tournament;

use crate::error::{ApiCode, ApiError};
use crate::leases::Leases;
use crate::randomness::random_hex;
use crate::sealing::{text_in_clear, SecretsKey};
use crate::Repository;
use address::AddressPolicy;
use chrono::{DateTime, Utc};
use delivery::{load_cursor, DeliverySettings, Shared, Worker};
use domain::Registry;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use storage::Storage;
use utoipa::ToSchema;

/// Webhooks by `<player id>/<webhook id>`, so that a player's are listed together.
pub(crate) const WEBHOOKS: &str = "webhooks";
/// Each webhook's cursor: the global position of the last event it has handled.
pub(crate) const CURSORS: &str = "webhook_cursors";
/// A player may register this many webhooks.
pub const MAX_PER_PLAYER: usize = 10;
/// The longest URL accepted.
pub const MAX_URL_LENGTH: usize = 2000;
/// How often a server that shares its store looks at the webhooks others registered.
pub const RESCAN: std::time::Duration = std::time::Duration::from_secs(1);

type WorkerTasks = Arc<Mutex<HashMap<String, tokio::task::JoinHandle<()>>>>;

/// A webhook as stored: with its secret, which signs every notification.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Webhook {
    pub id: String,
    pub player_id: String,
    pub url: String,
    pub secret: String,
    pub created_at: DateTime<Utc>,
    /// Set when deliveries were given up; nothing is sent until the owner re-enables it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing: Option<Failing>,
}

impl Webhook {
    /// The webhook as its record keeps it: its secret sealed with `key`.
    pub(crate) fn to_record(&self, key: &SecretsKey) -> Result<Vec<u8>, ApiError> {
        let mut stored = self.clone();
        stored.secret = key
            .seal_text(&self.id, &self.secret)
            .map_err(ApiError::internal)?;
        serde_json::to_vec(&stored).map_err(ApiError::internal)
    }

    /// Whether a record keeps its secret in clear (written before secrets were sealed).
    fn secret_in_clear(bytes: &[u8]) -> bool {
        serde_json::from_slice::<Webhook>(bytes).is_ok_and(|hook| text_in_clear(&hook.secret))
    }

    /// The webhook a record keeps, its secret unsealed (or in clear, in an older record).
    pub(crate) fn from_record(bytes: &[u8], key: &SecretsKey) -> Result<Webhook, ApiError> {
        let mut hook: Webhook = serde_json::from_slice(bytes).map_err(ApiError::internal)?;
        hook.secret = key
            .open_text(&hook.id, &hook.secret)
            .map_err(|e| ApiError::internal(format!("webhook {}'s secret: {e}", hook.id)))?;
        Ok(hook)
    }
}

/// Why and since when a webhook's deliveries stopped.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Failing {
    pub since: DateTime<Utc>,
    pub last_error: String,
}

/// Whether a webhook is being delivered to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum WebhookStatus {
    /// Notifications are delivered (and retried while the receiver fails).
    Active,
    /// A notification was retried for too long: deliveries stopped until the owner re-enables
    /// the webhook, which then goes on from that notification.
    Failing,
}

/// A webhook as its owner may list it: never its secret.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct WebhookInfo {
    #[schema(example = "wh-5c0ffee5d00dfeed")]
    pub id: String,
    #[schema(example = "https://example.com/avalanche")]
    pub url: String,
    pub created_at: DateTime<Utc>,
    pub status: WebhookStatus,
    /// When deliveries stopped (only when `failing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failing_since: Option<DateTime<Utc>>,
    /// The last delivery's error (only when `failing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "the receiver answered 503 Service Unavailable (41 attempts)")]
    pub last_error: Option<String>,
}

impl From<&Webhook> for WebhookInfo {
    fn from(hook: &Webhook) -> WebhookInfo {
        WebhookInfo {
            id: hook.id.clone(),
            url: hook.url.clone(),
            created_at: hook.created_at,
            status: match hook.failing {
                Some(_) => WebhookStatus::Failing,
                None => WebhookStatus::Active,
            },
            failing_since: hook.failing.as_ref().map(|f| f.since),
            last_error: hook.failing.as_ref().map(|f| f.last_error.clone()),
        }
    }
}

pub(crate) fn key(player: &str, id: &str) -> String {
    format!("{player}/{id}")
}

/// Registered webhooks and their running workers.
pub struct Webhooks {
    shared: Arc<Shared>,
    /// The delivery thread's runtime, where every worker runs.
    runtime: tokio::runtime::Handle,
    workers: WorkerTasks,
    /// Stops the delivery thread when the webhooks are dropped.
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Webhooks {
    /// Starts the delivery thread and a worker for every registered webhook, each from its
    /// stored cursor.
    pub fn start(
        store: Arc<dyn Storage>,
        registry: Arc<Registry>,
        key: Arc<SecretsKey>,
        settings: DeliverySettings,
        leases: Arc<Leases>,
    ) -> std::io::Result<Webhooks> {
        let http = reqwest::Client::builder()
            .timeout(settings.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(address::CheckedResolver {
                policy: settings.addresses.clone(),
            }))
            .user_agent(concat!("avalanche-webhooks/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(std::io::Error::other)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("webhooks".into())
            .spawn(move || {
                runtime.block_on(async {
                    let _ = stopped.await;
                });
            })?;
        let webhooks = Webhooks {
            shared: Arc::new(Shared {
                changes: tokio::sync::Mutex::new(()),
                repository: Repository::new(store.clone(), registry, key, 1),
                store,
                http,
                settings,
                cursors: std::sync::Mutex::new(HashMap::new()),
                leases,
                counts: delivery::DeliveryCounts::default(),
            }),
            runtime: handle,
            workers: WorkerTasks::default(),
            _stop: stop,
        };
        let registered = webhooks
            .shared
            .store
            .records_with_prefix(WEBHOOKS, "")
            .map_err(std::io::Error::other)?;
        for (key, bytes) in registered {
            let hook = Webhook::from_record(&bytes, webhooks.shared.repository.key());
            if let Ok(hook) = &hook {
                // A record of an older server: its secret is sealed now.
                if Webhook::secret_in_clear(&bytes) {
                    let record = hook
                        .to_record(webhooks.shared.repository.key())
                        .map_err(std::io::Error::other)?;
                    webhooks
                        .shared
                        .store
                        .put_record(WEBHOOKS, &key, &record)
                        .map_err(std::io::Error::other)?;
                }
            }
            match hook {
                Ok(hook) if hook.failing.is_some() => {
                    tracing::warn!(webhook = %hook.id, "webhook failing: not delivered to until re-enabled");
                }
                Ok(hook) => {
                    let cursor = load_cursor(webhooks.shared.store.as_ref(), &hook.id).unwrap_or(0);
                    webhooks.spawn(hook, cursor);
                }
                Err(error) => tracing::error!(%key, %error, "an unreadable webhook"),
            }
        }
        if webhooks.shared.store.shared() {
            let (shared, runtime, workers) = (
                webhooks.shared.clone(),
                webhooks.runtime.clone(),
                webhooks.workers.clone(),
            );
            webhooks.runtime.spawn(async move {
                let mut tick = tokio::time::interval(RESCAN);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    tick.tick().await;
                    rescan(&shared, &runtime, &workers);
                }
            });
        }
        Ok(webhooks)
    }

    fn lock_workers(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, tokio::task::JoinHandle<()>>> {
        lock_tasks(&self.workers)
    }

    /// The webhooks this node delivers now, each with how many positions of the event log its
    /// worker has not looked at yet.
    /// Attempts, failures and webhooks marked failing by this node's workers so far.
    pub fn delivery_counts(&self) -> (u64, u64, u64) {
        self.shared.counts.read()
    }

    pub fn backlogs(&self) -> Vec<(String, u64)> {
        let head = *self.shared.store.subscribe_all().borrow();
        let running: Vec<String> = self
            .lock_workers()
            .iter()
            .filter(|(id, task)| {
                !task.is_finished() && self.shared.leases.holds(&crate::leases::webhook(id))
            })
            .map(|(id, _)| id.clone())
            .collect();
        let cursors = self
            .shared
            .cursors
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let mut backlogs: Vec<(String, u64)> = running
            .into_iter()
            .map(|id| {
                let cursor = cursors.get(&id).copied().unwrap_or(0);
                (id, head.saturating_sub(cursor))
            })
            .collect();
        backlogs.sort();
        backlogs
    }

    fn forget_cursor(&self, id: &str) {
        let mut cursors = self
            .shared
            .cursors
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        cursors.remove(id);
    }

    fn spawn(&self, hook: Webhook, cursor: u64) {
        spawn_worker(&self.shared, &self.runtime, &self.workers, hook, cursor);
    }

    /// Registers `url` for `player`; returns the webhook with its secret, shown this once.
    /// It is told of what happens from now on, not of the past.
    pub async fn create(&self, player: &str, url: &str) -> Result<Webhook, ApiError> {
        let url = parse_url(&self.shared.settings.addresses, url).await?;
        let _one_at_a_time = self.shared.changes.lock().await;
        if self.list(player)?.len() >= MAX_PER_PLAYER {
            return Err(ApiError::new(
                ApiCode::TooManyWebhooks,
                format!("A player may register {MAX_PER_PLAYER} webhooks; delete one first."),
            ));
        }
        let hook = Webhook {
            id: format!("wh-{}", random_hex::<8>()?),
            player_id: player.to_string(),
            url,
            secret: format!("whsec_{}", random_hex::<32>()?),
            created_at: Utc::now(),
            failing: None,
        };
        // From the current end of the log: the cursor first, so that a crash between the two
        // writes cannot start the webhook from the beginning of history.
        let head = *self.shared.store.subscribe_all().borrow();
        let store = &self.shared.store;
        store
            .put_record_async(CURSORS, &hook.id, head.to_string().as_bytes())
            .await
            .map_err(ApiError::from)?;
        let record = hook.to_record(self.shared.repository.key())?;
        store
            .put_record_async(WEBHOOKS, &key(player, &hook.id), &record)
            .await
            .map_err(ApiError::from)?;
        self.spawn(hook.clone(), head);
        tracing::info!(webhook = %hook.id, %player, url = %hook.url, "webhook registered");
        Ok(hook)
    }

    /// The player's webhooks, in id order.
    pub fn list(&self, player: &str) -> Result<Vec<Webhook>, ApiError> {
        self.shared
            .store
            .records_with_prefix(WEBHOOKS, &key(player, ""))
            .map_err(ApiError::from)?
            .into_iter()
            .map(|(_, bytes)| Webhook::from_record(&bytes, self.shared.repository.key()))
            .collect()
    }

    /// Re-enables one of the player's webhooks that was failing: deliveries go on from the
    /// notification that was given up. An active webhook is left as it is.
    pub async fn enable(&self, player: &str, id: &str) -> Result<Webhook, ApiError> {
        let _one_at_a_time = self.shared.changes.lock().await;
        let store = &self.shared.store;
        let Some(bytes) = store
            .get_record(WEBHOOKS, &key(player, id))
            .map_err(ApiError::from)?
        else {
            return Err(ApiError::new(
                ApiCode::WebhookNotFound,
                format!("You have no webhook \"{id}\"."),
            ));
        };
        let mut hook = Webhook::from_record(&bytes, self.shared.repository.key())?;
        if hook.failing.take().is_none() {
            return Ok(hook);
        }
        let record = hook.to_record(self.shared.repository.key())?;
        store
            .put_record_async(WEBHOOKS, &key(player, id), &record)
            .await
            .map_err(ApiError::from)?;
        let cursor = load_cursor(store.as_ref(), id).unwrap_or(0);
        self.spawn(hook.clone(), cursor);
        tracing::info!(webhook = %id, %player, cursor, "webhook re-enabled");
        Ok(hook)
    }

    /// Deletes one of the player's webhooks and stops its worker.
    pub async fn delete(&self, player: &str, id: &str) -> Result<(), ApiError> {
        let _one_at_a_time = self.shared.changes.lock().await;
        let store = &self.shared.store;
        let removed = store
            .remove_record_async(WEBHOOKS, &key(player, id))
            .await
            .map_err(ApiError::from)?;
        if !removed {
            return Err(ApiError::new(
                ApiCode::WebhookNotFound,
                format!("You have no webhook \"{id}\"."),
            ));
        }
        if let Some(task) = self.lock_workers().remove(id) {
            task.abort();
            self.forget_cursor(id);
        }
        store
            .remove_record_async(CURSORS, id)
            .await
            .map_err(ApiError::from)?;
        tracing::info!(webhook = %id, %player, "webhook deleted");
        Ok(())
    }
}

fn lock_tasks(
    workers: &WorkerTasks,
) -> std::sync::MutexGuard<'_, HashMap<String, tokio::task::JoinHandle<()>>> {
    workers.lock().unwrap_or_else(|p| p.into_inner())
}

fn spawn_worker(
    shared: &Arc<Shared>,
    runtime: &tokio::runtime::Handle,
    workers: &WorkerTasks,
    hook: Webhook,
    cursor: u64,
) {
    let id = hook.id.clone();
    let worker = Worker::new(shared.clone(), hook, cursor);
    let task = runtime.spawn(worker.run());
    if let Some(old) = lock_tasks(workers).insert(id, task) {
        old.abort();
    }
}

/// Brings this server's workers in line with the webhooks' records, which other servers of
/// the store change too: a worker for every active webhook (one that stopped, its webhook
/// failing, is started again once its owner re-enabled it), none for a deleted or failing one.
fn rescan(shared: &Arc<Shared>, runtime: &tokio::runtime::Handle, workers: &WorkerTasks) {
    let records = match shared.store.records_with_prefix(WEBHOOKS, "") {
        Ok(records) => records,
        Err(error) => {
            tracing::warn!(%error, "cannot read the webhooks");
            return;
        }
    };
    let mut active = std::collections::HashSet::new();
    for (key, bytes) in records {
        let hook = match Webhook::from_record(&bytes, shared.repository.key()) {
            Ok(hook) => hook,
            Err(error) => {
                tracing::error!(%key, %error, "an unreadable webhook");
                continue;
            }
        };
        if hook.failing.is_some() {
            continue;
        }
        active.insert(hook.id.clone());
        let running = lock_tasks(workers)
            .get(&hook.id)
            .is_some_and(|task| !task.is_finished());
        if !running {
            let cursor = load_cursor(shared.store.as_ref(), &hook.id).unwrap_or(0);
            spawn_worker(shared, runtime, workers, hook, cursor);
        }
    }
    lock_tasks(workers).retain(|id, task| {
        let keep = active.contains(id);
        if !keep {
            task.abort();
        }
        keep
    });
}

/// A URL the policy takes, of at most `MAX_URL_LENGTH` characters, whose host is not inside.
async fn parse_url(policy: &AddressPolicy, text: &str) -> Result<String, ApiError> {
    let refuse = |why: &str| {
        ApiError::new(ApiCode::InvalidWebhookUrl,
            format!("A webhook URL is an absolute https:// URL (or http:// where this server allows it) of at most {MAX_URL_LENGTH} characters, to a public address; {why}."),
        )
    };
    let text = text.trim();
    if text.chars().count() > MAX_URL_LENGTH {
        return Err(refuse("this one is longer"));
    }
    let url = policy.parse(text).map_err(|why| refuse(&why))?;
    policy
        .check_addresses(&url)
        .await
        .map_err(|why| refuse(&why))?;
    Ok(url.to_string())
}
