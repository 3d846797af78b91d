//! Mail under attack, each attack run as an attacker ran it, with real mail: confirmation
//! codes and invitations poured on one recipient, an encoded word in a name, a relay's
//! permanent refusal, guesses at the inbound secret, a reply address seen once and a forged
//! sender, idle connections that trickle bytes into the SMTP listener, and replies that travel
//! encrypted (STARTTLS).

use crate::common;
use crate::mail::{
    ann_and_bob_at_chess, first_game_command, player_with_mail, server, version, your_move, DOMAIN,
};
use common::binary::{self, Server};
use common::mailbox::{free_port, reply, send, send_with, Sink};
use common::play::play_first;
use common::{ok_json, Player};
use reqwest::StatusCode;
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// The value of a mail metric (with its labels, if any), which the server always writes.
fn metric(server: &Server, name: &str) -> u64 {
    common::metric(&server.app, name).unwrap_or_else(|| panic!("no metric {name}"))
}

/// Waits up to 30 s for `done`.
fn wait_for(what: &str, done: impl FnMut() -> bool) {
    common::eventually(Duration::from_secs(30), what, done);
}

/// Waits until the outbox has sent everything it holds.
fn outbox_empty(server: &Server) {
    wait_for("the outbox empties", || {
        metric(server, "avalanche_mail_waiting") == 0
    });
}

/// `PUT /v1/players/me/email` for `player`.
fn set_address(server: &Server, player: &Player, address: &str) -> reqwest::blocking::Response {
    let app = &server.app;
    app.client
        .put(app.url("/v1/players/me/email"))
        .bearer_auth(&player.token)
        .json(&json!({"address": address}))
        .send()
        .unwrap()
}

#[test]
fn confirmation_codes_reach_one_address_a_few_times_a_day_whoever_asks_and_carry_no_players_text() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, _smtp) = server(&sink, data.path(), &[]);
    let victim = "victim@players.test";
    let spam = "WIN FREE COINS: evil.test";
    // Twelve accounts, each named with the attacker's text, each asking for the victim's
    // address: three codes are mailed today, the others are refused and change nothing.
    let mut answers = Vec::new();
    for n in 0..12 {
        let attacker = server.app.create_player(&format!("{spam} {n}"));
        let answer = set_address(&server, &attacker, victim);
        let status = answer.status();
        if status == StatusCode::TOO_MANY_REQUESTS {
            let problem: serde_json::Value = answer.json().unwrap();
            assert_eq!(problem["code"], "rate_limited", "{problem}");
            let me = ok_json(
                server.app.get("/v1/players/me", Some(&attacker)).send(),
                StatusCode::OK,
            );
            assert!(me["email"]["address"].is_null(), "{me}");
        }
        answers.push(status);
    }
    let taken = answers
        .iter()
        .filter(|s| **s == StatusCode::ACCEPTED)
        .count();
    assert_eq!(taken, 3, "{answers:?}");
    outbox_empty(&server);
    let mails = sink.unseen_to(victim);
    assert_eq!(mails.len(), 3, "the victim got {} codes", mails.len());
    // Read as the victim reads them: a code, and not a word of the attacker's.
    for mail in &mails {
        assert!(mail.subject.starts_with("Your code"), "{}", mail.subject);
        assert!(
            !mail.subject.contains("COINS") && !mail.text.contains("COINS"),
            "{}\n{}",
            mail.subject,
            mail.text
        );
        assert!(!mail.html.clone().unwrap_or_default().contains("COINS"));
        assert!(mail
            .text
            .contains("If you did not ask for this, ignore this mail"));
    }
    assert_eq!(
        metric(
            &server,
            "avalanche_mail_refused_total{limit=\"codes_per_address\"}"
        ),
        9
    );
    // Another address is not held back by the victim's share.
    let own = server.app.create_player("Bea");
    assert_eq!(
        set_address(&server, &own, "bea@players.test").status(),
        StatusCode::ACCEPTED
    );
    sink.next("Bea's code", |m| m.rcpt_to == "bea@players.test");
}

#[test]
fn invitations_reach_one_player_a_few_times_an_hour_whoever_invites() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, _smtp) = server(&sink, data.path(), &[]);
    let app = &server.app;
    let victim = player_with_mail(&server, &mut sink, "Vic", "vic@players.test");
    // Ten games, by ten accounts, each inviting the same player: every inviter is answered
    // the same, and three invitations are mailed this hour.
    for n in 0..10 {
        let inviter = app.create_player(&format!("Inviter {n}"));
        let game = app.create_game(&inviter, json!({"kind": "avalanche-chess", "seats": 2}));
        let answer = app
            .post(&format!("/v1/games/{game}/invitations"), Some(&inviter))
            .json(&json!({"player_id": victim.id}))
            .send()
            .unwrap();
        assert_eq!(answer.status(), StatusCode::ACCEPTED);
    }
    outbox_empty(&server);
    let invitations: Vec<_> = sink
        .unseen_to("vic@players.test")
        .into_iter()
        .filter(|m| m.subject.contains("invites you"))
        .collect();
    assert_eq!(invitations.len(), 3, "{invitations:#?}");
    assert_eq!(
        metric(
            &server,
            "avalanche_mail_refused_total{limit=\"invitations_per_player\"}"
        ),
        7
    );
}

