//! How mail is delivered and to whom, with real parts: a removed address, or a player who
//! unsubscribed, is mailed nothing more, even what waited for the relay; a turn notice that
//! waited for the relay is not sent once its player has acted, and is written again from the
//! game as it stands if the game moved on meanwhile; a reply to an older notice plays only while its turn is not played, if its command is legal now and it is the
//! seat's move, and its answer says so; a relay's temporary failure is tried again with the
//! same `Message-ID`, later each time; a mail waiting in the outbox survives a crash (SIGKILL)
//! and is sent once after the restart; without a relay, mail is written as `.eml` files under
//! the data folder and the log says where.

use crate::common;
use crate::mail::{
    answer_to, check_notice, first_game_command, follow_unsubscribe_link, player_with_mail, server,
    version, your_move, DOMAIN,
};
use common::binary::Server;
use common::mailbox::{free_port, Received, Sink};
use common::play::play_first;
use common::{ok_json, Player};
use reqwest::StatusCode;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, UNIX_EPOCH};

/// The value of the mail metric `name`, which the server always writes.
fn metric(server: &Server, name: &str) -> u64 {
    common::metric(&server.app, name).unwrap_or_else(|| panic!("no metric {name}"))
}

/// Waits up to 30 s for `done`.
fn wait_for(what: &str, done: impl FnMut() -> bool) {
    common::eventually(Duration::from_secs(30), what, done);
}

/// The mails the sink took with `Message-ID` `id`.
fn with_id(sink: &Sink, id: &str) -> Vec<Received> {
    sink.all()
        .into_iter()
        .filter(|m| m.message_id == id)
        .collect()
}

/// Once nothing waits in the outbox: the subjects of the mails `sink` took for `address`.
fn once_the_outbox_empties(server: &Server, sink: &Sink, address: &str) -> Vec<String> {
    wait_for("the outbox empties", || {
        metric(server, "avalanche_mail_waiting") == 0
    });
    sink.all()
        .into_iter()
        .filter(|m| m.rcpt_to == address)
        .map(|m| m.subject)
        .collect()
}

fn mails_to(sink: &Sink, address: &str) -> usize {
    sink.all().iter().filter(|m| m.rcpt_to == address).count()
}

#[test]
fn a_removed_address_is_gone_from_the_account_and_is_mailed_nothing_more() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, _) = server(&sink, data.path(), &[]);
    let app = &server.app;
    let ann = player_with_mail(&server, &mut sink, "Ann", "ann@players.test");
    let bob = player_with_mail(&server, &mut sink, "Bob", "bob@players.test");
    let game = app.create_game(&ann, json!({"kind": "avalanche-chess", "seats": 2}));
    app.join(&bob, &game);
    // While Bob has his address, the game mails him.
    let started = sink.next("Bob's start notice", |m| {
        m.rcpt_to == "bob@players.test" && m.subject.starts_with("Game started")
    });
    check_notice(&started, &game);
    your_move(&mut sink, "ann@players.test", &game);

    let removed = app
        .client
        .delete(app.url("/v1/players/me/email"))
        .bearer_auth(&bob.token)
        .send()
        .unwrap();
    assert_eq!(removed.status(), StatusCode::NO_CONTENT);
    let me = ok_json(app.get("/v1/players/me", Some(&bob)).send(), StatusCode::OK);
    assert!(me["email"]["address"].is_null(), "{me}");
    assert_eq!(me["email"]["confirmed"], false, "{me}");
    assert!(!me.to_string().contains("bob@players.test"), "{me}");
    let mailed_to_bob = mails_to(&sink, "bob@players.test");

    // Ann moves: Bob's turn, which mailed him before. Bob moves: Ann's turn; her notice comes
    // after any to Bob in the event log, and then nothing waits in the outbox.
    play_first(app, &game, &ann);
    play_first(app, &game, &bob);
    your_move(&mut sink, "ann@players.test", &game);
    wait_for("the outbox empties", || {
        metric(&server, "avalanche_mail_waiting") == 0
    });
    // Ann offers a draw: an offer to Bob, which he was mailed before too.
    let offered = app.play(&ann, &game, &json!({"type": "offer_draw"}));
    assert_eq!(offered.status(), StatusCode::OK);
    play_first(app, &game, &ann);
    play_first(app, &game, &bob);
    your_move(&mut sink, "ann@players.test", &game);
    wait_for("the outbox empties", || {
        metric(&server, "avalanche_mail_waiting") == 0
    });
    assert_eq!(
        mails_to(&sink, "bob@players.test"),
        mailed_to_bob,
        "mail went to a removed address"
    );
    // The same turns with the address still set would have mailed it: Ann's is, here.
    assert!(mails_to(&sink, "ann@players.test") >= 3);
}

