//! Randomness from the operating system: game seeds, ids and tokens. The rules never draw it
//! themselves; seeds come in through `Context`.

use crate::error::ApiError;
use rand_core::{OsRng, TryRngCore};

/// `N` random bytes from the operating system.
pub fn random_bytes<const N: usize>() -> Result<[u8; N], ApiError> {
    let mut bytes = [0u8; N];
    OsRng.try_fill_bytes(&mut bytes).map_err(|e| {
        ApiError::internal(format!("the operating system gave no random bytes: {e}"))
    })?;
    Ok(bytes)
}

/// `N` random bytes from the operating system, as hex.
pub fn random_hex<const N: usize>() -> Result<String, ApiError> {
    Ok(hex::encode(random_bytes::<N>()?))
}

/// A fresh seed for a game (or a takeback's fork of a game with hidden cards).
pub fn seed() -> Result<domain::Seed, ApiError> {
    Ok(domain::Seed(random_bytes::<32>()?))
}

/// A fresh game id: `g-` and 16 hexadecimal digits.
pub fn game_id() -> Result<String, ApiError> {
    Ok(format!("g-{}", random_hex::<8>()?))
}
