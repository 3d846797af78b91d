//! The outbox: every mail to send, kept in the store until it is sent, so a crash loses none.
//! A mail waits under `w/<id>` and, once sent, is remembered under `s/<id>` for a week, so that
//! a notice derived again (after a crash before the cursor was written) is not sent twice.
//! Its text (a hand of cards, a confirmation code) is sealed under the secrets key.

use crate::error::ApiError;
use crate::sealing::SecretsKey;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use storage::Storage;

/// Where the worker records its place in the event log (a backup copies it as a cursor).
pub(crate) const CURSOR: (&str, &str) = ("mail_cursor", "log");

pub(crate) const OUTBOX: &str = "mail_outbox";
const WAITING: &str = "w/";
const SENT: &str = "s/";
/// How long a sent mail's id is remembered.
const REMEMBER_SENT: chrono::Duration = chrono::Duration::days(7);

/// A mail waiting to be sent.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Queued {
    /// The `Message-ID` without its angle brackets: the same at every attempt.
    pub id: String,
    pub from: String,
    pub to: String,
    /// The whole RFC 5322 message, sealed, as hex.
    pub message: String,
    pub created_at: DateTime<Utc>,
    pub attempts: u32,
    pub next_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// For a clock notice: the clock it warns of, which must still run when it is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub still: Option<ClockStill>,
    /// For game mail: the player it is for. It is sent only while `to` is still their
    /// confirmed address and they have not unsubscribed, so an address removed (or changed),
    /// or a player who unsubscribed, while its mail waited for the relay is sent nothing more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
    /// For a turn notice: the turn it tells of, which must still be the player's when it is
    /// sent (a mail held up by the relay is dropped once the player has acted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<TurnStill>,
}

/// What must still hold when a waiting mail is sent; a mail for which it no longer holds is
/// dropped unsent.
#[derive(Clone, Debug, Default)]
pub struct SentOnlyWhile {
    /// Game mail: `to` is still this player's confirmed address, and they take game mail.
    pub player: Option<String>,
    /// A clock notice: the clock it warns of still runs.
    pub clock: Option<ClockStill>,
    /// A turn notice: the turn is still the player's.
    pub turn: Option<TurnStill>,
}

/// The clock a clock notice warns of: a seat that must act by a deadline. Once the seat has
/// moved (or the deadline passed) the notice is not sent, even if it waited for a relay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockStill {
    pub game: String,
    pub seat: usize,
    pub deadline: DateTime<Utc>,
}

/// The turn a turn notice tells of: `player` at `seat` must act in `game` as it stood at
/// `version`. Once the player has acted after it (by any way), or the seat no longer has to
/// act, the notice is stale and not sent: its position is gone and its reply address plays
/// nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnStill {
    pub game: String,
    pub seat: usize,
    pub player: String,
    pub version: u64,
}

#[derive(Serialize, Deserialize)]
struct Sent {
    sent_at: DateTime<Utc>,
}

/// A relay URL as it may be logged: without its password.
pub fn without_password(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            if parsed.password().is_some() {
                let _ = parsed.set_password(Some("***"));
            }
            parsed.to_string()
        }
        Err(_) => "(an unreadable URL)".into(),
    }
}

fn context(id: &str) -> Vec<u8> {
    format!("mail:{id}").into_bytes()
}

pub struct Outbox {
    store: Arc<dyn Storage>,
    key: Arc<SecretsKey>,
}

impl Outbox {
    pub fn new(store: Arc<dyn Storage>, key: Arc<SecretsKey>) -> Outbox {
        Outbox { store, key }
    }

    /// Whether mail `id` is waiting or was sent.
    pub fn known(&self, id: &str) -> Result<bool, ApiError> {
        let waiting = self
            .store
            .get_record(OUTBOX, &format!("{WAITING}{id}"))
            .map_err(ApiError::internal)?;
        if waiting.is_some() {
            return Ok(true);
        }
        Ok(self
            .store
            .get_record(OUTBOX, &format!("{SENT}{id}"))
            .map_err(ApiError::internal)?
            .is_some())
    }