/// Stops the relay `sink` listening on `relay_port`, and waits until nothing listens there.
fn stop_relay(sink: Sink, relay_port: u16) {
    drop(sink);
    wait_for("the relay's port is free", || {
        std::net::TcpStream::connect(("127.0.0.1", relay_port)).is_err()
    });
}

/// Does `queue` (which queues mail while the relay is down), then waits until the server has
/// tried to send and failed; what `queue` gave.
fn fails_to_send<T>(server: &Server, queue: impl FnOnce() -> T) -> T {
    let failed_before = metric(server, "avalanche_mail_failed_total");
    let queued = queue();
    wait_for("an attempt fails", || {
        metric(server, "avalanche_mail_failed_total") > failed_before
    });
    queued
}

/// A server whose relay went down after Ann and Bob confirmed their addresses (while it was
/// up), and a game of theirs whose first notices wait in the outbox, tried and failed.
struct RelayDown {
    server: Server,
    relay_port: u16,
    args: Vec<String>,
    bob: Player,
    game: String,
}

impl RelayDown {
    fn start(data: &Path) -> RelayDown {
        let relay_port = free_port();
        let args = relay_args(&format!("smtp://127.0.0.1:{relay_port}"), "100");
        // The relay takes its port before the server starts: a port found free and left unbound
        // while a server starts can be taken by another test meanwhile, and the relay then
        // cannot listen and receives nothing.
        let mut sink = Sink::start_on(relay_port);
        let server = start(data, &args);
        let ann = player_with_mail(&server, &mut sink, "Ann", "ann@players.test");
        let bob = player_with_mail(&server, &mut sink, "Bob", "bob@players.test");
        stop_relay(sink, relay_port);
        // The relay is down: Ann's turn notice and Bob's start notice wait.
        let game = fails_to_send(&server, || {
            let game = server
                .app
                .create_game(&ann, json!({"kind": "avalanche-chess", "seats": 2}));
            server.app.join(&bob, &game);
            game
        });
        RelayDown {
            server,
            relay_port,
            args,
            bob,
            game,
        }
    }
}

#[test]
fn mail_waiting_for_the_relay_is_not_sent_to_an_address_removed_meanwhile() {
    let data = tempfile::tempdir().unwrap();
    let RelayDown {
        server,
        relay_port,
        bob,
        game,
        ..
    } = RelayDown::start(data.path());
    assert!(metric(&server, "avalanche_mail_waiting") >= 2);
    // Bob removes his address meanwhile; then the relay comes up.
    let removed = server
        .app
        .client
        .delete(server.app.url("/v1/players/me/email"))
        .bearer_auth(&bob.token)
        .send()
        .unwrap();
    assert_eq!(removed.status(), StatusCode::NO_CONTENT);
    let mut sink = Sink::start_on(relay_port);
    your_move(&mut sink, "ann@players.test", &game);
    let to_bob = once_the_outbox_empties(&server, &sink, "bob@players.test");
    assert!(
        to_bob.is_empty(),
        "mail went to a removed address: {to_bob:?}"
    );
}

/// A server with its relay up, Ann and Bob with confirmed addresses, and a chess game of
/// theirs just started (Ann to move; the relay may still be taking its first notices).
struct RelayUp {
    server: Server,
    relay_port: u16,
    sink: Sink,
    ann: Player,
    bob: Player,
    game: String,
}

