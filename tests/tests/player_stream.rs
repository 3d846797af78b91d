//! `GET /v1/players/me/stream`: "one stream for all my games ... the game started, your turn
//! (with the game's id, kind and version), a takeback asked, a draw offered, the opponent
//! moved, the game finished, the clock is low ... never anything another seat must not see.
//! Resumable from a cursor, kept alive, ended at once when the token is revoked ... Works on
//! sled and on PostgreSQL (several nodes: a notice of a command on node A reaches a stream on
//! node B)." Each seat's notices are checked against an oracle written here from the command
//! answers alone (who acted, which event types, whose turn before and after), and against
//! what the same player's webhook was sent.

use crate::common;

use crate::cluster;

use actix_web::{web, App, HttpResponse, HttpServer};
use app::webhooks::address::AddressPolicy;
use app::webhooks::delivery::DeliverySettings;
use common::play::{is_table_command, play_first, play_to_end};
use common::{ok_json, Player, TestApp};
use domain::Registry;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a stream sent: a line (its JSON and, as server-sent events, its `id:` and `event:`),
/// or its end.
#[derive(Debug)]
enum Heard {
    Line {
        json: Value,
        id: Option<String>,
        event: Option<String>,
    },
    End(Instant),
}

/// A stream read on a thread, line by line.
pub(crate) struct Listening {
    heard: mpsc::Receiver<Heard>,
    /// Every line so far, in order.
    lines: Vec<Value>,
    /// The `id:` and `event:` of every line, as server-sent events (empty as ndjson).
    framing: Vec<(String, String)>,
    ended: Option<Instant>,
}

pub(crate) const NDJSON: &str = "application/x-ndjson";
const SSE: &str = "text/event-stream";

/// Opens `path` on `base` with `token`, asking for `accept`, and reads it on a thread.
pub(crate) fn listen(
    base: &str,
    path: &str,
    token: &str,
    accept: &str,
    header: Option<(&str, &str)>,
) -> Listening {
    let mut request = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(300))
        .build()
        .unwrap()
        .get(format!("{base}{path}"))
        .bearer_auth(token)
        .header("Accept", accept);
    if let Some((name, value)) = header {
        request = request.header(name, value);
    }
    let response = request.send().expect("the stream opens");
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(
        content_type.starts_with(accept),
        "{content_type} for {accept}"
    );
    let sse = accept == SSE;
    let (sender, heard) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(response);
        let mut frame: Vec<(String, String)> = Vec::new();
        loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let line = line.trim_end_matches('\n');
            if !sse {
                if line.is_empty() {
                    continue; // the per-game stream's keep-alive
                }
                let json: Value = serde_json::from_str(line).expect("a line is JSON");
                let _ = sender.send(Heard::Line {
                    json,
                    id: None,
                    event: None,
                });
                continue;
            }
            if line.starts_with(':') {
                continue; // a comment
            }
            if !line.is_empty() {
                let (field, value) = line.split_once(": ").expect("a field");
                frame.push((field.to_string(), value.to_string()));
                continue;
            }
            let field = |name: &str| {
                frame
                    .iter()
                    .find(|(f, _)| f == name)
                    .map(|(_, v)| v.clone())
            };
            let data = field("data").expect("every event has data");
            let _ = sender.send(Heard::Line {
                json: serde_json::from_str(&data).expect("data is JSON"),
                id: field("id"),
                event: field("event"),
            });
            frame.clear();
        }
        let _ = sender.send(Heard::End(Instant::now()));
    });
    Listening {
        heard,
        lines: Vec::new(),
        framing: Vec::new(),
        ended: None,
    }
}

impl Listening {
    fn take(&mut self, heard: Heard) {
        match heard {
            Heard::Line { json, id, event } => {
                if let (Some(id), Some(event)) = (id, event) {
                    self.framing.push((id, event));
                }
                self.lines.push(json);
            }
            Heard::End(at) => self.ended = Some(at),
        }
    }

    /// Reads until `done` holds of the lines so far (or the stream ends), for at most
    /// `within`.
    pub(crate) fn until(&mut self, within: Duration, what: &str, done: impl Fn(&[Value]) -> bool) {
        let deadline = Instant::now() + within;
        while !done(&self.lines) {
            assert!(
                self.ended.is_none(),
                "the stream ended before {what}: {:#?}",
                self.lines
            );
            let left = deadline.saturating_duration_since(Instant::now());
            match self.heard.recv_timeout(left) {
                Ok(heard) => self.take(heard),
                Err(_) => panic!("no {what} within {within:?}: {:#?}", self.lines),
            }
        }
    }

    /// Reads what comes within `quiet`.
    fn drain(&mut self, quiet: Duration) {
        while let Ok(heard) = self.heard.recv_timeout(quiet) {
            self.take(heard);
        }
    }

    /// The notices so far (every line but `keep_alive`).
    pub(crate) fn notices(&self) -> Vec<Value> {
        self.lines
            .iter()
            .filter(|l| l["type"] != "keep_alive")
            .cloned()
            .collect()
    }
}

