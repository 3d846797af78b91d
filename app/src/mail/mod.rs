//! Play by email: a player's address and what they want to be told, the durable outbox of mail
//! to send, the notices derived from the event log (the same derivation as webhooks), and
//! moves taken from replies. One worker thread, run by the server that holds the `mail` lease,
//! derives notices into the outbox and sends them; the inbound path (the SMTP listener or
//! `POST /v1/mail/inbound`) plays replies through the same command service as HTTP. What goes
//! out is in `outbound/`, what comes in in `inbound/`; a player's address (`account`), the
//! reply addresses (`tag`) and text made safe for HTML (`render`) serve both; a position and
//! its commands are written and read by the game itself (`domain::text`).

pub mod account;
pub mod inbound;
pub mod outbound;
pub mod render;
pub mod tag;

use crate::error::{ApiCode, ApiError};
use crate::leases::Leases;
use crate::sealing::SecretsKey;
use crate::Repository;
use account::Accounts;
use domain::Registry;
use outbound::outbox::Outbox;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use storage::Storage;

/// The lease of the mail worker: one server at a time derives and sends.
pub const LEASE: &str = "mail";

/// The names the log gives `player`'s own commands in `game`: each seat they hold
/// (`seat:N`) and the player themself (`player:ID`).
pub(crate) fn own_actors(game: &dyn domain::registry::LiveGame, player: &str) -> Vec<String> {
    let mut actors: Vec<String> = game
        .facts()
        .players
        .iter()
        .enumerate()
        .filter(|(_, p)| p.as_deref() == Some(player))
        .map(|(s, _)| format!("seat:{s}"))
        .collect();
    actors.push(format!("player:{player}"));
    actors
}

/// How the server sends and takes mail.
#[derive(Clone, Debug)]
pub struct MailSettings {
    /// The relay, as `smtp://[user:password@]host:port` or `smtps://...`; `None`: mail is
    /// written as `.eml` files into `folder`.
    pub relay: Option<String>,
    /// Where mail is written without a relay (`<data>/outbox`); `None` with no relay: mail is
    /// off, and the endpoints that need it say so.
    pub folder: Option<PathBuf>,
    /// The sender, such as `Avalanche <games@example.org>`; replies go to its domain.
    pub from: String,
    /// Where the server is reached by players: links in mail point here.
    pub public_url: String,
    /// The secret a mail provider sends with `POST /v1/mail/inbound`; `None`: the route is off.
    pub inbound_secret: Option<InboundSecret>,
    /// The wait after a failed attempt; doubled after each further failure.
    pub retry_min: Duration,
    /// The longest wait between two attempts.
    pub retry_max: Duration,
    /// How often the worker looks for new events and due mail.
    pub poll: Duration,
    /// The largest inbound message taken, in bytes.
    pub max_inbound: usize,
    /// Inbound mails per address per hour; more are ignored.
    pub inbound_per_hour: u32,
    /// How long before a deadline a player is warned that their clock runs low.
    pub clock_warnings: Vec<Duration>,
    /// How the SMTP listener guards its connections.
    pub listener: inbound::listener::ListenerSettings,
    /// Confirmation codes mailed to one address a day, whoever asks (0: no limit).
    pub codes_per_address_per_day: u32,
    /// Invitations mailed to one player an hour, whoever invites (0: no limit).
    pub invitations_per_invitee_per_hour: u32,
}

/// The secret of `POST /v1/mail/inbound`: at least [`InboundSecret::LEAST`] bytes, and never
/// shown: its `Debug` (what the startup log writes) is a fingerprint, the first digits of its
/// SHA-256, enough to tell which secret a server has without telling the secret.
#[derive(Clone)]
pub struct InboundSecret(String);

impl InboundSecret {
    /// The shortest secret taken, in bytes: as many as a key of 256 bits.
    pub const LEAST: usize = 32;

    /// The secret, to compare with what a request carries.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The first 16 hex digits of the secret's SHA-256.
    pub fn fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        hex::encode(Sha256::digest(self.0.as_bytes()))[..16].to_string()
    }
}

