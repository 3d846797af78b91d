//! A challenge to a player by name, told by real mail, and taken by a reply `accept`: the
//! server sends to a real SMTP server (aiosmtpd) over TCP, and the player's replies go over
//! SMTP to the server's own listener.

use crate::common;
use crate::mail::{player_with_mail, server};
use common::mailbox::{reply, send, Sink};
use common::ok_json;
use reqwest::StatusCode;
use serde_json::{json, Value};

#[test]
fn a_direct_challenge_is_mailed_and_a_reply_accept_starts_its_game() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, smtp) = server(&sink, data.path(), &[]);
    let app = &server.app;
    let ann = player_with_mail(&server, &mut sink, "Ann", "ann@players.test");
    let bob = player_with_mail(&server, &mut sink, "Bob", "bob@players.test");
    let issued = ok_json(
        app.post("/v1/challenges", Some(&ann))
            .json(
                &json!({"kind": "avalanche-chess", "seats": 2, "rated": true, "to": bob.id,
                "time_control": {"type": "seconds_per_move", "seconds": 86400}}),
            )
            .send(),
        StatusCode::CREATED,
    );
    let id = issued["id"].as_str().unwrap().to_string();
    let challenge = |player| {
        ok_json(
            app.get(&format!("/v1/challenges/{id}"), Some(player))
                .send(),
            StatusCode::OK,
        )
    };

    // Bob reads the challenge as a player: who, what, how long, and how to answer; nothing of
    // Ann's address.
    let told = sink.next("the challenge to Bob", |m| {
        m.rcpt_to == "bob@players.test" && m.subject.contains(&id)
    });
    eprintln!("CHALLENGE MAIL\n{}\n{}", told.subject, told.text);
    assert!(
        told.subject
            .starts_with("Ann challenges you to Avalanche Chess ["),
        "{}",
        told.subject
    );
    assert!(told.text.contains("Hello Bob"), "{}", told.text);
    assert!(
        told.text.contains("a rated game of Avalanche Chess."),
        "{}",
        told.text
    );
    assert!(told.text.contains("within 24 hours"), "{}", told.text);
    assert!(
        told.text.contains("Reply to this mail with \"accept\""),
        "{}",
        told.text
    );
    assert!(!told.raw.contains("ann@players.test"), "{}", told.raw);
    assert!(told.header("List-Unsubscribe").is_some());
    let to = told.reply_to.clone().expect("a reply address");
    assert!(to.starts_with(&format!("r+{id}.")), "{to}");
    // Ann, who only challenged, is mailed nothing of it.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(!sink
        .all()
        .iter()
        .any(|m| m.rcpt_to == "ann@players.test" && m.subject.contains(&id)));

    // A stranger's "accept" from another address takes no seat and is not answered.
    let forged = reply(
        "mallory@evil.test",
        &to,
        "forged-1@evil.test",
        &told.message_id,
        "accept",
    );
    send(smtp, "mallory@evil.test", &to, &forged).unwrap();
    // Bob's first reply says nothing the challenge understands: he is told so, and may reply
    // to that answer.
    let unclear = reply(
        "bob@players.test",
        &to,
        "bob-1@players.test",
        &told.message_id,
        "Hello Ann!\n\n> Ann challenges you",
    );
    send(smtp, "bob@players.test", &to, &unclear).unwrap();
    let answer = sink.next("the answer to an unclear reply", |m| {
        m.rcpt_to == "bob@players.test" && m.subject.starts_with("Not answered")
    });
    assert!(
        answer.text.contains("write \"accept\" or \"decline\""),
        "{}",
        answer.text
    );
    assert!(!sink.all().iter().any(|m| m.rcpt_to.contains("evil.test")));
    assert_eq!(challenge(&ann)["status"], "open");
    let again = answer.reply_to.clone().expect("the answer's reply address");
    assert_eq!(again, to);

    // "Accept" (any case) on the first line, above the quote: Bob takes his seat, the game
    // starts, and both are mailed as for any game.
    let accept = reply(
        "bob@players.test",
        &to,
        "bob-2@players.test",
        &answer.message_id,
        "  Accept\n\n> Not answered",
    );
    send(smtp, "bob@players.test", &to, &accept).unwrap();
    let accepted = sink.next("the answer to the acceptance", |m| {
        m.rcpt_to == "bob@players.test" && m.subject.starts_with("Accepted")
    });
    eprintln!("ACCEPTED MAIL\n{}\n{}", accepted.subject, accepted.text);
    let started = challenge(&bob);
    assert_eq!(started["status"], "started", "{started}");
    let game = started["game"].as_str().expect("its game").to_string();
    assert!(
        accepted.text.contains(&format!("/#/game/{game}")),
        "{}",
        accepted.text
    );
    assert!(accepted.reply_to.is_none());
    let table: Value = app.game(Some(&ann), &game);
    assert_eq!(table["status"], "active", "{table}");
    assert_eq!(table["rated"], true, "{table}");
    let seated: Vec<&str> = table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["player_id"].as_str())
        .collect();
    assert_eq!(seated, [ann.id.as_str(), bob.id.as_str()], "{table}");
    sink.next("Ann's turn in the challenge's game", |m| {
        m.rcpt_to == "ann@players.test"
            && m.subject.starts_with("Your move")
            && m.subject.contains(&game)
    });

    // The same acceptance sent again, or a "decline" after the start, changes nothing.
    send(smtp, "bob@players.test", &to, &accept).unwrap();
    let late = reply(
        "bob@players.test",
        &to,
        "bob-3@players.test",
        &accepted.message_id,
        "decline",
    );
    send(smtp, "bob@players.test", &to, &late).unwrap();
    let refused = sink.next("the answer to a late decline", |m| {
        m.rcpt_to == "bob@players.test"
            && m.subject.starts_with("Not answered")
            && m.message_id != answer.message_id
    });
    assert!(refused.text.contains("closed"), "{}", refused.text);
    assert_eq!(challenge(&bob)["game"], game.as_str());
}
