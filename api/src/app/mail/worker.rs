//! The mail worker: while this server holds the `mail` lease, it follows the event log from
//! its durable cursor, derives each player's notices (the webhooks' derivation,
//! [`notifications`]) into the outbox, and sends what the outbox holds: to the relay, or as
//! `.eml` files without one. A failed attempt is tried again later, waiting twice as long
//! each time; the `Message-ID` stays the same.

use super::compose::{id_part, Letter};
use super::outbox::Queued;
use super::tag::ReplyTo;
use super::{Mail, LEASE};
use crate::app::index;
use crate::app::leases::Leases;
use crate::app::webhooks::notification::{
    copied_past, notifications, Notification, NotificationType,
};
use chrono::Utc;
use domain::registry::LiveGame;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use storage::Envelope;

/// The worker's place in the event log.
const CURSOR: (&str, &str) = ("mail_cursor", "log");
/// Events read at a time.
const PAGE: usize = 256;

pub fn run(mail: Arc<Mail>, leases: Arc<Leases>) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "the mail worker cannot start: no mail is sent");
            return;
        }
    };
    runtime.block_on(async move {
        let mut transport: Option<lettre::SmtpTransport> = None;
        let mut last_prune = std::time::Instant::now();
        loop {
            if !leases.hold(LEASE) {
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
            derive(&mail, &leases).await;
            send_due(&mail, &leases, &mut transport).await;
            if last_prune.elapsed() > Duration::from_secs(3600) {
                mail.outbox.prune().await;
                last_prune = std::time::Instant::now();
            }
            tokio::time::sleep(mail.settings.poll).await;
        }
    });
}

fn load_cursor(mail: &Mail) -> Option<u64> {
    let bytes = mail
        .repository
        .store()
        .get_record(CURSOR.0, CURSOR.1)
        .ok()??;
    String::from_utf8(bytes).ok()?.parse().ok()
}

async fn store_cursor(mail: &Mail, cursor: u64) {
    let value = cursor.to_string();
    if let Err(error) = mail
        .repository
        .store()
        .put_record_async(CURSOR.0, CURSOR.1, value.as_bytes())
        .await
    {
        tracing::error!(%error, "cannot store the mail cursor");
    }
}

/// Derives the notices of the events after the cursor into the outbox.
async fn derive(mail: &Mail, leases: &Leases) {
    let store = mail.repository.store();
    let mut cursor = match load_cursor(mail) {
        Some(cursor) => cursor,
        None => {
            // The first start: mail is about what happens from now on.
            let head = *store.subscribe_all().borrow();
            store_cursor(mail, head).await;
            head
        }
    };
    loop {
        let page = match store.read_all(cursor, PAGE) {
            Ok(page) => page,
            Err(error) => {
                tracing::warn!(%error, "mail: cannot read the event log");
                return;
            }
        };
        if page.is_empty() {
            return;
        }
        let start = cursor;
        for envelope in &page {
            if envelope.position <= cursor {
                continue;
            }
            if !leases.holds(LEASE) {
                break;
            }
            cursor = follow(mail, envelope).await.unwrap_or(envelope.position);
        }
        if cursor == start {
            return;
        }
        store_cursor(mail, cursor).await;
    }
}

/// Handles the batch `envelope` begins; returns the position after it.
async fn follow(mail: &Mail, envelope: &Envelope) -> Option<u64> {
    if !envelope.stream.starts_with("g-") {
        return None;
    }
    let store = mail.repository.store();
    let command = match store.command(&envelope.stream, envelope.version) {
        Ok(Some(command)) => command,
        _ => return None,
    };
    let tags = store.tags(&envelope.stream).unwrap_or_default();
    let interested: Vec<String> = tags
        .into_iter()
        .filter(|(name, _)| name == index::PLAYER)
        .map(|(_, player)| player)
        .filter(|player| mail.accounts.any_mail(player))
        .collect();
    if !interested.is_empty() {
        if let Err(error) = notify(
            mail,
            &envelope.stream,
            command.first_version,
            command.last_version,
            &interested,
        )
        .await
        {
            tracing::error!(game = %envelope.stream, version = envelope.version, %error, "mail: cannot derive notices");
        }
    }
    Some(command.last_position)
}