impl RelayUp {
    fn start(data: &Path) -> RelayUp {
        let relay_port = free_port();
        let server = start(
            data,
            &relay_args(&format!("smtp://127.0.0.1:{relay_port}"), "100"),
        );
        let mut sink = Sink::start_on(relay_port);
        let ann = player_with_mail(&server, &mut sink, "Ann", "ann@players.test");
        let bob = player_with_mail(&server, &mut sink, "Bob", "bob@players.test");
        let game = server
            .app
            .create_game(&ann, json!({"kind": "avalanche-chess", "seats": 2}));
        server.app.join(&bob, &game);
        RelayUp {
            server,
            relay_port,
            sink,
            ann,
            bob,
            game,
        }
    }
}

impl RelayUp {
    /// Ann's first turn is mailed; then the relay goes down and Ann moves: Bob's turn notice
    /// waits in the outbox, tried and failed. The sink is gone (a new one on `relay_port`
    /// brings the relay back); the game's version when Bob's notice was queued.
    fn ann_moves_while_the_relay_is_down(data: &Path) -> (RelayUp, u64) {
        let mut up = RelayUp::start(data);
        your_move(&mut up.sink, "ann@players.test", &up.game);
        let sink = std::mem::replace(&mut up.sink, Sink::start());
        stop_relay(sink, up.relay_port);
        fails_to_send(&up.server, || play_first(&up.server.app, &up.game, &up.ann));
        let queued_at = version(&up.server, &up.bob, &up.game);
        (up, queued_at)
    }
}

#[test]
fn mail_waiting_for_the_relay_is_not_sent_to_a_player_who_unsubscribed_meanwhile() {
    let data = tempfile::tempdir().unwrap();
    let RelayUp {
        server,
        relay_port,
        mut sink,
        ann,
        bob,
        game,
    } = RelayUp::start(data.path());
    let app = &server.app;
    let started = sink.next("Bob's start notice", |m| {
        m.rcpt_to == "bob@players.test" && m.subject.starts_with("Game started")
    });
    your_move(&mut sink, "ann@players.test", &game);
    // The relay goes down; Ann moves, and Bob's turn notice waits in the outbox.
    stop_relay(sink, relay_port);
    fails_to_send(&server, || play_first(app, &game, &ann));
    assert!(metric(&server, "avalanche_mail_waiting") >= 1);
    // Bob follows the one-click unsubscribe link of his start notice; then the relay is back.
    follow_unsubscribe_link(&server, &started);
    let me = ok_json(app.get("/v1/players/me", Some(&bob)).send(), StatusCode::OK);
    assert_eq!(me["email"]["unsubscribed"], true, "{me}");
    let sink = Sink::start_on(relay_port);
    let to_bob = once_the_outbox_empties(&server, &sink, "bob@players.test");
    assert!(
        to_bob.is_empty(),
        "mail went to a player who had unsubscribed: {to_bob:?}"
    );
}

#[test]
fn a_turn_notice_that_waited_for_the_relay_is_not_sent_once_the_player_has_moved() {
    let data = tempfile::tempdir().unwrap();
    let (
        RelayUp {
            server,
            relay_port,
            bob,
            game,
            ..
        },
        _,
    ) = RelayUp::ann_moves_while_the_relay_is_down(data.path());
    let app = &server.app;
    // Bob moves in the browser meanwhile: Ann's notice waits too, and Bob's tells of a turn
    // he has played.
    play_first(app, &game, &bob);
    // Ann's notice comes after Bob's in the log: once it is sent, Bob's was sent or dropped,
    // or waits still, and then the outbox empties.
    let mut sink = Sink::start_on(relay_port);
    your_move(&mut sink, "ann@players.test", &game);
    let to_ann = once_the_outbox_empties(&server, &sink, "ann@players.test");
    let to_bob = once_the_outbox_empties(&server, &sink, "bob@players.test");
    let turns = |subjects: &[String]| {
        subjects
            .iter()
            .filter(|s| s.starts_with("Your move") && s.contains(&game))
            .count()
    };
    assert_eq!(
        turns(&to_ann),
        1,
        "Ann's turn is still hers: its notice is sent: {to_ann:?}"
    );
    assert_eq!(
        turns(&to_bob),
        0,
        "Bob has played the turn his notice told of: it is not sent: {to_bob:?}"
    );
}

