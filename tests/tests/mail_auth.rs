//! Who sent a reply, checked as a mail server checks it: a real DNS server (dnsmasq) publishes
//! the players' domain's SPF record, DKIM key and DMARC policy (`p=reject`), replies are
//! DKIM-signed here with a key made for the test and sent over SMTP to the server's listener.
//! A signed, aligned reply plays; a forged `From:` and a sender that fails SPF are refused at
//! SMTP time with a `5xx`, play nothing, are counted, and no mail goes back to anyone.

use crate::common;
use crate::mail::{ann_and_bob_at_chess, first_game_command, server, version, your_move};
use base64::Engine;
use common::binary::Server;
use common::mailbox::{free_port, reply, send, Sink};
use common::metric;
use mail_auth::common::crypto::Ed25519Key;
use mail_auth::common::headers::HeaderWriter;
use mail_auth::dkim::DkimSigner;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The players' domain: its SPF allows only 192.0.2.1 (the test sends from 127.0.0.1), its
/// mail is signed with the key of selector `game`, and its DMARC policy is `reject`.
const PLAYERS: &str = "players.test";
/// Mallory's own domain: its SPF allows 127.0.0.1 and its DKIM key is Mallory's.
const EVIL: &str = "evil.test";
const SELECTOR: &str = "game";

/// dnsmasq answering for `*.test` from its TXT records only, stopped when dropped.
struct Dns {
    child: Child,
}

impl Drop for Dns {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A DKIM key: the signer's PKCS#8 and its public key as a DKIM record publishes it.
struct Key {
    pkcs8: Vec<u8>,
    record: String,
}

fn key() -> Key {
    let pkcs8 = Ed25519Key::generate_pkcs8().expect("an Ed25519 key");
    let public = Ed25519Key::from_pkcs8_der(&pkcs8)
        .expect("the key reads back")
        .public_key();
    let record = format!(
        "v=DKIM1; k=ed25519; p={}",
        base64::engine::general_purpose::STANDARD.encode(public)
    );
    Key { pkcs8, record }
}

/// `raw` with a DKIM signature of `domain` made with `key`.
fn signed(key: &Key, domain: &str, raw: &str) -> String {
    let signer = Ed25519Key::from_pkcs8_der(&key.pkcs8).expect("the key reads back");
    let signature = DkimSigner::from_key(signer)
        .domain(domain)
        .selector(SELECTOR)
        .headers(["From", "To", "Subject", "Message-ID", "In-Reply-To", "Date"])
        .sign(raw.as_bytes())
        .expect("signed");
    format!("{}{raw}", signature.to_header())
}

/// Whether the players' domain publishes its DMARC policy.
#[derive(Clone, Copy, PartialEq)]
enum Dmarc {
    Reject,
    None,
}

fn dns(port: u16, players: &Key, evil: &Key, dmarc: Dmarc) -> Dns {
    let program = common::debian::program(&["/usr/sbin/dnsmasq"], "dnsmasq-base");
    // One argument each: no shell, so no quotes (dnsmasq would keep them); no value has a comma.
    let record = |name: &str, text: &str| format!("--txt-record={name},{text}");
    let mut records = vec![
        record(PLAYERS, "v=spf1 ip4:192.0.2.1 -all"),
        record(&format!("{SELECTOR}._domainkey.{PLAYERS}"), &players.record),
        record(EVIL, "v=spf1 ip4:127.0.0.1 -all"),
        record(&format!("{SELECTOR}._domainkey.{EVIL}"), &evil.record),
    ];
    if dmarc == Dmarc::Reject {
        records.push(record(&format!("_dmarc.{PLAYERS}"), "v=DMARC1; p=reject"));
    }
    let child = Command::new(program)
        .args([
            "--keep-in-foreground",
            "--conf-file=/dev/null",
            "--no-resolv",
            "--no-hosts",
            "--pid-file=",
            "--bind-interfaces",
            "--listen-address=127.0.0.1",
            "--local=/test/",
            &format!("--port={port}"),
        ])
        .args(&records)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("dnsmasq starts");
    let address = format!("127.0.0.1:{port}");
    // Ready when it answers over TCP (it serves UDP and TCP on the same port).
    common::eventually(Duration::from_secs(10), "dnsmasq listening", || {
        std::net::TcpStream::connect(&address).is_ok()
    });
    Dns { child }
}

fn refused(server: &Server) -> u64 {
    metric(
        &server.app,
        "avalanche_mail_inbound_refused_total{reason=\"authentication\"}",
    )
    .unwrap_or(0)
}

/// Ann and Bob at chess on a server with `--mail-auth auth` asking the test's DNS server, and
/// Ann's turn notice: its reply address, a legal command, and the game's version.
struct Scene {
    players_key: Key,
    evil_key: Key,
    /// The test's DNS server; `None` in [`scene_without_dns`].
    _dns: Option<Dns>,
    dns_port: u16,
    sink: Sink,
    _data: tempfile::TempDir,
    server: Server,
    smtp: u16,
    ann: common::Player,
    ann_mail: &'static str,
    game: String,
    notice: common::mailbox::Received,
    tag: String,
    legal: String,
    before: u64,
}

fn scene(auth: &str) -> Scene {
    scene_with(auth, Some(Dmarc::Reject))
}

/// A scene whose DNS server is not running (yet): every lookup of the checks fails.
fn scene_without_dns() -> Scene {
    scene_with("on", None)
}

fn scene_with(auth: &str, dmarc: Option<Dmarc>) -> Scene {
    let (players_key, evil_key) = (key(), key());
    let dns_port = free_port();
    let dns_server = dmarc.map(|dmarc| dns(dns_port, &players_key, &evil_key, dmarc));
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, smtp) = server(
        &sink,
        data.path(),
        &[
            "--mail-auth",
            auth,
            "--mail-dns",
            &format!("127.0.0.1:{dns_port}"),
        ],
    );
    let ann_mail = "ann@players.test";
    let (ann, _bob, game) = ann_and_bob_at_chess(&server, &mut sink);
    let notice = your_move(&mut sink, ann_mail, &game);
    let tag = notice.reply_to.clone().expect("a Reply-To");
    let legal = first_game_command(&notice);
    let before = version(&server, &ann, &game);
    Scene {
        players_key,
        evil_key,
        _dns: dns_server,
        dns_port,
        sink,
        _data: data,
        server,
        smtp,
        ann,
        ann_mail,
        game,
        notice,
        tag,
        legal,
        before,
    }
}