/// Derives the notices of one batch for the players who take mail, and queues them.
async fn notify(
    mail: &Mail,
    game: &str,
    first_version: u64,
    last_version: u64,
    players: &[String],
) -> Result<(), String> {
    let repository = &mail.repository;
    let count = (last_version + 1 - first_version) as usize;
    let events = repository
        .store()
        .read_stream(game, first_version - 1, count)
        .map_err(|e| e.to_string())?;
    // A fork or an import is written from a log: what its copied past tells, as webhooks.
    let logged_until = repository.logged_until(game).map_err(|e| e.to_string())?;
    let (silent, appears) = copied_past(logged_until, first_version, last_version, &events);
    if silent {
        return Ok(());
    }
    let before = if appears {
        None
    } else {
        Some(
            repository
                .game_at(game, first_version - 1)
                .map_err(|e| e.to_string())?,
        )
    };
    let after = repository
        .game_at(game, last_version)
        .map_err(|e| e.to_string())?;
    for player in players {
        let notices = notifications(before.as_deref(), after.as_ref(), &events, player);
        for notice in notices
            .into_iter()
            .filter(|n| n.kind_of_notification.delivered())
        {
            let Some(address) = mail.accounts.wants(player, notice.kind_of_notification) else {
                continue;
            };
            let letter = mail.notice_letter(after.as_ref(), &notice, &address);
            if let Err(error) = mail.send(&letter).await {
                tracing::error!(notice = %notice.id, %error, "mail: cannot queue a notice");
            }
        }
    }
    Ok(())
}

impl Mail {
    /// The names of the players at the other seats of `game`.
    pub(crate) fn opponents(&self, game: &dyn LiveGame, player: &str) -> Vec<String> {
        game.players()
            .iter()
            .flatten()
            .filter(|p| p.as_str() != player)
            .map(|p| self.players.name(p).unwrap_or_else(|| p.clone()))
            .collect()
    }

    /// The position as `seat`'s view shows it, the legal commands and the clock.
    pub(crate) fn table_text(&self, game: &dyn LiveGame, player: &str, seat: usize) -> String {
        let view = game.view(game.viewer_for(Some(player)));
        let mut text = super::render::position(&view);
        if game.status() == domain::table::Status::Active && game.to_act().contains(&seat) {
            let legal = game.legal_at(seat, Utc::now());
            text.push_str(&format!(
                "\nYour legal commands ({}):\n{}",
                legal.len(),
                super::render::legal(&legal)
            ));
        }
        match game.clocks().get(seat).and_then(|c| c.deadline()) {
            Some(deadline) => text.push_str(&format!(
                "\nClock: your move is due by {} UTC.\n",
                deadline.format("%Y-%m-%d %H:%M")
            )),
            None => text.push_str("\nClock: no time limit.\n"),
        }
        text
    }

    /// The mail of one notice.
    fn notice_letter(&self, game: &dyn LiveGame, notice: &Notification, to: &str) -> Letter {
        let opponents = self.opponents(game, &notice.player_id).join(", ");
        let view = game.view(game.viewer_for(Some(&notice.player_id)));
        let move_number = view
            .get("game")
            .and_then(|g| g.get("fullmove_number"))
            .or_else(|| view.get("fullmove_number"))
            .and_then(|n| n.as_u64())
            .map(|n| format!("move {n}"))
            .unwrap_or_else(|| format!("version {}", notice.version));
        let kind = &notice.kind;
        let by = |seat: Option<usize>| {
            seat.and_then(|s| game.players().get(s).cloned().flatten())
                .map(|p| self.players.name(&p).unwrap_or(p))
                .unwrap_or_else(|| "another seat".into())
        };
        let (subject, intro, reply_hint) = match notice.kind_of_notification {
            NotificationType::YourTurn => (
                format!("Your move in {kind} with {opponents} ({move_number}) [{}]", notice.game_id),
                format!("It is your move in {kind} against {opponents} ({move_number})."),
                "Reply to this mail with your command on the first line, written as in the list above (case and spaces do not matter); resign, draw and takeback work too.",
            ),
            NotificationType::DrawOffered => (
                format!("{} offers a draw in {kind} [{}]", by(notice.by_seat), notice.game_id),
                format!("{} offers a draw in {kind}.", by(notice.by_seat)),
                "Reply with \"accept\" or \"decline\" on the first line.",
            ),
            NotificationType::TakebackRequested => (
                format!("{} asks for a takeback in {kind} [{}]", by(notice.by_seat), notice.game_id),
                format!("{} asks to take back play in {kind}.", by(notice.by_seat)),
                "Reply with \"accept\" or \"decline\" on the first line.",
            ),
            NotificationType::TakebackWithdrawn => (
                format!("{} withdrew the takeback request in {kind} [{}]", by(notice.by_seat), notice.game_id),
                format!("{} played on: the takeback request is withdrawn.", by(notice.by_seat)),
                "",
            ),
            // Not mailed (see `NotificationType::delivered`), but written should they ever be.
            NotificationType::GameStarted => (
                format!("Your game of {kind} with {opponents} has started [{}]", notice.game_id),
                format!("Your game of {kind} against {opponents} has started."),
                "",
            ),
            NotificationType::OpponentMoved => (
                format!("{} moved in {kind} [{}]", by(notice.by_seat), notice.game_id),
                format!("{} moved in {kind}.", by(notice.by_seat)),
                "",
            ),
            NotificationType::ClockLow => (
                format!("Your clock is low in {kind} with {opponents} [{}]", notice.game_id),
                format!("Less than a quarter of your time for this move is left in {kind} against {opponents}."),
                "",
            ),
            NotificationType::GameFinished => {
                let result = match &notice.outcome {
                    Some(outcome) => serde_json::to_string(outcome).unwrap_or_default(),
                    None => "over".into(),
                };
                (
                    format!("Game over: {kind} with {opponents} [{}]", notice.game_id),
                    format!("Your game of {kind} against {opponents} is over. Result: {result}"),
                    "",
                )
            }
        };
        let mut text = format!(
            "{intro}\n\n{}",
            self.table_text(game, &notice.player_id, notice.seat)
        );
        if !reply_hint.is_empty() {
            text.push_str(&format!("\n{reply_hint}\n"));
        }
        let replies = notice.kind_of_notification != NotificationType::GameFinished;
        Letter {
            id: id_part(&notice.id),
            to: to.to_string(),
            subject,
            text,
            reply_to: replies.then(|| ReplyTo {
                game: notice.game_id.clone(),
                seat: notice.seat,
                player: notice.player_id.clone(),
            }),
            unsubscribe: Some(notice.player_id.clone()),
            in_reply_to: None,
            link: Some(self.game_link(&notice.game_id)),
        }
    }
}