impl std::fmt::Debug for InboundSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InboundSecret(sha256:{})", self.fingerprint())
    }
}

impl std::str::FromStr for InboundSecret {
    type Err = String;
    fn from_str(text: &str) -> Result<InboundSecret, String> {
        let text = text.trim();
        if text.len() < InboundSecret::LEAST {
            return Err(format!(
                "the inbound secret is {} bytes; it must be at least {} (such as the output of `openssl rand -hex 32`)",
                text.len(),
                InboundSecret::LEAST
            ));
        }
        Ok(InboundSecret(text.to_string()))
    }
}

impl Default for MailSettings {
    fn default() -> MailSettings {
        MailSettings {
            relay: None,
            folder: None,
            from: "Avalanche <avalanche@localhost>".into(),
            public_url: "http://127.0.0.1:8080".into(),
            inbound_secret: None,
            retry_min: Duration::from_secs(1),
            retry_max: Duration::from_secs(600),
            poll: Duration::from_millis(250),
            max_inbound: 64 * 1024,
            inbound_per_hour: 60,
            clock_warnings: outbound::clock::default_warnings(),
            listener: inbound::listener::ListenerSettings::default(),
            codes_per_address_per_day: 3,
            invitations_per_invitee_per_hour: 3,
        }
    }
}

impl MailSettings {
    /// Whether mail goes anywhere (a relay or a folder).
    pub fn enabled(&self) -> bool {
        self.relay.is_some() || self.folder.is_some()
    }

    /// The address part of `from`.
    pub fn from_address(&self) -> String {
        let text = self.from.trim();
        match (text.rfind('<'), text.rfind('>')) {
            (Some(open), Some(close)) if open < close => text[open + 1..close].trim().to_string(),
            _ => text.to_string(),
        }
    }

    /// The domain of `from`, where reply addresses live.
    pub fn domain(&self) -> String {
        let address = self.from_address();
        address
            .rsplit_once('@')
            .map(|(_, d)| d.to_ascii_lowercase())
            .unwrap_or_else(|| "localhost".into())
    }
}

/// Counts for `GET /metrics`.
#[derive(Default)]
pub struct Counters {
    pub sent: AtomicU64,
    pub failed: AtomicU64,
    /// Mails a relay refused for good (5xx): not tried again.
    pub rejected: AtomicU64,
    /// Confirmation codes not mailed: their address had its share of the day.
    pub refused_codes: AtomicU64,
    /// Whether this node's worker holds the mail lease.
    pub sender: std::sync::atomic::AtomicBool,
    /// Invitations not mailed: their invitee had their share of the hour.
    pub refused_invitations: AtomicU64,
    /// Mails the SMTP listener refused: they failed their sender's DMARC policy.
    pub refused_unauthenticated: AtomicU64,
}

/// What the metrics show of mail.
#[derive(Clone, Debug, Default)]
pub struct MailMetrics {
    pub sent: u64,
    pub failed: u64,
    pub rejected: u64,
    pub refused_codes: u64,
    pub refused_invitations: u64,
    pub refused_unauthenticated: u64,
    pub waiting: u64,
    pub oldest_waiting_seconds: u64,
    /// Whether this node sends the store's mail (holds the mail lease): only that node
    /// reports the outbox, so that the nodes' figures add up.
    pub sender: bool,
    /// Whether the outbox is held (see [`outbound::hold`]).
    pub held: bool,
}