/// A notice as the oracle says it: its type, the game's version and the seat it names.
type Told = (String, u64, Option<u64>);

fn told(line: &Value) -> Told {
    (
        line["type"].as_str().unwrap().to_string(),
        line["version"].as_u64().unwrap(),
        line["by_seat"].as_u64(),
    )
}

/// The notices each seat of one game is owed, from the answers of the commands played (in
/// order): written from the answers alone, not from the server's code.
struct Oracle {
    seats: usize,
    to_act: Vec<u64>,
    status: String,
    owed: Vec<Vec<Told>>,
}

impl Oracle {
    fn new(seats: usize) -> Oracle {
        Oracle {
            seats,
            to_act: Vec::new(),
            status: "open".into(),
            owed: vec![Vec::new(); seats],
        }
    }

    /// One command's answer: who acted (its events' actor), what it recorded, and the game
    /// after it.
    fn saw(&mut self, answer: &Value) {
        let events = answer["events"].as_array().expect("events");
        let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        let actor = events
            .first()
            .and_then(|e| e["actor"].as_str())
            .and_then(|a| a.strip_prefix("seat:"))
            .and_then(|s| s.parse::<u64>().ok());
        let version = answer["version"].as_u64().expect("version");
        let game = &answer["game"];
        let to_act: Vec<u64> = game["to_act"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_u64().unwrap())
            .collect();
        let status = game["status"].as_str().unwrap().to_string();
        for seat in 0..self.seats as u64 {
            let owed = &mut self.owed[seat as usize];
            let mut say = |kind: &str, by: Option<u64>| owed.push((kind.to_string(), version, by));
            if types.contains(&"started") {
                say("game_started", None);
            }
            let other = actor.filter(|&a| a != seat);
            if other.is_some() && types.iter().any(|t| t.starts_with("game.")) {
                say("opponent_moved", other);
            }
            let moved = types.iter().any(|t| t.starts_with("game."));
            for kind in types.iter().copied() {
                if ["draw_offered", "takeback_requested", "takeback_withdrawn"].contains(&kind)
                    && other.is_some()
                {
                    say(kind, other);
                }
                // Two seats: the one that did not answer made the offer, and is told of its
                // decline (a draw declined by playing on is told by the turn instead).
                if (kind == "takeback_declined" || (kind == "draw_declined" && !moved))
                    && other.is_some()
                {
                    say(kind, other);
                }
            }
            if status == "active" && to_act.contains(&seat) {
                if !self.to_act.contains(&seat) {
                    say("your_turn", None);
                } else if other.is_some() && types.iter().any(|t| t.starts_with("game.")) {
                    // Seats that act at once: still to act, on a version another's move made.
                    say("your_turn", other);
                }
            }
            if status == "finished" && self.status != "finished" {
                say("game_finished", None);
            }
        }
        self.to_act = to_act;
        self.status = status;
    }

    /// The server ended the game (a timeout): everyone is told.
    fn finished_by_the_server(&mut self, version: u64) {
        for owed in &mut self.owed {
            owed.push(("game_finished".into(), version, None));
        }
        self.to_act.clear();
        self.status = "finished".into();
    }
}

/// What a notice line may hold, and nothing else: ids, seats, versions, times, the public
/// outcome.
fn holds_nothing_secret(line: &Value, player: &Player, game: &str, kind: &str) {
    const KEYS: &[&str] = &[
        "type",
        "cursor",
        "id",
        "game_id",
        "kind",
        "version",
        "player_id",
        "seat",
        "occurred_at",
        "by_seat",
        "takeback_to_version",
        "outcome",
        "deadline",
    ];
    let fields = line.as_object().expect("a line is an object");
    for (key, value) in fields {
        assert!(KEYS.contains(&key.as_str()), "{key} in {line}");
        if key == "outcome" {
            let outcome = value.as_object().expect("an outcome");
            assert!(
                outcome
                    .keys()
                    .all(|k| ["winners", "draw", "reason", "scores"].contains(&k.as_str())),
                "{line}"
            );
        } else {
            assert!(value.is_string() || value.is_u64(), "{key} in {line}");
        }
    }
    assert_eq!(line["player_id"], player.id.as_str(), "{line}");
    assert_eq!(line["game_id"], game, "{line}");
    assert_eq!(line["kind"], kind, "{line}");
    let version = line["version"].as_u64().unwrap();
    assert_eq!(
        line["id"],
        format!(
            "{game}:{version}:{}:{}",
            player.id,
            line["type"].as_str().unwrap()
        )
        .as_str()
    );
}

/// A webhook receiver on 127.0.0.1: the notifications POSTed to it, in order.
pub(crate) fn receiver() -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("free port");
    let url = format!("http://{}/hook", listener.local_addr().expect("address"));
    let received = Arc::new(Mutex::new(Vec::new()));
    let shared = received.clone();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(move || {
                let received = shared.clone();
                App::new().default_service(web::to(move |body: web::Bytes| {
                    let received = received.clone();
                    async move {
                        let json: Value = serde_json::from_slice(&body).unwrap();
                        received.lock().unwrap().push(json);
                        HttpResponse::Ok().finish()
                    }
                }))
            })
            .workers(1)
            .listen(listener)
            .expect("listens")
            .run();
            let _ = server.await;
        })
    });
    (url, received)
}

