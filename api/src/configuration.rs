//! Settings, read once from the command line and the environment.

use clap::{Args, Parser};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Where the admin listener listens unless told otherwise: loopback only.
pub const DEFAULT_ADMIN_ADDR: &str = "127.0.0.1:9180";

#[derive(Debug, Parser)]
#[command(
    name = "avalanche",
    version,
    about = "Play, replay and audit the Avalanche games at a distance."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Subcommand>,
    /// Settings of `serve` when no subcommand is given.
    #[command(flatten)]
    pub serve: ServeSettings,
}

// Parsed once at start: the size of the serve settings' variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, clap::Subcommand)]
pub enum Subcommand {
    /// Start the HTTP server (the default).
    Serve(ServeSettings),
    /// Print the OpenAPI document (what `openapi/openapi.json` holds).
    Openapi,
    /// Audit a game or a finished tournament without a server: a game's log (`GET
    /// /v1/games/{id}/log`), an Avalanche Chess record, or a tournament's log (`GET
    /// /v1/tournaments/{id}/export`). Exits 0 with a summary when it is sound, 1 with the first
    /// failure otherwise.
    Audit(AuditArgs),
    /// Copy a sled store (`--data` of `serve`) into an empty PostgreSQL database, exactly,
    /// then audit every copied game there. Stop the server first; it refuses a database that
    /// holds anything.
    Migrate(MigrateArgs),
    /// Write a backup of a running server's sled store into a new file, consistent while
    /// players play (the server sends it from `GET /backup`). The secrets key is not in it:
    /// back the key up apart. For PostgreSQL, use `pg_dump`.
    Backup(BackupArgs),
    /// Restore a backup into a new sled store in an empty folder; then start a server there
    /// with the backed-up store's key.
    Restore(RestoreArgs),
    /// Fold every rating again from the event log, from scratch, and print them as JSON (by
    /// pool, then player): what the servers of the store serve. A sled store must not be in
    /// use by a server; a PostgreSQL one may be.
    Ratings(RatingsArgs),
    /// Hide a message said at a game, through a running server's admin listener: its key is
    /// deleted, so its text is gone from every channel and every backup made afterwards, and
    /// a `hidden` event records it. With `--reports`, list the messages players reported.
    Moderate(ModerateArgs),
}