#[test]
fn a_turn_notice_that_waited_while_the_game_moved_on_is_sent_as_the_game_stands() {
    let data = tempfile::tempdir().unwrap();
    let (
        RelayUp {
            server,
            relay_port,
            ann,
            bob,
            game,
            ..
        },
        queued_at,
    ) = RelayUp::ann_moves_while_the_relay_is_down(data.path());
    let app = &server.app;
    // On Bob's move still, Ann speaks at the table: the game has moved on since his turn
    // notice was queued.
    let said = app
        .post(&format!("/v1/games/{game}/messages"), Some(&ann))
        .json(&json!({"text": "Good luck, Bob!"}))
        .send()
        .unwrap();
    assert!(said.status().is_success(), "{}", said.text().unwrap());
    assert!(version(&server, &bob, &game) > queued_at);
    // The relay is back: Bob's one turn notice is the one queued (its Message-ID), written
    // from the game as it stands, with what Ann said since his last turn.
    let mut sink = Sink::start_on(relay_port);
    let notice = your_move(&mut sink, "bob@players.test", &game);
    check_notice(&notice, &game);
    assert!(
        notice
            .message_id
            .starts_with(&format!("{game}.{queued_at}.")),
        "{}",
        notice.message_id
    );
    assert!(
        notice.text.contains("Since your last turn:")
            && notice.text.contains("Ann said: Good luck, Bob!"),
        "the notice shows the game as it was queued:\n{}",
        notice.text
    );
    let to_bob = once_the_outbox_empties(&server, &sink, "bob@players.test");
    assert_eq!(
        to_bob
            .iter()
            .filter(|s| s.starts_with("Your move") && s.contains(&game))
            .count(),
        1,
        "{to_bob:?}"
    );
}

