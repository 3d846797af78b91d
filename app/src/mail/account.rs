//! A player's mail address (confirmed by a code mailed to it) and which notices they want.

use crate::error::{ApiCode, ApiError};
use crate::randomness::random_bytes;
use crate::webhooks::notification::NotificationType;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use storage::Storage;
use utoipa::ToSchema;

/// Accounts' mail settings by player id.
const ACCOUNTS: &str = "mail_accounts";
/// A mark written anew after every change of an account (a random value): a reader of
/// [`Accounts::takers`] reads all the accounts again only when it changed.
const CHANGED: (&str, &str) = ("mail_accounts_changed", "mark");
/// How long a confirmation code may be used.
const CODE_LIFETIME: Duration = Duration::hours(24);
/// Wrong codes before a code is void (a new address must be set).
const CODE_TRIES: u32 = 5;
/// The longest address taken, in characters (`NewEmail.address`'s `maxLength`).
pub const MAX_ADDRESS: usize = 254;
/// The digits of a confirmation code (`EmailCode.code`'s pattern).
pub const CODE_DIGITS: usize = 6;

/// Which notices a player wants by mail. Every one is on by default; a setting left out of a
/// request (one an older client does not know) is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Preferences {
    /// It became your turn (with the position and your legal commands).
    #[serde(default = "on")]
    #[schema(default = true)]
    pub your_turn: bool,
    /// Another seat offered a draw or asked for a takeback (or withdrew the request).
    #[serde(default = "on")]
    #[schema(default = true)]
    pub offers: bool,
    /// One of your games ended, with the result.
    #[serde(default = "on")]
    #[schema(default = true)]
    pub game_finished: bool,
    /// Your clock runs low on a move: 24 hours and 1 hour before the deadline (by default).
    #[serde(default = "on")]
    #[schema(default = true)]
    pub clock: bool,
    /// Another player invited you to a game, or challenged you by name (a rematch too).
    #[serde(default = "on")]
    #[schema(default = true)]
    pub invited: bool,
    /// A game you sit at started (every seat was taken).
    #[serde(default = "on")]
    #[schema(default = true)]
    pub game_started: bool,
}

fn on() -> bool {
    true
}

impl Default for Preferences {
    fn default() -> Preferences {
        Preferences {
            your_turn: true,
            offers: true,
            game_finished: true,
            clock: true,
            invited: true,
            game_started: true,
        }
    }
}

impl Preferences {
    fn wants(&self, kind: NotificationType) -> bool {
        match kind {
            NotificationType::YourTurn => self.your_turn,
            NotificationType::DrawOffered
            | NotificationType::TakebackRequested
            | NotificationType::TakebackWithdrawn
            | NotificationType::DrawDeclined
            | NotificationType::TakebackDeclined => self.offers,
            NotificationType::GameFinished => self.game_finished,
            NotificationType::ClockLow => self.clock,
            NotificationType::Invited | NotificationType::Challenged => self.invited,
            NotificationType::GameStarted => self.game_started,
            // Only on the player's stream (and webhooks), never mailed on their own: a turn
            // mail shows the messages since.
            NotificationType::OpponentMoved | NotificationType::Message => false,
            // On the player's stream and webhooks; a tournament's mails are written from its
            // own stream.
            NotificationType::RoundPaired
            | NotificationType::RoundClosed
            | NotificationType::TournamentFinished
            | NotificationType::NextEdition => false,
        }
    }
}

/// A player's mail settings as stored.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Account {
    pub address: Option<String>,
    pub confirmed: bool,
    /// SHA-256 of the confirmation code mailed to `address`, while unconfirmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_expires: Option<DateTime<Utc>>,
    #[serde(default)]
    pub code_tries: u32,
    #[serde(default)]
    pub preferences: Preferences,
    /// Set by the one-click unsubscribe link: no game mail at all until notices are set again.
    #[serde(default)]
    pub unsubscribed: bool,
}

/// A player's mail settings as they see them.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MailInfo {
    /// The address, if one is set.
    #[schema(example = "bea@example.org")]
    pub address: Option<String>,
    /// Whether the address was confirmed: only a confirmed address is sent game mail.
    pub confirmed: bool,
    pub notifications: Preferences,
    /// True after the unsubscribe link of a mail was used: no game mail until
    /// `PUT /v1/players/me/notifications` is called again.
    pub unsubscribed: bool,
}

impl From<&Account> for MailInfo {
    fn from(account: &Account) -> MailInfo {
        MailInfo {
            address: account.address.clone(),
            confirmed: account.confirmed,
            notifications: account.preferences,
            unsubscribed: account.unsubscribed,
        }
    }
}

fn hash(code: &str) -> String {
    hex::encode(Sha256::digest(code.trim().as_bytes()))
}