#[derive(Debug, Clone, Args)]
pub struct ModerateArgs {
    /// The game the message was said at.
    #[arg(long, requires = "hide", required_unless_present = "reports")]
    pub game: Option<String>,
    /// The id of the message to hide (`m-...`, from its `said` event).
    #[arg(long, requires = "game")]
    pub hide: Option<String>,
    /// List the messages players reported (game, message, who reported it and why, who said
    /// it and its text while it can be read) instead of hiding one.
    #[arg(long, conflicts_with_all = ["game", "hide"])]
    pub reports: bool,
    /// The server, as the URL its admin listener (`--admin-addr` of `serve`) answers on.
    #[arg(
        long,
        env = "AVALANCHE_BACKUP_SERVER",
        default_value = "http://127.0.0.1:9180"
    )]
    pub server: String,
    /// The file of the server's metrics token (`--metrics-token-file` of `serve`): sent as
    /// its bearer token when asked from an address the server does not allow.
    #[arg(long, env = "AVALANCHE_METRICS_TOKEN_FILE")]
    pub token_file: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct RatingsArgs {
    /// Fold the ratings from scratch (the one thing this command does; say it, so that a
    /// later one can do something else).
    #[arg(long)]
    pub recompute: bool,
    /// The directory of the sled store (`--data` of `serve`).
    #[arg(long, env = "AVALANCHE_DATA", default_value = "./data")]
    pub data: PathBuf,
    /// The PostgreSQL database instead (`--database` of `serve`).
    #[arg(long, env = "AVALANCHE_DATABASE")]
    pub database: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct BackupArgs {
    /// The file to write (refused if it exists); written whole or not at all.
    #[arg(long)]
    pub to: PathBuf,
    /// The server to back up, as the URL its admin listener (`--admin-addr` of `serve`)
    /// answers on from here.
    #[arg(
        long,
        env = "AVALANCHE_BACKUP_SERVER",
        default_value = "http://127.0.0.1:9180"
    )]
    pub server: String,
    /// The file of the server's metrics token (`--metrics-token-file` of `serve`): sent as
    /// its bearer token when the backup is not taken from an address it allows.
    #[arg(long, env = "AVALANCHE_METRICS_TOKEN_FILE")]
    pub token_file: Option<PathBuf>,
    /// The server's PostgreSQL database, if it runs on one: then this command says to use
    /// `pg_dump` and fails.
    #[arg(long, env = "AVALANCHE_DATABASE")]
    pub database: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct RestoreArgs {
    /// The backup file (written by `avalanche backup`).
    #[arg(long)]
    pub from: PathBuf,
    /// The folder of the new sled store: empty or missing, never an existing store.
    #[arg(long)]
    pub data: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct MigrateArgs {
    /// The directory of the sled store to copy.
    #[arg(long)]
    pub from: PathBuf,
    /// The PostgreSQL database to copy into, as a connection string (`postgres://...`).
    #[arg(long)]
    pub to: String,
    /// The key the store's secrets are sealed with (by default `secrets.key` in `--from`);
    /// the servers on the copy are given the same key.
    #[arg(long, env = "AVALANCHE_SECRETS_KEY")]
    pub secrets_key: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct AuditArgs {
    /// The file: a game log as JSON, a chess record in the notation of the rules file, or a
    /// finished tournament's log as JSON (`GET /v1/tournaments/{id}/export`).
    pub file: PathBuf,
    /// The game of the file (`avalanche-chess` for a record); a log names its own.
    #[arg(long)]
    pub kind: Option<String>,
    /// The variant of a chess record: standard (the default), balanced, reversed,
    /// balanced-reversed.
    #[arg(long)]
    pub variant: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct ServeSettings {
    /// How log lines are written: `text`, or `json` (one object a line, with the request's
    /// id and fields).
    #[arg(long, env = "AVALANCHE_LOG_FORMAT", value_enum, default_value_t = crate::telemetry::LogFormat::Text)]
    pub log_format: crate::telemetry::LogFormat,
    /// The address to listen on.
    #[arg(long, env = "AVALANCHE_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The address of the admin listener, the only one serving the operator's endpoints
    /// (`GET /metrics`, `GET /backup`, besides `/health` and `/ready`): keep it on loopback or
    /// a private network, never behind the public proxy. On `--addr` those paths answer 404.
    #[arg(long, env = "AVALANCHE_ADMIN_ADDR", default_value = DEFAULT_ADMIN_ADDR)]
    pub admin_addr: SocketAddr,
    /// The directory of the sled database (the default store, embedded in the process).
    #[arg(long, env = "AVALANCHE_DATA", default_value = "./data")]
    pub data: PathBuf,
    /// A PostgreSQL database to keep everything in instead of `--data`, as a connection string
    /// (`postgres://user:password@host:5432/avalanche`); the server creates and migrates its
    /// tables. Several servers may share one database.
    #[arg(long, env = "AVALANCHE_DATABASE")]
    pub database: Option<String>,
    /// The file of the key that seals the store's secrets (games' seeds, webhooks' signing
    /// secrets): 64 hexadecimal digits, created (readable by its owner only) when missing. By
    /// default `secrets.key` in `--data`; required with `--database`, where every server of
    /// the database is given the same file. Keep it out of the database's backups.
    #[arg(long, env = "AVALANCHE_SECRETS_KEY")]
    pub secrets_key: Option<PathBuf>,
    /// How many connections to PostgreSQL this server opens (with `--database`).
    #[arg(long, env = "AVALANCHE_DATABASE_CONNECTIONS", default_value_t = storage::PostgresStore::DEFAULT_CONNECTIONS)]
    pub database_connections: usize,
    /// The threads that answer HTTP requests (default: one per CPU core). Several nodes on
    /// one machine share its cores: give each its share (see docs/operating.md).
    #[arg(long, env = "AVALANCHE_WORKERS")]
    pub workers: Option<std::num::NonZeroUsize>,
    /// The most games kept folded in memory; the least recently used go first. About 2 KB a
    /// game: the default 5000 holds some 10 MB.
    #[arg(long, env = "AVALANCHE_GAME_CACHE", default_value_t = app::cache::DEFAULT_CAPACITY)]
    pub game_cache: usize,
    /// The most memory sled's page cache takes, in MiB.
    #[arg(long, env = "AVALANCHE_STORE_CACHE_MB", default_value_t = storage::SledStore::DEFAULT_CACHE_MB)]
    pub store_cache_mb: u64,
    /// The wait before a failed webhook delivery is tried again, in milliseconds; it doubles
    /// after each further failure.
    #[arg(long, env = "AVALANCHE_WEBHOOK_RETRY_MS", default_value_t = 200)]
    pub webhook_retry_ms: u64,
    /// The longest wait between two attempts of a webhook delivery, in milliseconds.
    #[arg(long, env = "AVALANCHE_WEBHOOK_RETRY_MAX_MS", default_value_t = 30_000)]
    pub webhook_retry_max_ms: u64,
    /// How long, in seconds, a webhook notification is retried before the webhook is marked
    /// `failing` and stopped until its owner re-enables it (default three days).
    #[arg(long, env = "AVALANCHE_WEBHOOK_GIVE_UP_AFTER_S", default_value_t = 3 * 24 * 3600)]
    pub webhook_give_up_after_s: u64,
    /// Players created per client address per hour (0: no limit).
    #[arg(long, env = "AVALANCHE_LIMIT_PLAYERS_PER_HOUR", default_value_t = app::limits::LimitSettings::default().players_per_hour_per_address)]
    pub limit_players_per_hour: u32,
    /// Games created per player per hour (0: no limit).
    #[arg(long, env = "AVALANCHE_LIMIT_GAMES_PER_HOUR", default_value_t = app::limits::LimitSettings::default().games_per_hour_per_player)]
    pub limit_games_per_hour: u32,
    /// Games waiting for players in which one player may hold a seat (0: no limit).
    #[arg(long, env = "AVALANCHE_LIMIT_OPEN_SEATS", default_value_t = app::limits::LimitSettings::default().open_seats_per_player)]
    pub limit_open_seats: usize,
    /// Commands per player per second, twice as many at once (0: no limit).
    #[arg(long, env = "AVALANCHE_LIMIT_COMMANDS_PER_SECOND", default_value_t = app::limits::LimitSettings::default().commands_per_second_per_player)]
    pub limit_commands_per_second: u32,
    /// Event streams and long-polls one player (or address) may hold open at once (0: no limit).
    #[arg(long, env = "AVALANCHE_LIMIT_STREAMS", default_value_t = app::limits::LimitSettings::default().streams_per_player)]
    pub limit_streams: usize,
    /// Forks created per player per hour (0: no limit).
    #[arg(long, env = "AVALANCHE_LIMIT_FORKS_PER_HOUR", default_value_t = app::limits::LimitSettings::default().forks_per_hour_per_player)]
    pub limit_forks_per_hour: u32,
    /// Games imported per player per hour (0: no limit).
    #[arg(long, env = "AVALANCHE_LIMIT_IMPORTS_PER_HOUR", default_value_t = app::limits::LimitSettings::default().imports_per_hour_per_player)]
    pub limit_imports_per_hour: u32,
    /// Vacations started or ended per player per day (0: no limit).
    #[arg(long, env = "AVALANCHE_LIMIT_VACATION_CHANGES_PER_DAY", default_value_t = app::limits::LimitSettings::default().vacation_changes_per_day_per_player)]
    pub limit_vacation_changes_per_day: u32,
    /// Messages said per player per hour, at every game's table together (0: no limit).
    #[arg(long, env = "AVALANCHE_LIMIT_MESSAGES_PER_HOUR", default_value_t = app::limits::LimitSettings::default().messages_per_hour_per_player)]
    pub limit_messages_per_hour: u32,
    /// Tokens one player may hold at once (0: no limit).
    #[arg(long, env = "AVALANCHE_LIMIT_TOKENS", default_value_t = app::limits::LimitSettings::default().tokens_per_player)]
    pub limit_tokens: usize,
    /// Tokens issued per player per hour (0: no limit).
    #[arg(long, env = "AVALANCHE_LIMIT_TOKENS_PER_HOUR", default_value_t = app::limits::LimitSettings::default().tokens_per_hour_per_player)]
    pub limit_tokens_per_hour: u32,
    /// Connections one client address may hold open at once (0: no limit; trusted proxies are
    /// not counted).
    #[arg(long, env = "AVALANCHE_LIMIT_CONNECTIONS_PER_ADDRESS", default_value_t = app::limits::LimitSettings::default().connections_per_address)]
    pub limit_connections_per_address: usize,
    /// Proxies (addresses such as `10.0.0.5`, or ranges such as `10.0.0.0/8`) whose
    /// `X-Forwarded-For` names the client, for the limits counted per client address; from any
    /// other peer the header is ignored. Repeat the option, or separate them with commas.
    #[arg(long = "trusted-proxies", env = "AVALANCHE_TRUSTED_PROXIES", value_delimiter = ',', value_parser = parse_proxy)]
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Addresses or ranges that may read `GET /metrics` and take `GET /backup` on the admin
    /// listener (with `--metrics-token-file`, either suffices); a request through one of the
    /// `--trusted-proxies` is judged by the client it names. Neither given: anyone who reaches
    /// the admin listener may read the metrics, and only this machine take a backup.
    #[arg(long = "metrics-allow", env = "AVALANCHE_METRICS_ALLOW", value_delimiter = ',', value_parser = parse_proxy)]
    pub metrics_allow: Vec<ipnet::IpNet>,
    /// A file holding a bearer token of its own for `GET /metrics` and `GET /backup` on the
    /// admin listener (`Authorization: Bearer <token>` from the scraper).
    #[arg(long, env = "AVALANCHE_METRICS_TOKEN_FILE")]
    pub metrics_token_file: Option<PathBuf>,
    /// Take webhook URLs with `http://` as well as `https://`.
    #[arg(long, env = "AVALANCHE_WEBHOOK_ALLOW_HTTP")]
    pub webhook_allow_http: bool,
    /// A host (name or address, as written in URLs) a webhook may reach although it is inside
    /// a private network or this machine: an internal receiver of the operator's own. Repeat
    /// the option, or separate hosts with commas.
    #[arg(
        long = "webhook-allow-host",
        env = "AVALANCHE_WEBHOOK_ALLOW_HOSTS",
        value_delimiter = ','
    )]
    pub webhook_allow_hosts: Vec<String>,
    /// The mail relay: `smtp://host:25`, `smtp://user:password@host:587?tls=required` or
    /// `smtps://user:password@host:465`. Without one, mail is written as `.eml` files into
    /// `outbox/` under `--data`, and the log says where.
    #[arg(long, env = "AVALANCHE_SMTP_URL")]
    pub smtp_url: Option<String>,
    /// A file whose first line is the relay URL (keeps its password off the command line).
    #[arg(long, env = "AVALANCHE_SMTP_URL_FILE")]
    pub smtp_url_file: Option<PathBuf>,
    /// The sender of every mail; players' replies go to addresses at its domain.
    #[arg(
        long,
        env = "AVALANCHE_MAIL_FROM",
        default_value = "Avalanche <avalanche@localhost>"
    )]
    pub mail_from: String,
    /// The address players reach this server at, for links in mail (by default
    /// `http://` and `--addr`).
    #[arg(long, env = "AVALANCHE_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Take replies by SMTP on this address (such as `0.0.0.0:25`, behind the MX record of
    /// the `--mail-from` domain).
    #[arg(long, env = "AVALANCHE_SMTP_LISTEN")]
    pub smtp_listen: Option<SocketAddr>,
    /// The operator's certificate chain (PEM) for the SMTP listener: with `--smtp-tls-key`,
    /// the listener offers STARTTLS.
    #[arg(long, env = "AVALANCHE_SMTP_TLS_CERT", requires = "smtp_tls_key")]
    pub smtp_tls_cert: Option<PathBuf>,
    /// The private key (PEM) of `--smtp-tls-cert`.
    #[arg(long, env = "AVALANCHE_SMTP_TLS_KEY", requires = "smtp_tls_cert")]
    pub smtp_tls_key: Option<PathBuf>,
    /// SMTP sessions one client address (an IPv6 address by its /64) may hold open at once
    /// (0: no limit).
    #[arg(
        long,
        env = "AVALANCHE_SMTP_CONNECTIONS_PER_ADDRESS",
        default_value_t = 4
    )]
    pub smtp_connections_per_address: usize,
    /// How long the SMTP listener waits for a whole command line (RFC 5321's server timeout).
    #[arg(long, env = "AVALANCHE_SMTP_COMMAND_TIMEOUT", default_value = "5m")]
    pub smtp_command_timeout: Span,
    /// How long the SMTP listener waits for each line of a message's data (RFC 5321's data
    /// block timeout).
    #[arg(long, env = "AVALANCHE_SMTP_DATA_TIMEOUT", default_value = "3m")]
    pub smtp_data_timeout: Span,
    /// Whether the SMTP listener checks each mail's SPF, DKIM and DMARC and refuses one that
    /// fails a DMARC policy of `reject` or `quarantine` (`on` or `off`).
    #[arg(long, env = "AVALANCHE_MAIL_AUTH", value_enum, default_value_t = MailAuth::On)]
    pub mail_auth: MailAuth,
    /// The DNS server (`address:port`) the mail checks ask; unset: the system's resolver.
    #[arg(long, env = "AVALANCHE_MAIL_DNS")]
    pub mail_dns: Option<std::net::SocketAddr>,
    /// Take replies posted to `POST /v1/mail/inbound` by a mail provider that sends this
    /// secret (at least 32 bytes) as `Authorization: Bearer <secret>`.
    #[arg(long, env = "AVALANCHE_MAIL_INBOUND_SECRET")]
    pub mail_inbound_secret: Option<app::mail::InboundSecret>,
    /// Confirmation codes mailed to one address a day, whoever asks (0: no limit).
    #[arg(long, env = "AVALANCHE_MAIL_CODES_PER_ADDRESS", default_value_t = 3)]
    pub mail_codes_per_address: u32,
    /// Invitations mailed to one player an hour, whoever invites (0: no limit).
    #[arg(
        long,
        env = "AVALANCHE_MAIL_INVITATIONS_PER_PLAYER",
        default_value_t = 3
    )]
    pub mail_invitations_per_player: u32,
    /// The wait before a failed mail is tried again, in milliseconds; it doubles after each
    /// further failure, up to ten minutes.
    #[arg(long, env = "AVALANCHE_MAIL_RETRY_MS", default_value_t = 1000)]
    pub mail_retry_ms: u64,
    /// Inbound mails taken per sender address per hour; more are dropped (0: no limit).
    #[arg(long, env = "AVALANCHE_MAIL_INBOUND_PER_HOUR", default_value_t = 60)]
    pub mail_inbound_per_hour: u32,
    /// How long before a deadline a player is mailed that their clock runs low, each once a
    /// turn: durations such as `24h`, `90m`, `30s` or `2d`, separated by commas.
    #[arg(
        long,
        env = "AVALANCHE_MAIL_CLOCK_WARNINGS",
        value_delimiter = ',',
        default_value = "24h,1h"
    )]
    pub mail_clock_warnings: Vec<Span>,
}