/// A webhook of `player` on a receiver of its own: the notifications it is sent, in order.
pub(crate) fn hooked(app: &TestApp, player: &Player) -> Arc<Mutex<Vec<Value>>> {
    let (url, received) = receiver();
    ok_json(
        app.post("/v1/players/me/webhooks", Some(player))
            .json(&json!({"url": url}))
            .send(),
        StatusCode::CREATED,
    );
    received
}

pub(crate) fn deliveries_to_localhost() -> DeliverySettings {
    DeliverySettings {
        addresses: Arc::new(AddressPolicy {
            allow_http: true,
            allowed_hosts: vec!["127.0.0.1".into()],
        }),
        ..DeliverySettings::default()
    }
}

/// A game of Avalanche Chess between `players` with every kind of notice a player may be
/// sent: the start, moves, a draw offered and declined, a takeback asked and declined, a
/// resignation. Played on `play`; returns the game and what each seat is owed.
fn a_chess_game(play: &TestApp, players: &[Player]) -> (String, Oracle) {
    let mut oracle = Oracle::new(2);
    let id = play.create_game(&players[0], json!({"kind": "avalanche-chess", "seats": 2}));
    oracle.saw(&play.join(&players[1], &id));
    let mut command = |seat: usize, command: Value| {
        let answer = ok_json(Ok(play.play(&players[seat], &id, &command)), StatusCode::OK);
        oracle.saw(&answer);
    };
    command(0, json!({"type": "turn", "move": "e2e4", "push": "a6"}));
    command(1, json!({"type": "offer_draw"}));
    command(0, json!({"type": "decline_draw"}));
    command(1, json!({"type": "turn", "move": "e7e5", "push": "a3"}));
    command(0, json!({"type": "turn", "move": "g1f3", "push": "h6"}));
    command(0, json!({"type": "request_takeback"}));
    command(1, json!({"type": "decline_takeback"}));
    command(1, json!({"type": "turn", "move": "b8c6", "push": "h3"}));
    command(0, json!({"type": "offer_draw"}));
    command(1, json!({"type": "resign"}));
    (id, oracle)
}

/// Reads each stream until it has told its seat everything owed, checks it is exactly that
/// in order, then that nothing more comes.
fn told_exactly(streams: &mut [Listening], oracle: &Oracle) {
    for (seat, stream) in streams.iter_mut().enumerate() {
        let owed = &oracle.owed[seat];
        stream.until(Duration::from_secs(20), "every notice owed", |lines| {
            lines.iter().filter(|l| l["type"] != "keep_alive").count() >= owed.len()
        });
        stream.drain(Duration::from_millis(300));
        let got: Vec<Told> = stream.notices().iter().map(told).collect();
        assert_eq!(&got, owed, "seat {seat}");
    }
}

