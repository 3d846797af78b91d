//! Three `avalanche serve` processes on one PostgreSQL database, as behind a load balancer:
//! clients spread every request over the nodes while they play games of every kind, and one
//! node is killed with SIGKILL mid-play and started again. Every acknowledged command is
//! stored exactly once (a command whose node died under it is sent again with its
//! Idempotency-Key to another node), no version is doubled or missing, readers long-polling
//! the surviving nodes see every event, a timeout that falls due while the node that kept the
//! clock is dead is recorded once by a survivor, and a webhook registered on the killed node
//! is delivered at least once.

use crate::common;

use crate::cluster;

use actix_web::{web, App, HttpResponse, HttpServer};
use common::binary::Server;
use common::play::is_table_command;
use common::{Chooser, Player, TestApp};
use reqwest::blocking::Client;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

/// The most commands a client plays in one game (random play may take long to end a game).
const MOST_COMMANDS: usize = 120;
/// Acknowledged commands (over all games) before the node is killed.
const KILL_AFTER: usize = 60;

/// The base URLs of the nodes; `None` while a node is down. Clients use the ones up.
struct Nodes {
    bases: RwLock<Vec<Option<String>>>,
    client: Client,
}

impl Nodes {
    /// The `n`th node that is up, round the ring.
    fn pick(&self, n: usize) -> String {
        let bases = self.bases.read().unwrap();
        let up: Vec<&String> = bases.iter().flatten().collect();
        up[n % up.len()].clone()
    }

    fn base(&self, node: usize) -> String {
        self.bases.read().unwrap()[node]
            .clone()
            .expect("the node is up")
    }

    fn set(&self, node: usize, base: Option<String>) {
        self.bases.write().unwrap()[node] = base;
    }

    fn get(&self, base: &str, path: &str, player: Option<&Player>) -> reqwest::Result<Value> {
        let mut request = self.client.get(format!("{base}{path}"));
        if let Some(player) = player {
            request = request.bearer_auth(&player.token);
        }
        let response = request.send()?;
        assert_eq!(response.status(), StatusCode::OK, "GET {path} on {base}");
        response.json()
    }
}

/// One command a client had acknowledged: who sent it, with which key, and its answer.
#[derive(Clone, Debug)]
struct Acked {
    player: Player,
    key: String,
    command: Value,
    answer: Value,
}

impl Acked {
    /// The versions its events took.
    fn versions(&self) -> (u64, u64) {
        let events = self.answer["events"].as_array().expect("events");
        let first = events.first().expect("a command stores events")["version"]
            .as_u64()
            .expect("version");
        (first, self.answer["version"].as_u64().expect("version"))
    }
}