#[test]
fn a_reply_to_an_older_notice_of_the_same_turn_plays_only_a_legal_command_on_the_seats_move() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, smtp) = server(&sink, data.path(), &[]);
    let app = &server.app;
    let ann_mail = "ann@players.test";
    let ann = player_with_mail(&server, &mut sink, "Ann", ann_mail);
    let bob = player_with_mail(&server, &mut sink, "Bob", "bob@players.test");
    let game = app.create_game(&ann, json!({"kind": "avalanche-chess", "seats": 2}));
    app.join(&bob, &game);
    let first = your_move(&mut sink, ann_mail, &game);
    let played = first_game_command(&first);
    let answer = answer_to(
        &mut sink,
        smtp,
        ann_mail,
        &first,
        "o1@players.test",
        &played,
    );
    assert!(answer.subject.starts_with("Played"), "{}", answer.text);
    assert!(!answer.text.contains("older"), "{}", answer.text);
    play_first(app, &game, &bob);
    let second = your_move(&mut sink, ann_mail, &game);
    let now = version(&server, &ann, &game);

    // Ann's move again. Her first notice's reply address was the key of the turn she has
    // played since: a reply to it plays nothing, not even a command legal now, and the answer
    // (to her own address) says why.
    let command = first_game_command(&second);
    let answer = answer_to(
        &mut sink,
        smtp,
        ann_mail,
        &first,
        "o2@players.test",
        &command,
    );
    assert!(answer.subject.starts_with("Not played"), "{}", answer.text);
    assert!(
        answer.text.contains("a turn you have played since"),
        "{}",
        answer.text
    );
    assert_eq!(version(&server, &ann, &game), now);

    // A command of the first notice's list that is not legal now (the piece she moved is not
    // where it was), in a reply to this turn's notice: nothing is played, and she is told why.
    let legal_now: Vec<String> = app.legal(&ann, &game)["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| normal(l["notation"].as_str().unwrap()))
        .collect();
    let stale = common::mailbox::listed_commands(&first.text)
        .into_iter()
        .find(|c| !legal_now.contains(&normal(c)))
        .unwrap_or_else(|| panic!("a command of the first notice not legal now: {legal_now:?}"));
    let answer = answer_to(
        &mut sink,
        smtp,
        ann_mail,
        &second,
        "o3@players.test",
        &stale,
    );
    assert!(answer.subject.starts_with("Not played"), "{}", answer.text);
    assert!(
        answer.text.contains(&format!(
            "Nothing was played: \"{}\"",
            stale.split('/').next().unwrap_or_default()
        )) && answer.text.contains("The nearest of your commands:"),
        "{}",
        answer.text
    );
    assert_eq!(version(&server, &ann, &game), now);

    // A command legal now, in a reply to this turn's notice: played.
    let answer = answer_to(
        &mut sink,
        smtp,
        ann_mail,
        &second,
        "o4@players.test",
        &command,
    );
    assert!(answer.subject.starts_with("Played"), "{}", answer.text);
    assert!(answer.text.contains(&command), "{}", answer.text);
    assert_eq!(version(&server, &ann, &game), now + 1);

    // The answer to an offer that still stands plays from an older mail off the seat's move,
    // and nothing else does: Bob offers a draw, then asks for a takeback (his move still); Ann
    // answers the offer's mail, whose turn she has not played.
    let offered = app.play(&bob, &game, &json!({"type": "offer_draw"}));
    assert_eq!(offered.status(), StatusCode::OK);
    let offer = sink.next("the draw offer", |m| {
        m.rcpt_to == ann_mail && m.subject.contains("offers a draw")
    });
    let asked = app.play(&bob, &game, &json!({"type": "request_takeback"}));
    assert_eq!(asked.status(), StatusCode::OK);
    sink.next("the takeback request", |m| {
        m.rcpt_to == ann_mail && m.subject.contains("asks for a takeback")
    });
    let now = version(&server, &ann, &game);
    // What Ann may do at any time (resign) is not played from an older mail off her move.
    let answer = answer_to(
        &mut sink,
        smtp,
        ann_mail,
        &offer,
        "o5@players.test",
        "resign",
    );
    assert!(answer.subject.starts_with("Not played"), "{}", answer.text);
    assert!(answer.text.contains("older position"), "{}", answer.text);
    assert!(answer.text.contains("not your move"), "{}", answer.text);
    let current = app.game(Some(&ann), &game);
    assert_eq!(current["status"], "active", "{current}");
    assert_eq!(current["version"], now, "{current}");
    let answer = answer_to(
        &mut sink,
        smtp,
        ann_mail,
        &offer,
        "o6@players.test",
        "decline",
    );
    // With a draw offer and a takeback request standing, "decline" could mean either: it is
    // refused with both, never guessed.
    assert!(answer.subject.starts_with("Not played"), "{}", answer.text);
    assert!(
        answer
            .text
            .contains("It could mean:\n  decline the draw (play on)\n  decline the takeback"),
        "{}",
        answer.text
    );
    assert_eq!(version(&server, &ann, &game), now);
    let answer = answer_to(
        &mut sink,
        smtp,
        ann_mail,
        &offer,
        "o7@players.test",
        "decline draw",
    );
    assert!(answer.subject.starts_with("Played"), "{}", answer.text);
    assert!(answer.text.contains("older position"), "{}", answer.text);
    assert_eq!(version(&server, &ann, &game), now + 1);
    // Bob, who offered the draw, is told that Ann declined it; then that she declined his
    // takeback too (over HTTP).
    let told = sink.next("the declined draw", |m| {
        m.rcpt_to == "bob@players.test" && m.subject.contains("declined your draw offer")
    });
    assert!(
        told.text
            .starts_with("Ann declined your offer of a draw in Avalanche Chess: play goes on."),
        "{}",
        told.text
    );
    assert_eq!(
        app.play(&ann, &game, &json!({"type": "decline_takeback"}))
            .status(),
        StatusCode::OK
    );
    let told = sink.next("the declined takeback", |m| {
        m.rcpt_to == "bob@players.test" && m.subject.contains("declined your takeback")
    });
    assert!(
        told.text
            .contains("Ann declined your request to take back play"),
        "{}",
        told.text
    );
    // Ann, who declined, is told nothing of her own answers.
    assert!(
        !sink
            .all()
            .iter()
            .any(|m| m.rcpt_to == ann_mail && m.subject.contains("declined")),
        "Ann was told of her own decline"
    );
}