/// The address in `text` if it is one a mail can be sent to.
pub fn parse_address(text: &str) -> Result<String, ApiError> {
    let text = text.trim();
    // Counted as the document counts a `maxLength`: in characters. Said without the text, which
    // may be long.
    let length = text.chars().count();
    if length > MAX_ADDRESS {
        return Err(ApiError::new(
            ApiCode::InvalidEmail,
            format!("A mail address is at most {MAX_ADDRESS} characters, not {length}."),
        ));
    }
    let refuse = || {
        ApiError::new(ApiCode::InvalidEmail,
            format!("\"{text}\" is not a mail address such as bea@example.org (at most {MAX_ADDRESS} characters)."),
        )
    };
    if text.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(refuse());
    }
    let address: lettre::Address = text.parse().map_err(|_| refuse())?;
    // An address literal (`a@[127.0.0.1]`) names a machine, not a domain: mail would go where
    // the relay's network reaches, and the address could not be written in a header.
    if address.domain().starts_with('[') {
        return Err(ApiError::new(
            ApiCode::InvalidEmail,
            format!("\"{text}\" names an address in brackets: a mail address ends in a domain, such as bea@example.org."),
        ));
    }
    // What is taken can be written as a recipient: a mail to it is never refused later.
    text.parse::<lettre::message::Mailbox>()
        .map_err(|_| refuse())?;
    Ok(address.to_string())
}

/// The accounts' mail settings, in the store.
pub struct Accounts {
    store: Arc<dyn Storage>,
    /// The players who take game mail, as of the change mark they were read at.
    takers: Mutex<Option<Takers>>,
}

/// The players who take game mail, and the change mark they were read at.
type Takers = (Vec<u8>, Arc<HashSet<String>>);

impl Account {
    /// Whether game mail may be sent to this account at all.
    fn takes_mail(&self) -> bool {
        self.confirmed && self.address.is_some() && !self.unsubscribed
    }
}

impl Accounts {
    pub fn new(store: Arc<dyn Storage>) -> Accounts {
        Accounts {
            store,
            takers: Mutex::new(None),
        }
    }

    pub fn get(&self, player: &str) -> Result<Account, ApiError> {
        match self
            .store
            .get_record(ACCOUNTS, player)
            .map_err(ApiError::internal)?
        {
            Some(bytes) => serde_json::from_slice(&bytes).map_err(ApiError::internal),
            None => Ok(Account::default()),
        }
    }

    async fn put(&self, player: &str, account: &Account) -> Result<(), ApiError> {
        let bytes = serde_json::to_vec(account).map_err(ApiError::internal)?;
        self.store
            .put_record_async(ACCOUNTS, player, &bytes)
            .await
            .map_err(ApiError::internal)?;
        // After the account: a reader that sees the new mark reads the new account.
        let mark = crate::randomness::random_hex::<16>()?;
        self.store
            .put_record_async(CHANGED.0, CHANGED.1, mark.as_bytes())
            .await
            .map_err(ApiError::internal)
    }

    /// The players who may be sent game mail, as the accounts stand: one read of the change
    /// mark, and a read of every account only when one changed since the last call. An account
    /// whose change was acknowledged before the call is seen as changed.
    pub fn takers(&self) -> Result<Arc<HashSet<String>>, ApiError> {
        let mark = self
            .store
            .get_record(CHANGED.0, CHANGED.1)
            .map_err(ApiError::internal)?
            .unwrap_or_default();
        let mut known = self.takers.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((read_at, takers)) = known.as_ref() {
            if *read_at == mark {
                return Ok(Arc::clone(takers));
            }
        }
        // Read after the mark: a change whose mark this call saw is in it (a later one may be
        // too, and its new mark makes the next call read again).
        let takers: HashSet<String> = self
            .store
            .records_with_prefix(ACCOUNTS, "")
            .map_err(ApiError::internal)?
            .into_iter()
            .filter(|(_, bytes)| {
                serde_json::from_slice::<Account>(bytes).is_ok_and(|a| a.takes_mail())
            })
            .map(|(player, _)| player)
            .collect();
        let takers = Arc::new(takers);
        *known = Some((mark, Arc::clone(&takers)));
        Ok(takers)
    }

    /// Sets `address` (unconfirmed) and returns the code that confirms it.
    pub async fn set_address(&self, player: &str, address: &str) -> Result<String, ApiError> {
        let address = parse_address(address)?;
        let bytes = random_bytes::<4>()?;
        let code = format!("{:06}", u32::from_le_bytes(bytes) % 1_000_000);
        let mut account = self.get(player)?;
        account.address = Some(address);
        account.confirmed = false;
        account.code_hash = Some(hash(&code));
        account.code_expires = Some(Utc::now() + CODE_LIFETIME);
        account.code_tries = 0;
        self.put(player, &account).await?;
        Ok(code)
    }

