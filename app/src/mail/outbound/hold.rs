//! The outbox held: a restored store must not mail real players at once the mail that was
//! waiting when its backup was taken, nor what its worker derives from events players already
//! had news of. While the hold's record is in the store, notices are still queued but nothing
//! is sent; the operator releases it (`POST /mail/release` on the admin listener) once they
//! have seen what waits. A record, not a setting, so that the hold outlives restarts and every
//! node of the store obeys it.

use super::super::Mail;
use crate::error::ApiError;

/// The record whose presence holds the outbox; its value says why.
pub const HOLD: (&str, &str) = ("mail_hold", "outbox");

/// What a restore writes as the hold's reason.
pub const RESTORED: &str = "restored from a backup";

impl Mail {
    /// Why the outbox is held, if it is (a store that cannot be read holds nothing back: the
    /// worker cannot read the outbox either then).
    pub fn held(&self) -> Option<String> {
        let record = self.repository.store().get_record(HOLD.0, HOLD.1).ok()??;
        Some(String::from_utf8_lossy(&record).into_owned())
    }

    /// Lets the outbox be sent again; whether it was held.
    pub async fn release(&self) -> Result<bool, ApiError> {
        let released = self
            .repository
            .store()
            .remove_record_async(HOLD.0, HOLD.1)
            .await
            .map_err(ApiError::from)?;
        if released {
            tracing::info!("the outbox is released: waiting mail is sent");
        }
        Ok(released)
    }
}
