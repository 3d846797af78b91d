//! A whole mail (RFC 5322) from its parts: a plain text part and an HTML part that says the
//! same (no script, no remote image, every text escaped), the `Message-ID` of the notice, the
//! seat's tagged `Reply-To`, and the one-click unsubscribe headers of RFC 8058.

use crate::mail::render::escape_html;
use crate::mail::tag::{reply_address, ReplyTo};
use crate::mail::Mail;
use lettre::message::header::{Header, HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use lettre::Message;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// `List-Unsubscribe` (RFC 2369).
#[derive(Clone)]
struct ListUnsubscribe(String);

impl Header for ListUnsubscribe {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe")
    }
    fn parse(s: &str) -> Result<Self, BoxError> {
        Ok(ListUnsubscribe(s.to_string()))
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.clone())
    }
}

/// `List-Unsubscribe-Post` (RFC 8058): the link works with one POST.
#[derive(Clone)]
struct ListUnsubscribePost;

impl Header for ListUnsubscribePost {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe-Post")
    }
    fn parse(_: &str) -> Result<Self, BoxError> {
        Ok(ListUnsubscribePost)
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "List-Unsubscribe=One-Click".into())
    }
}

/// `Auto-Submitted: auto-generated` (RFC 3834): no auto-reply should answer this mail.
#[derive(Clone)]
struct AutoSubmitted;

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }
    fn parse(_: &str) -> Result<Self, BoxError> {
        Ok(AutoSubmitted)
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "auto-generated".into())
    }
}

/// `Subject`, written whole as encoded words (RFC 2047) when it holds text that a mail program
/// would otherwise decode as one: a subject names players, and a name such as
/// `=?utf-8?b?...?=` is shown as it was written, never as the text it encodes.
#[derive(Clone)]
struct Subject(String);

impl Header for Subject {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Subject")
    }
    fn parse(s: &str) -> Result<Self, BoxError> {
        Ok(Subject(s.to_string()))
    }
    fn display(&self) -> HeaderValue {
        if !self.0.contains("=?") {
            return HeaderValue::new(Self::name(), self.0.clone());
        }
        HeaderValue::dangerous_new_pre_encoded(Self::name(), self.0.clone(), q_encoded(&self.0))
    }
}

/// `text` as `Q` encoded words (RFC 2047 section 4.2) of UTF-8, each at most 75 characters,
/// on folded lines: every byte but a letter or a digit is written `=XX`, a space `_`.
fn q_encoded(text: &str) -> String {
    const OPEN: &str = "=?utf-8?q?";
    const CLOSE: &str = "?=";
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        let mut bytes = [0u8; 4];
        let encoded: String = c
            .encode_utf8(&mut bytes)
            .bytes()
            .map(|b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => (b as char).to_string(),
                b' ' => "_".to_string(),
                _ => format!("={b:02X}"),
            })
            .collect();
        // A character is never split between two words.
        if OPEN.len() + word.len() + encoded.len() + CLOSE.len() > 75 {
            words.push(format!("{OPEN}{}{CLOSE}", std::mem::take(&mut word)));
        }
        word.push_str(&encoded);
    }
    words.push(format!("{OPEN}{word}{CLOSE}"));
    words.join("\r\n ")
}

/// What a mail says and to whom.
pub struct Letter {
    /// The notice's id: the `Message-ID`'s left part, the same at every attempt.
    pub id: String,
    pub to: String,
    pub subject: String,
    pub text: String,
    /// The seat a reply plays for, if a reply may play.
    pub reply_to: Option<ReplyTo>,
    /// The player whose mail the unsubscribe link turns off (game mail).
    pub unsubscribe: Option<String>,
    /// The `Message-ID` this mail answers.
    pub in_reply_to: Option<String>,
    /// The link to the table.
    pub link: Option<String>,
    /// For a clock notice: the clock that must still run when it is sent.
    pub still: Option<super::outbox::ClockStill>,
    /// For a turn notice: the turn that must still be the player's when it is sent.
    pub turn: Option<super::outbox::TurnStill>,
}

/// A `Message-ID` left part from a notice id: only characters a mail id may hold.
pub fn id_part(notice: &str) -> String {
    notice
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '.' | '_' => c,
            _ => '.',
        })
        .collect()
}

impl Mail {
    /// The whole message of `letter`, as sent.
    pub fn compose(&self, letter: &Letter) -> Result<Vec<u8>, String> {
        let answered: Vec<String> = letter.in_reply_to.iter().cloned().collect();
        self.compose_in_thread(letter, letter.in_reply_to.as_deref(), &answered)
    }