#[test]
fn a_signed_reply_plays_and_a_forged_sender_is_refused_at_smtp_time() {
    let Scene {
        players_key,
        evil_key,
        _dns,
        dns_port: _,
        mut sink,
        _data,
        server,
        smtp,
        ann,
        ann_mail,
        game,
        notice,
        tag,
        legal,
        before,
    } = scene("on");
    let mails_before = sink.all().len();

    // Mallory forges Ann's From: and envelope, unsigned: SPF fails for players.test, no DKIM.
    let forged = reply(
        ann_mail,
        &tag,
        "mallory-1@evil.test",
        &notice.message_id,
        &legal,
    );
    let answer = send(smtp, ann_mail, &tag, &forged).expect_err("refused");
    assert!(answer.contains("550"), "{answer}");
    // Mallory sends from her own domain, where SPF passes and she signs with her own key, with
    // Ann's From: neither passes for players.test, so its policy refuses the mail.
    let own = signed(
        &evil_key,
        EVIL,
        &reply(
            ann_mail,
            &tag,
            "mallory-2@evil.test",
            &notice.message_id,
            &legal,
        ),
    );
    let answer = send(smtp, "mallory@evil.test", &tag, &own).expect_err("refused");
    assert!(answer.contains("550"), "{answer}");
    assert_eq!(refused(&server), 2);
    assert_eq!(version(&server, &ann, &game), before, "nothing played");

    // Ann's own mail server signs her reply: it plays, though SPF fails (DKIM aligns).
    let genuine = signed(
        &players_key,
        PLAYERS,
        &reply(
            ann_mail,
            &tag,
            "ann-1@players.test",
            &notice.message_id,
            &legal,
        ),
    );
    send(smtp, ann_mail, &tag, &genuine).expect("taken");
    let played = sink.next("the answer to Ann's move", |m| {
        m.rcpt_to == ann_mail && m.subject.starts_with("Played")
    });
    assert!(played.text.contains(&legal), "{}", played.text);
    assert_eq!(version(&server, &ann, &game), before + 1);
    assert_eq!(refused(&server), 2);
    // The refused mails were answered by nobody: the only mails since are the played answer
    // and the notices of the move it played.
    for mail in sink.all().iter().skip(mails_before) {
        assert!(
            !mail.subject.starts_with("Not played"),
            "a refused mail was answered: {} to {}",
            mail.subject,
            mail.rcpt_to
        );
    }
}

