//! Reply addresses and unsubscribe links: each carries an HMAC tag under the secrets key, so
//! it cannot be guessed, altered, or moved to another player, game or seat.
//!
//! A reply address is `r+<game>.<seat>.<player>.<tag>@<domain of --mail-from>`: 58 characters
//! before the `@`, within the 64 a local part may have.

use crate::sealing::SecretsKey;
use domain::Seat;

/// The local part's prefix of every reply address.
const PREFIX: &str = "r+";
/// Hex digits of a tag kept in an address (64 bits: a local part holds at most 64 characters).
const TAG_DIGITS: usize = 16;

/// The seat of a game a reply address stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplyTo {
    pub game: String,
    pub seat: Seat,
    pub player: String,
}

fn tag_of(key: &SecretsKey, what: &str) -> String {
    hex::encode(key.tag(what.as_bytes()))[..TAG_DIGITS].to_string()
}

fn reply_message(game: &str, seat: Seat, player: &str) -> String {
    format!("reply:{game}:{seat}:{player}")
}

/// The reply address of `player` at `seat` of `game`.
pub fn reply_address(key: &SecretsKey, domain: &str, to: &ReplyTo) -> String {
    let tag = tag_of(key, &reply_message(&to.game, to.seat, &to.player));
    format!(
        "{PREFIX}{}.{}.{}.{tag}@{domain}",
        to.game, to.seat, to.player
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
    let (game, seat, player, tag) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let seat: Seat = seat.parse().ok()?;
    let (game, player) = (game.to_string(), player.to_string());
    let expected = tag_of(key, &reply_message(&game, seat, &player));
    same(&expected, tag).then_some(ReplyTo { game, seat, player })
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

    fn seat(game: &str, seat: Seat, player: &str) -> ReplyTo {
        ReplyTo {
            game: game.into(),
            seat,
            player: player.into(),
        }
    }

    #[test]
    fn a_reply_address_stands_for_its_own_seat_only() {
        let key = SecretsKey::generate().unwrap();
        let mine = seat("g-00000000000000aa", 1, "p-00000000000000bb");
        let address = reply_address(&key, "example.org", &mine);
        assert_eq!(parse_reply_address(&key, &address), Some(mine.clone()));
        assert_eq!(
            parse_reply_address(&key, &address.to_ascii_uppercase()),
            Some(mine)
        );
        // Another seat, game or player with the same tag: refused.
        let moved = address.replacen(".1.", ".0.", 1);
        assert_eq!(parse_reply_address(&key, &moved), None);
        let other_game = address.replacen("aa.", "ab.", 1);
        assert_eq!(parse_reply_address(&key, &other_game), None);
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
