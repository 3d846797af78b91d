//! The server's own SMTP listener (`--smtp-listen`): the SMTP session is `mailin`'s; this file
//! reads lines from each connection into it. Mail is taken for reply addresses only (any
//! other recipient is refused at `RCPT`, a mail over the size limit at the end of `DATA`), and
//! each accepted mail is handed to the application, which plays it.
//!
//! A mail server's defences against clients that hold connections: one client address (an
//! IPv6 address by its /64) holds at most `--smtp-connections-per-address` sessions, every
//! session at most [`MOST_CONNECTIONS`] together; a command line must arrive whole within
//! `--smtp-command-timeout` (RFC 5321 section 4.5.3.2.7's five minutes by default) and each
//! line of a message within `--smtp-data-timeout` (section 4.5.3.2.5's three minutes), however
//! slowly its bytes trickle in; a session that sends more than [`MOST_IDLE_COMMANDS`] commands
//! without a mail, or [`MOST_ERRORS`] refused ones, is closed. With `--smtp-tls-cert`, the
//! listener offers STARTTLS (RFC 3207) with the operator's certificate. With `--mail-auth on`
//! each mail's SPF, DKIM and DMARC are checked at the end of `DATA` (see [`super::auth`]).

use super::auth::{Checker, Verdict};
use crate::mail::tag::parse_reply_address;
use crate::mail::Mail;
use mailin::response::{self, Response};
use mailin::{Action, Handler, SessionBuilder};
use std::cell::Cell;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, TcpListener, TcpStream};
use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;

/// A mail taken by the listener: its envelope recipients and the raw message.
pub struct Inbound {
    pub recipients: Vec<String>,
    pub raw: Vec<u8>,
}

/// Connections served at once, from every address; more are answered 421 and closed.
const MOST_CONNECTIONS: usize = 64;
/// The longest line read (RFC 5321 allows 1000 bytes).
const MOST_LINE: u64 = 4096;
/// Commands outside a mail's data that do not begin a mail (NOOP, RSET, HELO, ...) before a
/// session is closed: a client that talks without sending mail only holds a connection.
const MOST_IDLE_COMMANDS: u32 = 50;
/// Commands refused in one session before it is closed.
const MOST_ERRORS: u32 = 10;

/// How the listener guards its connections.
#[derive(Clone, Debug)]
pub struct ListenerSettings {
    /// Sessions one client address (an IPv6 address by its /64) may hold at once.
    pub connections_per_address: usize,
    /// The longest wait for a whole command line.
    pub command_timeout: Duration,
    /// The longest wait for each line of a message's data.
    pub data_timeout: Duration,
    /// The operator's certificate and key: STARTTLS is offered when set.
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// Each mail's SPF, DKIM and DMARC checks; `None`: off (the command line's default is on).
    pub auth: Option<Checker>,
}

impl Default for ListenerSettings {
    fn default() -> ListenerSettings {
        ListenerSettings {
            connections_per_address: 4,
            command_timeout: Duration::from_secs(300),
            data_timeout: Duration::from_secs(180),
            tls: None,
            auth: None,
        }
    }
}

fn too_big() -> Response {
    Response::custom(552, "5.3.4 Message too big for this server".into())
}

fn no_such_user() -> Response {
    Response::custom(550, "5.1.1 No such reply address here".into())
}

fn too_many_from_you() -> Response {
    Response::custom(
        421,
        "4.7.0 Too many connections from your address; try again later".into(),
    )
}

fn timed_out() -> Response {
    Response::custom(421, "4.4.2 Timeout: closing the connection".into())
}

fn too_chatty() -> Response {
    Response::custom(
        421,
        "4.7.0 Too many commands without a mail; closing the connection".into(),
    )
}

fn unauthenticated() -> Response {
    Response::custom(
        550,
        "5.7.1 Refused by the DMARC policy of the sender's domain".into(),
    )
}

fn cannot_authenticate() -> Response {
    Response::custom(
        451,
        "4.7.0 The sender cannot be authenticated now; try again later".into(),
    )
}

/// The envelope of the mail under way: the client's address, its `HELO` name, `MAIL FROM`.
#[derive(Default)]
struct Envelope {
    ip: Option<IpAddr>,
    helo: String,
    from: String,
}

struct Taker {
    mail: Arc<Mail>,
    auth: Option<Checker>,
    envelope: Envelope,
    sink: UnboundedSender<Inbound>,
    recipients: Vec<String>,
    raw: Vec<u8>,
    too_big: bool,
    /// Whether the session is between `DATA` and its final dot.
    in_data: Rc<Cell<bool>>,
}

