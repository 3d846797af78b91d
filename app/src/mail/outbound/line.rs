//! A game line's mail reads as one conversation. A game line is a game and the games that go
//! on from it after agreed takebacks: each continuation keeps the first game's subject (its id
//! in brackets), and every mail of the line to one player answers the line's last mail to them
//! (`In-Reply-To`) and names the line's first and latest ones (`References`), so that a mail
//! program shows one thread from the first turn to the result, through every takeback. The
//! mail that tells of a takeback names and links the game that goes on.

use super::compose::{id_part, Letter};
use crate::error::ApiError;
use crate::mail::Mail;
use domain::registry::LiveGame;
use serde::{Deserialize, Serialize};

/// Each game line's mail to each player: `<line>:<player>`, the `Message-ID`s of its first
/// and latest mails.
const THREADS: &str = "mail_threads";
/// The line of each continuation, once found: `<game>`, the first game of its line.
const LINES: &str = "mail_lines";
/// The `Message-ID`s a thread keeps: its first, and the latest after it.
const KEPT: usize = 10;

/// The mails of one game line to one player, as their `Message-ID`s (without brackets).
#[derive(Default, Serialize, Deserialize)]
struct Thread {
    ids: Vec<String>,
}

impl Thread {
    /// Adds `id` as the latest, keeping the first and the latest [`KEPT`] - 1 after it.
    fn push(&mut self, id: String) {
        self.ids.push(id);
        if self.ids.len() > KEPT {
            self.ids.drain(1..self.ids.len() - (KEPT - 1));
        }
    }
}

impl Mail {
    /// The game line `game` (whose id is `id`) belongs to: the first game of the chain of
    /// agreed takebacks it goes on from, or itself (an analysis fork starts a line of its
    /// own). A parent that cannot be read leaves the game a line of its own.
    pub(crate) fn line_of(&self, id: &str, game: &dyn LiveGame) -> String {
        let facts = game.facts();
        let Some(origin) = facts.parent.as_ref().filter(|_| !facts.analysis) else {
            return id.to_string();
        };
        let store = self.repository.store();
        if let Ok(Some(line)) = store.get_record(LINES, id) {
            if let Ok(line) = String::from_utf8(line) {
                return line;
            }
        }
        let Ok(parent) = self.game_now(&origin.game) else {
            return id.to_string();
        };
        if !parent.facts().superseded {
            return id.to_string();
        }
        let line = self.line_of(&origin.game, parent.as_ref());
        if let Err(error) = store.put_record(LINES, id, line.as_bytes()) {
            tracing::warn!(game = %id, %error, "cannot remember a game's mail thread");
        }
        line
    }

    /// Puts `letter` to `player` in the outbox as the latest mail of game line `line`: it
    /// answers the line's latest mail to them (or the player's own mail it names), and its
    /// `References` name the line's first and latest mails. Whether it was new.
    pub(crate) async fn send_in_line(
        &self,
        letter: &Letter,
        line: &str,
        player: &str,
    ) -> Result<bool, ApiError> {
        let store = self.repository.store();
        let key = format!("{line}:{player}");
        let mut thread: Thread = store
            .get_record(THREADS, &key)
            .ok()
            .flatten()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        let mut references = thread.ids.clone();
        let answered = match &letter.in_reply_to {
            Some(answered) => {
                references.push(answered.trim_matches(['<', '>']).to_string());
                Some(answered.clone())
            }
            None => thread.ids.last().cloned(),
        };
        let message = self
            .compose_in_thread(letter, answered.as_deref(), &references)
            .map_err(ApiError::internal)?;
        let queued = self.enqueue(letter, &message).await?;
        if queued {
            thread.push(format!("{}@{}", letter.id, self.settings.domain()));
            let bytes = serde_json::to_vec(&thread).map_err(ApiError::internal)?;
            if let Err(error) = store.put_record_async(THREADS, &key, &bytes).await {
                tracing::warn!(%line, %error, "cannot remember a mail of a game's thread");
            }
        }
        Ok(queued)
    }

    /// The mail that tells `player` (at `to`) that their game `parent` was taken back by
    /// consent and play goes on in `fork` (whose id is `fork_id`): its link, its position, and
    /// that its turns are mailed as any other's. Its id is the parent's end notice's, so that
    /// it is queued once.
    pub(crate) fn taken_back_letter(
        &self,
        parent: (&str, &dyn LiveGame),
        (fork_id, fork): (&str, &dyn LiveGame),
        player: &str,
        to: &str,
    ) -> Letter {
        let (parent_id, parent) = parent;
        let kind = self.game_name(fork.facts().kind);
        let opponents = match self.opponents(fork, player) {
            names if names.is_empty() => "yourself".to_string(),
            names => names.join(", "),
        };
        let line = self.line_of(parent_id, parent);
        let version = parent.facts().version;
        let link = self.game_link(fork_id);
        let tournament = self.tournament_of(parent_id);
        let text = format!(
            "{}The takeback was agreed in your game of {kind} against {opponents}: play goes on in a new game, {fork_id}, from before the moves taken back ({link}). Its mail follows in this conversation: you are mailed when it is your move there.\n\n{}",
            match &tournament {
                Some(t) => format!(
                    "{} ({}): the new game takes this one's place at the table.\n",
                    super::tournament::label(t),
                    self.tournament_link(&t.id)
                ),
                None => String::new(),
            },
            self.table_text(fork, player, None)
        );
        Letter {
            id: id_part(&format!("{parent_id}:{version}:{player}:game_finished")),
            to: to.to_string(),
            subject: match &tournament {
                Some(t) => format!(
                    "Taken back: {kind} with {opponents} ({}) [{line}]",
                    super::tournament::label(t)
                ),
                None => format!("Taken back: {kind} with {opponents} [{line}]"),
            },
            text,
            reply_to: None,
            unsubscribe: Some(player.to_string()),
            in_reply_to: None,
            link: Some(link),
            still: None,
            turn: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_keeps_its_first_mail_and_its_latest() {
        let mut thread = Thread::default();
        for n in 0..25 {
            thread.push(format!("m{n}"));
        }
        assert_eq!(thread.ids.len(), KEPT);
        assert_eq!(thread.ids[0], "m0");
        assert_eq!(thread.ids[1], "m16");
        assert_eq!(thread.ids.last().map(String::as_str), Some("m24"));
    }
}
