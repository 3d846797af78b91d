//! The server's own SMTP listener (`--smtp-listen`): the SMTP session is `mailin`'s; this file
//! reads lines from each connection into it. Mail is taken for reply addresses only (any
//! other recipient is refused at `RCPT`, a mail over the size limit at the end of `DATA`), and
//! each accepted mail is handed to the application, which plays it.

use crate::mail::tag::parse_reply_address;
use crate::mail::Mail;
use mailin::response::{self, Response};
use mailin::{Action, Handler, SessionBuilder};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;

/// A mail taken by the listener: its envelope recipients and the raw message.
pub struct Inbound {
    pub recipients: Vec<String>,
    pub raw: Vec<u8>,
}

/// Connections served at once; more are answered 421 and closed.
const MOST_CONNECTIONS: usize = 32;
/// The longest line read (RFC 5321 allows 1000 bytes).
const MOST_LINE: u64 = 4096;
/// How long a silent client is waited for.
const IDLE: Duration = Duration::from_secs(120);

fn too_big() -> Response {
    Response::custom(552, "5.3.4 Message too big for this server".into())
}

fn no_such_user() -> Response {
    Response::custom(550, "5.1.1 No such reply address here".into())
}

struct Taker {
    mail: Arc<Mail>,
    sink: UnboundedSender<Inbound>,
    recipients: Vec<String>,
    raw: Vec<u8>,
    too_big: bool,
}

impl Handler for Taker {
    fn mail(&mut self, _ip: IpAddr, _domain: &str, _from: &str) -> Response {
        self.recipients.clear();
        self.raw.clear();
        self.too_big = false;
        response::OK
    }

    fn rcpt(&mut self, to: &str) -> Response {
        let to = to.trim().trim_start_matches('<').trim_end_matches('>');
        if parse_reply_address(&self.mail.key, to).is_none() {
            return no_such_user();
        }
        self.recipients.push(to.to_string());
        response::OK
    }

    fn data_start(
        &mut self,
        _domain: &str,
        _from: &str,
        _is8bit: bool,
        _to: &[String],
    ) -> Response {
        self.raw.clear();
        self.too_big = false;
        response::OK
    }

    fn data(&mut self, buf: &[u8]) -> std::io::Result<()> {
        if self.too_big || self.raw.len() + buf.len() > self.mail.settings.max_inbound {
            self.too_big = true;
            self.raw.clear();
        } else {
            self.raw.extend_from_slice(buf);
        }
        Ok(())
    }

    fn data_end(&mut self) -> Response {
        if self.too_big {
            self.too_big = false;
            return too_big();
        }
        let inbound = Inbound {
            recipients: std::mem::take(&mut self.recipients),
            raw: std::mem::take(&mut self.raw),
        };
        if self.sink.send(inbound).is_err() {
            return response::INTERNAL_ERROR;
        }
        response::OK
    }
}

/// One SMTP session on `stream`, until the client quits or goes silent.
fn session(stream: TcpStream, builder: &SessionBuilder, taker: Taker) -> std::io::Result<()> {
    let remote = stream.peer_addr()?.ip();
    stream.set_read_timeout(Some(IDLE))?;
    stream.set_write_timeout(Some(IDLE))?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    let mut session = builder.build(remote, taker);
    session.greeting().write_to(&mut writer)?;
    let mut line = Vec::with_capacity(128);
    loop {
        line.clear();
        let read = (&mut reader).take(MOST_LINE).read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok(());
        }
        let answer = session.process(&line);
        match answer.action {
            Action::NoReply => {}
            Action::Reply | Action::UpgradeTls => {
                answer.write_to(&mut writer)?;
                writer.flush()?;
            }
            Action::Close => {
                answer.write_to(&mut writer)?;
                writer.flush()?;
                return Ok(());
            }
        }
    }
}

/// Starts the listener on `listener`, a thread for each connection.
pub fn start(
    listener: TcpListener,
    mail: Arc<Mail>,
    sink: UnboundedSender<Inbound>,
) -> std::io::Result<()> {
    let address = listener.local_addr()?;
    let builder = Arc::new(SessionBuilder::new(mail.settings.domain()));
    let open = Arc::new(AtomicUsize::new(0));
    std::thread::Builder::new()
        .name("smtp-listener".into())
        .spawn(move || {
            for stream in listener.incoming() {
                let mut stream = match stream {
                    Ok(stream) => stream,
                    Err(error) => {
                        tracing::warn!(%error, "SMTP listener: a connection failed");
                        continue;
                    }
                };
                if open.fetch_add(1, Ordering::SeqCst) >= MOST_CONNECTIONS {
                    open.fetch_sub(1, Ordering::SeqCst);
                    let _ = response::NO_SERVICE.write_to(&mut stream);
                    continue;
                }
                let taker = Taker {
                    mail: mail.clone(),
                    sink: sink.clone(),
                    recipients: Vec::new(),
                    raw: Vec::new(),
                    too_big: false,
                };
                let (builder, open) = (builder.clone(), open.clone());
                let spawned = std::thread::Builder::new()
                    .name("smtp-session".into())
                    .spawn(move || {
                        if let Err(error) = session(stream, &builder, taker) {
                            tracing::debug!(%error, "SMTP session ended");
                        }
                        open.fetch_sub(1, Ordering::SeqCst);
                    });
                if let Err(error) = spawned {
                    tracing::error!(%error, "SMTP listener: cannot start a session");
                }
            }
        })?;
    tracing::info!(%address, "SMTP listener taking replies");
    Ok(())
}