#[test]
fn an_encoded_word_in_a_name_reaches_the_subject_as_it_was_written() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, _smtp) = server(&sink, data.path(), &[]);
    let app = &server.app;
    let victim = player_with_mail(&server, &mut sink, "Vic", "vic@players.test");
    // "Account locked", as an RFC 2047 encoded word: a mail program would show the decoded
    // text in the subject, as if the server had written it.
    let name = "=?utf-8?b?QWNjb3VudCBsb2NrZWQ=?=";
    let attacker = app.create_player(name);
    let game = app.create_game(&attacker, json!({"kind": "avalanche-chess", "seats": 2}));
    let invited = app
        .post(&format!("/v1/games/{game}/invitations"), Some(&attacker))
        .json(&json!({"player_id": victim.id}))
        .send()
        .unwrap();
    assert_eq!(invited.status(), StatusCode::ACCEPTED);
    let mail = sink.next("the invitation", |m| m.rcpt_to == "vic@players.test");
    // Read as the victim's mail program reads it: the name as written, nothing decoded.
    assert_eq!(
        mail.subject,
        format!("{name} invites you to Avalanche Chess [{game}]"),
        "{}",
        mail.raw
    );
    assert!(!mail.subject.contains("Account locked"), "{}", mail.subject);
}

#[test]
fn a_relays_permanent_refusal_ends_the_mail_and_is_counted() {
    // The relay refuses every mail for good (550: no such user).
    let sink = Sink::refusing_with(1000, "550 5.1.1 No such user here");
    let data = tempfile::tempdir().unwrap();
    let (server, _smtp) = server(&sink, data.path(), &[]);
    let ann = server.app.create_player("Ann");
    assert_eq!(
        set_address(&server, &ann, "gone@players.test").status(),
        StatusCode::ACCEPTED
    );
    wait_for("the refusal is counted", || {
        metric(&server, "avalanche_mail_rejected_total") == 1
    });
    outbox_empty(&server);
    // The server retries after 100 ms, doubling: a mail still tried would be refused again
    // within these two seconds.
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(sink.refused().len(), 1, "{:?}", sink.refused());
    assert_eq!(metric(&server, "avalanche_mail_failed_total"), 0);
    assert!(sink.all().is_empty());
}

/// The answer of the binary started with `args`, which must stop at once: its exit status and
/// what it wrote. One still running after 20 s is killed, and the test fails.
fn refused_start(args: &[&str]) -> (std::process::ExitStatus, String) {
    let data = tempfile::tempdir().unwrap();
    let out = data.path().join("said");
    let mut child = std::process::Command::new(binary::path())
        .args(["--addr", &format!("127.0.0.1:{}", free_port()), "--data"])
        .arg(data.path().join("store"))
        .args(args)
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(data.path().join("said-err")).unwrap())
        .spawn()
        .expect("the binary runs");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(20) {
            child.kill().ok();
            child.wait().ok();
            panic!("the server started with {args:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let said = std::fs::read_to_string(&out).unwrap_or_default()
        + &std::fs::read_to_string(data.path().join("said-err")).unwrap_or_default();
    (status, said)
}

#[test]
fn the_inbound_secret_is_long_logged_by_its_fingerprint_only_and_guessed_at_a_few_times() {
    // One character: the server does not start, and says why.
    let (status, said) = refused_start(&["--mail-inbound-secret", "x"]);
    assert!(!status.success(), "{said}");
    assert!(said.contains("at least 32"), "{said}");

    let secret = "7c1e0f5a92d84b36a0c4e8f1b2d3a4c5e6f708192a3b";
    let data = tempfile::tempdir().unwrap();
    let log = data.path().join("server.log");
    let server = Server::start_logging_at(
        &data.path().join("store"),
        &["--mail-inbound-secret", secret],
        &log,
        "info",
    );
    let app = &server.app;
    let post = |bearer: &str| {
        app.post("/v1/mail/inbound", None)
            .bearer_auth(bearer)
            .body("From: <x@y.test>\r\nSubject: hi\r\n\r\nhello\r\n")
            .send()
            .unwrap()
    };
    // Guesses: ten are answered 401, then the address is refused for the hour, even with
    // the right secret.
    for n in 0..10 {
        assert_eq!(
            post(&format!("guess-{n}")).status(),
            StatusCode::UNAUTHORIZED,
            "guess {n}"
        );
    }
    let refused = post("guess-10");
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.headers().get("Retry-After").is_some());
    let refused: serde_json::Value = refused.json().unwrap();
    assert_eq!(refused["code"], "rate_limited", "{refused}");
    assert_eq!(post(secret).status(), StatusCode::TOO_MANY_REQUESTS);

    // The log names the secret by its fingerprint, never in clear.
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(!logged.contains(secret), "the secret is in the log");
    use sha2::Digest;
    let fingerprint = hex::encode(sha2::Sha256::digest(secret.as_bytes()));
    assert!(logged.contains(&fingerprint[..16]), "{logged}");
}