#[test]
fn each_seat_is_told_exactly_its_notices_in_order_and_as_its_webhook_is() {
    let app = TestApp::spawn_with(deliveries_to_localhost());
    let players = vec![app.create_player("Ana"), app.create_player("Ben")];
    let mut hooks = Vec::new();
    for player in &players {
        hooks.push(hooked(&app, player));
    }
    let mut streams: Vec<Listening> = players
        .iter()
        .map(|p| listen(&app.base, "/v1/players/me/stream", &p.token, NDJSON, None))
        .collect();
    for stream in &mut streams {
        // The first line comes at once: the stream is open, and where it begins.
        stream.until(Duration::from_secs(2), "a first keep_alive", |l| {
            !l.is_empty()
        });
        assert_eq!(stream.lines[0]["type"], "keep_alive");
        assert!(stream.lines[0]["cursor"].is_string());
    }
    let (id, oracle) = a_chess_game(&app, &players);
    told_exactly(&mut streams, &oracle);
    for (seat, stream) in streams.iter().enumerate() {
        let notices = stream.notices();
        for line in &notices {
            holds_nothing_secret(line, &players[seat], &id, "avalanche-chess");
            assert_eq!(line["seat"], seat as u64);
        }
        let cursors: Vec<&str> = stream
            .lines
            .iter()
            .map(|l| l["cursor"].as_str().expect("every line has its cursor"))
            .collect();
        let mut unique = cursors.clone();
        unique.dedup();
        assert_eq!(unique, cursors, "no cursor twice");
        // Webhooks carry the turn, the offers and the end: the same notices, the same ids.
        let delivered = [
            "your_turn",
            "draw_offered",
            "takeback_requested",
            "takeback_withdrawn",
            "draw_declined",
            "takeback_declined",
            "game_finished",
        ];
        let expected: Vec<Value> = notices
            .iter()
            .filter(|n| delivered.contains(&n["type"].as_str().unwrap()))
            .map(|n| n["id"].clone())
            .collect();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let got: Vec<Value> = hooks[seat]
                .lock()
                .unwrap()
                .iter()
                .map(|n| n["id"].clone())
                .collect();
            if got == expected {
                break;
            }
            assert!(
                Instant::now() < deadline && got.len() <= expected.len(),
                "seat {seat}'s webhook: {got:?}, its stream: {expected:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[test]
fn a_cursor_resumes_after_its_line_with_nothing_twice_as_ndjson_and_as_server_sent_events() {
    let app = TestApp::spawn();
    let players = vec![app.create_player("Ana"), app.create_player("Ben")];
    // Begun after the game: from the start of the log (`after=0`).
    let (_, oracle) = a_chess_game(&app, &players);
    let ben = &players[1];
    let mut whole = listen(
        &app.base,
        "/v1/players/me/stream?after=0",
        &ben.token,
        NDJSON,
        None,
    );
    let owed = oracle.owed[1].len();
    whole.until(Duration::from_secs(10), "Ben's notices", |lines| {
        lines.iter().filter(|l| l["type"] != "keep_alive").count() >= owed
    });
    whole.drain(Duration::from_millis(300));
    let notices = whole.notices();
    assert_eq!(notices.iter().map(told).collect::<Vec<_>>(), oracle.owed[1]);
    // The same as server-sent events: each line framed, its `id:` the cursor.
    let mut framed = listen(
        &app.base,
        "/v1/players/me/stream?after=0",
        &ben.token,
        SSE,
        None,
    );
    framed.until(Duration::from_secs(10), "Ben's notices", |lines| {
        lines.iter().filter(|l| l["type"] != "keep_alive").count() >= owed
    });
    framed.drain(Duration::from_millis(300));
    assert_eq!(framed.notices(), notices, "the same lines in both formats");
    for (line, (id, event)) in framed.lines.iter().zip(&framed.framing) {
        assert_eq!(line["cursor"], id.as_str());
        assert_eq!(line["type"], event.as_str());
    }
    // From the cursor of each line: what came after it, nothing twice.
    for at in 0..notices.len() {
        let cursor = notices[at]["cursor"].as_str().unwrap();
        let rest = &notices[at + 1..];
        let mut resumed = if at % 2 == 0 {
            listen(
                &app.base,
                &format!("/v1/players/me/stream?after={cursor}"),
                &ben.token,
                NDJSON,
                None,
            )
        } else {
            // `Last-Event-ID` takes precedence over `after`, as browsers send it.
            listen(
                &app.base,
                "/v1/players/me/stream?after=0",
                &ben.token,
                SSE,
                Some(("Last-Event-ID", cursor)),
            )
        };
        resumed.until(Duration::from_secs(10), "the rest", |lines| {
            lines.iter().filter(|l| l["type"] != "keep_alive").count() >= rest.len()
        });
        resumed.drain(Duration::from_millis(200));
        assert_eq!(resumed.notices(), rest, "after {cursor}");
        assert_eq!(resumed.lines[0]["type"], "keep_alive");
        assert_eq!(resumed.lines[0]["cursor"], cursor, "where it begins");
    }
    // A keep-alive's cursor: past everything looked at, nothing to tell.
    let mut now = listen(&app.base, "/v1/players/me/stream", &ben.token, NDJSON, None);
    now.until(Duration::from_secs(2), "the first line", |l| !l.is_empty());
    let end = now.lines[0]["cursor"].as_str().unwrap().to_string();
    let mut quiet = listen(
        &app.base,
        &format!("/v1/players/me/stream?after={end}"),
        &ben.token,
        NDJSON,
        None,
    );
    quiet.drain(Duration::from_millis(300));
    assert!(quiet.notices().is_empty(), "{:?}", quiet.lines);
    // A cursor that is not one is refused.
    let refused = app
        .get("/v1/players/me/stream?after=yesterday", Some(ben))
        .send()
        .unwrap();
    assert_eq!(
        common::problem(refused, StatusCode::BAD_REQUEST),
        "bad_query"
    );
}

#[test]
fn a_seat_whose_clock_runs_low_is_told_and_then_that_its_game_ended_on_time() {
    let app = TestApp::spawn();
    let players = [app.create_player("Ana"), app.create_player("Ben")];
    let mut streams: Vec<Listening> = players
        .iter()
        .map(|p| listen(&app.base, "/v1/players/me/stream", &p.token, NDJSON, None))
        .collect();
    let mut oracle = Oracle::new(2);
    // Four seconds a move: a clock is low with one second left.
    let id = app.create_game(
        &players[0],
        json!({"kind": "avalanche-chess", "seats": 2,
            "time_control": {"type": "seconds_per_move", "seconds": 4}}),
    );
    oracle.saw(&app.join(&players[1], &id));
    let answer = ok_json(
        Ok(app.play(
            &players[0],
            &id,
            &json!({"type": "turn", "move": "e2e4", "push": "a6"}),
        )),
        StatusCode::OK,
    );
    oracle.saw(&answer);
    // Ben lets his clock run out.
    let moved_at = answer["version"].as_u64().unwrap();
    let deadline = answer["game"]["seats"][1]["clock"]["deadline"]
        .as_str()
        .unwrap()
        .to_string();
    streams[1].until(Duration::from_secs(10), "the end of the game", |lines| {
        lines.iter().any(|l| l["type"] == "game_finished")
    });
    let bens = streams[1].notices();
    let low = bens
        .iter()
        .find(|l| l["type"] == "clock_low")
        .expect("Ben is told his clock is low");
    assert_eq!(low["version"], moved_at, "{low}");
    assert_eq!(low["deadline"], deadline.as_str(), "{low}");
    assert_eq!(low["seat"], 1);
    let told_at =
        chrono::DateTime::parse_from_rfc3339(low["occurred_at"].as_str().unwrap()).unwrap();
    let runs_out = chrono::DateTime::parse_from_rfc3339(&deadline).unwrap();
    let left = runs_out - told_at;
    assert!(
        left <= chrono::Duration::seconds(1) && left > chrono::Duration::zero(),
        "told with {left} left"
    );
    let game = app.game(None, &id);
    assert_eq!(game["status"], "finished");
    assert!(game["outcome"]["reason"]
        .as_str()
        .unwrap()
        .contains("ran out of time"));
    // Ana's clock never ran low (she moved at once); Ben's low clock is his alone.
    let version = game["version"].as_u64().unwrap();
    let mut owed_ben = oracle.owed[1].clone();
    owed_ben.push(("clock_low".into(), moved_at, None));
    oracle.finished_by_the_server(version);
    owed_ben.push(("game_finished".into(), version, None));
    streams[0].until(Duration::from_secs(5), "the end", |lines| {
        lines.iter().any(|l| l["type"] == "game_finished")
    });
    streams[0].drain(Duration::from_millis(300));
    streams[1].drain(Duration::from_millis(300));
    assert_eq!(
        streams[0].notices().iter().map(told).collect::<Vec<_>>(),
        oracle.owed[0]
    );
    assert_eq!(
        streams[1].notices().iter().map(told).collect::<Vec<_>>(),
        owed_ben
    );
}

#[test]
fn no_line_of_a_card_game_shows_a_card_and_each_seat_is_told_exactly_its_notices() {
    let app = TestApp::spawn();
    let players: Vec<Player> = (0..3)
        .map(|n| app.create_player(&format!("Player {n}")))
        .collect();
    let mut streams: Vec<Listening> = players
        .iter()
        .map(|p| listen(&app.base, "/v1/players/me/stream", &p.token, NDJSON, None))
        .collect();
    let mut oracle = Oracle::new(3);
    let id = app.create_game(&players[0], json!({"kind": "avalanche", "seats": 3}));
    for player in &players[1..] {
        oracle.saw(&app.join(player, &id));
    }
    let end = play_to_end(&app, &id, &players, 43, 3_000, |answer| oracle.saw(answer));
    assert_eq!(end["status"], "finished", "the game reached its end");
    told_exactly(&mut streams, &oracle);
    for (seat, stream) in streams.iter().enumerate() {
        for line in stream.notices() {
            holds_nothing_secret(&line, &players[seat], &id, "avalanche");
            if line["type"] == "game_finished" {
                assert_eq!(line["outcome"], end["outcome"], "the public outcome");
            }
        }
    }
}

#[test]
fn a_quiet_stream_says_it_is_alive_at_once_and_every_15_seconds() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let opened = Instant::now();
    let mut stream = listen(&app.base, "/v1/players/me/stream", &ana.token, NDJSON, None);
    stream.until(Duration::from_secs(2), "a first keep_alive", |l| {
        !l.is_empty()
    });
    assert!(opened.elapsed() < Duration::from_secs(2));
    stream.until(Duration::from_secs(20), "a second keep_alive", |l| {
        l.len() >= 2
    });
    let waited = opened.elapsed();
    assert!(
        waited >= Duration::from_secs(14) && waited < Duration::from_secs(18),
        "the second came after {waited:?}"
    );
    assert_eq!(stream.lines[1]["type"], "keep_alive");
    assert_eq!(stream.lines[1]["cursor"], stream.lines[0]["cursor"]);
}

#[test]
fn revoking_the_token_ends_its_stream_within_a_second_with_a_last_line() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let issued = ok_json(
        app.post("/v1/players/me/tokens", Some(&ana)).send(),
        StatusCode::CREATED,
    );
    let second = Player {
        id: ana.id.clone(),
        token: issued["token"].as_str().unwrap().to_string(),
    };
    let mut doomed = listen(
        &app.base,
        "/v1/players/me/stream",
        &second.token,
        NDJSON,
        None,
    );
    let mut framed = listen(&app.base, "/v1/players/me/stream", &second.token, SSE, None);
    let mut own = listen(&app.base, "/v1/players/me/stream", &ana.token, NDJSON, None);
    for stream in [&mut doomed, &mut framed, &mut own] {
        stream.until(Duration::from_secs(2), "the first line", |l| !l.is_empty());
    }
    let revoked_at = Instant::now();
    let revoked = app
        .client
        .delete(app.url("/v1/players/me/tokens/current"))
        .bearer_auth(&second.token)
        .send()
        .unwrap();
    assert_eq!(revoked.status(), StatusCode::NO_CONTENT);
    for stream in [&mut doomed, &mut framed] {
        while stream.ended.is_none() {
            let heard = stream
                .heard
                .recv_timeout(Duration::from_secs(5))
                .expect("the stream ends");
            stream.take(heard);
        }
        let ended = stream.ended.unwrap();
        assert!(
            ended - revoked_at < Duration::from_secs(1),
            "ended {:?} after the revocation",
            ended - revoked_at
        );
        let last = stream.lines.last().unwrap();
        assert_eq!(last["type"], "token_revoked", "{:?}", stream.lines);
        assert_eq!(last["code"], "unauthorized");
    }
    assert_eq!(framed.framing.last().unwrap().1, "token_revoked");
    // Ana's other token streams on.
    own.drain(Duration::from_millis(300));
    assert!(own.ended.is_none(), "the other token's stream goes on");
    let again = app
        .get("/v1/players/me/stream", Some(&second))
        .send()
        .unwrap();
    assert_eq!(again.status(), StatusCode::UNAUTHORIZED);
}

/// A server on the database at `url`, in this process.
fn node(url: &str, key: Arc<app::sealing::SecretsKey>) -> TestApp {
    let store = storage::PostgresStore::open(url).expect("the database opens");
    let listener = TcpListener::bind("127.0.0.1:0").expect("free port");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = api::startup::run_with(
                listener,
                store,
                Registry::standard(),
                key,
                DeliverySettings::default(),
                api::state::CapacitySettings::default(),
                app::limits::LimitSettings::unlimited(),
            )
            .expect("server starts");
            let _ = server.await;
        })
    });
    let app = TestApp::attach(&base);
    for _ in 0..200 {
        if app.client.get(app.url("/health")).send().is_ok() {
            return app;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("the node did not start");
}

#[test]
fn on_postgresql_a_stream_on_one_node_tells_what_was_played_on_another() {
    let url = cluster::Cluster::shared().new_database();
    let key = Arc::new(app::sealing::SecretsKey::generate().expect("a key"));
    let one = node(&url, key.clone());
    let two = node(&url, key);
    let players = vec![one.create_player("Ana"), one.create_player("Ben")];
    // Both follow on node two (Ben as server-sent events); every command goes to node one.
    let mut streams = vec![
        listen(
            &two.base,
            "/v1/players/me/stream",
            &players[0].token,
            NDJSON,
            None,
        ),
        listen(
            &two.base,
            "/v1/players/me/stream",
            &players[1].token,
            SSE,
            None,
        ),
    ];
    for stream in &mut streams {
        stream.until(Duration::from_secs(5), "the first line", |l| !l.is_empty());
    }
    let (id, oracle) = a_chess_game(&one, &players);
    told_exactly(&mut streams, &oracle);
    for (seat, stream) in streams.iter().enumerate() {
        for line in stream.notices() {
            holds_nothing_secret(&line, &players[seat], &id, "avalanche-chess");
        }
    }
    // Resumed on the other node from a cursor of the first: the same lines after it.
    let bens = streams[1].notices();
    let cursor = bens[2]["cursor"].as_str().unwrap();
    let mut resumed = listen(
        &one.base,
        &format!("/v1/players/me/stream?after={cursor}"),
        &players[1].token,
        NDJSON,
        None,
    );
    let rest = &bens[3..];
    resumed.until(Duration::from_secs(10), "the rest", |lines| {
        lines.iter().filter(|l| l["type"] != "keep_alive").count() >= rest.len()
    });
    resumed.drain(Duration::from_millis(300));
    assert_eq!(resumed.notices(), rest);
    // A clock that runs low while the clock is kept by one node is told on both.
    let game = one.create_game(
        &players[0],
        json!({"kind": "avalanche-chess", "seats": 2,
            "time_control": {"type": "seconds_per_move", "seconds": 4}}),
    );
    one.join(&players[1], &game);
    streams[0].until(Duration::from_secs(10), "Ana's low clock", |lines| {
        lines
            .iter()
            .any(|l| l["type"] == "clock_low" && l["game_id"] == game.as_str())
    });
    // Revoked on node one, Ana's stream on node two ends within a second.
    let issued = ok_json(
        one.post("/v1/players/me/tokens", Some(&players[0])).send(),
        StatusCode::CREATED,
    );
    let token = issued["token"].as_str().unwrap().to_string();
    let mut doomed = listen(&two.base, "/v1/players/me/stream", &token, NDJSON, None);
    doomed.until(Duration::from_secs(5), "the first line", |l| !l.is_empty());
    let revoked_at = Instant::now();
    let revoked = one
        .client
        .delete(one.url("/v1/players/me/tokens/current"))
        .bearer_auth(&token)
        .send()
        .unwrap();
    assert_eq!(revoked.status(), StatusCode::NO_CONTENT);
    while doomed.ended.is_none() {
        let heard = doomed
            .heard
            .recv_timeout(Duration::from_secs(5))
            .expect("the stream on node two ends");
        doomed.take(heard);
    }
    assert!(doomed.ended.unwrap() - revoked_at < Duration::from_secs(1));
    assert_eq!(doomed.lines.last().unwrap()["type"], "token_revoked");
}

#[test]
fn a_games_stream_as_newline_delimited_json_gives_one_event_a_line() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let mut stream = listen(
        &app.base,
        &format!("/v1/games/{id}/stream.ndjson"),
        &players[1].token,
        NDJSON,
        None,
    );
    stream.until(Duration::from_secs(5), "the events so far", |l| {
        l.len() >= 4
    });
    ok_json(
        Ok(app.play(&players[0], &id, &json!({"type": "resign"}))),
        StatusCode::OK,
    );
    while stream.ended.is_none() {
        let heard = stream
            .heard
            .recv_timeout(Duration::from_secs(5))
            .expect("the stream ends with the game");
        stream.take(heard);
    }
    let versions: Vec<u64> = stream
        .lines
        .iter()
        .map(|l| l["version"].as_u64().unwrap())
        .collect();
    let log = app.events(Some(&players[1]), &id, 0);
    let expected: Vec<Value> = log["events"].as_array().unwrap().clone();
    assert_eq!(
        stream.lines, expected,
        "one EventOut a line, as the log gives them"
    );
    assert_eq!(versions, (1..=versions.len() as u64).collect::<Vec<_>>());
}