impl Handler for Taker {
    fn mail(&mut self, ip: IpAddr, domain: &str, from: &str) -> Response {
        self.envelope = Envelope {
            ip: Some(ip),
            helo: domain.to_string(),
            from: from.to_string(),
        };
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
        self.in_data.set(true);
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
        self.in_data.set(false);
        if self.too_big {
            self.too_big = false;
            return too_big();
        }
        if let (Some(checker), Some(ip)) = (&self.auth, self.envelope.ip) {
            let envelope = &self.envelope;
            match checker.check(
                &self.mail.settings.domain(),
                ip,
                &envelope.helo,
                &envelope.from,
                &self.raw,
            ) {
                Verdict::Take => {}
                Verdict::Refuse(why) => {
                    tracing::warn!(%ip, from = %envelope.from, %why, "SMTP listener: a mail refused, it fails its sender's DMARC policy");
                    self.mail
                        .counters
                        .refused_unauthenticated
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    self.recipients.clear();
                    self.raw.clear();
                    return unauthenticated();
                }
                Verdict::Defer(why) => {
                    tracing::info!(%ip, from = %envelope.from, %why, "SMTP listener: a mail deferred, its sender cannot be authenticated now");
                    self.recipients.clear();
                    self.raw.clear();
                    return cannot_authenticate();
                }
            }
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

/// A connection whose reads end at a deadline: a line must arrive whole by then, however its
/// bytes trickle in (a timeout per read would start again with every byte).
struct Timed {
    stream: TcpStream,
    deadline: Rc<Cell<Instant>>,
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self
            .deadline
            .get()
            .saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        self.stream.read(buf)
    }
}

impl Write for Timed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.stream.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.stream.flush()
    }
}

/// A connection, in clear or (after STARTTLS) encrypted.
trait Connection: Read + Write {}
impl<T: Read + Write> Connection for T {}

/// Whether a read failed because its deadline passed.
fn is_timeout(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    )
}

fn answer(connection: &mut dyn Connection, response: &Response) -> std::io::Result<()> {
    response.write_to(connection)?;
    connection.flush()
}

/// One SMTP session on `stream`, until the client quits, goes silent or is too slow.
fn session(
    stream: TcpStream,
    builder: &SessionBuilder,
    mail: Arc<Mail>,
    sink: UnboundedSender<Inbound>,
    settings: &ListenerSettings,
) -> std::io::Result<()> {
    let remote = stream.peer_addr()?.ip();
    // A client that reads none of the answers is not waited for longer than for a command.
    stream.set_write_timeout(Some(settings.command_timeout))?;
    let deadline = Rc::new(Cell::new(Instant::now()));
    let in_data = Rc::new(Cell::new(false));
    let taker = Taker {
        auth: settings.auth.clone(),
        envelope: Envelope::default(),
        mail,
        sink,
        recipients: Vec::new(),
        raw: Vec::new(),
        too_big: false,
        in_data: in_data.clone(),
    };
    let timed = Timed {
        stream,
        deadline: deadline.clone(),
    };
    let mut reader: BufReader<Box<dyn Connection>> = BufReader::new(Box::new(timed));
    let mut session = builder.build(remote, taker);
    answer(reader.get_mut(), &session.greeting())?;
    let (mut idle, mut errors) = (0u32, 0u32);
    let mut line = Vec::with_capacity(128);
    loop {
        line.clear();
        let wait = if in_data.get() {
            settings.data_timeout
        } else {
            settings.command_timeout
        };
        deadline.set(Instant::now() + wait);
        let read = match (&mut reader).take(MOST_LINE).read_until(b'\n', &mut line) {
            Ok(read) => read,
            Err(error) if is_timeout(&error) => {
                tracing::info!(%remote, "SMTP session closed: a line did not arrive in time");
                let _ = answer(reader.get_mut(), &timed_out());
                return Ok(());
            }
            Err(error) => return Err(error),
        };
        if read == 0 {
            return Ok(());
        }
        let data = in_data.get();
        let reply = session.process(&line);
        if !data {
            let verb = line
                .get(..4)
                .map(|v| v.to_ascii_uppercase())
                .unwrap_or_default();
            if verb == b"MAIL" && !reply.is_error {
                idle = 0;
            } else {
                idle += 1;
            }
            if reply.is_error {
                errors += 1;
            }
            if idle > MOST_IDLE_COMMANDS || errors > MOST_ERRORS {
                tracing::info!(%remote, "SMTP session closed: too many commands without a mail");
                let _ = answer(reader.get_mut(), &too_chatty());
                return Ok(());
            }
        }
        match reply.action {
            Action::NoReply => {}
            Action::Reply => answer(reader.get_mut(), &reply)?,
            Action::Close => {
                answer(reader.get_mut(), &reply)?;
                return Ok(());
            }
            Action::UpgradeTls => {
                let Some(tls) = &settings.tls else {
                    // mailin offers STARTTLS only when told to: not reached.
                    answer(reader.get_mut(), &response::NO_SERVICE)?;
                    return Ok(());
                };
                answer(reader.get_mut(), &reply)?;
                // What the client sent after STARTTLS in clear is dropped with the buffer
                // (RFC 3207 section 6): only what comes through TLS is read.
                let plain = reader.into_inner();
                let connection =
                    rustls::ServerConnection::new(tls.clone()).map_err(std::io::Error::other)?;
                let mut encrypted = rustls::StreamOwned::new(connection, plain);
                deadline.set(Instant::now() + settings.command_timeout);
                while encrypted.conn.is_handshaking() {
                    encrypted
                        .conn
                        .complete_io(&mut encrypted.sock)
                        .inspect_err(|error| {
                            tracing::info!(%remote, %error, "SMTP session: the TLS handshake failed")
                        })?;
                }
                reader = BufReader::new(Box::new(encrypted));
                session.tls_active();
            }
        }
    }
}