/// A duration written as a number and a unit: `30s`, `90m`, `24h`, `2d`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span(pub Duration);

impl std::str::FromStr for Span {
    type Err = String;
    fn from_str(text: &str) -> Result<Span, String> {
        let text = text.trim();
        let refuse = || format!("{text:?} is not a duration such as 30s, 90m, 24h or 2d");
        let split = text
            .find(|c: char| !c.is_ascii_digit())
            .ok_or_else(refuse)?;
        let (number, unit) = text.split_at(split);
        let number: u64 = number.parse().map_err(|_| refuse())?;
        let seconds = match unit {
            "s" => 1,
            "m" => 60,
            "h" => 3600,
            "d" => 86_400,
            _ => return Err(refuse()),
        };
        if number == 0 {
            return Err(refuse());
        }
        Ok(Span(Duration::from_secs(number.saturating_mul(seconds))))
    }
}

/// A trusted proxy: a range (`10.0.0.0/8`) or one address (`10.0.0.5`, `::1`).
fn parse_proxy(text: &str) -> Result<ipnet::IpNet, String> {
    let text = text.trim();
    text.parse::<ipnet::IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("{text:?} is neither an address nor a range such as 10.0.0.0/8"))
}

/// Whether inbound mail's senders are checked (`--mail-auth`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MailAuth {
    On,
    Off,
}