/// A cursor this server never gave (past the end of its log: another server's, or one kept
/// across a restore of an older backup) is refused with the end, rather than followed in
/// silence; the end it names resumes the stream, which then tells what happens.
#[test]
fn a_cursor_past_the_end_of_the_log_is_refused_with_the_end_to_resume_from() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let ben = app.create_player("Ben");
    let id = app.create_game(&ana, json!({"kind": "avalanche-chess", "seats": 2}));
    for (query, header) in [
        ("?after=999999", None),
        ("?after=999999.2", None),
        ("", Some("999999")),
    ] {
        let mut request = app.get(&format!("/v1/players/me/stream{query}"), Some(&ana));
        if let Some(last) = header {
            request = request.header("Last-Event-ID", last);
        }
        let answer = request.send().expect("an answer");
        assert_eq!(answer.status(), StatusCode::CONFLICT, "{query} {header:?}");
        let problem: Value = answer.json().expect("a problem");
        assert_eq!(problem["code"], "cursor_ahead", "{problem}");
        let end: u64 = problem["details"]["end"]
            .as_str()
            .and_then(|e| e.parse().ok())
            .unwrap_or_else(|| panic!("the end, as a cursor: {problem}"));
        assert!(end > 0 && end < 999_999, "{problem}");
    }
    let refused: Value = app
        .get("/v1/players/me/stream?after=999999", Some(&ana))
        .send()
        .expect("an answer")
        .json()
        .expect("a problem");
    let end = refused["details"]["end"].as_str().unwrap().to_string();
    let mut resumed = listen(
        &app.base,
        &format!("/v1/players/me/stream?after={end}"),
        &ana.token,
        NDJSON,
        None,
    );
    app.join(&ben, &id);
    resumed.until(Duration::from_secs(10), "Ana's turn", |lines| {
        lines.iter().any(|l| l["type"] == "your_turn")
    });
    assert_eq!(
        resumed.lines[0]["cursor"],
        end.as_str(),
        "it goes on from the end"
    );
    assert!(resumed
        .notices()
        .iter()
        .all(|l| l["game_id"] == id.as_str()));
    // The end itself, and a cursor within the log, are taken as before.
    let at_end = app
        .get(&format!("/v1/players/me/stream?after={end}"), Some(&ana))
        .send()
        .expect("an answer");
    assert_eq!(at_end.status(), StatusCode::OK);
}