/// Sends every waiting mail that is due, while the lease is held.
async fn send_due(mail: &Mail, leases: &Leases, transport: &mut Option<lettre::SmtpTransport>) {
    let waiting = match mail.outbox.waiting() {
        Ok(waiting) => waiting,
        Err(error) => {
            tracing::warn!(%error, "mail: cannot read the outbox");
            return;
        }
    };
    let now = Utc::now();
    for queued in waiting.iter().filter(|q| q.next_at <= now) {
        if !leases.holds(LEASE) {
            return;
        }
        match deliver(mail, queued, transport) {
            Ok(place) => {
                mail.counters.sent.fetch_add(1, Ordering::Relaxed);
                tracing::info!(mail = %queued.id, to = %queued.to, %place, attempt = queued.attempts + 1, "mail sent");
                if let Err(error) = mail.outbox.sent(queued).await {
                    tracing::error!(mail = %queued.id, %error, "mail sent but not marked sent: it may be sent again");
                }
            }
            Err(error) => {
                mail.counters.failed.fetch_add(1, Ordering::Relaxed);
                // A broken connection is made again at the next attempt.
                *transport = None;
                let wait = mail
                    .settings
                    .retry_min
                    .saturating_mul(1u32 << queued.attempts.min(20))
                    .min(mail.settings.retry_max);
                let next = Utc::now()
                    + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::seconds(600));
                tracing::warn!(mail = %queued.id, to = %queued.to, %error, attempt = queued.attempts + 1, retry_in_ms = wait.as_millis() as u64, "mail not sent");
                if let Err(error) = mail.outbox.failed(queued, &error, next).await {
                    tracing::error!(mail = %queued.id, %error, "cannot record a failed attempt");
                }
            }
        }
    }
}

/// Sends one mail: to the relay, or into the outbox folder. Says where it went.
fn deliver(
    mail: &Mail,
    queued: &Queued,
    transport: &mut Option<lettre::SmtpTransport>,
) -> Result<String, String> {
    use lettre::Transport;
    let message = mail.outbox.open(queued)?;
    if let Some(relay) = &mail.settings.relay {
        if transport.is_none() {
            let built = lettre::SmtpTransport::from_url(relay)
                .map_err(|e| format!("--smtp-url: {e}"))?
                .timeout(Some(Duration::from_secs(30)))
                .build();
            *transport = Some(built);
        }
        let Some(transport) = transport.as_ref() else {
            return Err("no transport".into());
        };
        let from: lettre::Address = queued.from.parse().map_err(|e| format!("{e}"))?;
        let to: lettre::Address = queued.to.parse().map_err(|e| format!("{e}"))?;
        let envelope =
            lettre::address::Envelope::new(Some(from), vec![to]).map_err(|e| e.to_string())?;
        transport
            .send_raw(&envelope, &message)
            .map_err(|e| e.to_string())?;
        return Ok(super::outbox::without_password(relay));
    }
    let Some(folder) = &mail.settings.folder else {
        return Err("no relay and no outbox folder".into());
    };
    std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let path = folder.join(format!("{}.eml", queued.id));
    let part = folder.join(format!(".{}.eml.part", queued.id));
    std::fs::write(&part, &message).map_err(|e| format!("{}: {e}", part.display()))?;
    std::fs::rename(&part, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path.display().to_string())
}
