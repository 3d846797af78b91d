//! One webhook's worker: follows the global event log from its own durable cursor, derives
//! its player's notifications and POSTs each until the receiver answers 2xx. The cursor moves
//! only past what was delivered, so nothing is lost across a restart (a notification may
//! repeat after a crash between the answer and the cursor's write: at least once). It
//! delivers only while its server holds the webhook's lease, so that several servers on one
//! database deliver each notification once (and again only after such a crash).

use super::address::AddressPolicy;
use super::notification::Notification;
use super::signature::{sign, DELIVERY_HEADER, SIGNATURE_HEADER};
use super::{Webhook, CURSORS};
use crate::index;
use crate::leases::{self, Held, Leases};
use crate::notices::Folds;
use crate::notices::TOURNAMENT_PREFIX;
use crate::Repository;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use storage::{Envelope, Storage};

/// Events read from the log at a time.
const PAGE: usize = 256;
/// How often a worker without its webhook's lease tries to take it (a round trip to the
/// database), and a worker with it makes sure it still holds it while the log is quiet.
const LEASE_WAIT: Duration = Duration::from_secs(1);

/// How deliveries are retried, and where they may go.
#[derive(Clone, Debug)]
pub struct DeliverySettings {
    /// The wait after the first failed attempt; it doubles after each further failure.
    pub retry_min: Duration,
    /// The longest wait between two attempts.
    pub retry_max: Duration,
    /// How long a receiver may take to answer.
    pub timeout: Duration,
    /// Which URLs a webhook may have (see `address`).
    pub addresses: Arc<AddressPolicy>,
    /// How long a notification is retried before its webhook is marked failing and stopped
    /// (its owner re-enables it; nothing after the undelivered notification is skipped).
    pub give_up_after: Duration,
}

impl Default for DeliverySettings {
    fn default() -> DeliverySettings {
        DeliverySettings {
            retry_min: Duration::from_millis(200),
            retry_max: Duration::from_secs(30),
            timeout: Duration::from_secs(10),
            addresses: Arc::new(AddressPolicy::default()),
            give_up_after: Duration::from_secs(3 * 24 * 3600),
        }
    }
}

/// What every worker shares.
pub struct Shared {
    /// Changes to the webhooks' records, one at a time (registrations, deletions, a worker
    /// marking its webhook failing), so that none undoes another.
    pub changes: tokio::sync::Mutex<()>,
    pub store: Arc<dyn Storage>,
    /// Folds the player's games when a worker has not kept them.
    pub repository: Repository,
    pub http: reqwest::Client,
    pub settings: DeliverySettings,
    /// Each running worker's cursor as it moves (for `GET /metrics`'s backlog).
    pub cursors: std::sync::Mutex<HashMap<String, u64>>,
    /// The webhooks' leases: a worker delivers only while its server holds its webhook's.
    pub leases: Arc<Leases>,
    /// What the workers of this node did, for `GET /metrics`.
    pub counts: DeliveryCounts,
}

/// Deliveries of this node's workers since it started (counters for `GET /metrics`, with no
/// label per webhook).
#[derive(Debug, Default)]
pub struct DeliveryCounts {
    /// Posts to receivers (every try of every notification).
    pub attempts: std::sync::atomic::AtomicU64,
    /// Posts that failed: refused by the receiver, not delivered, or not sent.
    pub failures: std::sync::atomic::AtomicU64,
    /// Webhooks marked failing (their deliveries stopped).
    pub marked_failing: std::sync::atomic::AtomicU64,
}