    /// Confirms the address with the code mailed to it.
    pub async fn confirm(&self, player: &str, code: &str) -> Result<Account, ApiError> {
        // Text that cannot be a code is refused before the account is read: it uses none of
        // the tries, which are there against guessing, and a code mailed is always six digits.
        let digits = code.trim();
        if digits.len() != CODE_DIGITS || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ApiError::new(
                ApiCode::BadRequest,
                format!("A code is the six digits mailed to the address, such as 042917; this is not ({} characters). No try was counted.", code.chars().count()),
            ));
        }
        let mut account = self.get(player)?;
        let refuse = |why: &str| ApiError::new(ApiCode::InvalidCode, why);
        if account.confirmed {
            return Ok(account);
        }
        let (Some(expected), Some(expires)) = (&account.code_hash, account.code_expires) else {
            return Err(refuse(
                "There is no address waiting for a code: set one with PUT /v1/players/me/email.",
            ));
        };
        if expires < Utc::now() || account.code_tries >= CODE_TRIES {
            return Err(refuse(
                "This code is no longer valid: set the address again for a new one.",
            ));
        }
        if *expected != hash(code) {
            account.code_tries += 1;
            self.put(player, &account).await?;
            return Err(refuse("This is not the code mailed to the address."));
        }
        account.confirmed = true;
        account.code_hash = None;
        account.code_expires = None;
        account.code_tries = 0;
        self.put(player, &account).await?;
        Ok(account)
    }

    /// Removes the address: no mail from now on.
    pub async fn remove(&self, player: &str) -> Result<(), ApiError> {
        let mut account = self.get(player)?;
        account.address = None;
        account.confirmed = false;
        account.code_hash = None;
        account.code_expires = None;
        self.put(player, &account).await
    }

    /// Sets which notices are mailed (and undoes an unsubscribe).
    pub async fn set_preferences(
        &self,
        player: &str,
        preferences: Preferences,
    ) -> Result<Account, ApiError> {
        let mut account = self.get(player)?;
        account.preferences = preferences;
        account.unsubscribed = false;
        self.put(player, &account).await?;
        Ok(account)
    }

    /// Turns all game mail off (the unsubscribe link).
    pub async fn unsubscribe(&self, player: &str) -> Result<(), ApiError> {
        let mut account = self.get(player)?;
        account.unsubscribed = true;
        self.put(player, &account).await
    }

    /// The confirmed address of `player`, if they have one.
    pub fn confirmed_address(&self, player: &str) -> Option<String> {
        let account = self.get(player).ok()?;
        account.confirmed.then_some(account.address).flatten()
    }

    /// The address game mail for `player` may go to now: confirmed, and not unsubscribed.
    pub fn game_mail_address(&self, player: &str) -> Option<String> {
        let account = self.get(player).ok()?;
        account.takes_mail().then_some(account.address).flatten()
    }

    /// The confirmed address of `player` if they want notices of `kind` by mail.
    pub fn wants(&self, player: &str, kind: NotificationType) -> Option<String> {
        let account = self.get(player).ok()?;
        (account.takes_mail() && account.preferences.wants(kind))
            .then_some(account.address)
            .flatten()
    }

    /// Whether `player` may be sent any game mail at all.
    pub fn any_mail(&self, player: &str) -> bool {
        self.game_mail_address(player).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn takers_are_read_again_only_after_an_account_changed() {
        let accounts = Accounts::new(Arc::new(storage::MemoryStore::new()));
        let none = accounts.takers().expect("takers");
        assert!(none.is_empty());
        assert!(
            Arc::ptr_eq(&none, &accounts.takers().expect("takers")),
            "nothing changed: the same set, not read again"
        );
        let code = accounts
            .set_address("p-1", "bea@example.org")
            .await
            .expect("set");
        assert!(
            accounts.takers().expect("takers").is_empty(),
            "an address not confirmed takes no mail"
        );
        accounts.confirm("p-1", &code).await.expect("confirmed");
        accounts
            .set_address("p-2", "cy@example.org")
            .await
            .expect("set");
        let takers = accounts.takers().expect("takers");
        assert_eq!(*takers, HashSet::from(["p-1".to_string()]));
        assert!(Arc::ptr_eq(&takers, &accounts.takers().expect("takers")));
        accounts.unsubscribe("p-1").await.expect("unsubscribed");
        assert!(accounts.takers().expect("takers").is_empty());
        accounts
            .set_preferences("p-1", Preferences::default())
            .await
            .expect("set");
        assert_eq!(accounts.takers().expect("takers").len(), 1);
        accounts.remove("p-1").await.expect("removed");
        assert!(accounts.takers().expect("takers").is_empty());
    }
}