/// The sessions open, in all and by client address.
#[derive(Default)]
struct Open {
    all: usize,
    by_address: HashMap<String, usize>,
}

/// A session's place among the open ones, given back when it ends.
struct Place {
    open: Arc<Mutex<Open>>,
    address: String,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.all = open.all.saturating_sub(1);
        if let Some(count) = open.by_address.get_mut(&self.address) {
            *count -= 1;
            if *count == 0 {
                open.by_address.remove(&self.address);
            }
        }
    }
}

/// A place for a session from `address`, if neither its address nor the listener is full.
fn take_place(open: &Arc<Mutex<Open>>, address: IpAddr, per_address: usize) -> Option<Place> {
    let key = crate::limits::address_key(address);
    let mut guard = open.lock().unwrap_or_else(PoisonError::into_inner);
    let mine = guard.by_address.get(&key).copied().unwrap_or(0);
    if guard.all >= MOST_CONNECTIONS || (per_address > 0 && mine >= per_address) {
        return None;
    }
    guard.all += 1;
    *guard.by_address.entry(key.clone()).or_insert(0) += 1;
    Some(Place {
        open: open.clone(),
        address: key,
    })
}

/// Starts the listener on `listener`, a thread for each connection.
pub fn start(
    listener: TcpListener,
    mail: Arc<Mail>,
    sink: UnboundedSender<Inbound>,
) -> std::io::Result<()> {
    let address = listener.local_addr()?;
    let settings = Arc::new(mail.settings.listener.clone());
    let mut builder = SessionBuilder::new(mail.settings.domain());
    if settings.tls.is_some() {
        builder.enable_start_tls();
    }
    let builder = Arc::new(builder);
    let open = Arc::new(Mutex::new(Open::default()));
    let tls = settings.tls.is_some();
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
                let Ok(peer) = stream.peer_addr() else {
                    continue;
                };
                let Some(place) = take_place(&open, peer.ip(), settings.connections_per_address)
                else {
                    tracing::info!(remote = %peer.ip(), "SMTP listener: a connection refused, its address or the listener is full");
                    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
                    let _ = too_many_from_you().write_to(&mut stream);
                    continue;
                };
                let (builder, settings) = (builder.clone(), settings.clone());
                let (mail, sink) = (mail.clone(), sink.clone());
                let spawned = std::thread::Builder::new()
                    .name("smtp-session".into())
                    .spawn(move || {
                        let _place = place;
                        if let Err(error) = session(stream, &builder, mail, sink, &settings) {
                            tracing::debug!(%error, "SMTP session ended");
                        }
                    });
                if let Err(error) = spawned {
                    tracing::error!(%error, "SMTP listener: cannot start a session");
                }
            }
        })?;
    tracing::info!(%address, starttls = tls, "SMTP listener taking replies");
    Ok(())
}