impl DeliveryCounts {
    fn add(counter: &std::sync::atomic::AtomicU64) {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Attempts, failures and webhooks marked failing so far.
    pub fn read(&self) -> (u64, u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (
            self.attempts.load(Relaxed),
            self.failures.load(Relaxed),
            self.marked_failing.load(Relaxed),
        )
    }
}

impl Shared {
    fn note_cursor(&self, id: &str, cursor: u64) {
        let mut cursors = self.cursors.lock().unwrap_or_else(|p| p.into_inner());
        cursors.insert(id.to_string(), cursor);
    }
}

/// A notification retried for longer than `give_up_after`, with its last error.
struct GaveUp(String);

/// The events of one command (one append) in a game's stream.
struct Batch {
    stream: String,
    first_version: u64,
    last_position: u64,
    events: Vec<Envelope>,
}

/// A webhook's worker: its cursor and the games of its player it has folded.
pub struct Worker {
    shared: Arc<Shared>,
    hook: Webhook,
    cursor: u64,
    /// The cursor as last written to disk.
    stored: u64,
    /// Games of the player, folded at the version last processed.
    folds: Folds,
}

pub fn load_cursor(store: &dyn Storage, id: &str) -> Option<u64> {
    let bytes = store.get_record(CURSORS, id).ok()??;
    String::from_utf8(bytes).ok()?.parse().ok()
}

impl Worker {
    pub fn new(shared: Arc<Shared>, hook: Webhook, cursor: u64) -> Worker {
        Worker {
            shared,
            hook,
            cursor,
            stored: cursor,
            folds: Folds::default(),
        }
    }

    /// Runs until the task is aborted (the webhook deleted or the server stopped) or the
    /// webhook is found failing. Delivers while this server holds the webhook's lease; waits
    /// for it otherwise (another server delivers meanwhile).
    pub async fn run(mut self) {
        let lease = Held::new(self.shared.leases.clone(), leases::webhook(&self.hook.id));
        let shared_store = self.shared.store.shared();
        loop {
            if !self.shared.leases.hold(lease.name()) {
                tokio::time::sleep(LEASE_WAIT).await;
                continue;
            }
            if shared_store {
                // Another server may have delivered, moved the cursor on, marked the webhook
                // failing or deleted it while it held the lease.
                match self.shared.store.get_record(
                    super::WEBHOOKS,
                    &super::key(&self.hook.player_id, &self.hook.id),
                ) {
                    Ok(Some(bytes)) => {
                        match super::Webhook::from_record(&bytes, self.shared.repository.key()) {
                            Ok(hook) if hook.failing.is_none() => self.hook = hook,
                            _ => return,
                        }
                    }
                    Ok(None) => return,
                    Err(error) => {
                        tracing::warn!(webhook = %self.hook.id, %error, "cannot read the webhook");
                        tokio::time::sleep(LEASE_WAIT).await;
                        continue;
                    }
                }
                if let Some(cursor) = load_cursor(self.shared.store.as_ref(), &self.hook.id) {
                    self.cursor = cursor;
                    self.stored = cursor;
                }
                self.folds = Folds::default();
            }
            if self.deliver_while_held(lease.name()).await {
                return;
            }
        }
    }

    /// Follows the log and delivers while this server holds lease `lease`. Returns true when
    /// the worker is done for good (the webhook was given up), false when the lease was lost.
    async fn deliver_while_held(&mut self, lease: &str) -> bool {
        tracing::info!(webhook = %self.hook.id, player = %self.hook.player_id, cursor = self.cursor, "webhook worker delivering");
        let mut positions = self.shared.store.subscribe_all();
        loop {
            if !self.shared.leases.holds(lease) {
                tracing::warn!(webhook = %self.hook.id, "webhook lease lost: another server delivers");
                return false;
            }
            self.shared.note_cursor(&self.hook.id, self.cursor);
            let page = match self.shared.store.read_all(self.cursor, PAGE) {
                Ok(page) => page,
                Err(error) => {
                    tracing::error!(webhook = %self.hook.id, %error, "cannot read the event log");
                    tokio::time::sleep(self.shared.settings.retry_max).await;
                    continue;
                }
            };
            if page.is_empty() {
                self.store_cursor().await;
                let cursor = self.cursor;
                // Wakes now and then to make sure the lease is still this server's, where
                // other servers could take it.
                let wait = if self.shared.store.shared() {
                    LEASE_WAIT
                } else {
                    Duration::from_secs(3600)
                };
                let woke =
                    tokio::time::timeout(wait, positions.wait_for(|&durable| durable > cursor))
                        .await;
                if matches!(woke, Ok(Err(_))) {
                    return true; // the store is gone: the server is stopping
                }
                continue;
            }
            for envelope in &page {
                if envelope.position <= self.cursor {
                    continue; // part of a batch already handled
                }
                if !self.shared.leases.holds(lease) {
                    break;
                }
                if let Err(GaveUp(error)) = self.follow(envelope).await {
                    self.store_cursor().await;
                    self.mark_failing(error).await;
                    return true;
                }
            }
        }
    }

