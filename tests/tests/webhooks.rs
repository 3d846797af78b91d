//! Webhooks over HTTP: "when it becomes their turn, when a takeback or draw is offered to them,
//! and when one of their games ends, the server POSTs a JSON notification signed with
//! HMAC-SHA256 ... Delivery is at least once ... never lost across a restart, and one slow or
//! dead receiver never delays play or other receivers." Real receivers listen on
//! 127.0.0.1 in the test, a host the test's server is told to allow (otherwise a
//! webhook never reaches inside the server's network).

use crate::common;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use app::webhooks::address::AddressPolicy;
use app::webhooks::delivery::DeliverySettings;
use common::binary::Server;
use common::play::{is_table_command, SendOk};
use common::{ok_json, problem, Player, TestApp};
use hmac::{Hmac, Mac};
use reqwest::StatusCode;
use serde_json::{json, Value};
use sha2::Sha256;
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One request a receiver accepted (answered 200).
#[derive(Clone, Debug)]
struct Received {
    body: Vec<u8>,
    signature: String,
    delivery: String,
    content_type: String,
}

impl Received {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a notification is JSON")
    }
}

#[derive(Default)]
struct Log {
    attempts: usize,
    accepted: Vec<Received>,
    /// Answers 500 to everything while set.
    refusing: bool,
}

/// A webhook receiver on a free port: answers 500 to its first `fail_first` requests, then
/// 200 after waiting `delay`.
struct Receiver {
    url: String,
    log: Arc<Mutex<Log>>,
}

