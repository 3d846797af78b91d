//! Reply addresses and unsubscribe links: each carries an HMAC tag under the secrets key, so
//! it cannot be guessed, altered, or moved to another player, game, seat or turn.
//!
//! A reply address is `r+<game>.<seat>.<player>.<version>.<tag>@<domain of --mail-from>`, the
//! version (in hex) the game's when the mail was written: the address is the key of that turn
//! only, and the inbound path plays nothing with it once the player has acted after that
//! version (see docs/email.md, "Why a reply address is good for one turn"). Up to 7 hex digits
//! of a version, it stays within the 64 characters a local part may have.

use crate::sealing::SecretsKey;
use domain::Seat;

/// The local part's prefix of every reply address.
const PREFIX: &str = "r+";
/// Hex digits of a tag kept in an address (56 bits: a local part holds at most 64 characters,
/// and a guess costs an SMTP command).
const TAG_DIGITS: usize = 14;

/// The seat of a game a reply address stands for, and the version of the game its mail showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplyTo {
    pub game: String,
    pub seat: Seat,
    pub player: String,
    /// The game's version when the mail was written: the address plays nothing once the
    /// player has acted after it.
    pub version: u64,
}

fn tag_of(key: &SecretsKey, what: &str) -> String {
    hex::encode(key.tag(what.as_bytes()))[..TAG_DIGITS].to_string()
}

fn reply_message(to: &ReplyTo) -> String {
    format!("reply:{}:{}:{}:{}", to.game, to.seat, to.player, to.version)
}

/// The reply address of `player` at `seat` of `game`, for the turn of `version`.
pub fn reply_address(key: &SecretsKey, domain: &str, to: &ReplyTo) -> String {
    let tag = tag_of(key, &reply_message(to));
    format!(
        "{PREFIX}{}.{}.{}.{:x}.{tag}@{domain}",
        to.game, to.seat, to.player, to.version
    )
}

/// Compares two strings in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The seat a reply address stands for, if its tag is this server's for it.
pub fn parse_reply_address(key: &SecretsKey, address: &str) -> Option<ReplyTo> {
    let (local, _domain) = address.trim().rsplit_once('@')?;
    // Ids are lowercase; mail systems may change the case of a local part.
    let local = local.to_ascii_lowercase();
    let rest = local.strip_prefix(PREFIX)?;
    let mut parts = rest.split('.');
    let (game, seat, player, version, tag) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    if parts.next().is_some() || version.len() > 16 {
        return None;
    }
    let to = ReplyTo {
        game: game.to_string(),
        seat: seat.parse().ok()?,
        player: player.to_string(),
        version: u64::from_str_radix(version, 16).ok()?,
    };
    // Written as this server writes it, or not at all (no `+1` for `1`, no leading zeros).
    if format!("{:x}", to.version) != version || to.seat.to_string() != seat {
        return None;
    }
    let expected = tag_of(key, &reply_message(&to));
    same(&expected, tag).then_some(to)
}

/// The tag of `player`'s unsubscribe link.
pub fn unsubscribe_tag(key: &SecretsKey, player: &str) -> String {
    tag_of(key, &format!("unsubscribe:{player}"))
}

/// Whether `tag` is `player`'s unsubscribe tag.
pub fn unsubscribe_tag_valid(key: &SecretsKey, player: &str, tag: &str) -> bool {
    same(&unsubscribe_tag(key, player), &tag.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(game: &str, seat: Seat, player: &str, version: u64) -> ReplyTo {
        ReplyTo {
            game: game.into(),
            seat,
            player: player.into(),
            version,
        }
    }

    #[test]
    fn a_reply_address_stands_for_its_own_seat_and_turn_only() {
        let key = SecretsKey::generate().unwrap();
        let mine = seat("g-00000000000000aa", 1, "p-00000000000000bb", 0x1234);
        let address = reply_address(&key, "example.org", &mine);
        assert!(address.len() - "@example.org".len() <= 64, "{address}");
        assert_eq!(parse_reply_address(&key, &address), Some(mine.clone()));
        assert_eq!(
            parse_reply_address(&key, &address.to_ascii_uppercase()),
            Some(mine)
        );
        // Another seat, game, player or turn with the same tag: refused.
        let moved = address.replacen(".1.", ".0.", 1);
        assert_eq!(parse_reply_address(&key, &moved), None);
        let other_game = address.replacen("aa.", "ab.", 1);
        assert_eq!(parse_reply_address(&key, &other_game), None);
        let later = address.replacen(".1234.", ".1235.", 1);
        assert_eq!(parse_reply_address(&key, &later), None);
        let padded = address.replacen(".1234.", ".01234.", 1);
        assert_eq!(parse_reply_address(&key, &padded), None);
        // Another server's key: refused.
        let other = SecretsKey::generate().unwrap();
        assert_eq!(parse_reply_address(&other, &address), None);
        assert_eq!(parse_reply_address(&key, "r+x@example.org"), None);
        assert_eq!(parse_reply_address(&key, "garbage"), None);
    }

    #[test]
    fn an_unsubscribe_tag_is_the_players_own() {
        let key = SecretsKey::generate().unwrap();
        let tag = unsubscribe_tag(&key, "p-1");
        assert!(unsubscribe_tag_valid(&key, "p-1", &tag));
        assert!(!unsubscribe_tag_valid(&key, "p-2", &tag));
    }
}
