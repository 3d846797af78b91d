//! The notices that are not a turn or an answer, with real mail: the game started, the clock
//! running low (short warnings on a fast clock, so that time passes within the test), and
//! inbound mail over the hourly limit, which is not played and is answered once an hour, to the
//! confirmed address only.

use crate::common;
use crate::mail::{check_notice, first_game_command, player_with_mail, server, version, your_move};
use common::mailbox::{reply, send, Received, Sink};
use common::ok_json;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::Duration;

fn clock_mails(sink: &Sink, address: &str) -> Vec<Received> {
    sink.all()
        .into_iter()
        .filter(|m| m.rcpt_to == address && m.subject.starts_with("Your clock"))
        .collect()
}

#[test]
fn clock_notices_come_once_a_warning_and_a_turn_and_never_after_the_move() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    // A move is given 20 s; players are warned 14 s and 4 s before the deadline.
    let (server, smtp) = server(&sink, data.path(), &["--mail-clock-warnings", "14s,4s"]);
    let app = &server.app;
    let ann = player_with_mail(&server, &mut sink, "Ann", "ann@players.test");
    let bob = player_with_mail(&server, &mut sink, "Bob", "bob@players.test");
    // Bob wants no clock notices; a setting left out stays on.
    let set = ok_json(
        app.client
            .put(app.url("/v1/players/me/notifications"))
            .bearer_auth(&bob.token)
            .json(&json!({"clock": false}))
            .send(),
        StatusCode::OK,
    );
    assert_eq!(set["notifications"]["clock"], false, "{set}");
    assert_eq!(set["notifications"]["your_turn"], true, "{set}");
    assert_eq!(set["notifications"]["game_started"], true, "{set}");
    let game = app.create_game(
        &ann,
        json!({"kind": "avalanche-chess", "seats": 2,
            "time_control": {"type": "seconds_per_move", "seconds": 20}}),
    );
    app.join(&bob, &game);

    // The start, told once to each: in Ann's turn notice (she moves first), on its own to Bob.
    let first = your_move(&mut sink, "ann@players.test", &game);
    assert!(first.text.contains("the game started"), "{}", first.text);
    let started = sink.next("Bob's start notice", |m| {
        m.rcpt_to == "bob@players.test" && m.subject.starts_with("Game started")
    });
    check_notice(&started, &game);
    assert!(
        started.text.contains("To act first: Ann"),
        "{}",
        started.text
    );

    // Ann's 14 s warning, about 6 s into her turn; she answers it with her move.
    let warned = sink.next("Ann's first clock notice", |m| {
        m.rcpt_to == "ann@players.test" && m.subject.starts_with("Your clock")
    });
    check_notice(&warned, &game);
    assert!(
        warned.subject.contains("14 seconds left"),
        "{}",
        warned.subject
    );
    assert!(
        warned.text.contains("Your legal commands"),
        "{}",
        warned.text
    );
    let command = first_game_command(&warned);
    let before = version(&server, &ann, &game);
    let to = warned.reply_to.clone().unwrap();
    send(
        smtp,
        "ann@players.test",
        &to,
        &reply(
            "ann@players.test",
            &to,
            "clock-1@players.test",
            &warned.message_id,
            &command,
        ),
    )
    .unwrap();
    sink.next("the answer to the move", |m| {
        m.rcpt_to == "ann@players.test" && m.subject.starts_with("Played")
    });
    assert!(
        version(&server, &ann, &game) > before,
        "the move was played"
    );

    // Bob takes 8 s, past his 14 s warning, which he turned off.
    your_move(&mut sink, "bob@players.test", &game);
    std::thread::sleep(Duration::from_secs(8));
    let legal = app.legal(&bob, &game);
    let command = legal["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["command"]["type"] == "turn")
        .expect("a move")["command"]
        .clone();
    assert_eq!(app.play(&bob, &game, &command).status(), StatusCode::OK);

    // Ann lets her second turn run out: both warnings, then the loss on time.
    your_move(&mut sink, "ann@players.test", &game);
    let warned = sink.next("Ann's second clock notice", |m| {
        m.rcpt_to == "ann@players.test" && m.subject.starts_with("Your clock")
    });
    assert!(
        warned.subject.contains("14 seconds left"),
        "{}",
        warned.subject
    );
    let last = sink.next("Ann's last clock notice", |m| {
        m.rcpt_to == "ann@players.test" && m.subject.starts_with("Your clock")
    });
    assert!(last.subject.contains("4 seconds left"), "{}", last.subject);
    let over = sink.next("the end of the game", |m| {
        m.rcpt_to == "ann@players.test" && m.subject.starts_with("Game over")
    });
    assert!(over.text.contains("Result: Bob won ("), "{}", over.text);
    let over = sink.next("the end of the game, to Bob", |m| {
        m.rcpt_to == "bob@players.test" && m.subject.starts_with("Game over")
    });
    assert!(over.text.contains("Result: you won ("), "{}", over.text);
    eprintln!(
        "GAMEOVER {}\n{}",
        over.subject,
        over.text.lines().next().unwrap_or_default()
    );
    std::thread::sleep(Duration::from_secs(1));

    // Three clock notices to Ann, each once; none for her first turn's 4 s warning (she had
    // moved), none to Bob, no second start notice.
    let ann_clock = clock_mails(&sink, "ann@players.test");
    let subjects: Vec<&str> = ann_clock.iter().map(|m| m.subject.as_str()).collect();
    assert_eq!(ann_clock.len(), 3, "{subjects:#?}");
    let ids: HashSet<&str> = ann_clock.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids.len(), 3, "{subjects:#?}");
    assert!(clock_mails(&sink, "bob@players.test").is_empty());
    let starts = sink
        .all()
        .into_iter()
        .filter(|m| m.subject.starts_with("Game started"))
        .count();
    assert_eq!(starts, 1);
    let finished = app.game(Some(&ann), &game);
    assert_eq!(finished["status"], "finished", "{finished}");
}