/// In Vamanos every seat plays at once, so a seat told `your_turn` may lose the race: another
/// seat's move moves the version on and its command on the old one is refused (412). It is
/// told again, on the new version (and by whom), and plays on it.
#[test]
fn a_seat_that_lost_the_race_in_vamanos_is_told_again_and_plays_on_the_new_version() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let ben = app.create_player("Ben");
    let mut bens = listen(&app.base, "/v1/players/me/stream", &ben.token, NDJSON, None);
    let id = app.create_game(&ana, json!({"kind": "vamanos", "seats": 2}));
    app.join(&ben, &id);
    bens.until(Duration::from_secs(10), "Ben's turn", |lines| {
        lines.iter().any(|l| l["type"] == "your_turn")
    });
    let first = bens.notices();
    let turn = first.iter().find(|l| l["type"] == "your_turn").unwrap();
    let told = turn["version"].as_u64().unwrap();
    assert!(
        turn.get("by_seat").is_none(),
        "the first turn names nobody: {turn}"
    );
    // Ben reads what he may play on the version he was told...
    let legal = app.legal(&ben, &id);
    assert_eq!(legal["version"], told);
    let bens_move = legal["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"].clone())
        .find(|c| !is_table_command(c))
        .expect("a move for Ben");
    // ... but Ana moves first.
    let anas = play_first(&app, &id, &ana);
    let moved = anas["version"].as_u64().unwrap();
    assert!(
        anas["game"]["to_act"]
            .as_array()
            .unwrap()
            .contains(&json!(1)),
        "Ben still has to act after Ana's move: {anas}"
    );
    let late = app
        .post(&format!("/v1/games/{id}/commands"), Some(&ben))
        .header("If-Match", format!("\"{told}\""))
        .json(&bens_move)
        .send()
        .expect("an answer");
    assert_eq!(late.status(), StatusCode::PRECONDITION_FAILED);
    bens.until(Duration::from_secs(10), "Ben's turn told again", |lines| {
        lines
            .iter()
            .any(|l| l["type"] == "your_turn" && l["version"] == moved)
    });
    let again = bens
        .notices()
        .into_iter()
        .find(|l| l["type"] == "your_turn" && l["version"] == moved)
        .unwrap();
    assert_eq!(again["by_seat"], 0, "told whose move it was: {again}");
    assert_ne!(again["id"], turn["id"], "a notice of its own");
    // On the version told, Ben's move is taken.
    let legal = app.legal(&ben, &id);
    let bens_move = legal["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"].clone())
        .find(|c| !is_table_command(c))
        .expect("a move for Ben");
    let taken = app
        .post(&format!("/v1/games/{id}/commands"), Some(&ben))
        .header("If-Match", format!("\"{moved}\""))
        .json(&bens_move)
        .send()
        .expect("an answer");
    assert_eq!(taken.status(), StatusCode::OK);
}