    /// Handles the batch that `envelope` begins and moves the cursor past it; leaves the cursor
    /// before it if a notification was given up.
    async fn follow(&mut self, envelope: &Envelope) -> Result<(), GaveUp> {
        if envelope.stream.starts_with(TOURNAMENT_PREFIX) {
            // Each event of a tournament tells on its own.
            let found = self.tournament(envelope);
            for notification in &found {
                self.deliver(notification).await?;
            }
            self.cursor = envelope.position;
            if !found.is_empty() {
                self.store_cursor().await;
            }
            return Ok(());
        }
        // Only games and tournaments notify; other streams (a player's vacations, ...) are
        // passed over.
        if !envelope.stream.starts_with("g-") {
            self.cursor = envelope.position;
            return Ok(());
        }
        match self.batch(envelope) {
            Ok(batch) => {
                let found = self.derive(&batch);
                for notification in &found {
                    self.deliver(notification).await?;
                }
                self.cursor = batch.last_position;
                if !found.is_empty() {
                    self.store_cursor().await;
                }
            }
            Err(error) => {
                // Our fault, not the receiver's: told in the log, and the event passed over
                // rather than holding up every later notification.
                tracing::error!(webhook = %self.hook.id, game = %envelope.stream, version = envelope.version, %error, "cannot derive notifications");
                self.cursor = envelope.position;
            }
        }
        Ok(())
    }

    /// Records that the webhook failed for too long, with its last error, unless it was
    /// deleted meanwhile; its owner sees it and may re-enable it.
    async fn mark_failing(&mut self, last_error: String) {
        let _one_at_a_time = self.shared.changes.lock().await;
        let store = &self.shared.store;
        let key = super::key(&self.hook.player_id, &self.hook.id);
        match store.get_record(super::WEBHOOKS, &key) {
            Ok(Some(_)) => {}
            _ => return, // deleted: nothing to mark
        }
        self.hook.failing = Some(super::Failing {
            since: chrono::Utc::now(),
            last_error,
        });
        let written = match self.hook.to_record(self.shared.repository.key()) {
            Ok(record) => store
                .put_record_async(super::WEBHOOKS, &key, &record)
                .await
                .map_err(|e| e.to_string()),
            Err(error) => Err(error.to_string()),
        };
        match written {
            Ok(()) => {
                DeliveryCounts::add(&self.shared.counts.marked_failing);
                tracing::warn!(webhook = %self.hook.id, player = %self.hook.player_id, "webhook marked failing: deliveries stopped until its owner re-enables it")
            }
            Err(error) => {
                tracing::error!(webhook = %self.hook.id, %error, "cannot mark the webhook failing")
            }
        }
    }

    /// The whole batch beginning at `envelope`, if the game is one of the player's.
    fn batch(&self, envelope: &Envelope) -> Result<Batch, String> {
        let store = &self.shared.store;
        let tags = store.tags(&envelope.stream).map_err(|e| e.to_string())?;
        // Seats are never given up, so a game without the player in its index never had them.
        let mine = tags
            .iter()
            .any(|(name, value)| name == index::PLAYER && value == &self.hook.player_id);
        let command = store
            .command(&envelope.stream, envelope.version)
            .map_err(|e| e.to_string())?
            .ok_or("no command for the event")?;
        if !mine {
            return Ok(Batch {
                stream: envelope.stream.clone(),
                first_version: command.first_version,
                last_position: command.last_position,
                events: Vec::new(),
            });
        }
        let count = (command.last_version + 1 - command.first_version) as usize;
        let events = store
            .read_stream(&envelope.stream, command.first_version - 1, count)
            .map_err(|e| e.to_string())?;
        Ok(Batch {
            stream: envelope.stream.clone(),
            first_version: command.first_version,
            last_position: command.last_position,
            events,
        })
    }

    /// The player's notifications of one batch (those webhooks carry); keeps the folded game
    /// for the next one.
    fn derive(&mut self, batch: &Batch) -> Vec<Notification> {
        if batch.events.is_empty() {
            return Vec::new(); // not the player's game
        }
        let player = self.hook.player_id.clone();
        match self.folds.derive(
            &self.shared.repository,
            &batch.stream,
            batch.first_version,
            &batch.events,
            &[player.as_str()],
        ) {
            Ok(found) => found
                .into_iter()
                .filter(|n| n.kind_of_notification.hooked())
                .collect(),
            Err(error) => {
                tracing::error!(game = %batch.stream, %error, "cannot fold the game");
                Vec::new()
            }
        }
    }