    /// The whole message of `letter` as a mail of a thread: it answers `answered` and names
    /// `references` (`Message-ID`s, with or without their brackets), oldest first.
    pub(crate) fn compose_in_thread(
        &self,
        letter: &Letter,
        answered: Option<&str>,
        references: &[String],
    ) -> Result<Vec<u8>, String> {
        let from: Mailbox = self
            .settings
            .from
            .parse()
            .map_err(|e| format!("--mail-from: {e}"))?;
        let to: Mailbox = letter
            .to
            .parse()
            .map_err(|e| format!("{}: {e}", letter.to))?;
        let mut builder = Message::builder()
            .from(from)
            .to(to)
            .header(Subject(letter.subject.clone()))
            .message_id(Some(format!("<{}@{}>", letter.id, self.settings.domain())))
            .header(AutoSubmitted);
        if let Some(seat) = &letter.reply_to {
            let address = reply_address(&self.key, &self.settings.domain(), seat);
            let mailbox: Mailbox = address.parse().map_err(|e| format!("{address}: {e}"))?;
            builder = builder.reply_to(mailbox);
        }
        let bracketed = |id: &str| format!("<{}>", id.trim_matches(['<', '>']));
        if let Some(answered) = answered {
            builder = builder.in_reply_to(bracketed(answered));
        }
        if !references.is_empty() {
            let references: Vec<String> = references.iter().map(|id| bracketed(id)).collect();
            builder = builder.references(references.join(" "));
        }
        let mut text = letter.text.clone();
        let mut html = format!(
            "<!DOCTYPE html><html><body><pre style=\"font-family: monospace; font-size: 14px\">{}</pre>",
            escape_html(&letter.text)
        );
        if let Some(link) = &letter.link {
            text.push_str(&format!("\nThe table: {link}\n"));
            html.push_str(&format!(
                "<p><a href=\"{}\">Open the table</a></p>",
                escape_html(link)
            ));
        }
        if let Some(player) = &letter.unsubscribe {
            let link = self.unsubscribe_link(player);
            builder = builder
                .header(ListUnsubscribe(format!("<{link}>")))
                .header(ListUnsubscribePost);
            text.push_str(&format!("\nNo more game mail: {link}\n"));
            html.push_str(&format!(
                "<p style=\"font-size: 12px\"><a href=\"{}\">No more game mail</a></p>",
                escape_html(&link)
            ));
        }
        html.push_str("</body></html>");
        let message = builder
            .multipart(MultiPart::alternative_plain_html(text, html))
            .map_err(|e| e.to_string())?;
        Ok(message.formatted())
    }

    /// Puts `letter` in the outbox; whether it was new.
    pub async fn send(&self, letter: &Letter) -> Result<bool, crate::error::ApiError> {
        let message = self
            .compose(letter)
            .map_err(crate::error::ApiError::internal)?;
        self.enqueue(letter, &message).await
    }

    /// Puts `message`, the whole mail of `letter`, in the outbox; whether it was new.
    pub(crate) async fn enqueue(
        &self,
        letter: &Letter,
        message: &[u8],
    ) -> Result<bool, crate::error::ApiError> {
        let queued = self
            .outbox
            .enqueue(
                &letter.id,
                &self.settings.from_address(),
                &letter.to,
                message,
                super::outbox::SentOnlyWhile {
                    player: letter.unsubscribe.clone(),
                    clock: letter.still.clone(),
                    turn: letter.turn.clone(),
                },
            )
            .await?;
        if queued {
            tracing::info!(mail = %letter.id, subject = %letter.subject, "mail queued");
        }
        Ok(queued)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_that_holds_an_encoded_word_is_written_as_encoded_words() {
        let subject = "=?utf-8?b?WW91ciBhY2NvdW50?= invites you to avalanche [g-1]";
        let encoded = q_encoded(subject);
        for line in encoded.split("\r\n ") {
            assert!(line.len() <= 75, "{line}");
            assert!(
                line.starts_with("=?utf-8?q?") && line.ends_with("?="),
                "{line}"
            );
        }
        let header = format!("Subject: {encoded}\r\n\r\n");
        let parsed = mail_parser::MessageParser::default()
            .parse(header.as_bytes())
            .expect("a message");
        assert_eq!(parsed.subject(), Some(subject));
    }
}