#[test]
fn inbound_mail_over_the_hourly_limit_is_not_played_and_answered_once_to_the_confirmed_address() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, smtp) = server(
        &sink,
        data.path(),
        &[
            "--mail-inbound-per-hour",
            "3",
            "--mail-inbound-secret",
            "inbound-secret-of-at-least-32-bytes",
        ],
    );
    let app = &server.app;
    let ann = player_with_mail(&server, &mut sink, "Ann", "ann@players.test");
    let bob = player_with_mail(&server, &mut sink, "Bob", "bob@players.test");
    let game = app.create_game(&ann, json!({"kind": "avalanche-chess", "seats": 2}));
    app.join(&bob, &game);
    let notice = your_move(&mut sink, "ann@players.test", &game);
    let tag = notice.reply_to.clone().unwrap();
    let legal = first_game_command(&notice);
    let start = version(&server, &ann, &game);
    let ann_mail = "ann@players.test";

    // A stranger floods Ann's reply address: nothing is played, nothing goes back to the
    // stranger, and Ann's own allowance is untouched.
    for n in 0..10 {
        let raw = reply(
            "mallory@evil.test",
            &tag,
            &format!("flood-{n}@evil.test"),
            &notice.message_id,
            &legal,
        );
        send(smtp, "mallory@evil.test", &tag, &raw).unwrap();
    }
    // Ann's first three mails are answered ("Not played": no command in them, and a digit, so
    // that they are no message alone either).
    for n in 0..3 {
        let raw = reply(
            ann_mail,
            &tag,
            &format!("chat-{n}@players.test"),
            &notice.message_id,
            "Hello there 2!",
        );
        send(smtp, ann_mail, &tag, &raw).unwrap();
        let answer = sink.next("an answer within the limit", |m| {
            m.rcpt_to == ann_mail && m.subject.starts_with("Not played")
        });
        assert!(
            answer.text.contains("\"Hello there 2!\" is not a move")
                && answer.text.contains("The nearest of your commands:"),
            "{}",
            answer.text
        );
    }
    // Over the limit: a legal move is not played, by SMTP or forwarded over HTTP. The first
    // mail over it is answered, at Ann's confirmed address, with when she may write again; a
    // storm of mail after it gets no storm of answers. One of them comes with another envelope
    // sender (a forged return path): nothing goes to it.
    let raw = reply(
        ann_mail,
        &tag,
        "move-1@players.test",
        &notice.message_id,
        &legal,
    );
    send(smtp, ann_mail, &tag, &raw).unwrap();
    let told = sink.next("the answer to the first mail over the limit", |m| {
        m.rcpt_to == ann_mail && m.subject.starts_with("Too many replies")
    });
    assert_eq!(
        told.header("In-Reply-To").as_deref(),
        Some("<move-1@players.test>")
    );
    assert!(told.reply_to.is_none(), "a reply to it plays nothing");
    assert!(
        told.subject.contains("try again after ") && told.subject.ends_with(" UTC"),
        "{}",
        told.subject
    );
    assert!(
        told.text.contains("at most 3 mails an hour")
            && told
                .text
                .contains("it was not read, and nothing was played")
            && told.text.contains("Try again after ")
            && told.text.contains("the only such answer this hour"),
        "{}",
        told.text
    );
    send(
        smtp,
        "bounce@forged.test",
        &tag,
        &reply(
            ann_mail,
            &tag,
            "move-2@players.test",
            &notice.message_id,
            &legal,
        ),
    )
    .unwrap();
    for n in 0..8 {
        let raw = reply(
            ann_mail,
            &tag,
            &format!("storm-{n}@players.test"),
            &notice.message_id,
            "resign",
        );
        send(smtp, ann_mail, &tag, &raw).unwrap();
    }
    let forwarded: Value = ok_json(
        app.post("/v1/mail/inbound", None)
            .bearer_auth("inbound-secret-of-at-least-32-bytes")
            .body(reply(
                ann_mail,
                &tag,
                "move-3@players.test",
                &notice.message_id,
                &legal,
            ))
            .send(),
        StatusCode::OK,
    );
    assert_eq!(forwarded["outcome"], "ignored", "{forwarded}");
    // The limit is per address: Bob, answering his start notice, is still answered. The
    // listener reads its mails one at a time in order, so by his answer every mail of Ann's
    // storm was read; once the outbox is empty after it, whatever they caused was sent.
    let started = sink.next("Bob's start notice", |m| {
        m.rcpt_to == "bob@players.test" && m.subject.starts_with("Game started")
    });
    let to = started.reply_to.clone().unwrap();
    send(
        smtp,
        "bob@players.test",
        &to,
        &reply(
            "bob@players.test",
            &to,
            "bob-1@players.test",
            &started.message_id,
            "hello 2",
        ),
    )
    .unwrap();
    sink.next("the answer to Bob", |m| {
        m.rcpt_to == "bob@players.test" && m.subject.starts_with("Not played")
    });
    let waiting = std::time::Instant::now();
    while common::metric(app, "avalanche_mail_waiting") != Some(0) {
        assert!(
            waiting.elapsed() < Duration::from_secs(30),
            "the outbox never emptied"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        version(&server, &ann, &game),
        start,
        "a mail over the limit was played"
    );
    assert_eq!(app.game(Some(&ann), &game)["status"], "active");
    for address in [ann_mail, "mallory@evil.test", "bounce@forged.test"] {
        let unseen: Vec<String> = sink
            .unseen_to(address)
            .iter()
            .map(|m| m.subject.clone())
            .collect();
        assert!(
            unseen.is_empty(),
            "mail sent to {address} over the limit, past the one answer: {unseen:?}"
        );
    }
    assert_eq!(version(&server, &bob, &game), start);
}