/// Everything of mail the routes and the worker share.
pub struct Mail {
    pub settings: MailSettings,
    pub accounts: Accounts,
    pub outbox: Outbox,
    pub(crate) repository: Repository,
    pub(crate) players: Arc<crate::players::Players>,
    /// The club's book: which tournament, round and table a game was paired in.
    pub(crate) club: Arc<crate::club::Club>,
    pub(crate) key: Arc<SecretsKey>,
    pub(crate) counters: Counters,
    pub(crate) inbound_seen: inbound::reader::RateLimit,
    /// Wrong inbound secrets by client address in the last hour.
    pub secret_failures: inbound::reader::RateLimit,
    /// The clock notices the worker waits for.
    pub(crate) clock_watch: outbound::clock::Watch,
    /// Confirmation codes mailed per player in the last hour.
    codes: inbound::reader::RateLimit,
    /// Invitations sent per player in the last hour.
    invitations: inbound::reader::RateLimit,
    /// Recovery links mailed per player in the last hour.
    recoveries: inbound::reader::RateLimit,
    /// Mail sent to one recipient, whoever asked for it.
    quotas: outbound::quota::Quotas,
}

/// Confirmation codes a player may have mailed in an hour.
const CODES_PER_HOUR: u32 = 5;

impl Mail {
    /// The mail of a server over `store`; [`Mail::start`] starts its worker. `club` is the
    /// server's own, following the same log.
    pub fn new(
        store: Arc<dyn Storage>,
        players: Arc<crate::players::Players>,
        club: Arc<crate::club::Club>,
        registry: Arc<Registry>,
        key: Arc<SecretsKey>,
        settings: MailSettings,
    ) -> Mail {
        Mail {
            accounts: Accounts::new(store.clone()),
            quotas: outbound::quota::Quotas::new(store.clone()),
            outbox: Outbox::new(store.clone(), key.clone()),
            players,
            club,
            repository: Repository::new(store, registry, key.clone(), 64),
            key,
            counters: Counters::default(),
            inbound_seen: inbound::reader::RateLimit::default(),
            clock_watch: outbound::clock::Watch::default(),
            codes: inbound::reader::RateLimit::default(),
            invitations: inbound::reader::RateLimit::default(),
            recoveries: inbound::reader::RateLimit::default(),
            secret_failures: inbound::reader::RateLimit::default(),
            settings,
        }
    }

    /// Starts the worker thread (when mail goes anywhere).
    pub fn start(self: &Arc<Self>, leases: Arc<Leases>) -> std::io::Result<()> {
        if !self.settings.enabled() {
            return Ok(());
        }
        match (&self.settings.relay, &self.settings.folder) {
            (Some(relay), _) => {
                tracing::info!(relay = %outbound::outbox::without_password(relay), from = %self.settings.from, "mail is sent through the relay")
            }
            (None, Some(folder)) => {
                // Made with its first mail: a server that sends none leaves its data folder
                // as it found it (on PostgreSQL, nothing at all is written there).
                tracing::info!(folder = %folder.display(), "no mail relay (--smtp-url): mail is written as .eml files into this folder")
            }
            (None, None) => {}
        }
        let mail = self.clone();
        std::thread::Builder::new()
            .name("mail".into())
            .spawn(move || outbound::worker::run(mail, leases))?;
        Ok(())
    }

    /// An error for the endpoints that need mail when it is off.
    pub(crate) fn require_enabled(&self) -> Result<(), ApiError> {
        if self.settings.enabled() {
            return Ok(());
        }
        Err(ApiError::new(ApiCode::MailNotConfigured,
            "This server sends no mail: its operator set neither a relay (--smtp-url) nor a data folder for the outbox.",
        ))
    }

