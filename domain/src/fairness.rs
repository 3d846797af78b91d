//! Fair randomness: a secret per-game seed, its public SHA-256 commitment, and the one shuffle
//! every deal goes through, so that anyone holding the revealed seed can re-derive every deal.
//!
//! # The procedure, written out so it can be re-implemented anywhere
//!
//! 1. Each game has a 32-byte [`Seed`]. Its commitment is `SHA-256(seed)`, shown as lowercase hex
//!    from the moment the game is created; the seed itself is revealed when the game ends.
//! 2. Every shuffle of a game names a *stream number* (`u64`). The random source of that shuffle
//!    is ChaCha20 (20 rounds, the `rand_chacha::ChaCha20Rng` construction): key = the seed,
//!    stream = the stream number, starting at word position 0. The engines choose stream
//!    numbers that never repeat within a game (the stream version before the command that
//!    shuffles, and fixed small numbers for the first deal), so no two shuffles share output.
//! 3. Words are taken from that source as little-endian `u32` values, in order.
//! 4. A uniform integer in `0..=i` is drawn by rejection: let `n = i + 1` and
//!    `zone = 2^32 - (2^32 mod n)`; take words until one is `< zone`; the result is `word mod n`.
//!    (When `n` divides 2^32 no word is rejected.)
//! 5. The shuffle is Fisher-Yates from the back: for `i` from `len - 1` down to `1`, draw `j`
//!    uniform in `0..=i` and swap the items at `i` and `j`.
//!
//! The test vectors in this module's tests pin the output for a fixed seed: they must never
//! change, whatever crate upgrades happen, or old games could no longer be audited.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

/// A game's secret 32-byte seed. Serialized as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seed(pub [u8; 32]);

impl Seed {
    /// The public commitment: `SHA-256(seed)` as lowercase hex.
    pub fn commitment(&self) -> String {
        hex::encode(Sha256::digest(self.0))
    }

    /// Whether this seed is the one a commitment was made to.
    pub fn matches(&self, commitment: &str) -> bool {
        self.commitment().eq_ignore_ascii_case(commitment)
    }

    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    pub fn from_hex(text: &str) -> Result<Seed, SeedError> {
        let bytes = hex::decode(text.trim()).map_err(|_| SeedError)?;
        let array: [u8; 32] = bytes.try_into().map_err(|_| SeedError)?;
        Ok(Seed(array))
    }

    /// The random source for one shuffle: ChaCha20 keyed by the seed, on the given stream.
    pub fn dealer(&self, stream: u64) -> Dealer {
        let mut rng = ChaCha20Rng::from_seed(self.0);
        rng.set_stream(stream);
        rng.set_word_pos(0);
        Dealer { rng }
    }
}

/// Seeds are secret: their debug form never shows the bytes.
impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seed(commitment {})", &self.commitment()[..16])
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a seed is 64 hexadecimal digits (32 bytes)")]
pub struct SeedError;

impl Serialize for Seed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Seed, D::Error> {
        let text = String::deserialize(d)?;
        Seed::from_hex(&text).map_err(serde::de::Error::custom)
    }
}

/// The random source of one shuffle (see the module documentation for the exact procedure).
pub struct Dealer {
    rng: ChaCha20Rng,
}

impl Dealer {
    /// A uniform integer in `0..=max`, by rejection sampling on 32-bit words.
    pub fn uniform_inclusive(&mut self, max: u32) -> u32 {
        let n = u64::from(max) + 1;
        let zone = (1u64 << 32) - ((1u64 << 32) % n);
        loop {
            let word = u64::from(self.rng.next_u32());
            if word < zone {
                return (word % n) as u32;
            }
        }
    }