#[test]
fn an_invitation_is_mailed_once_and_only_to_a_player_who_takes_them() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, smtp) = server(&sink, data.path(), &[]);
    let app = &server.app;
    let ann = player_with_mail(&server, &mut sink, "Ann", "ann@players.test");
    let bob = player_with_mail(&server, &mut sink, "Bob", "bob@players.test");
    let cid = player_with_mail(&server, &mut sink, "Cid", "cid@players.test");
    let dan = app.create_player("Dan");
    let quiet = |player: &common::Player, settings: Value| {
        ok_json(
            app.client
                .put(app.url("/v1/players/me/notifications"))
                .bearer_auth(&player.token)
                .json(&settings)
                .send(),
            StatusCode::OK,
        )
    };
    quiet(&cid, json!({"invited": false}));
    let game = app.create_game(&ann, json!({"kind": "avalanche-chess", "seats": 2}));
    let invite = |by: &common::Player, whom: &str| {
        app.post(&format!("/v1/games/{game}/invitations"), Some(by))
            .json(&json!({"player_id": whom}))
            .send()
            .unwrap()
    };
    // Only a seated player invites, and only someone who exists.
    assert_eq!(invite(&bob, &cid.id).status(), StatusCode::FORBIDDEN);
    assert_eq!(
        invite(&ann, "p-0000000000000000").status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(invite(&ann, &ann.id).status(), StatusCode::CONFLICT);
    // The same answer whoever is invited: to Bob, twice; to Cid, who takes no invitations;
    // to Dan, who has no address.
    for whom in [&bob.id, &bob.id, &cid.id, &dan.id] {
        assert_eq!(invite(&ann, whom).status(), StatusCode::ACCEPTED);
    }
    let invitation = sink.next("Bob's invitation", |m| {
        m.rcpt_to == "bob@players.test" && m.subject.starts_with("Ann invites you")
    });
    assert!(invitation.subject.contains(&game), "{}", invitation.subject);
    assert!(
        invitation.text.contains("Free seats: 1 of 2"),
        "{}",
        invitation.text
    );
    assert!(invitation
        .text
        .contains(&format!("https://play.avalanche.test/#/game/{game}")));
    assert!(
        invitation.subject.contains("to Avalanche Chess"),
        "{}",
        invitation.subject
    );
    assert!(invitation.header("List-Unsubscribe").is_some());
    // Bob takes the seat by replying "join": the game starts, and nobody more can be invited
    // to it.
    let tag = invitation
        .reply_to
        .clone()
        .expect("a reply address to join by");
    let raw = reply(
        "bob@players.test",
        &tag,
        "join-1@players.test",
        &invitation.message_id,
        "Join\n\nSee you at the board.\n",
    );
    send(smtp, "bob@players.test", &tag, &raw).expect("the listener takes the reply");
    let joined = sink.next("the answer to Bob's join", |m| {
        m.rcpt_to == "bob@players.test"
            && (m.subject.starts_with("Played") || m.subject.starts_with("Not played"))
    });
    assert!(
        joined
            .subject
            .starts_with("Played: join in Avalanche Chess with Ann"),
        "{}\n{}",
        joined.subject,
        joined.text
    );
    assert_eq!(
        app.game(Some(&bob), &game)["seats"][1]["player_name"],
        "Bob"
    );
    assert_eq!(invite(&ann, &cid.id).status(), StatusCode::CONFLICT);
    sink.next("Bob's start notice", |m| {
        m.rcpt_to == "bob@players.test"
            && m.subject.starts_with("Game started")
            && m.subject.contains(&game)
    });
    // Bob wants no start notices: a second game starts without one.
    quiet(&bob, json!({"game_started": false}));
    let second = app.create_game(&ann, json!({"kind": "avalanche-chess", "seats": 2}));
    app.join(&bob, &second);
    your_move(&mut sink, "ann@players.test", &second);
    std::thread::sleep(Duration::from_secs(1));
    let invitations = sink
        .all()
        .into_iter()
        .filter(|m| m.subject.contains("invites you"))
        .count();
    assert_eq!(invitations, 1, "one invitation, to Bob, once");
    let starts: Vec<String> = sink
        .all()
        .into_iter()
        .filter(|m| m.subject.starts_with("Game started"))
        .map(|m| m.subject)
        .collect();
    assert_eq!(starts.len(), 1, "{starts:?}");
    assert!(starts[0].contains(&game), "{starts:?}");
}

