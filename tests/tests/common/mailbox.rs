//! Real mail for the tests: an SMTP server (Python's `aiosmtpd`, installed with pip from
//! `tests/mail/requirements.txt` when missing) that receives the server's mail over TCP into a
//! Maildir, and an SMTP client (lettre) that sends replies to the server's own listener.
#![allow(dead_code)] // each test file uses its own part of the helper

use mail_parser::MessageParser;
use std::collections::HashSet;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A free TCP port on 127.0.0.1.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("a free port")
        .local_addr()
        .expect("its address")
        .port()
}

fn requirements() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("mail/requirements.txt")
}

/// Makes sure `aiosmtpd` can be imported, installing it with pip if needed.
fn ensure_aiosmtpd() {
    let python = "python3";
    let present = Command::new(python)
        .args(["-c", "import aiosmtpd"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if present {
        return;
    }
    let installed = Command::new(python)
        .args(["-m", "pip", "install", "--quiet", "-r"])
        .arg(requirements())
        .status();
    assert!(
        installed.is_ok_and(|s| s.success()),
        "the mail tests need Python 3 with aiosmtpd: run `python3 -m pip install -r tests/mail/requirements.txt`"
    );
}

/// A mail as the sink received it.
#[derive(Clone, Debug)]
pub struct Received {
    pub raw: String,
    /// The SMTP envelope's recipient.
    pub rcpt_to: String,
    pub to: String,
    pub from: String,
    pub subject: String,
    pub message_id: String,
    pub reply_to: Option<String>,
    pub text: String,
    pub html: Option<String>,
    pub file: PathBuf,
}

impl Received {
    /// A mail file (RFC 5322), as a mail program reads it.
    pub fn parse(file: PathBuf) -> Option<Received> {
        let bytes = std::fs::read(&file).ok()?;
        let message = MessageParser::default().parse(&bytes)?;
        let first = |a: Option<&mail_parser::Address>| {
            a.and_then(|a| a.first())
                .and_then(|a| a.address())
                .map(str::to_string)
        };
        let header = |name: &str| {
            message
                .header(name)
                .and_then(|v| v.as_text())
                .map(str::to_string)
        };
        Some(Received {
            raw: String::from_utf8_lossy(&bytes).into_owned(),
            rcpt_to: header("X-RcptTo").unwrap_or_default(),
            to: first(message.to()).unwrap_or_default(),
            from: first(message.from()).unwrap_or_default(),
            subject: message.subject().unwrap_or_default().to_string(),
            message_id: message.message_id().unwrap_or_default().to_string(),
            reply_to: first(message.reply_to()),
            text: message
                .body_text(0)
                .map(|t| t.replace("\r\n", "\n"))
                .unwrap_or_default(),
            html: message.body_html(0).map(|t| t.into_owned()),
            file,
        })
    }

    /// A header's raw value.
    pub fn header(&self, name: &str) -> Option<String> {
        let message = MessageParser::default().parse(self.raw.as_bytes())?;
        message.header_raw(name).map(|v| v.trim().to_string())
    }
}

/// The SMTP server the avalanche server sends its mail to.
pub struct Sink {
    child: Child,
    pub port: u16,
    dir: tempfile::TempDir,
    /// Files already handed out by `next`.
    seen: HashSet<PathBuf>,
}

impl Sink {
    pub fn start() -> Sink {
        Sink::launch(free_port(), 0)
    }

    /// A sink listening on `port` (one the server was told of while nothing listened there).
    pub fn start_on(port: u16) -> Sink {
        Sink::launch(port, 0)
    }

    /// A sink that answers the first `refuse` mails with `451` (a temporary failure) at the end
    /// of DATA, recording each (see [`Sink::refused`]), and takes the ones after.
    pub fn refusing(refuse: usize) -> Sink {
        Sink::launch_answering(free_port(), refuse, "451 4.3.0 Try again later")
    }

    /// A sink that answers the first `refuse` mails with `answer` (such as a permanent
    /// `550 5.1.1 No such user`) at the end of DATA, recording each as [`Sink::refusing`] does.
    pub fn refusing_with(refuse: usize, answer: &str) -> Sink {
        Sink::launch_answering(free_port(), refuse, answer)
    }

    fn launch(port: u16, refuse: usize) -> Sink {
        Sink::launch_answering(port, refuse, "451 4.3.0 Try again later")
    }

    fn launch_answering(port: u16, refuse: usize, answer: &str) -> Sink {
        ensure_aiosmtpd();
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut command = Command::new("python3");
        command.args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")]);
        if refuse == 0 {
            command
                .args(["-c", "aiosmtpd.handlers.Mailbox"])
                .arg(dir.path().join("box"));
        } else {
            command
                .env("PYTHONPATH", requirements().parent().expect("tests/mail"))
                .args(["-c", "refusing.Refusing"])
                .arg(dir.path().join("box"))
                .arg(refuse.to_string())
                .arg(dir.path().join("refused"))
                .arg(answer);
        }
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 -m aiosmtpd starts");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "aiosmtpd did not listen"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Sink {
            child,
            port,
            dir,
            seen: HashSet::new(),
        }
    }

    /// The mails a refusing sink answered with 451: when (seconds since the epoch) and their
    /// `Message-ID` (without angle brackets), in the order refused.
    pub fn refused(&self) -> Vec<(f64, String)> {
        std::fs::read_to_string(self.dir.path().join("refused"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| {
                let (at, id) = line.split_once(' ')?;
                Some((
                    at.parse().ok()?,
                    id.trim().trim_matches(['<', '>']).to_string(),
                ))
            })
            .collect()
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Every mail received so far, in the order received.
    pub fn all(&self) -> Vec<Received> {
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
        for sub in ["new", "cur"] {
            if let Ok(entries) = std::fs::read_dir(self.dir.path().join("box").join(sub)) {
                for entry in entries.flatten() {
                    let modified = entry
                        .metadata()
                        .and_then(|m| m.modified())
                        .unwrap_or(std::time::UNIX_EPOCH);
                    files.push((modified, entry.path()));
                }
            }
        }
        files.sort();
        files
            .into_iter()
            .filter_map(|(_, f)| Received::parse(f))
            .collect()
    }

    /// The first mail not handed out before that `wanted` accepts, waiting up to 30 s.
    pub fn next(&mut self, what: &str, wanted: impl Fn(&Received) -> bool) -> Received {
        let started = Instant::now();
        loop {
            if let Some(found) = self
                .all()
                .into_iter()
                .find(|m| !self.seen.contains(&m.file) && wanted(m))
            {
                self.seen.insert(found.file.clone());
                return found;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "no mail came: {what}; received: {:#?}",
                self.all()
                    .iter()
                    .map(|m| (&m.rcpt_to, &m.subject))
                    .collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Mail not handed out yet to `address`.
    pub fn unseen_to(&self, address: &str) -> Vec<Received> {
        self.all()
            .into_iter()
            .filter(|m| !self.seen.contains(&m.file) && m.rcpt_to == address)
            .collect()
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

/// Sends `raw` over SMTP to the server's listener on `port`, from `from` to `to`.
pub fn send(port: u16, from: &str, to: &str, raw: &str) -> Result<(), String> {
    send_with(
        port,
        lettre::transport::smtp::client::Tls::None,
        from,
        to,
        raw,
    )
}

/// [`send`] with `tls`: `Tls::Required` sends only after STARTTLS.
pub fn send_with(
    port: u16,
    tls: lettre::transport::smtp::client::Tls,
    from: &str,
    to: &str,
    raw: &str,
) -> Result<(), String> {
    use lettre::Transport;
    let transport = lettre::SmtpTransport::builder_dangerous("127.0.0.1")
        .port(port)
        .tls(tls)
        .timeout(Some(Duration::from_secs(20)))
        .build();
    let envelope = lettre::address::Envelope::new(
        Some(from.parse().map_err(|e| format!("{e}"))?),
        vec![to.parse().map_err(|e| format!("{e}"))?],
    )
    .map_err(|e| e.to_string())?;
    transport
        .send_raw(&envelope, raw.as_bytes())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// A plain text reply to `to` with `body`, as a mail program writes it.
pub fn reply(from: &str, to: &str, message_id: &str, in_reply_to: &str, body: &str) -> String {
    format!(
        "From: Player <{from}>\r\nTo: <{to}>\r\nSubject: Re: your move\r\nMessage-ID: <{message_id}>\r\nIn-Reply-To: <{in_reply_to}>\r\nDate: Wed, 25 Nov 2026 16:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n",
        body.replace('\n', "\r\n")
    )
}

/// The legal commands a notice lists, in its order: each line under "Your legal commands"
/// holds commands two spaces apart, or one command and its consequence after `  -- ` (a
/// losing one marked `!!`).
pub fn listed_commands(text: &str) -> Vec<String> {
    let mut lines = text.lines();
    for line in lines.by_ref() {
        if line.starts_with("Your legal commands") {
            break;
        }
    }
    let mut commands = Vec::new();
    for line in lines.take_while(|l| l.starts_with("  ")) {
        match line.split_once("  -- ") {
            Some((command, _)) => {
                commands.push(command.trim().trim_start_matches("!! ").to_string())
            }
            None => commands.extend(
                line.split("  ")
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .map(String::from),
            ),
        }
    }
    commands
}

/// Checks that a mail's position draws no card of `other`'s hand: a seat's line names its
/// count of cards, never the cards (`[...]` after the counts, or a `hand:` line under it).
pub fn assert_no_other_hand(text: &str, other: &str) {
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let theirs = line.trim_start().starts_with(&format!("{other}:"));
        if !theirs {
            continue;
        }
        assert!(
            !line.contains('['),
            "{other}'s hand is drawn: {line}\n{text}"
        );
        while let Some(next) = lines.peek() {
            if !next.starts_with("    ") {
                break;
            }
            assert!(
                !next.trim_start().starts_with("hand:"),
                "{other}'s hand is drawn: {next}\n{text}"
            );
            lines.next();
        }
    }
}