    /// Puts mail `id` (the whole message) in the outbox, unless it is there or was sent;
    /// returns whether it was put. Durable when this returns. It is sent only while `only`
    /// holds.
    pub async fn enqueue(
        &self,
        id: &str,
        from: &str,
        to: &str,
        message: &[u8],
        only: SentOnlyWhile,
    ) -> Result<bool, ApiError> {
        if self.known(id)? {
            return Ok(false);
        }
        let sealed = self
            .key
            .seal(&context(id), message)
            .map_err(ApiError::internal)?;
        let now = Utc::now();
        let queued = Queued {
            id: id.to_string(),
            from: from.to_string(),
            to: to.to_string(),
            message: hex::encode(sealed),
            created_at: now,
            attempts: 0,
            next_at: now,
            last_error: None,
            still: only.clock,
            player: only.player,
            turn: only.turn,
        };
        let bytes = serde_json::to_vec(&queued).map_err(ApiError::internal)?;
        self.store
            .put_record_async(OUTBOX, &format!("{WAITING}{id}"), &bytes)
            .await
            .map_err(ApiError::internal)?;
        Ok(true)
    }

    /// The message a queued mail holds.
    pub fn open(&self, queued: &Queued) -> Result<Vec<u8>, String> {
        let sealed = hex::decode(&queued.message).map_err(|e| e.to_string())?;
        self.key
            .open(&context(&queued.id), &sealed)
            .map_err(|e| e.to_string())
    }

    /// Every waiting mail, oldest id first.
    pub fn waiting(&self) -> Result<Vec<Queued>, String> {
        let records = self
            .store
            .records_with_prefix(OUTBOX, WAITING)
            .map_err(|e| e.to_string())?;
        Ok(records
            .into_iter()
            .filter_map(|(key, bytes)| match serde_json::from_slice(&bytes) {
                Ok(queued) => Some(queued),
                Err(error) => {
                    tracing::error!(%key, %error, "an unreadable mail in the outbox");
                    None
                }
            })
            .collect())
    }

    /// How many mails wait, and for how many seconds the oldest has.
    pub fn waiting_stats(&self) -> (u64, u64) {
        let waiting = self.waiting().unwrap_or_default();
        let now = Utc::now();
        let oldest = waiting
            .iter()
            .map(|q| (now - q.created_at).num_seconds().max(0) as u64)
            .max()
            .unwrap_or(0);
        (waiting.len() as u64, oldest)
    }

    /// Records that `queued` was sent: remembered as sent, no longer waiting.
    pub async fn sent(&self, queued: &Queued) -> Result<(), String> {
        let bytes = serde_json::to_vec(&Sent {
            sent_at: Utc::now(),
        })
        .map_err(|e| e.to_string())?;
        self.store
            .put_record_async(OUTBOX, &format!("{SENT}{}", queued.id), &bytes)
            .await
            .map_err(|e| e.to_string())?;
        self.store
            .remove_record_async(OUTBOX, &format!("{WAITING}{}", queued.id))
            .await
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Records a failed attempt and when to try again.
    pub async fn failed(
        &self,
        queued: &Queued,
        error: &str,
        next_at: DateTime<Utc>,
    ) -> Result<(), String> {
        let mut queued = queued.clone();
        queued.attempts += 1;
        queued.last_error = Some(error.to_string());
        queued.next_at = next_at;
        let bytes = serde_json::to_vec(&queued).map_err(|e| e.to_string())?;
        self.store
            .put_record_async(OUTBOX, &format!("{WAITING}{}", queued.id), &bytes)
            .await
            .map_err(|e| e.to_string())
    }

    /// Forgets the ids of mail sent more than a week ago.
    pub async fn prune(&self) {
        let Ok(records) = self.store.records_with_prefix(OUTBOX, SENT) else {
            return;
        };
        let cutoff = Utc::now() - REMEMBER_SENT;
        for (key, bytes) in records {
            let old = serde_json::from_slice::<Sent>(&bytes).is_ok_and(|s| s.sent_at < cutoff);
            if old {
                let _ = self.store.remove_record_async(OUTBOX, &key).await;
            }
        }
    }
}