impl Receiver {
    fn spawn(fail_first: usize, delay: Duration) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("free port");
        let url = format!("http://{}/hook", listener.local_addr().expect("address"));
        let log = Arc::new(Mutex::new(Log::default()));
        let shared = log.clone();
        std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let server = HttpServer::new(move || {
                    let log = shared.clone();
                    App::new().default_service(web::to(
                        move |req: HttpRequest, body: web::Bytes| {
                            let log = log.clone();
                            async move {
                                let (attempt, refusing) = {
                                    let mut log = log.lock().unwrap();
                                    log.attempts += 1;
                                    (log.attempts, log.refusing)
                                };
                                if attempt <= fail_first || refusing {
                                    return HttpResponse::InternalServerError().finish();
                                }
                                actix_web::rt::time::sleep(delay).await;
                                let header = |name: &str| {
                                    req.headers()
                                        .get(name)
                                        .and_then(|v| v.to_str().ok())
                                        .unwrap_or_default()
                                        .to_string()
                                };
                                log.lock().unwrap().accepted.push(Received {
                                    body: body.to_vec(),
                                    signature: header("x-avalanche-signature"),
                                    delivery: header("x-avalanche-delivery"),
                                    content_type: header("content-type"),
                                });
                                HttpResponse::Ok().finish()
                            }
                        },
                    ))
                })
                .workers(1)
                .listen(listener)
                .expect("listens")
                .run();
                let _ = server.await;
            })
        });
        Receiver { url, log }
    }

    fn accepted(&self) -> Vec<Received> {
        self.log.lock().unwrap().accepted.clone()
    }

    fn ids(&self) -> Vec<String> {
        self.accepted()
            .iter()
            .map(|r| r.json()["id"].as_str().expect("id").to_string())
            .collect()
    }

    fn set_refusing(&self, refusing: bool) {
        self.log.lock().unwrap().refusing = refusing;
    }

    fn attempts(&self) -> usize {
        self.log.lock().unwrap().attempts
    }

    /// Waits (up to `limit`) until every id of `expected` has arrived.
    fn wait_for(&self, expected: &[String], limit: Duration) -> bool {
        let started = Instant::now();
        while started.elapsed() < limit {
            let ids = self.ids();
            if expected.iter().all(|id| ids.contains(id)) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

/// The server of these tests: webhooks may use http and reach the receivers on 127.0.0.1 (and
/// example.com, which is registered but never called, without a name server).
fn spawn_app() -> TestApp {
    TestApp::spawn_with(DeliverySettings {
        addresses: Arc::new(AddressPolicy {
            allow_http: true,
            allowed_hosts: vec!["127.0.0.1".into(), "example.com".into()],
        }),
        ..DeliverySettings::default()
    })
}

fn register(app: &TestApp, player: &Player, url: &str) -> Value {
    ok_json(
        app.post("/v1/players/me/webhooks", Some(player))
            .json(&json!({"url": url}))
            .send(),
        StatusCode::CREATED,
    )
}

/// Checks each accepted request: JSON, signed with `secret`, its id in the delivery header,
/// for `player`, and nothing but ids, types and public facts in it.
/// `t=<t>,v1=<hex HMAC-SHA256 of "<t>." and body>`, as docs/api.md says.
fn signature(secret: &str, t: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(body);
    format!("t={t},v1={}", hex::encode(mac.finalize().into_bytes()))
}

fn check_signed(receiver: &Receiver, secret: &str, player: &Player) {
    for received in receiver.accepted() {
        let t: i64 = received
            .signature
            .strip_prefix("t=")
            .and_then(|rest| rest.split_once(','))
            .and_then(|(t, _)| t.parse().ok())
            .unwrap_or_else(|| panic!("a signed time: {}", received.signature));
        let now = chrono::Utc::now().timestamp();
        assert!(
            (now - 60..=now).contains(&t),
            "signed when sent: {t} at {now}"
        );
        assert_eq!(
            received.signature,
            signature(secret, t, &received.body),
            "the signature verifies"
        );
        assert!(received.content_type.starts_with("application/json"));
        let body = received.json();
        assert_eq!(received.delivery, body["id"].as_str().unwrap());
        assert_eq!(body["player_id"], player.id.as_str());
        for key in body.as_object().unwrap().keys() {
            assert!(
                [
                    "id",
                    "type",
                    "game_id",
                    "kind",
                    "version",
                    "player_id",
                    "seat",
                    "occurred_at",
                    "by_seat",
                    "takeback_to_version",
                    "outcome"
                ]
                .contains(&key.as_str()),
                "no more than ids and public facts: {body}"
            );
        }
    }
}

/// The notifications each player should get, in order, worked out from the answers.
#[derive(Default)]
struct Expected(Vec<(String, String)>);

impl Expected {
    fn note(&mut self, game: &str, version: u64, player: &str, kind: &str) {
        self.0.push((
            player.to_string(),
            format!("{game}:{version}:{player}:{kind}"),
        ));
    }

    /// What a change of a game's summary from `before` to `after` tells: whose turn began,
    /// and whether it ended.
    fn turns(&mut self, before: &Value, after: &Value) {
        let game = after["id"].as_str().unwrap();
        let version = after["version"].as_u64().unwrap();
        let seated = |summary: &Value, seat: &Value| {
            summary["seats"][seat.as_u64().unwrap() as usize]["player_id"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let acting = |summary: &Value| -> Vec<String> {
            if summary["status"] != "active" {
                return Vec::new();
            }
            summary["to_act"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| seated(summary, s))
                .collect()
        };
        let was = acting(before);
        for player in acting(after) {
            if !was.contains(&player) {
                self.note(game, version, &player, "your_turn");
            }
        }
        if after["status"] == "finished" && before["status"] != "finished" {
            for seat in after["seats"].as_array().unwrap() {
                let player = seat["player_id"].as_str().unwrap().to_string();
                self.note(game, version, &player, "game_finished");
            }
        }
    }

    fn of(&self, player: &Player) -> Vec<String> {
        self.0
            .iter()
            .filter(|(p, _)| *p == player.id)
            .map(|(_, id)| id.clone())
            .collect()
    }
}

/// Posts `command` for `player` and notes the turns it changes; returns the answer.
fn command(
    app: &TestApp,
    player: &Player,
    game: &str,
    command: &Value,
    expected: &mut Expected,
) -> Value {
    let before = app.game(None, game);
    let answer = ok_json(app.play(player, game, command).send_ok(), StatusCode::OK);
    expected.turns(&before, &answer["game"]);
    answer
}

/// Plays `moves` game commands (not table commands) of whoever is to act, at random.
fn moves(
    app: &TestApp,
    game: &str,
    players: &[Player],
    moves: usize,
    expected: &mut Expected,
) -> Vec<u64> {
    let mut chooser = common::Chooser::new(7);
    let mut versions = Vec::new();
    for _ in 0..moves {
        let summary = app.game(None, game);
        assert_eq!(summary["status"], "active", "{summary}");
        let seat = summary["to_act"][0].as_u64().unwrap() as usize;
        let legal = app.legal(&players[seat], game);
        let commands: Vec<&Value> = legal["commands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| &l["command"])
            .filter(|c| !is_table_command(c))
            .collect();
        let chosen = commands[chooser.below(commands.len())].clone();
        let answer = command(app, &players[seat], game, &chosen, expected);
        versions.push(answer["version"].as_u64().unwrap());
    }
    versions
}

/// A chess game of `players[0]` (white) and `players[1]`, started by the join.
fn chess(app: &TestApp, players: &[Player], expected: &mut Expected) -> String {
    let game = app.create_game(&players[0], json!({"kind": "avalanche-chess", "seats": 2}));
    let before = app.game(None, &game);
    let joined = app.join(&players[1], &game);
    expected.turns(&before, &joined["game"]);
    game
}

#[test]
fn each_player_is_told_once_of_each_turn_offer_and_end_with_a_valid_signature() {
    let app = spawn_app();
    let players = vec![app.create_player("Ana"), app.create_player("Ben")];
    let receivers = [
        Receiver::spawn(0, Duration::ZERO),
        Receiver::spawn(0, Duration::ZERO),
    ];
    let secrets: Vec<String> = players
        .iter()
        .zip(&receivers)
        .map(|(p, r)| {
            register(&app, p, &r.url)["secret"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    // A game without either of them tells them nothing.
    let others = vec![app.create_player("Cy"), app.create_player("Di")];
    let mut unrelated = Expected::default();
    let other_game = chess(&app, &others, &mut unrelated);
    moves(&app, &other_game, &others, 2, &mut unrelated);

    let mut expected = Expected::default();
    let game = chess(&app, &players, &mut expected);
    moves(&app, &game, &players, 4, &mut expected);
    // Ben offers a draw: Ana is told; Ana declines.
    let offer = command(
        &app,
        &players[1],
        &game,
        &json!({"type": "offer_draw"}),
        &mut expected,
    );
    expected.note(
        &game,
        offer["version"].as_u64().unwrap(),
        &players[0].id,
        "draw_offered",
    );
    // Ana declines: Ben, who offered, is told.
    let declined = command(
        &app,
        &players[0],
        &game,
        &json!({"type": "decline_draw"}),
        &mut expected,
    );
    expected.note(
        &game,
        declined["version"].as_u64().unwrap(),
        &players[1].id,
        "draw_declined",
    );
    // Ana asks for a takeback: Ben is told; Ben declines, and Ana is told.
    let request = json!({"type": "request_takeback"});
    let asked = command(&app, &players[0], &game, &request, &mut expected);
    expected.note(
        &game,
        asked["version"].as_u64().unwrap(),
        &players[1].id,
        "takeback_requested",
    );
    let declined = command(
        &app,
        &players[1],
        &game,
        &json!({"type": "decline_takeback"}),
        &mut expected,
    );
    expected.note(
        &game,
        declined["version"].as_u64().unwrap(),
        &players[0].id,
        "takeback_declined",
    );
    moves(&app, &game, &players, 2, &mut expected);
    // Ana asks again, then moves on before Ben answers: her request is withdrawn, and Ben is
    // told so before he is told it is his turn.
    let asked = command(
        &app,
        &players[0],
        &game,
        &json!({"type": "request_takeback"}),
        &mut expected,
    );
    expected.note(
        &game,
        asked["version"].as_u64().unwrap(),
        &players[1].id,
        "takeback_requested",
    );
    let before = app.game(None, &game);
    assert_eq!(before["to_act"], json!([0]), "{before}");
    let legal = app.legal(&players[0], &game);
    let chosen = legal["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["command"])
        .find(|c| !is_table_command(c))
        .unwrap()
        .clone();
    let moved = ok_json(
        app.play(&players[0], &game, &chosen).send_ok(),
        StatusCode::OK,
    );
    expected.note(
        &game,
        moved["version"].as_u64().unwrap(),
        &players[1].id,
        "takeback_withdrawn",
    );
    expected.turns(&before, &moved["game"]);
    // Ana resigns: both are told the game ended.
    command(
        &app,
        &players[0],
        &game,
        &json!({"type": "resign"}),
        &mut expected,
    );

    for ((player, receiver), secret) in players.iter().zip(&receivers).zip(&secrets) {
        let mine = expected.of(player);
        assert!(mine.iter().any(|id| id.ends_with(":game_finished")));
        assert!(
            receiver.wait_for(&mine, Duration::from_secs(20)),
            "{} got {:?}, expected {mine:?}",
            player.id,
            receiver.ids()
        );
        // A little longer, so that a duplicate would show.
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(receiver.ids(), mine, "each once, in the order of play");
        check_signed(receiver, secret, player);
    }
    the_documented_check_refuses_a_replay(&receivers[0].accepted()[0], &secrets[0]);
    let finished = receivers[1]
        .accepted()
        .iter()
        .map(Received::json)
        .find(|n| n["type"] == "game_finished")
        .unwrap();
    assert_eq!(finished["outcome"]["winners"], json!([1]), "{finished}");
    assert_eq!(finished["kind"], "avalanche-chess");
    let offered = receivers[0]
        .accepted()
        .iter()
        .map(Received::json)
        .find(|n| n["type"] == "draw_offered")
        .unwrap();
    assert_eq!(offered["by_seat"], 1);
    assert_eq!(offered["seat"], 0);
    let withdrawn = receivers[1]
        .accepted()
        .iter()
        .map(Received::json)
        .find(|n| n["type"] == "takeback_withdrawn")
        .unwrap();
    assert_eq!(withdrawn["by_seat"], 0, "{withdrawn}");
}

#[test]
fn a_receiver_answering_500_is_retried_until_it_accepts_each_notification() {
    let app = spawn_app();
    let players = vec![app.create_player("Ana"), app.create_player("Ben")];
    let failing = Receiver::spawn(3, Duration::ZERO);
    let secret = register(&app, &players[0], &failing.url)["secret"]
        .as_str()
        .unwrap()
        .to_string();
    let mut expected = Expected::default();
    let game = chess(&app, &players, &mut expected);
    moves(&app, &game, &players, 4, &mut expected);
    let mine = expected.of(&players[0]);
    assert_eq!(mine.len(), 3, "{mine:?}");
    assert!(
        failing.wait_for(&mine, Duration::from_secs(20)),
        "got {:?}",
        failing.ids()
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        failing.ids(),
        mine,
        "none skipped, none twice once accepted"
    );
    assert_eq!(
        failing.attempts(),
        mine.len() + 3,
        "three refusals, retried"
    );
    check_signed(&failing, &secret, &players[0]);
}

#[test]
fn a_slow_receiver_delays_neither_play_nor_another_players_receiver() {
    let app = spawn_app();
    let players = vec![app.create_player("Ana"), app.create_player("Ben")];
    let slow = Receiver::spawn(0, Duration::from_secs(5));
    let quick = Receiver::spawn(0, Duration::ZERO);
    register(&app, &players[0], &slow.url);
    register(&app, &players[1], &quick.url);
    let started = Instant::now();
    let mut expected = Expected::default();
    let game = chess(&app, &players, &mut expected);
    moves(&app, &game, &players, 6, &mut expected);
    // Ana's receiver takes 5 s for each of her 4 notifications; play did not wait for it.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "play waited for a receiver: {:?}",
        started.elapsed()
    );
    let bens = expected.of(&players[1]);
    assert_eq!(bens.len(), 3);
    assert!(quick.wait_for(&bens, Duration::from_secs(4)));
    assert!(
        slow.accepted().len() < expected.of(&players[0]).len(),
        "Ben was told before Ana's slow receiver took all of hers"
    );
}

#[test]
fn a_webhook_is_registered_with_a_secret_shown_once_and_only_its_owner_deletes_it() {
    let app = spawn_app();
    let ana = app.create_player("Ana");
    let ben = app.create_player("Ben");
    let created = register(&app, &ana, "https://example.com/avalanche?x=1");
    let id = created["id"].as_str().unwrap().to_string();
    assert!(created["secret"].as_str().unwrap().starts_with("whsec_"));
    assert_eq!(created["url"], "https://example.com/avalanche?x=1");
    let listed = ok_json(
        app.get("/v1/players/me/webhooks", Some(&ana)).send(),
        StatusCode::OK,
    );
    let listed = &listed["items"];
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["id"], id.as_str());
    assert!(
        listed[0].get("secret").is_none(),
        "never shown again: {listed}"
    );
    let bens = ok_json(
        app.get("/v1/players/me/webhooks", Some(&ben)).send(),
        StatusCode::OK,
    );
    assert_eq!(bens, json!({"items": [], "next": null}));

    for url in ["ftp://example.com/x", "not a url", "http://", "/relative"] {
        let refused = app
            .post("/v1/players/me/webhooks", Some(&ana))
            .json(&json!({"url": url}))
            .send()
            .unwrap();
        assert_eq!(
            problem(refused, StatusCode::BAD_REQUEST),
            "invalid_webhook_url",
            "{url}"
        );
    }
    let long = format!("https://example.com/{}", "a".repeat(2000));
    let refused = app
        .post("/v1/players/me/webhooks", Some(&ana))
        .json(&json!({"url": long}))
        .send()
        .unwrap();
    assert_eq!(
        problem(refused, StatusCode::BAD_REQUEST),
        "invalid_webhook_url"
    );
    let anonymous = app
        .post("/v1/players/me/webhooks", None)
        .json(&json!({"url": "https://example.com/"}))
        .send()
        .unwrap();
    assert_eq!(problem(anonymous, StatusCode::UNAUTHORIZED), "unauthorized");

    let path = format!("/v1/players/me/webhooks/{id}");
    let by_ben = app
        .client
        .delete(app.url(&path))
        .bearer_auth(&ben.token)
        .send()
        .unwrap();
    assert_eq!(problem(by_ben, StatusCode::NOT_FOUND), "webhook_not_found");
    let still = ok_json(
        app.get("/v1/players/me/webhooks", Some(&ana)).send(),
        StatusCode::OK,
    );
    assert_eq!(still["items"].as_array().unwrap().len(), 1);
    let by_ana = app
        .client
        .delete(app.url(&path))
        .bearer_auth(&ana.token)
        .send()
        .unwrap();
    assert_eq!(by_ana.status(), StatusCode::NO_CONTENT);
    let again = app
        .client
        .delete(app.url(&path))
        .bearer_auth(&ana.token)
        .send()
        .unwrap();
    assert_eq!(problem(again, StatusCode::NOT_FOUND), "webhook_not_found");

    for n in 0..10 {
        register(&app, &ana, &format!("https://example.com/{n}"));
    }
    let eleventh = app
        .post("/v1/players/me/webhooks", Some(&ana))
        .json(&json!({"url": "https://example.com/11"}))
        .send()
        .unwrap();
    assert_eq!(problem(eleventh, StatusCode::CONFLICT), "too_many_webhooks");
}

/// The real binary over `data`, retrying deliveries at most 500 ms apart.
fn start(data: &Path) -> Server {
    Server::start(
        data,
        &[
            "--webhook-retry-ms",
            "50",
            "--webhook-retry-max-ms",
            "500",
            "--webhook-allow-http",
            "--webhook-allow-host",
            "127.0.0.1",
        ],
    )
}

#[test]
fn every_notification_arrives_at_least_once_across_a_kill_9_mid_delivery() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = start(dir.path());
    let app = &server.app;
    let players = vec![app.create_player("Ana"), app.create_player("Ben")];
    // Slow enough that notifications are still queued when the server is killed.
    let receivers = [
        Receiver::spawn(0, Duration::from_millis(300)),
        Receiver::spawn(0, Duration::from_millis(300)),
    ];
    let secrets: Vec<String> = players
        .iter()
        .zip(&receivers)
        .map(|(p, r)| {
            register(app, p, &r.url)["secret"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let mut expected = Expected::default();
    let game = chess(app, &players, &mut expected);
    moves(app, &game, &players, 10, &mut expected);
    let pending = players
        .iter()
        .zip(&receivers)
        .any(|(p, r)| r.ids().len() < expected.of(p).len());
    server.kill();
    assert!(pending, "the kill came in the middle of deliveries");

    let server = start(dir.path());
    let app = &server.app;
    moves(app, &game, &players, 2, &mut expected);
    command(
        app,
        &players[1],
        &game,
        &json!({"type": "resign"}),
        &mut expected,
    );
    for ((player, receiver), secret) in players.iter().zip(&receivers).zip(&secrets) {
        let mine = expected.of(player);
        assert!(
            receiver.wait_for(&mine, Duration::from_secs(20)),
            "{} got {:?}, expected {mine:?}",
            player.id,
            receiver.ids()
        );
        // At least once: a repeat (of the one in flight at the kill) is allowed, but nothing
        // else.
        for id in receiver.ids() {
            assert!(mine.contains(&id), "{id} was not expected");
        }
        check_signed(receiver, secret, player);
    }
}

#[test]
fn an_accepted_takeback_ends_the_game_and_the_fork_tells_only_whose_turn_it_is() {
    let app = spawn_app();
    let players = vec![app.create_player("Ana"), app.create_player("Ben")];
    let receivers = [
        Receiver::spawn(0, Duration::ZERO),
        Receiver::spawn(0, Duration::ZERO),
    ];
    for (player, receiver) in players.iter().zip(&receivers) {
        register(&app, player, &receiver.url);
    }
    let mut expected = Expected::default();
    let game = chess(&app, &players, &mut expected);
    moves(&app, &game, &players, 4, &mut expected);
    let request = json!({"type": "request_takeback"});
    let asked = command(&app, &players[1], &game, &request, &mut expected);
    expected.note(
        &game,
        asked["version"].as_u64().unwrap(),
        &players[0].id,
        "takeback_requested",
    );
    // Accepting supersedes the game (both are told it ended) and play goes on in a fork,
    // whose copied past announces nothing: only whose turn it is there.
    command(
        &app,
        &players[0],
        &game,
        &json!({"type": "accept_takeback"}),
        &mut expected,
    );
    let forks = ok_json(
        app.get(&format!("/v1/games/{game}/forks"), None).send(),
        StatusCode::OK,
    );
    let fork = app.game(None, forks["items"][0]["id"].as_str().unwrap());
    let nobody = json!({"id": fork["id"], "status": "open", "to_act": [], "seats": []});
    expected.turns(&nobody, &fork);
    moves(
        &app,
        fork["id"].as_str().unwrap(),
        &players,
        1,
        &mut expected,
    );
    for (player, receiver) in players.iter().zip(&receivers) {
        let mine = expected.of(player);
        assert!(
            receiver.wait_for(&mine, Duration::from_secs(20)),
            "{} got {:?}, expected {mine:?}",
            player.id,
            receiver.ids()
        );
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(receiver.ids(), mine, "each once, in the order of play");
    }
    let finished = receivers[0]
        .accepted()
        .iter()
        .map(Received::json)
        .find(|n| n["type"] == "game_finished")
        .unwrap();
    assert!(
        finished["outcome"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("superseded"),
        "{finished}"
    );
}

/// A game the server ends on time (clocks) is announced like any other end: both
/// players are told `game_finished`, once, signed.
#[test]
fn a_game_ended_by_the_clock_is_announced_to_both_players() {
    let app = spawn_app();
    let players = [app.create_player("Ana"), app.create_player("Ben")];
    let receivers = [
        Receiver::spawn(0, Duration::ZERO),
        Receiver::spawn(0, Duration::ZERO),
    ];
    let secrets: Vec<String> = players
        .iter()
        .zip(&receivers)
        .map(|(p, r)| {
            register(&app, p, &r.url)["secret"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let game = app.create_game(
        &players[0],
        json!({"kind": "avalanche-chess", "seats": 2, "seat": 0,
            "time_control": {"type": "seconds_per_move", "seconds": 1}}),
    );
    app.join(&players[1], &game);
    let started = Instant::now();
    while app.game(None, &game)["status"] != "finished" {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "timed out by itself"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let version = app.game(None, &game)["version"].as_u64().unwrap();
    for ((player, receiver), secret) in players.iter().zip(&receivers).zip(&secrets) {
        let finished: Vec<Value> = {
            let limit = Instant::now();
            loop {
                let found: Vec<Value> = receiver
                    .accepted()
                    .iter()
                    .map(Received::json)
                    .filter(|n| n["type"] == "game_finished")
                    .collect();
                if !found.is_empty() || limit.elapsed() > Duration::from_secs(10) {
                    break found;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        };
        assert_eq!(finished.len(), 1, "{}: {finished:?}", player.id);
        // And no second copy after a while.
        std::thread::sleep(Duration::from_millis(300));
        let again = receiver
            .accepted()
            .iter()
            .filter(|r| r.json()["type"] == "game_finished")
            .count();
        assert_eq!(again, 1, "{}", player.id);
        assert_eq!(finished[0]["game_id"], game.as_str());
        assert!(finished[0]["version"].as_u64().unwrap() <= version);
        assert_eq!(finished[0]["outcome"]["winners"], json!([1]));
        check_signed(receiver, secret, player);
    }
}

/// "A player can register a webhook to http://169.254.169.254/..., 127.0.0.1:22, localhost,
/// 0.0.0.0, [::1], the private ranges, 0x7f000001, 2130706433, or the server's own API ...
/// http:///x (no host) is accepted." Each is refused, with http allowed so that the
/// address is what refuses it.
#[test]
fn a_webhook_cannot_point_inside_the_servers_network() {
    let app = TestApp::spawn_with(DeliverySettings {
        addresses: Arc::new(AddressPolicy {
            allow_http: true,
            allowed_hosts: vec![],
        }),
        ..DeliverySettings::default()
    });
    let ana = app.create_player("Ana");
    let mut inside = vec![
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://127.0.0.1:22/".into(),
        "http://localhost/".into(),
        "http://localhost.:8080/".into(),
        "http://0.0.0.0/".into(),
        "http://[::1]/".into(),
        "http://[::ffff:127.0.0.1]/".into(),
        "http://[fe80::1]/".into(),
        "http://[fd00::1]/".into(),
        // Teredo, and 6to4 and NAT64 of inside IPv4 addresses (127.0.0.1, 169.254.169.254).
        "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/".into(),
        "http://[2002:7f00:1::1]/".into(),
        "http://[64:ff9b::a9fe:a9fe]/".into(),
        "http://10.0.0.1/".into(),
        "http://172.16.0.1/".into(),
        "http://192.168.1.1/".into(),
        "http://100.64.0.1/".into(),
        "http://224.0.0.1/".into(),
        "http://0x7f000001/".into(),
        "http://2130706433/".into(),
        "http://017700000001/".into(),
        "http:///x".into(),
        format!("{}/v1/games", app.base),
    ];
    // The machine's own address on the way out, if it has one: not loopback, still inside.
    if let Some(own) = own_address() {
        inside.push(format!("http://{own}:{}/v1/games", port_of(&app.base)));
    }
    for url in &inside {
        let refused = app
            .post("/v1/players/me/webhooks", Some(&ana))
            .json(&json!({"url": url}))
            .send()
            .unwrap();
        assert_eq!(
            problem(refused, StatusCode::BAD_REQUEST),
            "invalid_webhook_url",
            "{url}"
        );
    }
    let listed = ok_json(
        app.get("/v1/players/me/webhooks", Some(&ana)).send(),
        StatusCode::OK,
    );
    assert_eq!(listed["items"], json!([]));
}

#[test]
fn http_is_refused_unless_the_operator_allows_it() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let refused = app
        .post("/v1/players/me/webhooks", Some(&ana))
        .json(&json!({"url": "http://example.com/hook"}))
        .send()
        .unwrap();
    let body: Value = refused.json().unwrap();
    assert_eq!(body["code"], "invalid_webhook_url");
    assert!(
        body["detail"].as_str().unwrap().contains("only https://"),
        "{body}"
    );
}

/// "checked again at every delivery": a receiver the operator allowed once is not reached
/// after the allowance is withdrawn, though the webhook is still registered.
#[test]
fn a_delivery_checks_the_address_again() {
    let dir = tempfile::tempdir().unwrap();
    let receiver = Receiver::spawn(0, Duration::ZERO);
    let server = start(dir.path());
    let players = vec![
        server.app.create_player("Ana"),
        server.app.create_player("Ben"),
    ];
    for player in &players {
        register(&server.app, player, &receiver.url);
    }
    drop(server);
    let server = Server::start(
        dir.path(),
        &[
            "--webhook-retry-ms",
            "50",
            "--webhook-retry-max-ms",
            "200",
            "--webhook-allow-http",
        ],
    );
    let mut expected = Expected::default();
    chess(&server.app, &players, &mut expected);
    assert!(!expected.of(&players[0]).is_empty() || !expected.of(&players[1]).is_empty());
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        receiver.attempts(),
        0,
        "nothing is sent to an address no longer allowed"
    );
}

/// The address this machine leaves by (no packet is sent: a UDP socket only picks a route).
fn own_address() -> Option<std::net::IpAddr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("192.0.2.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

fn port_of(base: &str) -> u16 {
    base.rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a port")
}

/// "Delivery gives up after a bounded time (for instance 3 days) and marks the webhook
/// `failing` with its last error, visible to its owner, who can re-enable it."
#[test]
fn a_webhook_failing_for_too_long_stops_until_its_owner_re_enables_it_and_loses_nothing() {
    let app = TestApp::spawn_with(DeliverySettings {
        addresses: Arc::new(AddressPolicy {
            allow_http: true,
            allowed_hosts: vec!["127.0.0.1".into()],
        }),
        retry_min: Duration::from_millis(50),
        retry_max: Duration::from_millis(100),
        give_up_after: Duration::from_millis(800),
        ..DeliverySettings::default()
    });
    let players = vec![app.create_player("Ana"), app.create_player("Ben")];
    let receiver = Receiver::spawn(0, Duration::ZERO);
    receiver.set_refusing(true);
    let id = register(&app, &players[0], &receiver.url)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut expected = Expected::default();
    chess(&app, &players, &mut expected);
    let anas = expected.of(&players[0]);
    assert!(!anas.is_empty(), "Ana is told it is her turn");

    let listed = |app: &TestApp| {
        ok_json(
            app.get("/v1/players/me/webhooks", Some(&players[0])).send(),
            StatusCode::OK,
        )["items"][0]
            .clone()
    };
    let started = Instant::now();
    while listed(&app)["status"] != "failing" {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "marked failing: {}",
            listed(&app)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let failing = listed(&app);
    assert!(
        failing["last_error"]
            .as_str()
            .unwrap()
            .contains("500 Internal Server Error"),
        "{failing}"
    );
    assert!(failing["failing_since"].is_string());
    let attempts = receiver.attempts();
    assert!(attempts >= 3, "retried before giving up: {attempts}");
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(
        receiver.attempts(),
        attempts,
        "nothing is sent once failing"
    );
    assert!(receiver.ids().is_empty());

    receiver.set_refusing(false);
    let path = format!("/v1/players/me/webhooks/{id}/enable");
    let by_ben = app.post(&path, Some(&players[1])).send().unwrap();
    assert_eq!(problem(by_ben, StatusCode::NOT_FOUND), "webhook_not_found");
    let enabled = ok_json(app.post(&path, Some(&players[0])).send(), StatusCode::OK);
    assert_eq!(enabled["status"], "active");
    assert!(enabled.get("last_error").is_none(), "{enabled}");
    assert!(
        receiver.wait_for(&anas, Duration::from_secs(20)),
        "the notification given up arrives once re-enabled: {:?}",
        receiver.ids()
    );
    assert_eq!(listed(&app)["status"], "active");
}

/// "A captured delivery replays": the verification of docs/api.md, run as it stands, takes a
/// delivery as received, and refuses it sent again later (its signed time too old), with its
/// time changed (the signature no longer fits), or its body changed.
fn the_documented_check_refuses_a_replay(received: &Received, secret: &str) {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/api.md"))
            .unwrap();
    let snippet = page
        .split("```python\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/api.md shows the verification in Python");
    assert!(snippet.contains("def verify("), "{snippet}");
    let old = chrono::Utc::now().timestamp() - 301;
    let (t, v1) = received.signature.split_once(',').unwrap();
    let shifted = format!("t={old},{v1}");
    let mut changed = received.body.clone();
    changed.push(b' ');
    let cases = [
        (received.signature.clone(), received.body.clone(), "True"),
        // The same delivery, signed properly but six minutes ago: a replay.
        (
            signature(secret, old, &received.body),
            received.body.clone(),
            "False",
        ),
        (shifted, received.body.clone(), "False"),
        (received.signature.clone(), changed, "False"),
        (
            format!("{t},v1={}", "0".repeat(64)),
            received.body.clone(),
            "False",
        ),
    ];
    let folder = tempfile::tempdir().unwrap();
    for (n, (header, body, verdict)) in cases.iter().enumerate() {
        let body_file = folder.path().join(format!("body{n}"));
        std::fs::write(&body_file, body).unwrap();
        let script = format!(
            "{snippet}\nimport sys\nprint(verify(sys.argv[1], sys.argv[2], open(sys.argv[3], 'rb').read()))\n"
        );
        let run = std::process::Command::new("python3")
            .args(["-c", &script, secret, header])
            .arg(&body_file)
            .output()
            .expect("python3 runs the documented check");
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&run.stdout).trim(),
            *verdict,
            "case {n}: {header}"
        );
    }
}