/// Sends `command` for `player` on game `id` with Idempotency-Key `key` to the `n`th node
/// that is up, and again to the next one while the node it went to does not answer (killed
/// under it). Returns the answer.
fn send(nodes: &Nodes, id: &str, player: &Player, key: &str, command: &Value, n: usize) -> Value {
    let started = Instant::now();
    for attempt in n.. {
        let base = nodes.pick(attempt);
        let sent = nodes
            .client
            .post(format!("{base}/v1/games/{id}/commands"))
            .bearer_auth(&player.token)
            .header("Idempotency-Key", key)
            .json(command)
            .send();
        match sent {
            Ok(response) => {
                let status = response.status();
                let body: Value = response.json().unwrap_or(Value::Null);
                assert_eq!(
                    status,
                    StatusCode::OK,
                    "{command} on {id} via {base}: {body}"
                );
                return body;
            }
            Err(error) => {
                assert!(
                    started.elapsed() < Duration::from_secs(30),
                    "no node answered {command} on {id}: {error}"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
    unreachable!("the loop returns or fails")
}

/// Joins `player` to game `id` through the `n`th node: acknowledged like a command.
fn join(nodes: &Nodes, id: &str, player: &Player, n: usize) -> Acked {
    let base = nodes.pick(n);
    let response = nodes
        .client
        .post(format!("{base}/v1/games/{id}/join"))
        .bearer_auth(&player.token)
        .json(&json!({}))
        .send()
        .expect("the node answers");
    assert_eq!(response.status(), StatusCode::OK);
    Acked {
        player: player.clone(),
        key: String::new(),
        command: json!({"type": "join"}),
        answer: response.json().expect("json"),
    }
}

/// A game made through the `n`th node, every seat taken, and its acknowledged batches so far:
/// (id, players, [the creation's last version], joins).
fn new_game(
    nodes: &Nodes,
    name: &str,
    kind: &str,
    seats: usize,
    extra: &Value,
    n: usize,
) -> (String, Vec<Player>, u64, Vec<Acked>) {
    let app = TestApp::attach(&nodes.pick(n));
    let players: Vec<Player> = (0..seats)
        .map(|seat| app.create_player(&format!("{name} {seat}")))
        .collect();
    let mut body = json!({"kind": kind, "seats": seats});
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    let response = app
        .post("/v1/games", Some(&players[0]))
        .json(&body)
        .send()
        .expect("creates");
    assert_eq!(response.status(), StatusCode::CREATED);
    let created: Value = response.json().expect("json");
    let id = created["id"].as_str().expect("id").to_string();
    let created_version = created["version"].as_u64().expect("version");
    let joins = players[1..]
        .iter()
        .enumerate()
        .map(|(i, player)| join(nodes, &id, player, n + 1 + i))
        .collect();
    (id, players, created_version, joins)
}

/// Plays game `id` at random, each request to the next node that is up, up to `most`
/// commands or the game's end; counts each acknowledged command in `acked`.
fn play(
    nodes: &Nodes,
    id: &str,
    players: &[Player],
    seed: u64,
    most: usize,
    acked: &AtomicUsize,
) -> Vec<Acked> {
    let mut chooser = Chooser::new(seed);
    let mut done = Vec::new();
    let mut n = seed as usize;
    while done.len() < most {
        n += 1;
        let base = nodes.pick(n);
        // A node killed under a read: the next one is asked.
        let Ok(game) = nodes.get(&base, &format!("/v1/games/{id}"), None) else {
            continue;
        };
        if game["status"] == "finished" {
            break;
        }
        let to_act = game["to_act"].as_array().expect("to_act");
        let seat = to_act[chooser.below(to_act.len())].as_u64().expect("seat") as usize;
        let player = &players[seat];
        let Ok(legal) = nodes.get(&base, &format!("/v1/games/{id}/legal"), Some(player)) else {
            continue;
        };
        let commands: Vec<&Value> = legal["commands"]
            .as_array()
            .expect("commands")
            .iter()
            .map(|l| &l["command"])
            .filter(|c| !is_table_command(c))
            .collect();
        let command = commands[chooser.below(commands.len())].clone();
        let key = format!("{id}-{}", done.len());
        let answer = send(nodes, id, player, &key, &command, n + 1);
        acked.fetch_add(1, Ordering::SeqCst);
        done.push(Acked {
            player: player.clone(),
            key,
            command,
            answer,
        });
    }
    done
}

/// Long-polls game `id`'s events on `base` until it has seen version `last` (once known):
/// the versions seen, in the order seen.
fn follow(client: &Client, base: &str, id: &str, last: &Mutex<HashMap<String, u64>>) -> Vec<u64> {
    let started = Instant::now();
    let mut seen: Vec<u64> = Vec::new();
    loop {
        let after = seen.last().copied().unwrap_or(0);
        if last.lock().unwrap().get(id).is_some_and(|&v| after >= v) {
            return seen;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the reader of {id} on {base} waits for ever after {after}"
        );
        let page: Value = client
            .get(format!("{base}/v1/games/{id}/events?after={after}&wait=2"))
            .send()
            .and_then(|r| r.json())
            .expect("a surviving node answers its readers");
        for event in page["events"].as_array().expect("events") {
            seen.push(event["version"].as_u64().expect("version"));
        }
    }
}

/// A webhook receiver on 127.0.0.1: the ids of the notifications it accepted.
fn receiver() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("free port");
    let url = format!("http://{}/hook", listener.local_addr().expect("address"));
    let ids: Arc<Mutex<Vec<String>>> = Arc::default();
    let shared = ids.clone();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(move || {
                let ids = shared.clone();
                App::new().default_service(web::to(move |body: web::Bytes| {
                    let ids = ids.clone();
                    async move {
                        let notification: Value =
                            serde_json::from_slice(&body).unwrap_or(Value::Null);
                        if let Some(id) = notification["id"].as_str() {
                            ids.lock().unwrap().push(id.to_string());
                        }
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
    (url, ids)
}

fn start(data: &Path, url: &str, key: &str, log: &Path) -> Server {
    Server::start_logging_with(
        data,
        &[
            "--database",
            url,
            "--secrets-key",
            key,
            "--database-connections",
            "4",
            // Three nodes on one machine share its cores, as docs/operating.md advises.
            "--workers",
            "1",
            "--webhook-retry-ms",
            "50",
            "--webhook-retry-max-ms",
            "500",
            "--webhook-allow-http",
            "--webhook-allow-host",
            "127.0.0.1",
        ],
        log,
    )
}

/// Whether a node's log says it took lease `lease`.
fn took(log: &Path, lease: &str) -> bool {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .any(|line| line.contains("lease taken") && line.contains(&format!("lease={lease}")))
}

/// Every event of game `id`, read through `base`.
fn stored_events(nodes: &Nodes, base: &str, id: &str) -> Vec<Value> {
    let mut events: Vec<Value> = Vec::new();
    loop {
        let after = events.last().map_or(0, |e| e["version"].as_u64().unwrap());
        let page = nodes
            .get(base, &format!("/v1/games/{id}/events?after={after}"), None)
            .expect("reads");
        let page = page["events"].as_array().expect("events").clone();
        if page.is_empty() {
            return events;
        }
        events.extend(page);
    }
}

#[test]
fn three_nodes_on_one_database_lose_nothing_and_double_nothing_when_one_is_killed_mid_play() {
    let url = cluster::Cluster::shared().new_database();
    let dir = tempfile::tempdir().expect("a directory");
    let key = dir.path().join("secrets.key");
    let key = key.to_str().expect("a UTF-8 path").to_string();
    let data: Vec<PathBuf> = (0..3)
        .map(|n| dir.path().join(format!("node-{n}")))
        .collect();
    let logs: Vec<PathBuf> = (0..3)
        .map(|n| dir.path().join(format!("node-{n}.log")))
        .collect();
    // Node 0 first: it takes the clock.
    let mut servers: Vec<Server> = (0..3)
        .map(|n| {
            let server = start(&data[n], &url, &key, &logs[n]);
            std::thread::sleep(Duration::from_millis(300));
            server
        })
        .collect();
    let nodes = Arc::new(Nodes {
        bases: RwLock::new(servers.iter().map(|s| Some(s.app.base.clone())).collect()),
        client: Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .expect("client"),
    });
    assert!(took(&logs[0], "clock"), "the first node keeps the clock");

    // A webhook registered on node 0, for a chess game of its owner's played over all nodes.
    let (hook_url, notified) = receiver();
    let mut games = vec![
        ("avalanche-chess", 2, json!({})),
        ("avalanche", 3, json!({})),
        ("ski-runs", 2, json!({})),
        ("vamanos", 2, json!({"options": {"target": 30}})),
        ("altitude", 2, json!({})),
        ("altitude", 1, json!({})),
    ];
    games.insert(0, ("avalanche-chess", 2, json!({})));
    let made: Vec<(String, Vec<Player>, u64, Vec<Acked>)> = games
        .iter()
        .enumerate()
        .map(|(n, (kind, seats, extra))| new_game(&nodes, &format!("P{n}"), kind, *seats, extra, n))
        .collect();
    let owner = made[0].1[0].clone();
    let registered = nodes
        .client
        .post(format!("{}/v1/players/me/webhooks", nodes.base(0)))
        .bearer_auth(&owner.token)
        .json(&json!({"url": hook_url}))
        .send()
        .expect("registers");
    assert_eq!(registered.status(), StatusCode::CREATED);
    let hook_id = registered.json::<Value>().expect("json")["id"]
        .as_str()
        .expect("id")
        .to_string();
    let hook_lease = format!("webhook:{hook_id}");

    // Readers long-poll every game on the nodes that will survive.
    let last: Arc<Mutex<HashMap<String, u64>>> = Arc::default();
    let readers: Vec<_> = made
        .iter()
        .enumerate()
        .map(|(n, (id, ..))| {
            let (nodes, last, id) = (nodes.clone(), last.clone(), id.clone());
            let base = nodes.base(1 + n % 2);
            std::thread::spawn(move || follow(&nodes.client, &base, &id, &last))
        })
        .collect();

    // Clients play every game at once, each request to another node.
    let acked = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = made
        .iter()
        .enumerate()
        .map(|(n, (id, players, ..))| {
            let (nodes, acked, id, players) =
                (nodes.clone(), acked.clone(), id.clone(), players.clone());
            let most = if n == 0 {
                MOST_COMMANDS / 2
            } else {
                MOST_COMMANDS
            };
            std::thread::spawn(move || play(&nodes, &id, &players, n as u64 + 1, most, &acked))
        })
        .collect();
    let started = Instant::now();
    while acked.load(Ordering::SeqCst) < KILL_AFTER {
        assert!(started.elapsed() < Duration::from_secs(60), "play goes on");
        std::thread::sleep(Duration::from_millis(20));
    }
    // A timed game on the other nodes, whose first deadline falls while node 0 is dead.
    let (timed, timed_players, _, _) = new_game(
        &Nodes {
            bases: RwLock::new(vec![Some(nodes.base(1)), Some(nodes.base(2))]),
            client: nodes.client.clone(),
        },
        "Timed",
        "avalanche-chess",
        2,
        &json!({"time_control": {"type": "seconds_per_move", "seconds": 2}}),
        0,
    );
    assert!(took(&logs[0], &hook_lease), "node 0 delivers the webhook");

    // SIGKILL node 0 mid-play: no node sends to it from now on, requests under way fail.
    nodes.set(0, None);
    servers[0].kill();
    let at_kill = acked.load(Ordering::SeqCst);
    let timed_out = {
        let started = Instant::now();
        loop {
            let game = nodes
                .get(&nodes.base(1), &format!("/v1/games/{timed}"), None)
                .expect("a survivor answers");
            if game["status"] == "finished" {
                break game;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the timeout falls due while node 0 is dead and a survivor records it: {game}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    assert_eq!(timed_out["outcome"]["reason"], "seat 0 ran out of time");
    assert!(
        took(&logs[1], "clock") || took(&logs[2], "clock"),
        "a survivor took the clock"
    );

    // Node 0 again, on the same database; the clients use it again.
    servers[0] = start(&data[0], &url, &key, &logs[0]);
    nodes.set(0, Some(servers[0].app.base.clone()));
    let played: Vec<Vec<Acked>> = clients
        .into_iter()
        .map(|c| c.join().expect("a client plays to its end"))
        .collect();
    let total = acked.load(Ordering::SeqCst);
    assert!(
        at_kill < total,
        "the kill came mid-play: {at_kill} of {total} commands acknowledged by then"
    );

    // The webhook owner's game ends (unless play ended it): the other seat resigns.
    let (hook_game, hook_players, ..) = &made[0];
    let ended = |a: &Acked| a.answer["game"]["status"] == "finished";
    let resigned = match played[0].last() {
        Some(last) if ended(last) => None,
        _ => {
            let resign = json!({"type": "resign"});
            Some(Acked {
                player: hook_players[1].clone(),
                key: "resign".into(),
                answer: send(&nodes, hook_game, &hook_players[1], "resign", &resign, 0),
                command: resign,
            })
        }
    };

    // Every acknowledged command is stored once, at the versions its answer gave.
    for (n, ((id, _, created, joins), moves)) in made.iter().zip(&played).enumerate() {
        let mut acked: Vec<Acked> = joins.clone();
        acked.extend(moves.iter().cloned());
        if n == 0 {
            acked.extend(resigned.clone());
        }
        let events = stored_events(&nodes, &nodes.base(n % 3), id);
        let versions: Vec<u64> = events
            .iter()
            .map(|e| e["version"].as_u64().unwrap())
            .collect();
        let head = versions.len() as u64;
        assert_eq!(
            versions,
            (1..=head).collect::<Vec<u64>>(),
            "{id}: no version doubled or missing"
        );
        let mut by_command: BTreeMap<u64, &Acked> = BTreeMap::new();
        for command in &acked {
            let (first, last) = command.versions();
            for (offset, event) in command.answer["events"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
            {
                let stored = &events[(first - 1) as usize + offset];
                assert_eq!(stored["type"], event["type"], "{id} v{}", stored["version"]);
            }
            assert!(
                by_command.insert(first, command).is_none(),
                "{id}: one command a version"
            );
            assert!(last <= head);
        }
        // Between the creation and the head, every version is an acknowledged command's (or
        // the server's own, such as a clock put in line): none was stored twice.
        let mut version = *created + 1;
        for (&first, command) in &by_command {
            while version < first {
                assert_eq!(
                    events[(version - 1) as usize]["actor"],
                    "system",
                    "{id}: v{version} is no acknowledged command's"
                );
                version += 1;
            }
            version = command.versions().1 + 1;
        }
        for rest in version..=head {
            assert_eq!(
                events[(rest - 1) as usize]["actor"],
                "system",
                "{id}: v{rest}"
            );
        }
        last.lock().unwrap().insert(id.clone(), head);
    }

    // A retry of an acknowledged command on another node gets its first answer.
    let first_moves = &played[1];
    let retried = first_moves.last().expect("commands were played");
    for node in 0..3 {
        let again = send(
            &nodes,
            &made[1].0,
            &retried.player,
            &retried.key,
            &retried.command,
            node,
        );
        assert_eq!(again["replayed"], true);
        assert_eq!(again["version"], retried.answer["version"]);
        assert_eq!(again["events"], retried.answer["events"]);
    }

    // Readers on the surviving nodes saw every event of every game, once, in order.
    for (reader, (id, ..)) in readers.into_iter().zip(&made) {
        let seen = reader.join().expect("the reader ends");
        let head = last.lock().unwrap()[id];
        assert_eq!(seen, (1..=head).collect::<Vec<u64>>(), "{id}");
    }

    // The timeout was recorded once, by the system.
    std::thread::sleep(Duration::from_millis(600));
    let timed_events = stored_events(&nodes, &nodes.base(0), &timed);
    let timeouts: Vec<&Value> = timed_events
        .iter()
        .filter(|e| e["type"] == "timed_out")
        .collect();
    assert_eq!(timeouts.len(), 1, "one timeout: {timed_events:?}");
    assert_eq!(timeouts[0]["actor"], "system");
    let _ = timed_players;

    // The webhook's owner was told of each of their turns and of the end, at least once,
    // although the node that delivered to it was killed.
    let mut expected = Vec::new();
    // (The webhook was registered after the seats were taken: told of what followed.)
    let seated = &made[0].3.last().expect("the second seat joined").answer["game"];
    let mut before_to_act = seated["to_act"]
        .as_array()
        .is_some_and(|s| s.contains(&json!(0)));
    let mut hook_acked: Vec<&Acked> = played[0].iter().collect();
    hook_acked.extend(&resigned);
    let end = hook_acked.last().expect("the game was played");
    assert!(ended(end), "the webhook's game is over");
    let end = end.answer["version"].clone();
    for command in hook_acked {
        let game = &command.answer["game"];
        let to_act = game["to_act"]
            .as_array()
            .is_some_and(|s| s.contains(&json!(0)));
        if game["status"] != "finished" && to_act && !before_to_act {
            expected.push(format!(
                "{hook_game}:{}:{}:your_turn",
                command.answer["version"], owner.id
            ));
        }
        before_to_act = to_act;
    }
    expected.push(format!("{hook_game}:{end}:{}:game_finished", owner.id));
    let started = Instant::now();
    loop {
        let got = notified.lock().unwrap().clone();
        let missing: Vec<&String> = expected.iter().filter(|id| !got.contains(id)).collect();
        if missing.is_empty() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "notifications never delivered: {missing:?}; got {got:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        took(&logs[1], &hook_lease) || took(&logs[2], &hook_lease),
        "a survivor took the webhook over"
    );
}
