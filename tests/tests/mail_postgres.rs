//! Two `avalanche serve` nodes on one PostgreSQL database, both sending to the same real SMTP
//! server: every notice is sent once, by the node that holds the mail lease, whichever node
//! the moves were played on.

use crate::cluster;
use crate::common;
use common::mailbox;

use common::binary::Server;
use common::{ok_json, Player, TestApp};
use mailbox::Sink;
use reqwest::StatusCode;
use serde_json::json;
use std::collections::HashMap;
use std::time::{Duration, Instant};

fn confirm(app: &TestApp, sink: &mut Sink, player: &Player, address: &str) {
    ok_json(
        app.client
            .put(app.url("/v1/players/me/email"))
            .bearer_auth(&player.token)
            .json(&json!({"address": address}))
            .send(),
        StatusCode::ACCEPTED,
    );
    let mail = sink.next("the code", |m| m.rcpt_to == address);
    let code = mail.subject.rsplit(' ').next().unwrap().to_string();
    ok_json(
        app.post("/v1/players/me/email/confirm", Some(player))
            .json(&json!({"code": code}))
            .send(),
        StatusCode::OK,
    );
}

#[test]
fn two_nodes_on_one_database_send_each_notice_once() {
    let mut sink = Sink::start();
    let url = cluster::Cluster::shared().new_database();
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("secrets.key");
    let key = key.to_str().unwrap().to_string();
    let relay = sink.url();
    let args = [
        "--database",
        &url,
        "--secrets-key",
        &key,
        "--database-connections",
        "4",
        "--smtp-url",
        &relay,
        "--mail-from",
        "Avalanche <games@avalanche.test>",
        "--mail-retry-ms",
        "100",
        // A clock warning 8 s before each deadline: derived by whichever node holds the lease.
        "--mail-clock-warnings",
        "8s",
    ];
    let nodes: Vec<Server> = (0..2)
        .map(|n| {
            let server = Server::start(&dir.path().join(format!("node-{n}")), &args);
            std::thread::sleep(Duration::from_millis(300));
            server
        })
        .collect();
    let (a, b) = (&nodes[0].app, &nodes[1].app);
    let ann = a.create_player("Ann");
    let bob = b.create_player("Bob");
    confirm(a, &mut sink, &ann, "ann@players.test");
    confirm(b, &mut sink, &bob, "bob@players.test");
    let game = a.create_game(
        &ann,
        json!({"kind": "avalanche-chess", "seats": 2,
            "time_control": {"type": "seconds_per_move", "seconds": 12}}),
    );
    b.join(&bob, &game);
    // Ann's first turn notice is sent before she moves (a notice whose turn is played before
    // it is sent is dropped).
    sink.next("the first turn notice", |m| {
        m.subject.starts_with("Your move")
    });
    let seats = [&ann, &bob];
    let moves = 8;
    for n in 0..moves {
        // Each move on the other node than the last.
        let app = &nodes[n % 2].app;
        let player = seats[n % 2];
        let legal = app.legal(player, &game);
        let command = legal["commands"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["command"]["type"] == "turn")
            .expect("a move")["command"]
            .clone();
        let answer = app.play(player, &game, &command);
        assert_eq!(answer.status(), StatusCode::OK);
        // A turn notice for the next seat, from one node or the other.
        sink.next("a turn notice", |m| m.subject.starts_with("Your move"));
    }
    // The seat to move now lets its clock run: one warning, from one node.
    let warned = sink.next("a clock notice", |m| m.subject.starts_with("Your clock"));
    assert!(
        warned.subject.contains("8 seconds left"),
        "{}",
        warned.subject
    );
    // Time for a second sender to send them again, if there were one.
    std::thread::sleep(Duration::from_secs(2));
    let mut ids: HashMap<String, usize> = HashMap::new();
    let started = Instant::now();
    let notices = loop {
        let notices: Vec<_> = sink
            .all()
            .into_iter()
            .filter(|m| m.subject.starts_with("Your move"))
            .collect();
        if notices.len() > moves || started.elapsed() > Duration::from_secs(10) {
            break notices;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    for notice in &notices {
        *ids.entry(notice.message_id.clone()).or_default() += 1;
    }
    // The first notice (the game started) and one a move.
    assert_eq!(notices.len(), moves + 1, "{ids:#?}");
    assert!(
        ids.values().all(|&n| n == 1),
        "a notice was sent twice: {ids:#?}"
    );
    let mut clock: HashMap<String, usize> = HashMap::new();
    for mail in sink.all() {
        if mail.subject.starts_with("Your clock") {
            *clock.entry(mail.message_id).or_default() += 1;
        }
    }
    assert!(
        clock.values().all(|&n| n == 1),
        "a clock notice was sent twice: {clock:#?}"
    );
}