#[test]
fn a_reply_address_seen_once_plays_no_later_turn_even_from_the_players_own_address() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, smtp) = server(&sink, data.path(), &[]);
    let app = &server.app;
    let ann_mail = "ann@players.test";
    let (ann, bob, game) = ann_and_bob_at_chess(&server, &mut sink);
    // Mallory once saw Ann's turn notice (its reply address travels in clear).
    let seen = your_move(&mut sink, ann_mail, &game);
    let seen_address = seen.reply_to.clone().expect("a Reply-To");
    // Ann moves on the web page; Bob answers: Ann's move again.
    play_first(app, &game, &ann);
    play_first(app, &game, &bob);
    let current = your_move(&mut sink, ann_mail, &game);
    assert_ne!(current.reply_to, seen.reply_to, "a new turn, a new address");
    let now = version(&server, &ann, &game);
    // Mallory forges Ann's address as the sender and plays a legal move with the old address.
    let legal = first_game_command(&current);
    let forged = reply(
        ann_mail,
        &seen_address,
        "mallory-1@evil.test",
        &seen.message_id,
        &legal,
    );
    send(smtp, ann_mail, &seen_address, &forged).expect("the listener takes the mail");
    // Nothing is played; Ann (only Ann: the mail went to her own address) is told why.
    let answer = sink.next("the answer to the old address", |m| {
        m.rcpt_to == ann_mail && m.subject.starts_with("Not played")
    });
    assert!(
        answer.text.contains("a turn you have played since"),
        "{}",
        answer.text
    );
    assert_eq!(version(&server, &ann, &game), now);
    // The address of this turn plays, once: after it, it is old too.
    let raw = reply(
        ann_mail,
        current.reply_to.as_ref().unwrap(),
        "ann-1@players.test",
        &current.message_id,
        &legal,
    );
    send(smtp, ann_mail, current.reply_to.as_ref().unwrap(), &raw).unwrap();
    let played = sink.next("the answer to Ann's move", |m| {
        m.rcpt_to == ann_mail && m.subject.starts_with("Played")
    });
    assert!(played.text.contains(&legal), "{}", played.text);
    assert_eq!(version(&server, &ann, &game), now + 1);
    let again = reply(
        ann_mail,
        current.reply_to.as_ref().unwrap(),
        "mallory-2@evil.test",
        &current.message_id,
        "resign",
    );
    send(smtp, ann_mail, current.reply_to.as_ref().unwrap(), &again).unwrap();
    sink.next("the answer to the used address", |m| {
        m.rcpt_to == ann_mail && m.subject.starts_with("Not played")
    });
    let game_now = app.game(Some(&ann), &game);
    assert_eq!(game_now["status"], "active", "{game_now}");
    assert_eq!(game_now["version"], now + 1);
    // Every mail went to the players' own addresses.
    for mail in sink.all() {
        assert!(mail.rcpt_to.ends_with("@players.test"), "{}", mail.rcpt_to);
    }
}

/// A connection to the listener on `port` from `from` (a loopback address of this machine).
fn connect_from(from: &str, port: u16) -> TcpStream {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    let local: SocketAddr = format!("{from}:0").parse().unwrap();
    socket.bind(&local.into()).expect("a loopback address");
    let remote: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    socket.connect(&remote.into()).expect("the listener");
    let stream: TcpStream = socket.into();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream
}

/// The first line the listener says on `stream`.
fn first_line(stream: &TcpStream) -> String {
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).unwrap();
    line
}