/// A player's stream read from the start, on `app`, among other players' games played before,
/// between and after: every notice of the player's game, in order, nothing of the others'; and
/// from each line's cursor, the rest. The stream finds the player's own streams by the index
/// rather than reading the whole log, so what it passes over must tell nothing.
fn read_by_the_players_index(app: &TestApp) {
    let others = vec![app.create_player("Cy"), app.create_player("Dee")];
    let players = vec![app.create_player("Ana"), app.create_player("Ben")];
    let ben = &players[1];
    let challenge = |to: &Player| {
        let issued = ok_json(
            app.post("/v1/challenges", Some(&others[0]))
                .json(&json!({"kind": "avalanche-chess", "seats": 2, "to": to.id}))
                .send(),
            StatusCode::CREATED,
        );
        issued["id"].as_str().unwrap().to_string()
    };
    a_chess_game(app, &others);
    // Challenges to another and to Ben, among the games: Ben is told of his own.
    challenge(&others[1]);
    let to_ben = challenge(ben);
    challenge(&others[1]);
    let (_, oracle) = a_chess_game(app, &players);
    a_chess_game(app, &others);
    let mut whole = listen(
        &app.base,
        "/v1/players/me/stream?after=0",
        &ben.token,
        NDJSON,
        None,
    );
    let owed = oracle.owed[1].len();
    whole.until(Duration::from_secs(10), "Ben's notices", |lines| {
        lines.iter().filter(|l| l["type"] != "keep_alive").count() > owed
    });
    whole.drain(Duration::from_millis(300));
    let notices = whole.notices();
    assert_eq!(notices[0]["type"], "challenged", "{notices:?}");
    assert_eq!(notices[0]["game_id"], to_ben.as_str());
    let games: Vec<Told> = notices[1..].iter().map(told).collect();
    assert_eq!(games, oracle.owed[1]);
    for at in 0..notices.len() {
        let cursor = notices[at]["cursor"].as_str().unwrap();
        let rest = &notices[at + 1..];
        let mut resumed = listen(
            &app.base,
            &format!("/v1/players/me/stream?after={cursor}"),
            &ben.token,
            NDJSON,
            None,
        );
        resumed.until(Duration::from_secs(10), "the rest", |lines| {
            lines.iter().filter(|l| l["type"] != "keep_alive").count() >= rest.len()
        });
        resumed.drain(Duration::from_millis(200));
        assert_eq!(resumed.notices(), rest, "after {cursor}");
    }
    // A player with no game yet: nothing from the start, and told of their first game.
    let new = app.create_player("Eve");
    let mut first = listen(
        &app.base,
        "/v1/players/me/stream?after=0",
        &new.token,
        NDJSON,
        None,
    );
    first.drain(Duration::from_millis(300));
    assert!(first.notices().is_empty(), "{:?}", first.lines);
    let game = app.create_game(&others[0], json!({"kind": "avalanche-chess", "seats": 2}));
    app.join(&new, &game);
    first.until(Duration::from_secs(10), "Eve's first notice", |lines| {
        lines
            .iter()
            .any(|l| l["type"] == "game_started" && l["game_id"] == game.as_str())
    });
}

#[test]
fn a_stream_from_the_start_reads_the_players_own_games_among_others() {
    read_by_the_players_index(&TestApp::spawn());
}

#[test]
fn on_postgresql_a_stream_from_the_start_reads_the_players_own_games_among_others() {
    let url = cluster::Cluster::shared().new_database();
    let key = Arc::new(app::sealing::SecretsKey::generate().expect("a key"));
    read_by_the_players_index(&node(&url, key));
}