/// A notation as the server compares them: without spaces, lowercased.
fn normal(notation: &str) -> String {
    notation
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The arguments of a server that sends to `relay` and retries after `retry_ms`.
fn relay_args(relay: &str, retry_ms: &str) -> Vec<String> {
    [
        "--smtp-url",
        relay,
        "--mail-from",
        "Avalanche <games@avalanche.test>",
        "--public-url",
        "https://play.avalanche.test",
        "--mail-retry-ms",
        retry_ms,
    ]
    .map(str::to_string)
    .to_vec()
}

fn start(data: &Path, args: &[String]) -> Server {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Server::start(data, &args)
}

#[test]
fn a_temporary_failure_of_the_relay_is_tried_again_later_with_the_same_message_id() {
    // The relay answers the first three mails with 451; the server waits 300 ms after the
    // first failure, then twice as long each time (and polls every 250 ms).
    let mut sink = Sink::refusing(3);
    let data = tempfile::tempdir().unwrap();
    let server = start(data.path(), &relay_args(&sink.url(), "300"));
    // The confirmation code is the first mail: refused three times, then taken.
    let ann = player_with_mail(&server, &mut sink, "Ann", "ann@players.test");
    let taken = sink.all();
    assert_eq!(taken.len(), 1, "{taken:#?}");
    let mail = &taken[0];
    let refused = sink.refused();
    assert_eq!(refused.len(), 3, "{refused:?}");
    for (_, id) in &refused {
        assert_eq!(
            id, &mail.message_id,
            "every attempt carries the same Message-ID"
        );
    }
    assert_eq!(metric(&server, "avalanche_mail_failed_total"), 3);
    let accepted_at = std::fs::metadata(&mail.file)
        .and_then(|m| m.modified())
        .unwrap()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let mut times: Vec<f64> = refused.iter().map(|(at, _)| *at).collect();
    times.push(accepted_at);
    let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    // Backed off: each wait at least the schedule's (a little slack for the clocks), and
    // longer than the one before; not a tight loop.
    for (n, gap) in gaps.iter().enumerate() {
        let wanted = 0.3 * f64::from(1u32 << n);
        assert!(*gap >= wanted * 0.9, "wait {n} was {gap:.3} s: {gaps:?}");
    }
    assert!(gaps[2] > gaps[0], "the waits do not grow: {gaps:?}");

    // Sent once: a game notice after that goes straight through, and the code mail is not
    // sent again.
    let bob = server.app.create_player("Bob");
    let game = server
        .app
        .create_game(&ann, json!({"kind": "avalanche-chess", "seats": 2}));
    server.app.join(&bob, &game);
    your_move(&mut sink, "ann@players.test", &game);
    wait_for("the outbox empties", || {
        metric(&server, "avalanche_mail_waiting") == 0
    });
    assert_eq!(with_id(&sink, &mail.message_id).len(), 1);
    assert_eq!(sink.refused().len(), 3);
}

#[test]
fn a_notice_waiting_for_the_relay_survives_a_crash_and_is_sent_once_after_the_restart() {
    let data = tempfile::tempdir().unwrap();
    let RelayDown {
        mut server,
        relay_port,
        args,
        game,
        ..
    } = RelayDown::start(data.path());
    let waiting = metric(&server, "avalanche_mail_waiting");
    assert!(waiting >= 2, "{waiting} mails wait");
    server.kill();

    let mut sink = Sink::start_on(relay_port);
    let server = start(data.path(), &args);
    let notice = your_move(&mut sink, "ann@players.test", &game);
    check_notice(&notice, &game);
    assert!(notice.text.contains("a b c d e f g h"), "{}", notice.text);
    sink.next("Bob's start notice", |m| {
        m.rcpt_to == "bob@players.test" && m.subject.starts_with("Game started")
    });
    wait_for("the outbox empties", || {
        metric(&server, "avalanche_mail_waiting") == 0
    });
    // Once: give a second send time to come, then count.
    std::thread::sleep(Duration::from_millis(600));
    let all = sink.all();
    assert_eq!(all.len(), 2, "{all:#?}");
    assert_eq!(with_id(&sink, &notice.message_id).len(), 1);
}

/// The `.eml` files in `folder` that `wanted` accepts, waiting up to 30 s for one.
fn eml(folder: &Path, what: &str, wanted: impl Fn(&Received) -> bool) -> Received {
    let started = Instant::now();
    loop {
        let files: Vec<PathBuf> = std::fs::read_dir(folder)
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        if let Some(found) = files
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "eml"))
            .filter_map(Received::parse)
            .find(|m| wanted(m))
        {
            return found;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no .eml file in {}: {what}",
            folder.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn without_a_relay_mail_is_written_as_eml_files_under_the_data_folder_and_the_log_says_where() {
    let data = tempfile::tempdir().unwrap();
    let log = data.path().join("server.log");
    let server = Server::start_logging_at(
        &data.path().join("store"),
        &[
            "--mail-from",
            "Avalanche <games@avalanche.test>",
            "--public-url",
            "https://play.avalanche.test",
        ],
        &log,
        "info",
    );
    let folder = data.path().join("store").join("outbox");
    let app = &server.app;
    let ann = app.create_player("Ann");
    let set = app
        .client
        .put(app.url("/v1/players/me/email"))
        .bearer_auth(&ann.token)
        .json(&json!({"address": "ann@players.test"}))
        .send()
        .unwrap();
    assert_eq!(set.status(), StatusCode::ACCEPTED);
    // The code mail, read from its file as a mail program would.
    let code_mail = eml(&folder, "the confirmation code", |m| {
        m.to == "ann@players.test"
    });
    let code = code_mail.subject.rsplit(' ').next().unwrap().to_string();
    assert!(code_mail.text.contains(&code), "{}", code_mail.text);
    assert_eq!(code_mail.from, "games@avalanche.test");
    ok_json(
        app.post("/v1/players/me/email/confirm", Some(&ann))
            .json(&json!({"code": code}))
            .send(),
        StatusCode::OK,
    );

    let bob = app.create_player("Bob");
    let game = app.create_game(&ann, json!({"kind": "avalanche-chess", "seats": 2}));
    app.join(&bob, &game);
    let notice = eml(&folder, "the turn notice", |m| {
        m.subject.starts_with("Your move") && m.subject.contains(&game)
    });
    assert_eq!(notice.to, "ann@players.test");
    assert_eq!(notice.from, "games@avalanche.test");
    assert!(notice.subject.contains("Bob"), "{}", notice.subject);
    // The position as Ann's seat sees it, with her legal commands.
    assert!(notice.text.contains("a b c d e f g h"), "{}", notice.text);
    assert!(
        !common::mailbox::listed_commands(&notice.text).is_empty(),
        "{}",
        notice.text
    );
    assert!(notice
        .text
        .contains(&format!("https://play.avalanche.test/#/game/{game}")));
    // Named by its Message-ID (the part before the server's domain).
    let left = notice
        .message_id
        .strip_suffix(&format!("@{DOMAIN}"))
        .unwrap_or_else(|| panic!("a Message-ID at {DOMAIN}: {}", notice.message_id));
    assert_eq!(
        notice.file.file_name().unwrap().to_string_lossy(),
        format!("{left}.eml")
    );
    // The log names the folder at startup and each mail's file.
    wait_for("the log names the notice's file", || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains(&notice.file.display().to_string())
    });
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains(&folder.display().to_string()),
        "the log does not name {}:\n{text}",
        folder.display()
    );
    assert!(
        text.contains(&code_mail.file.display().to_string()),
        "{text}"
    );
}