#[test]
fn idle_connections_that_trickle_bytes_do_not_lock_the_listener() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, smtp) = server(&sink, data.path(), &[]);
    let ann_mail = "ann@players.test";
    let (ann, _bob, game) = ann_and_bob_at_chess(&server, &mut sink);
    let notice = your_move(&mut sink, ann_mail, &game);
    // 32 connections from one address, each sending a byte every second (the attack sent one
    // every 15 s; the listener's timeouts are minutes).
    let mut held = Vec::new();
    let mut turned_away = 0;
    for _ in 0..32 {
        let stream = connect_from("127.0.0.2", smtp);
        let greeting = first_line(&stream);
        if greeting.starts_with("421") {
            turned_away += 1;
        } else {
            assert!(greeting.starts_with("220"), "{greeting}");
            held.push(stream);
        }
    }
    let trickling = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let trickler = {
        let trickling = trickling.clone();
        let mut writers: Vec<TcpStream> = held.iter().map(|s| s.try_clone().unwrap()).collect();
        std::thread::spawn(move || {
            while trickling.load(std::sync::atomic::Ordering::SeqCst) {
                for writer in &mut writers {
                    let _ = writer.write_all(b"N");
                }
                std::thread::sleep(Duration::from_secs(1));
            }
        })
    };
    // A real mail server, from another address, is served meanwhile: Ann's move plays.
    let command = first_game_command(&notice);
    let tag = notice.reply_to.clone().unwrap();
    let before = version(&server, &ann, &game);
    let raw = reply(
        ann_mail,
        &tag,
        "through@players.test",
        &notice.message_id,
        &command,
    );
    send(smtp, ann_mail, &tag, &raw).expect("the listener serves another address");
    sink.next("the answer", |m| {
        m.rcpt_to == ann_mail && m.subject.starts_with("Played")
    });
    assert_eq!(version(&server, &ann, &game), before + 1);
    // The attacker's address holds a few connections; the others were turned away at once.
    assert!(turned_away >= 28, "{turned_away} of 32 turned away");
    trickling.store(false, std::sync::atomic::Ordering::SeqCst);
    trickler.join().unwrap();
}

#[test]
fn a_command_that_trickles_in_is_cut_at_the_command_timeout() {
    let sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (_server, smtp) = server(&sink, data.path(), &["--smtp-command-timeout", "2s"]);
    let stream = connect_from("127.0.0.1", smtp);
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut greeting = String::new();
    reader.read_line(&mut greeting).unwrap();
    assert!(greeting.starts_with("220"), "{greeting}");
    // A byte every 300 ms, never a whole line: each byte would restart a timeout per read.
    let mut writer = stream.try_clone().unwrap();
    let started = Instant::now();
    let trickler = std::thread::spawn(move || {
        while started.elapsed() < Duration::from_secs(20) {
            if writer.write_all(b"N").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    });
    let mut said = String::new();
    reader
        .read_to_string(&mut said)
        .expect("the listener closes the connection");
    assert!(said.starts_with("421"), "{said:?}");
    assert!(said.contains("Timeout"), "{said:?}");
    trickler.join().unwrap();
}

#[test]
fn a_reply_travels_encrypted_with_starttls_and_the_operators_certificate() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    // The operator's certificate, made now for the MX host's name.
    let host = format!("mx.{DOMAIN}");
    let made = rcgen::generate_simple_self_signed(vec![host.clone()]).unwrap();
    let certificate = data.path().join("mx.pem");
    let key = data.path().join("mx.key");
    std::fs::write(&certificate, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    let (server, smtp) = server(
        &sink,
        &data.path().join("store"),
        &[
            "--smtp-tls-cert",
            certificate.to_str().unwrap(),
            "--smtp-tls-key",
            key.to_str().unwrap(),
        ],
    );
    let ann_mail = "ann@players.test";
    let (ann, _bob, game) = ann_and_bob_at_chess(&server, &mut sink);
    let notice = your_move(&mut sink, ann_mail, &game);
    let command = first_game_command(&notice);
    let tag = notice.reply_to.clone().unwrap();
    let before = version(&server, &ann, &game);
    // The sender's server insists on STARTTLS and checks the certificate against the name.
    use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
    let tls = || {
        Tls::Required(
            TlsParameters::builder(host.clone())
                .add_root_certificate(Certificate::from_pem(made.cert.pem().as_bytes()).unwrap())
                .build_rustls()
                .unwrap(),
        )
    };
    let raw = reply(
        ann_mail,
        &tag,
        "tls-1@players.test",
        &notice.message_id,
        &command,
    );
    send_with(smtp, tls(), ann_mail, &tag, &raw).expect("sent over STARTTLS");
    sink.next("the answer", |m| {
        m.rcpt_to == ann_mail && m.subject.starts_with("Played")
    });
    assert_eq!(version(&server, &ann, &game), before + 1);
    // A client that trusts another certificate does not send.
    let other = rcgen::generate_simple_self_signed(vec![host.clone()]).unwrap();
    let wrong = Tls::Required(
        TlsParameters::builder(host.clone())
            .add_root_certificate(Certificate::from_pem(other.cert.pem().as_bytes()).unwrap())
            .build_rustls()
            .unwrap(),
    );
    assert!(send_with(smtp, wrong, ann_mail, &tag, &raw).is_err());
}
