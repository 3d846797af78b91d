//! Sealing the secrets of a store written before secrets were sealed, at startup, once per
//! store: every game's seeds still in clear are sealed in place (the streams stay byte for
//! byte as they were). Until it has finished, seeds in clear are read as they are, so games
//! play on meanwhile. Webhooks' secrets are sealed when the webhooks start
//! (`Webhooks::start`).

use crate::commands::Games;
use crate::error::ApiError;
use crate::repository::{EARLIER_SEEDS, SEED};
use crate::sealing::stored_in_clear;

/// Where the store records that its seeds are all sealed.
const META: (&str, &str) = ("meta", "secrets_sealed");
/// Events read per page of the global log.
const PAGE: usize = 1000;

impl Games {
    /// Seals every game's seeds that are still in clear, unless the store says it was done;
    /// returns how many games it changed. It walks the whole log, for the first event of
    /// every stream, so that games that are in no list (an import cut short) are sealed too.
    pub fn seal_legacy_secrets(&self) -> Result<usize, ApiError> {
        let store = self.repository().store();
        if store
            .get_record(META.0, META.1)
            .map_err(ApiError::from)?
            .is_some()
        {
            return Ok(0);
        }
        let key = self.repository().key();
        let mut changed: usize = 0;
        let mut after = 0;
        loop {
            let page = store.read_all(after, PAGE).map_err(ApiError::from)?;
            let Some(last) = page.last() else { break };
            after = last.position;
            for first in page.iter().filter(|envelope| envelope.version == 1) {
                let mut sealed_one = false;
                for name in [SEED, EARLIER_SEEDS] {
                    let stream = &first.stream;
                    let Some(stored) = store.secret(stream, name).map_err(ApiError::from)? else {
                        continue;
                    };
                    if !stored_in_clear(&stored) {
                        continue;
                    }
                    let sealed = key
                        .seal_seeds(stream, name, &stored)
                        .map_err(ApiError::internal)?;
                    store
                        .replace_secret(stream, name, &sealed)
                        .map_err(ApiError::from)?;
                    sealed_one = true;
                }
                if sealed_one {
                    changed += 1;
                    if changed.is_multiple_of(1000) {
                        tracing::info!(games = changed, "sealing the seeds of an older store");
                    }
                }
            }
        }
        store
            .put_record(META.0, META.1, b"1")
            .map_err(ApiError::from)?;
        Ok(changed)
    }
}