    /// The player's notifications of one event of a tournament's stream.
    fn tournament(&mut self, envelope: &Envelope) -> Vec<Notification> {
        let player = self.hook.player_id.clone();
        match self
            .folds
            .tournament(self.shared.store.as_ref(), envelope, &player)
        {
            Ok(found) => found,
            Err(error) => {
                // Our fault, not the receiver's: told in the log, and the event passed over.
                tracing::error!(webhook = %self.hook.id, tournament = %envelope.stream, version = envelope.version, %error, "cannot derive notifications");
                Vec::new()
            }
        }
    }

    /// POSTs the notification until the receiver answers 2xx, waiting longer after each
    /// failure, for at most `give_up_after`: then gives up with the last error, and the
    /// notification waits (with every later one) for the webhook to be re-enabled.
    async fn deliver(&self, notification: &Notification) -> Result<(), GaveUp> {
        let body = match serde_json::to_vec(notification) {
            Ok(body) => body,
            Err(error) => {
                tracing::error!(%error, "cannot write a notification");
                return Ok(());
            }
        };
        let first_try = tokio::time::Instant::now();
        let mut attempt = 0u64;
        let settings = &self.shared.settings;
        let mut wait = settings.retry_min;
        loop {
            attempt += 1;
            // A host written as an address is not resolved, so the resolver cannot check it.
            let checked = reqwest::Url::parse(&self.hook.url)
                .map_err(|e| e.to_string())
                .and_then(|url| settings.addresses.check_literal(&url));
            DeliveryCounts::add(&self.shared.counts.attempts);
            if let Err(refused) = checked {
                DeliveryCounts::add(&self.shared.counts.failures);
                tracing::warn!(webhook = %self.hook.id, notification = %notification.id, %refused, attempt, retry_in_ms = wait.as_millis() as u64, "notification not sent: the address is refused");
                if first_try.elapsed() >= settings.give_up_after {
                    return Err(GaveUp(format!("not sent: {refused}")));
                }
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(settings.retry_max);
                continue;
            }
            let answer = self
                .shared
                .http
                .post(&self.hook.url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                // Signed at each attempt: the time is when it was sent.
                .header(
                    SIGNATURE_HEADER,
                    sign(&self.hook.secret, chrono::Utc::now().timestamp(), &body),
                )
                .header(DELIVERY_HEADER, &notification.id)
                .body(body.clone())
                .send()
                .await;
            let failure = match answer {
                Ok(response) if response.status().is_success() => {
                    tracing::info!(webhook = %self.hook.id, notification = %notification.id, status = response.status().as_u16(), attempt, "notification delivered");
                    return Ok(());
                }
                Ok(response) => {
                    DeliveryCounts::add(&self.shared.counts.failures);
                    tracing::warn!(webhook = %self.hook.id, notification = %notification.id, status = response.status().as_u16(), attempt, retry_in_ms = wait.as_millis() as u64, "receiver refused the notification");
                    format!("the receiver answered {}", response.status())
                }
                Err(error) => {
                    DeliveryCounts::add(&self.shared.counts.failures);
                    tracing::warn!(webhook = %self.hook.id, notification = %notification.id, %error, attempt, retry_in_ms = wait.as_millis() as u64, "notification not delivered");
                    format!("not delivered: {error}")
                }
            };
            if first_try.elapsed() >= settings.give_up_after {
                return Err(GaveUp(format!("{failure} ({attempt} attempts)")));
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(settings.retry_max);
        }
    }

    /// Writes the cursor if it moved since it was last written.
    async fn store_cursor(&mut self) {
        if self.cursor == self.stored {
            return;
        }
        let value = self.cursor.to_string();
        match self
            .shared
            .store
            .put_record_async(CURSORS, &self.hook.id, value.as_bytes())
            .await
        {
            Ok(()) => self.stored = self.cursor,
            Err(error) => {
                tracing::error!(webhook = %self.hook.id, %error, "cannot store the cursor")
            }
        }
    }
}