    /// Fisher-Yates from the back, as documented in the module.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.uniform_inclusive(i as u32) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed_seed() -> Seed {
        let mut bytes = [0u8; 32];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = i as u8;
        }
        Seed(bytes)
    }

    /// Pinned: SHA-256 of the bytes 0x00..0x1f.
    #[test]
    fn the_commitment_is_the_sha256_of_the_seed() {
        assert_eq!(
            fixed_seed().commitment(),
            "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
        );
        assert!(fixed_seed().matches(&fixed_seed().commitment()));
        assert!(!Seed([0; 32]).matches(&fixed_seed().commitment()));
    }

    /// Pinned forever: the seed 00 01 02 .. 1f on stream 0 gives this permutation of 110
    /// cards (numbered 0 to 109). If this test fails, a dependency changed its output and
    /// recorded games could no longer be audited: do not update the vector, fix the code.
    #[test]
    fn a_fixed_seed_gives_a_fixed_permutation_of_110_cards() {
        let mut cards: Vec<u32> = (0..110).collect();
        fixed_seed().dealer(0).shuffle(&mut cards);
        assert_eq!(cards, PINNED_110_STREAM_0.to_vec());
        let mut again: Vec<u32> = (0..110).collect();
        fixed_seed().dealer(0).shuffle(&mut again);
        assert_eq!(again, cards);
    }

    #[test]
    fn another_stream_gives_another_permutation() {
        let mut cards: Vec<u32> = (0..110).collect();
        fixed_seed().dealer(7).shuffle(&mut cards);
        assert_eq!(cards, PINNED_110_STREAM_7.to_vec());
    }

    /// Pinned: the first words of ChaCha20 for the fixed seed, so that a change in the
    /// generator and a change in our sampling can be told apart.
    #[test]
    fn the_chacha20_words_are_pinned() {
        let mut dealer = fixed_seed().dealer(0);
        let words: Vec<u32> = (0..4).map(|_| dealer.rng.next_u32()).collect();
        assert_eq!(words, PINNED_WORDS.to_vec());
    }

    #[test]
    fn uniform_draws_stay_in_range_and_cover_it() {
        let mut dealer = fixed_seed().dealer(1);
        let mut seen = [0u32; 6];
        for _ in 0..6000 {
            seen[dealer.uniform_inclusive(5) as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n > 800 && n < 1200), "{seen:?}");
    }

    #[test]
    fn seeds_round_trip_through_hex_and_reject_garbage() {
        let seed = fixed_seed();
        assert_eq!(Seed::from_hex(&seed.to_hex()), Ok(seed));
        assert!(Seed::from_hex("abc").is_err());
        assert!(Seed::from_hex(&"zz".repeat(32)).is_err());
        assert!(!format!("{seed:?}").contains(&seed.to_hex()));
    }

    /// Also derived by `tools/rederive_shuffle.py`, an independent ChaCha20 written from the
    /// specification: `python3 tools/rederive_shuffle.py 000102..1f 0 110`.
    const PINNED_WORDS: [u32; 4] = [2100034873, 1780073945, 1996733837, 1229642936];
    const PINNED_110_STREAM_0: [u32; 110] = [
        93, 38, 70, 106, 21, 23, 24, 26, 33, 79, 67, 7, 92, 8, 40, 10, 63, 95, 80, 54, 48, 47, 43,
        75, 18, 36, 35, 62, 66, 94, 57, 53, 82, 71, 84, 14, 96, 49, 20, 74, 73, 39, 85, 78, 103,
        19, 101, 89, 52, 59, 108, 56, 107, 25, 86, 102, 37, 9, 22, 88, 27, 55, 30, 42, 100, 83,
        104, 69, 109, 44, 45, 11, 77, 46, 41, 87, 51, 12, 91, 81, 64, 61, 28, 17, 5, 32, 76, 60, 0,
        58, 105, 99, 16, 4, 65, 98, 72, 1, 2, 31, 90, 3, 97, 34, 15, 50, 6, 29, 68, 13,
    ];
    const PINNED_110_STREAM_7: [u32; 110] = [
        47, 36, 104, 38, 39, 4, 73, 86, 84, 5, 13, 52, 50, 80, 29, 64, 85, 55, 11, 63, 57, 40, 23,
        89, 105, 8, 16, 28, 45, 65, 56, 20, 94, 83, 75, 102, 74, 60, 58, 91, 3, 6, 92, 44, 67, 0,
        88, 108, 35, 17, 90, 46, 1, 81, 32, 27, 25, 76, 61, 30, 82, 24, 49, 72, 33, 51, 19, 101,
        43, 37, 53, 7, 22, 100, 96, 66, 69, 18, 95, 31, 109, 12, 59, 41, 93, 68, 71, 2, 78, 14, 79,
        62, 48, 21, 106, 87, 70, 54, 107, 10, 99, 97, 42, 9, 103, 34, 15, 26, 77, 98,
    ];
}