#[test]
fn every_card_game_mails_the_readers_hand_and_the_table_by_name_and_no_other_hand() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, _smtp) = server(&sink, data.path(), &[]);
    let app = &server.app;
    let players = [
        player_with_mail(&server, &mut sink, "Ann", "ann@players.test"),
        player_with_mail(&server, &mut sink, "Bob", "bob@players.test"),
    ];
    let names = ["Ann".to_string(), "Bob".to_string()];
    for kind in ["avalanche", "ski-runs", "vamanos", "altitude"] {
        let game = app.create_game(&players[0], json!({"kind": kind, "seats": 2}));
        app.join(&players[1], &game);
        let notice = sink.next(&format!("a turn notice of {kind}"), |m| {
            m.subject.starts_with("Your move") && m.subject.contains(&game)
        });
        check_notice(&notice, &game);
        let seat = usize::from(notice.rcpt_to != "ann@players.test");
        let shown: u64 = notice
            .message_id
            .split('.')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let state = |player: &common::Player| {
            ok_json(
                app.get(&format!("/v1/games/{game}/states/{shown}"), Some(player))
                    .send(),
                StatusCode::OK,
            )["view"]
                .clone()
        };
        let own = state(&players[seat]);
        assert!(
            notice.text.contains(&format!("{} (you)", names[seat])),
            "{kind}: the mail is not the reader's view:\n{}",
            notice.text
        );
        common::mailbox::assert_no_other_hand(&notice.text, &names[1 - seat]);
        assert!(notice.text.contains(&names[1 - seat]), "{}", notice.text);
        if kind != "vamanos" {
            assert!(
                notice.text.contains("Your hand: "),
                "{kind}: {}",
                notice.text
            );
            assert!(!own.is_null());
        }
    }
}