#[test]
fn the_check_is_off_when_the_operator_turns_it_off() {
    // The same forged mail, to a server with `--mail-auth off`: taken as before (and then
    // judged by its tag: the forged sender plays Ann's turn, which is why the check is on by
    // default).
    let Scene {
        _dns,
        mut sink,
        _data,
        server,
        smtp,
        ann,
        ann_mail,
        game,
        tag,
        notice,
        legal,
        before,
        ..
    } = scene("off");
    let forged = reply(
        ann_mail,
        &tag,
        "mallory-1@evil.test",
        &notice.message_id,
        &legal,
    );
    send(smtp, ann_mail, &tag, &forged).expect("taken");
    sink.next("the answer to the forged move", |m| {
        m.rcpt_to == ann_mail && m.subject.starts_with("Played")
    });
    assert_eq!(version(&server, &ann, &game), before + 1);
    assert_eq!(refused(&server), 0);
}

#[test]
fn a_domain_without_dmarc_is_taken_as_before() {
    // players.test publishes its SPF and DKIM key but no DMARC policy: it asks receivers for
    // nothing, so a mail failing SPF and unsigned is taken and judged by its reply tag.
    let Scene {
        _dns,
        _data,
        mut sink,
        server,
        smtp,
        ann,
        ann_mail,
        game,
        notice,
        tag,
        legal,
        before,
        ..
    } = scene_with("on", Some(Dmarc::None));
    let unsigned = reply(
        ann_mail,
        &tag,
        "ann-1@players.test",
        &notice.message_id,
        &legal,
    );
    send(smtp, ann_mail, &tag, &unsigned).expect("taken");
    sink.next("the answer to Ann's move", |m| {
        m.rcpt_to == ann_mail && m.subject.starts_with("Played")
    });
    assert_eq!(version(&server, &ann, &game), before + 1);
    assert_eq!(refused(&server), 0);
}

#[test]
fn a_mail_is_deferred_while_dns_cannot_be_asked_and_plays_once_retried() {
    let Scene {
        players_key,
        evil_key,
        _dns: _,
        dns_port,
        mut sink,
        _data,
        server,
        smtp,
        ann,
        ann_mail,
        game,
        notice,
        tag,
        legal,
        before,
    } = scene_without_dns();
    let genuine = signed(
        &players_key,
        PLAYERS,
        &reply(
            ann_mail,
            &tag,
            "ann-1@players.test",
            &notice.message_id,
            &legal,
        ),
    );
    // Nothing answers DNS: the sender cannot be checked, so the mail is deferred (4xx), which
    // tells Ann's mail server to try again later; nothing is played and nothing is answered.
    let answer = send(smtp, ann_mail, &tag, &genuine).expect_err("deferred");
    assert!(answer.contains("451"), "{answer}");
    assert_eq!(version(&server, &ann, &game), before, "nothing played");
    assert_eq!(refused(&server), 0, "a deferral is not a refusal");

    // DNS is back: the same mail, sent again as her server would, plays once.
    let _dns = dns(dns_port, &players_key, &evil_key, Dmarc::Reject);
    send(smtp, ann_mail, &tag, &genuine).expect("taken");
    sink.next("the answer to Ann's move", |m| {
        m.rcpt_to == ann_mail && m.subject.starts_with("Played")
    });
    assert_eq!(version(&server, &ann, &game), before + 1);
    assert!(
        !sink
            .all()
            .iter()
            .any(|m| m.subject.starts_with("Not played")),
        "the deferred mail was answered"
    );
}
