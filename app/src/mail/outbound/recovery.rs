//! Taking an account back: whoever asks (the owner has, by then, maybe no token left), the
//! server mails a link to the player's confirmed address, and only there; following it revokes
//! every token of the player and issues a new key. Asking says nothing of whether a mail went
//! out, and at most [`RECOVERIES_PER_HOUR`] links are mailed to one player an hour.

use super::compose::Letter;
use crate::error::{ApiCode, ApiError};
use crate::mail::Mail;
use crate::players::RECOVERY_LINK_VALID;

/// Recovery links one player may be mailed in an hour, whoever asks.
pub const RECOVERIES_PER_HOUR: u32 = 3;

impl Mail {
    /// Mails `player` a recovery link, if they have a confirmed address; the answer is the
    /// same either way.
    pub async fn mail_recovery_link(&self, player: &str) -> Result<(), ApiError> {
        self.require_enabled()?;
        if !self.recoveries.allow(player, RECOVERIES_PER_HOUR) {
            return Err(ApiError::new(
                ApiCode::RateLimited,
                format!("At most {RECOVERIES_PER_HOUR} recovery links are mailed to a player an hour; try again later."),
            )
            .with_retry_after(3600));
        }
        // Counted before the address is looked at: the limit says nothing of it either.
        let account = self.accounts.get(player)?;
        let Some(address) = account.address.filter(|_| account.confirmed) else {
            return Ok(());
        };
        let secret = self.players.recovery_link(player).await?;
        let link = format!(
            "{}/v1/recovery/{secret}",
            self.settings.public_url.trim_end_matches('/')
        );
        let letter = Letter {
            id: format!(
                "recovery.{player}.{}",
                crate::randomness::random_hex::<8>()?
            ),
            to: address,
            subject: "Take your Avalanche account back".into(),
            text: format!(
                "Someone, maybe you, asked to take your account on the Avalanche games server back.\n\nFollow this link within {} minutes and press the button: every token of your account (on every device and bot) stops working, and you get a new key.\n\n{link}\n\nThe link works once. If you did not ask for it, ignore this mail: nothing changes.\n",
                RECOVERY_LINK_VALID.as_secs() / 60
            ),
            reply_to: None,
            unsubscribe: None,
            in_reply_to: None,
            link: None,
            still: None,
            turn: None,
        };
        self.send(&letter).await?;
        tracing::info!(%player, "recovery link mailed");
        Ok(())
    }
}