    /// Sets `player`'s address, unconfirmed, and mails it the code that confirms it.
    pub async fn set_address(
        &self,
        player: &crate::players::Player,
        address: &str,
    ) -> Result<account::MailInfo, ApiError> {
        self.require_enabled()?;
        let address = account::parse_address(address)?;
        if !self.codes.allow(&player.id, CODES_PER_HOUR) {
            return Err(ApiError::new(ApiCode::RateLimited,
                format!("At most {CODES_PER_HOUR} confirmation codes are mailed an hour; try again later."),
            )
            .with_retry_after(3600));
        }
        // A code goes to an address nobody confirmed yet, at anyone's request: so the address
        // is sent a few a day at most, whoever asks, and nothing a player wrote.
        let most = self.settings.codes_per_address_per_day;
        if !self
            .quotas
            .take("code", &address, most, Duration::from_secs(86_400))
            .await?
        {
            self.counters.refused_codes.fetch_add(1, Ordering::Relaxed);
            tracing::info!(player = %player.id, "a confirmation code not mailed: its address was sent its share today");
            return Err(ApiError::new(ApiCode::RateLimited,
                format!("This address was mailed {most} confirmation codes today, the most it is sent in a day; try again tomorrow."),
            )
            .with_retry_after(86_400));
        }
        let code = self.accounts.set_address(&player.id, &address).await?;
        let nonce = crate::randomness::random_hex::<8>()?;
        let letter = outbound::compose::Letter {
            id: format!("confirm.{}.{nonce}", player.id),
            to: address.clone(),
            subject: format!("Your code for the Avalanche games server: {code}"),
            text: format!(
                "Hello,\n\nyour confirmation code is {code}\n\nSomeone asked this server to send game mail to this address. If that was you, enter the code on your account page ({}/#/account), or send it with POST /v1/players/me/email/confirm. It is valid for 24 hours.\nIf you did not ask for this, ignore this mail: nothing will be sent to this address.\n",
                self.settings.public_url.trim_end_matches('/')
            ),
            reply_to: None,
            unsubscribe: None,
            in_reply_to: None,
            link: None,
            still: None,
            turn: None,
        };
        self.send(&letter).await?;
        tracing::info!(player = %player.id, "mail address set; confirmation code queued");
        Ok(account::MailInfo::from(&self.accounts.get(&player.id)?))
    }

    /// Turns all game mail of `player` off, if `tag` is their unsubscribe link's.
    pub async fn unsubscribe(&self, player: &str, tag: &str) -> Result<(), ApiError> {
        self.check_unsubscribe_link(player, tag)?;
        self.accounts.unsubscribe(player).await?;
        tracing::info!(%player, "unsubscribed from game mail");
        Ok(())
    }

    /// Refuses an unsubscribe link that this server did not write (404 `not_found`).
    pub fn check_unsubscribe_link(&self, player: &str, tag: &str) -> Result<(), ApiError> {
        if tag::unsubscribe_tag_valid(&self.key, player, tag) {
            return Ok(());
        }
        Err(ApiError::new(
            ApiCode::NotFound,
            "This unsubscribe link is not one of this server's.",
        ))
    }

    /// The numbers of `GET /metrics`.
    pub fn metrics(&self) -> MailMetrics {
        let sender = self.counters.sender.load(Ordering::Relaxed);
        let (waiting, oldest) = if sender {
            self.outbox.waiting_stats()
        } else {
            (0, 0)
        };
        MailMetrics {
            sender,
            held: sender && self.held().is_some(),
            sent: self.counters.sent.load(Ordering::Relaxed),
            failed: self.counters.failed.load(Ordering::Relaxed),
            rejected: self.counters.rejected.load(Ordering::Relaxed),
            refused_codes: self.counters.refused_codes.load(Ordering::Relaxed),
            refused_invitations: self.counters.refused_invitations.load(Ordering::Relaxed),
            refused_unauthenticated: self
                .counters
                .refused_unauthenticated
                .load(Ordering::Relaxed),
            waiting,
            oldest_waiting_seconds: oldest,
        }
    }

    /// The link to game `id` in the browser client.
    pub fn game_link(&self, id: &str) -> String {
        format!(
            "{}/#/game/{id}",
            self.settings.public_url.trim_end_matches('/')
        )
    }

    /// The link to tournament `id` in the browser client.
    pub fn tournament_link(&self, id: &str) -> String {
        format!(
            "{}/#/tournament/{id}",
            self.settings.public_url.trim_end_matches('/')
        )
    }

    /// The one-click unsubscribe link of `player` (RFC 8058).
    pub fn unsubscribe_link(&self, player: &str) -> String {
        format!(
            "{}/v1/mail/unsubscribe/{player}/{}",
            self.settings.public_url.trim_end_matches('/'),
            tag::unsubscribe_tag(&self.key, player)
        )
    }
}
