//! Words by mail: the lines of a reply below its command line are said at the table with the
//! move, in the same append; a reply of words and no command is a message alone, answered
//! "Message sent"; the next seat's turn mail shows what was said since its last turn. A
//! mistyped move is refused and never told to the others, and words that cannot be said keep
//! their move from being played.

use crate::common;
use crate::mail::{
    ann_and_bob_at_chess, answer_to as answer, first_game_command, server, your_move,
};

use common::binary::Server;
use common::mailbox::Sink;
use common::Player;
use serde_json::Value;

/// The texts of the `said` events `reader` gets from the events endpoint.
fn said(server: &Server, reader: &Player, game: &str) -> Vec<Value> {
    let page = server.app.events(Some(reader), game, 0);
    page["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "said")
        .map(|e| e["data"]["text"].clone())
        .collect()
}

#[test]
fn words_go_with_a_mailed_move_or_alone_and_the_next_turn_mail_shows_them() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, smtp) = server(&sink, data.path(), &[]);
    let (ann, bob, game) = ann_and_bob_at_chess(&server, &mut sink);

    // Ann plays by reply, with two lines of words below the move, above her mail program's
    // quote and her signature (and a zero-width space her phone put in).
    let notice = your_move(&mut sink, "ann@players.test", &game);
    let command = first_game_command(&notice);
    let body = format!(
        "{command}\nGood luck,\u{200B} Bob!\n\nHave fun.\n\nOn Sunday, Avalanche wrote:\n> It is your move\n> in Avalanche Chess\n-- \nAnn, from her phone\n"
    );
    let played = answer(
        &mut sink,
        smtp,
        "ann@players.test",
        &notice,
        "ann-1@players.test",
        &body,
    );
    assert!(played.subject.starts_with("Played"), "{}", played.text);
    assert!(
        played
            .text
            .contains("was played, and your words below it were said at the table"),
        "{}",
        played.text
    );
    let words = "Good luck, Bob!\n\nHave fun.";
    assert_eq!(said(&server, &bob, &game), vec![Value::from(words)]);
    assert_eq!(said(&server, &ann, &game), vec![Value::from(words)]);

    // Bob's turn mail tells the move and the words, and nothing of the quote or signature.
    let notice = your_move(&mut sink, "bob@players.test", &game);
    assert!(
        notice.text.contains(&format!(
            "Since your last turn:\n  Ann played {command}\n  Ann said:\n    Good luck, Bob!\n\n    Have fun.\n"
        )),
        "{}",
        notice.text
    );
    assert!(!notice.text.contains("from her phone"), "{}", notice.text);

    // A mistyped move is refused, and never told to Ann as words.
    let typo = answer(
        &mut sink,
        smtp,
        "bob@players.test",
        &notice,
        "bob-1@players.test",
        "Zz9/a3\n",
    );
    assert!(typo.subject.starts_with("Not played"), "{}", typo.subject);
    assert_eq!(said(&server, &ann, &game).len(), 1);

    // Words alone: said at the table, answered "Message sent", and nothing played.
    let version = crate::mail::version(&server, &bob, &game);
    let alone = answer(
        &mut sink,
        smtp,
        "bob@players.test",
        &notice,
        "bob-2@players.test",
        "Thanks, and to you!\nI move tonight.\n",
    );
    assert!(
        alone
            .subject
            .starts_with("Message sent in Avalanche Chess with Ann"),
        "{}",
        alone.subject
    );
    assert!(alone.text.contains("Nothing was played"), "{}", alone.text);
    assert_eq!(
        said(&server, &ann, &game),
        vec![
            Value::from(words),
            Value::from("Thanks, and to you!\nI move tonight.")
        ]
    );
    assert_eq!(crate::mail::version(&server, &bob, &game), version + 1);
    assert!(server.app.game(Some(&bob), &game)["to_act"] == serde_json::json!([1]));

    // Words that cannot be said keep the move from being played: nothing is appended.
    let long = "x".repeat(1_001);
    let refused = answer(
        &mut sink,
        smtp,
        "bob@players.test",
        &alone,
        "bob-3@players.test",
        &format!("{}\n{long}\n", first_game_command(&alone)),
    );
    assert!(
        refused.subject.starts_with("Not played"),
        "{}",
        refused.subject
    );
    assert!(
        refused.text.contains("could not be said"),
        "{}",
        refused.text
    );
    assert_eq!(crate::mail::version(&server, &bob, &game), version + 1);

    // Bob then moves by replying to the "Message sent" answer; Ann's next turn mail shows his
    // words and his move, and not her own words.
    let moved = first_game_command(&alone);
    let played = answer(
        &mut sink,
        smtp,
        "bob@players.test",
        &alone,
        "bob-4@players.test",
        &moved,
    );
    assert!(played.subject.starts_with("Played"), "{}", played.text);
    assert!(!played.text.contains("words"), "{}", played.text);
    let notice = your_move(&mut sink, "ann@players.test", &game);
    let since = notice
        .text
        .split("Since your last turn:\n")
        .nth(1)
        .expect("what happened since")
        .split("\n\n")
        .next()
        .unwrap();
    assert_eq!(
        since,
        format!("  Bob said:\n    Thanks, and to you!\n    I move tonight.\n  Bob played {moved}"),
        "{}",
        notice.text
    );

    // Ann mutes Bob: his next words reach the table, but not Ann's turn mail.
    let muted = server
        .app
        .client
        .put(server.app.url(&format!("/v1/players/me/mutes/{}", bob.id)))
        .bearer_auth(&ann.token)
        .send()
        .unwrap();
    assert_eq!(muted.status(), reqwest::StatusCode::OK);
    let ann_move = first_game_command(&notice);
    let played = answer(
        &mut sink,
        smtp,
        "ann@players.test",
        &notice,
        "ann-2@players.test",
        &ann_move,
    );
    assert!(played.subject.starts_with("Played"), "{}", played.text);
    let notice = your_move(&mut sink, "bob@players.test", &game);
    let bob_move = first_game_command(&notice);
    let body = format!("{bob_move}\nYou will not read this.");
    let played = answer(
        &mut sink,
        smtp,
        "bob@players.test",
        &notice,
        "bob-5@players.test",
        &body,
    );
    assert!(
        played.text.contains("your words below it were said"),
        "{}",
        played.text
    );
    assert_eq!(said(&server, &bob, &game).len(), 3);
    let notice = your_move(&mut sink, "ann@players.test", &game);
    assert!(
        notice.text.contains(&format!(
            "Since your last turn:\n  Bob played {bob_move}\n\n"
        )),
        "{}",
        notice.text
    );
    assert!(
        !notice.text.contains("You will not read this"),
        "{}",
        notice.text
    );
}
