//! What an operator relies on, tried on the real binary: answers that tell the truth when the
//! store fails (503 `store_unavailable` with `Retry-After`, 503 `outcome_unknown`), readiness
//! that fails while the store takes no write and comes back by itself, a stop that answers
//! waiting readers at once, request ids in answers, problems and logs, a key file that is never
//! replaced, and the shipped alert rules checked by `promtool`.

use crate::common;
use common::eventually;

use crate::cluster;

use common::binary::Server;
use common::{Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn status_of(app: &TestApp, path: &str) -> StatusCode {
    app.get(path, None)
        .send()
        .map(|r| r.status())
        .unwrap_or(StatusCode::IM_A_TEAPOT)
}

/// The first legal move (not a table command) of `player` in `game`.
fn a_move(app: &TestApp, player: &Player, game: &str) -> Value {
    app.legal(player, game)["commands"]
        .as_array()
        .expect("legal list")
        .iter()
        .map(|l| l["command"].clone())
        .find(|c| !common::play::is_table_command(c))
        .expect("a move")
}

fn post_command(
    app: &TestApp,
    player: &Player,
    game: &str,
    command: &Value,
    key: &str,
) -> reqwest::blocking::Response {
    app.post(&format!("/v1/games/{game}/commands"), Some(player))
        .header("Idempotency-Key", key)
        .json(command)
        .send()
        .expect("an answer")
}

/// `post_command` as a client that follows `Retry-After` does: sent again with the same key
/// while the answer is 503 (each pooled connection to the database finds out on its next use
/// that the database went away and came back), a few times.
fn post_command_retrying(
    app: &TestApp,
    player: &Player,
    game: &str,
    command: &Value,
    key: &str,
) -> reqwest::blocking::Response {
    for _ in 0..20 {
        let answer = post_command(app, player, game, command, key);
        if answer.status() != StatusCode::SERVICE_UNAVAILABLE {
            return answer;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    post_command(app, player, game, command, key)
}

/// The versions of a game's stored events, as a player reads them.
fn versions(app: &TestApp, player: &Player, game: &str) -> Vec<u64> {
    let page = app.events(Some(player), game, 0);
    page["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["version"].as_u64().expect("version"))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Request ids and logs

#[test]
fn a_request_id_is_taken_or_made_and_named_in_the_header_the_problem_and_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let mut server = Server::start_logging_at(&dir.path().join("data"), &[], &log, "info");
    let app = &server.app;

    let response = app
        .get("/v1/games/g-nothing", None)
        .header("X-Request-Id", "screenshot-42")
        .send()
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert_eq!(response.headers()["x-request-id"], "screenshot-42");
    let body: Value = response.json().unwrap();
    assert_eq!(body["code"], "game_not_found");
    assert_eq!(body["request_id"], "screenshot-42", "{body}");

    // None sent (or one that cannot be a header and a log field): one is made.
    for sent in [None, Some("x".repeat(300))] {
        let mut request = app.get("/v1/games/g-nothing", None);
        if let Some(sent) = &sent {
            request = request.header("X-Request-Id", sent);
        }
        let response = request.send().unwrap();
        let made = response.headers()["x-request-id"]
            .to_str()
            .unwrap()
            .to_string();
        assert_eq!(made.len(), 16, "{made}");
        assert!(made.bytes().all(|b| b.is_ascii_hexdigit()), "{made}");
        let body: Value = response.json().unwrap();
        assert_eq!(body["request_id"], made.as_str());
    }
    // A success carries its id too.
    let ok = app.get("/health", None).send().unwrap();
    assert!(ok.headers().contains_key("x-request-id"));

    server.kill();
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("screenshot-42"))
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("answered") && l.contains("status=404")),
        "the request's log line names its id:\n{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("avalanche is starting") && l.contains("version=")),
        "startup logs the version and settings:\n{text}"
    );
}

#[test]
fn json_logs_are_one_object_a_line_with_the_request_id() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let mut server = Server::start_logging_at(
        &dir.path().join("data"),
        &["--log-format", "json"],
        &log,
        "info",
    );
    server
        .app
        .get("/v1/games/g-nothing", None)
        .header("X-Request-Id", "json-7")
        .send()
        .unwrap();
    server.kill();
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let answered = lines
        .iter()
        .find(|l| l["span"]["id"] == "json-7" && l["fields"]["message"] == "answered")
        .unwrap_or_else(|| panic!("no line of the request:\n{text}"));
    assert_eq!(answered["fields"]["status"], 404);
    let start = lines
        .iter()
        .find(|l| l["fields"]["message"] == "avalanche is starting")
        .unwrap_or_else(|| panic!("no startup line:\n{text}"));
    assert_eq!(start["fields"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(start["fields"]["settings"]
        .as_str()
        .unwrap()
        .contains("log_format: Json"));
}

// ---------------------------------------------------------------------------------------
// Stopping

#[test]
fn sigterm_answers_waiting_long_polls_ends_streams_and_stops_within_a_second() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(&dir.path().join("data"), &[]);
    let app = &server.app;
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let version = app.game(Some(&players[0]), &id)["version"]
        .as_u64()
        .unwrap();

    let poll_url = app.url(&format!("/v1/games/{id}/events?after={version}&wait=60"));
    let poll = std::thread::spawn(move || {
        let response = reqwest::blocking::Client::new()
            .get(poll_url)
            .timeout(Duration::from_secs(90))
            .send()
            .expect("the long-poll is answered");
        (response.status(), Instant::now())
    });
    let stream_url = app.url(&format!("/v1/games/{id}/stream?after={version}"));
    let stream = std::thread::spawn(move || {
        let mut response = reqwest::blocking::Client::new()
            .get(stream_url)
            .timeout(Duration::from_secs(90))
            .send()
            .expect("the stream opens");
        let mut body = String::new();
        let read = response.read_to_string(&mut body);
        (read.map_err(|e| e.to_string()), Instant::now())
    });
    // A player's stream of every notice ends too.
    let notices_url = app.url("/v1/players/me/stream");
    let token = players[1].token.clone();
    let notices = std::thread::spawn(move || {
        let mut response = reqwest::blocking::Client::new()
            .get(notices_url)
            .bearer_auth(token)
            .timeout(Duration::from_secs(90))
            .send()
            .expect("the player's stream opens");
        let mut body = String::new();
        let read = response.read_to_string(&mut body);
        (read.map_err(|e| e.to_string()), Instant::now())
    });
    // All three wait on the server.
    eventually(Duration::from_secs(10), "three open streams", || {
        let text = app.admin_get("/metrics").send().unwrap().text().unwrap();
        text.lines().any(|l| l == "avalanche_open_streams 3")
    });

    let asked = Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let exit = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            asked.elapsed() < Duration::from_secs(10),
            "the node did not stop"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let stopped_in = asked.elapsed();
    assert!(exit.success(), "a clean stop: {exit:?}");
    assert!(
        stopped_in < Duration::from_secs(1),
        "stopped in {stopped_in:?}"
    );

    let (status, answered_at) = poll.join().unwrap();
    assert_eq!(status, StatusCode::OK);
    assert!(answered_at.duration_since(asked) < Duration::from_secs(1));
    for stream in [stream, notices] {
        let (read, ended_at) = stream.join().unwrap();
        assert!(read.is_ok(), "the stream ends cleanly, not cut: {read:?}");
        assert!(ended_at.duration_since(asked) < Duration::from_secs(1));
    }
}

// ---------------------------------------------------------------------------------------
// The secrets key

/// What the binary says when it refuses to start on `data` with `args`; it must fail.
fn refused_at_start(data: &Path, args: &[&str]) -> String {
    let output = Command::new(common::binary::path())
        .args(["--addr", "127.0.0.1:0"])
        .args(args)
        .arg("--data")
        .arg(data)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success(), "it started");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_missing_key_file_is_refused_and_not_replaced_when_the_store_holds_sealed_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut server = Server::start(&data, &[]);
    server.app.full_game("avalanche", 2, json!({}));
    server.kill();
    let key = data.join("secrets.key");
    std::fs::remove_file(&key).unwrap();

    let said = refused_at_start(&data, &[]);
    assert!(
        said.contains("the key file") && said.contains("is missing"),
        "{said}"
    );
    assert!(!key.exists(), "no new key was made");
}

#[test]
fn no_request_thread_is_refused_at_start_with_what_is_wrong_and_nothing_created() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let said = refused_at_start(&data, &["--workers", "0"]);
    assert!(said.contains("invalid value '0' for '--workers"), "{said}");
    assert!(!data.exists(), "no store was made");
}

// ---------------------------------------------------------------------------------------
// The deploy files

#[test]
fn the_systemd_unit_verifies_and_the_deploy_files_set_only_settings_the_binary_knows() {
    let help = Command::new(common::binary::path())
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    assert!(help.contains("env: AVALANCHE_ADDR"), "{help}");
    for file in ["avalanche.service", "Dockerfile"] {
        let text = std::fs::read_to_string(deploy().join(file)).unwrap();
        let mut named = 0;
        for (at, _) in text.match_indices("AVALANCHE_") {
            let name: String = text[at..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                .collect();
            // "AVALANCHE_* variables" in a comment names none.
            if name == "AVALANCHE_" {
                continue;
            }
            named += 1;
            assert!(
                help.contains(&format!("env: {name}")),
                "{file} sets {name}, which `avalanche serve` does not read"
            );
        }
        assert!(named >= 4, "{file} sets the settings it needs");
    }

    // `systemd-analyze verify` warns of any key systemd does not know; the unit runs the
    // binary just built instead of /usr/local/bin/avalanche, which must exist to verify.
    let analyze = common::debian::program(&["/usr/bin/systemd-analyze"], "systemd");
    let dir = tempfile::tempdir().unwrap();
    let unit = std::fs::read_to_string(deploy().join("avalanche.service")).unwrap();
    assert!(unit.contains("ExecStart=/usr/local/bin/avalanche serve"));
    let unit = unit.replace(
        "ExecStart=/usr/local/bin/avalanche serve",
        &format!("ExecStart={} serve", common::binary::path().display()),
    );
    let path = dir.path().join("avalanche.service");
    std::fs::write(&path, unit).unwrap();
    let output = Command::new(&analyze)
        .arg("verify")
        .arg(&path)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && said.trim().is_empty(),
        "systemd-analyze verify: {said}"
    );
}

// ---------------------------------------------------------------------------------------
// Alert rules and the dashboard

/// `promtool`, installed from Debian's `prometheus` package when missing (as root).
fn promtool() -> PathBuf {
    common::debian::program(
        &["/usr/bin/promtool", "/usr/local/bin/promtool"],
        "prometheus",
    )
}

fn deploy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy")
}

/// The `avalanche_*` metric names written in `text`.
fn metric_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("avalanche_") {
        let name: String = rest[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        rest = &rest[at + name.len()..];
        names.push(name);
    }
    names.sort();
    names.dedup();
    names
}

#[test]
fn the_shipped_alert_rules_pass_promtool_and_name_only_metrics_the_server_writes() {
    let promtool = promtool();
    let rules = deploy().join("prometheus");
    for args in [
        vec!["check", "rules", "alerts.yml"],
        vec!["test", "rules", "alerts_test.yml"],
        vec!["check", "config", "prometheus.yml"],
    ] {
        let output = Command::new(&promtool)
            .args(&args)
            .current_dir(&rules)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "promtool {args:?}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    let app = TestApp::spawn();
    let page = app.admin_get("/metrics").send().unwrap().text().unwrap();
    let written = |name: &str| {
        let base = name
            .trim_end_matches("_bucket")
            .trim_end_matches("_count")
            .trim_end_matches("_sum");
        page.contains(&format!("# TYPE {base} "))
    };
    let alerts = std::fs::read_to_string(rules.join("alerts.yml")).unwrap();
    let dashboard = std::fs::read_to_string(deploy().join("grafana/dashboard.json")).unwrap();
    let parsed: Value = serde_json::from_str(&dashboard).expect("the dashboard is JSON");
    assert!(parsed["panels"].as_array().is_some_and(|p| !p.is_empty()));
    for name in metric_names(&alerts)
        .iter()
        .chain(&metric_names(&dashboard))
    {
        assert!(
            written(name),
            "{name} is not written by the server:\n{page}"
        );
    }
    // No label grows with players, games or webhooks.
    for line in page.lines().filter(|l| !l.starts_with('#')) {
        for label in ["webhook=", "player=", "game=", "id="] {
            assert!(!line.contains(label), "{line}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// PostgreSQL that fails

/// A TCP forwarder between a node and PostgreSQL that a test can cut, as a network or a
/// database server that goes away: cutting closes every connection and refuses new ones.
struct Forwarder {
    port: u16,
    down: Arc<AtomicBool>,
    live: Arc<Mutex<Vec<TcpStream>>>,
}

impl Forwarder {
    fn start(target: u16) -> Forwarder {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let down = Arc::new(AtomicBool::new(false));
        let live: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let (is_down, conns) = (down.clone(), live.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                if is_down.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                    continue;
                };
                {
                    let mut conns = conns.lock().unwrap();
                    conns.push(client.try_clone().unwrap());
                    conns.push(server.try_clone().unwrap());
                }
                for (mut from, mut to) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Both);
                    });
                }
            }
        });
        Forwarder { port, down, live }
    }

    fn cut(&self) {
        self.down.store(true, Ordering::SeqCst);
        for conn in self.live.lock().unwrap().drain(..) {
            let _ = conn.shutdown(Shutdown::Both);
        }
    }

    fn restore(&self) {
        self.down.store(false, Ordering::SeqCst);
    }
}

/// A node on a new database of the shared cluster, reached through a forwarder.
fn node_behind_forwarder(dir: &Path) -> (Server, Forwarder, String) {
    let cluster = cluster::Cluster::shared();
    let url = cluster.new_database();
    let (head, name) = url.rsplit_once('/').unwrap();
    let port: u16 = head.rsplit_once(':').unwrap().1.parse().unwrap();
    let forwarder = Forwarder::start(port);
    let proxied = format!("postgres://postgres@127.0.0.1:{}/{name}", forwarder.port);
    let key = dir.join("secrets.key");
    let server = Server::start(
        &dir.join("data"),
        &[
            "--database",
            &proxied,
            "--secrets-key",
            key.to_str().unwrap(),
        ],
    );
    (server, forwarder, name.to_string())
}

fn terminate_backends(name: &str) {
    cluster::Cluster::shared().psql(
        "postgres",
        &format!(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
             WHERE datname = '{name}' AND pid <> pg_backend_pid()"
        ),
    );
}

#[test]
fn a_database_that_refuses_writes_or_goes_away_is_answered_503_and_the_node_recovers_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let (server, forwarder, name) = node_behind_forwarder(dir.path());
    let app = &server.app;
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let first = a_move(app, &players[0], &id);
    assert_eq!(
        post_command(app, &players[0], &id, &first, "m1").status(),
        StatusCode::OK
    );
    let cluster = cluster::Cluster::shared();
    let second = a_move(app, &players[1], &id);
    let version = app.game(Some(&players[1]), &id)["version"].clone();

    // Writes refused, as on a full disk: the database turns read-only.
    cluster.psql(
        "postgres",
        &format!("ALTER DATABASE {name} SET default_transaction_read_only = on"),
    );
    terminate_backends(&name);
    eventually(Duration::from_secs(10), "/ready fails", || {
        status_of(app, "/ready") == StatusCode::SERVICE_UNAVAILABLE
    });
    assert_eq!(
        status_of(app, "/health"),
        StatusCode::OK,
        "PostgreSQL recovers by itself"
    );
    let refused = post_command(app, &players[1], &id, &second, "m2");
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    let retry_after: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry_after >= 1);
    let body: Value = refused.json().unwrap();
    assert_eq!(body["code"], "store_unavailable", "{body}");
    // Reads are served while writes are refused, at once: a pooled connection that the
    // database ended is found closed by its first read, which is sent again on a new one.
    let game = app.game(Some(&players[1]), &id);
    assert_eq!(game["version"], version, "{game}");
    let read = app
        .get(&format!("/v1/games/{id}/events"), Some(&players[1]))
        .send()
        .unwrap();
    assert_eq!(read.status(), StatusCode::OK, "events are read at once too");

    cluster.psql(
        "postgres",
        &format!("ALTER DATABASE {name} RESET default_transaction_read_only"),
    );
    terminate_backends(&name);
    eventually(Duration::from_secs(10), "/ready again", || {
        status_of(app, "/ready") == StatusCode::OK
    });
    assert_eq!(
        post_command_retrying(app, &players[1], &id, &second, "m2").status(),
        StatusCode::OK
    );

    // The database goes away: writes are 503, the node is not ready, and it is alive.
    forwarder.cut();
    let refused = app
        .post(&format!("/v1/games/{id}/commands"), Some(&players[0]))
        .header("Idempotency-Key", "m3")
        .json(&json!({"type": "resign"}))
        .send()
        .unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(refused.headers().contains_key("retry-after"));
    let body: Value = refused.json().unwrap();
    assert!(
        body["code"] == "store_unavailable" || body["code"] == "outcome_unknown",
        "{body}"
    );
    assert_eq!(status_of(app, "/ready"), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(status_of(app, "/health"), StatusCode::OK);

    forwarder.restore();
    eventually(
        Duration::from_secs(15),
        "/ready after the database is back",
        || status_of(app, "/ready") == StatusCode::OK,
    );
    let resigned = post_command_retrying(app, &players[0], &id, &json!({"type": "resign"}), "m3");
    assert_eq!(resigned.status(), StatusCode::OK);
    let stored = versions(app, &players[0], &id);
    assert_eq!(
        stored,
        (1..=stored.len() as u64).collect::<Vec<_>>(),
        "no gap, nothing twice"
    );
}

#[test]
fn a_command_whose_commit_is_not_confirmed_is_answered_outcome_unknown_and_its_retry_records_it_once(
) {
    let dir = tempfile::tempdir().unwrap();
    let (server, forwarder, name) = node_behind_forwarder(dir.path());
    let app = &server.app;
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let before = versions(app, &players[0], &id).len();
    let command = a_move(app, &players[0], &id);

    // Another session holds the events table: the append waits, sent but not answered.
    let cluster = cluster::Cluster::shared();
    let url = cluster.url(&name);
    let mut locker = Command::new("psql")
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", url.as_str()])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("psql runs");
    let mut sql = locker.stdin.take().unwrap();
    sql.write_all(b"BEGIN; LOCK TABLE events IN EXCLUSIVE MODE;\n")
        .unwrap();
    sql.flush().unwrap();
    eventually(Duration::from_secs(10), "the lock is held", || {
        cluster.psql(
            &name,
            "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation \
             WHERE c.relname = 'events' AND l.mode = 'ExclusiveLock' AND l.granted",
        ) == "1"
    });
    let base = app.base.clone();
    let (token, path) = (players[0].token.clone(), format!("/v1/games/{id}/commands"));
    let sent = command.clone();
    let answer = std::thread::spawn(move || {
        let response = reqwest::blocking::Client::new()
            .post(format!("{base}{path}"))
            .bearer_auth(token)
            .header("Idempotency-Key", "the-move")
            .json(&sent)
            .timeout(Duration::from_secs(60))
            .send()
            .expect("an answer");
        let status = response.status();
        (status, response.json::<Value>().unwrap_or(Value::Null))
    });
    eventually(
        Duration::from_secs(10),
        "the append waits for the lock",
        || {
            cluster.psql(
                "postgres",
                &format!(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = '{name}' \
                 AND wait_event_type = 'Lock'"
                ),
            ) == "1"
        },
    );
    // The connection drops while the statement is under way.
    forwarder.cut();
    let (status, body) = answer.join().unwrap();
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["code"], "outcome_unknown", "{body}");
    assert!(body["detail"].as_str().unwrap().contains("Idempotency-Key"));
    // The waiting statement goes on without its client and commits once the lock is freed.
    sql.write_all(b"COMMIT;\n").unwrap();
    drop(sql);
    locker.wait().unwrap();
    forwarder.restore();

    eventually(
        Duration::from_secs(15),
        "/ready after the database is back",
        || status_of(app, "/ready") == StatusCode::OK,
    );
    let retried = post_command_retrying(app, &players[0], &id, &command, "the-move");
    assert_eq!(retried.status(), StatusCode::OK);
    let retried: Value = retried.json().unwrap();
    assert_eq!(retried["replayed"], true, "it had been recorded: {retried}");
    let stored = versions(app, &players[0], &id);
    assert_eq!(stored.len(), before + 1, "recorded once: {stored:?}");
}

// ---------------------------------------------------------------------------------------
// Two nodes behind nginx

/// nginx, installed from Debian's `nginx` package when missing (as root).
fn nginx() -> PathBuf {
    common::debian::program(&["/usr/sbin/nginx"], "nginx")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// nginx running the shipped `deploy/nginx.conf` in front of `nodes`, on its own port.
struct Nginx {
    child: std::process::Child,
    base: String,
    _dir: tempfile::TempDir,
}

impl Nginx {
    fn start(nodes: [&str; 2]) -> Nginx {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let shipped = std::fs::read_to_string(deploy().join("nginx.conf")).unwrap();
        assert!(shipped.contains("server 127.0.0.1:8081 ") && shipped.contains("listen 8080;"));
        let site = shipped
            .replace("server 127.0.0.1:8081 ", &format!("server {} ", nodes[0]))
            .replace("server 127.0.0.1:8082 ", &format!("server {} ", nodes[1]))
            .replace("listen 8080;", &format!("listen 127.0.0.1:{port};"));
        let d = dir.path().display();
        std::fs::write(dir.path().join("site.conf"), site).unwrap();
        std::fs::write(
            dir.path().join("nginx.conf"),
            format!(
                "pid {d}/nginx.pid;\nerror_log {d}/error.log warn;\nevents {{}}\nhttp {{\n\
                 log_format routed '$upstream_addr $request_uri';\n\
                 access_log {d}/access.log routed;\nclient_body_temp_path {d}/body;\n\
                 proxy_temp_path {d}/proxy;\nfastcgi_temp_path {d}/fastcgi;\n\
                 uwsgi_temp_path {d}/uwsgi;\nscgi_temp_path {d}/scgi;\n\
                 include {d}/site.conf;\n}}\n"
            ),
        )
        .unwrap();
        let child = Command::new(nginx())
            .args(["-p"])
            .arg(dir.path())
            .args(["-c"])
            .arg(dir.path().join("nginx.conf"))
            .args(["-g", "daemon off;"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nginx starts");
        let base = format!("http://127.0.0.1:{port}");
        eventually(Duration::from_secs(10), "nginx answers", || {
            reqwest::blocking::get(format!("{base}/health")).is_ok()
        });
        Nginx {
            child,
            base,
            _dir: dir,
        }
    }
}

impl Nginx {
    /// What nginx logged at warning and above: why a request failed, if one did.
    fn errors(dir: &std::path::Path) -> String {
        std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
    }

    /// The nodes that answered each game's requests, in order (`/v1/games/{id}...`; of a
    /// request tried on several, the last).
    fn routes(dir: &std::path::Path) -> std::collections::HashMap<String, Vec<String>> {
        let log = std::fs::read_to_string(dir.join("access.log")).unwrap_or_default();
        let mut routes: std::collections::HashMap<String, Vec<String>> = Default::default();
        for line in log.lines() {
            let Some((upstreams, uri)) = line.rsplit_once(' ') else {
                continue;
            };
            let Some(game) = uri
                .strip_prefix("/v1/games/")
                .and_then(|rest| rest.split(['/', '?']).next())
                .filter(|id| id.starts_with("g-"))
            else {
                continue;
            };
            let node = upstreams.rsplit(", ").next().unwrap_or(upstreams);
            routes
                .entry(game.to_string())
                .or_default()
                .push(node.to_string());
        }
        routes
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM, not SIGKILL: the master stops its workers, which SIGKILL would leave behind
        // holding the port (and the test's output open).
        let stopped = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        if !stopped {
            self.child.kill().ok();
        }
        self.child.wait().ok();
    }
}

#[test]
fn two_nodes_behind_nginx_with_the_shipped_config_lose_nothing_and_show_no_error_when_one_is_killed(
) {
    // Enough games that some are routed to the node killed: 1 in 4,096 runs has none there,
    // and then says so.
    const GAMES: usize = 12;
    const KILL_AFTER: usize = 24;
    const MOVES_EACH: usize = 24;
    let dir = tempfile::tempdir().unwrap();
    let url = cluster::Cluster::shared().new_database();
    let key = dir.path().join("secrets.key");
    let args: [&str; 4] = ["--database", &url, "--secrets-key", key.to_str().unwrap()];
    let first = Server::start(&dir.path().join("a"), &args);
    let second = Server::start(&dir.path().join("b"), &args);
    let address = |server: &Server| server.app.base.trim_start_matches("http://").to_string();
    let killed = address(&first);
    let proxy = Nginx::start([address(&first).as_str(), address(&second).as_str()]);
    let first = Arc::new(Mutex::new(Some(first)));
    let nginx_dir = proxy._dir.path().to_path_buf();

    let acknowledged = Arc::new(Mutex::new(Vec::<(String, u64)>::new()));
    let errors = Arc::new(Mutex::new(Vec::<String>::new()));
    let clients: Vec<_> = (0..GAMES)
        .map(|n| {
            let base = proxy.base.clone();
            let (acknowledged, errors, first, nginx_dir) = (
                acknowledged.clone(),
                errors.clone(),
                first.clone(),
                nginx_dir.clone(),
            );
            std::thread::spawn(move || {
                let app = TestApp::attach(&base);
                let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
                for step in 0..MOVES_EACH {
                    let game = app.game(None, &id);
                    if game["status"] == "finished" {
                        break;
                    }
                    let seat = game["to_act"][0].as_u64().expect("a seat to act") as usize;
                    let command = a_move(&app, &players[seat], &id);
                    let key = format!("{n}-{step}");
                    // A node killed while it sends an answer cuts the body after its status
                    // line: the outcome is unknown to the client, which sends the command
                    // again with the same Idempotency-Key, as the documented clients do.
                    // Each try as the client saw it, for the message should none give an answer.
                    let mut tries = Vec::new();
                    let mut answer = None;
                    for attempt in 0..5 {
                        if attempt > 0 {
                            std::thread::sleep(Duration::from_millis(200 * attempt));
                        }
                        let reply = post_command(&app, &players[seat], &id, &command, &key);
                        let status = reply.status();
                        let text = reply.text();
                        let body = text
                            .as_deref()
                            .ok()
                            .and_then(|t| serde_json::from_str::<Value>(t).ok());
                        tries.push(match &text {
                            Ok(t) => format!("{status} {}", t.chars().take(300).collect::<String>()),
                            Err(e) => format!("{status}, body unreadable: {e}"),
                        });
                        if status != StatusCode::OK || body.is_some() {
                            answer = Some((status, body.unwrap_or(Value::Null)));
                            break;
                        }
                    }
                    let Some((status, body)) = answer else {
                        panic!(
                            "{id}: no readable answer to {key} in {tries:?}; nginx logged:\n{}",
                            Nginx::errors(&nginx_dir)
                        );
                    };
                    if status != StatusCode::OK {
                        errors.lock().unwrap().push(format!("{status}: {body}"));
                        break;
                    }
                    let last = body["events"]
                        .as_array()
                        .and_then(|e| e.last())
                        .and_then(|e| e["version"].as_u64())
                        .unwrap_or_else(|| {
                            panic!(
                                "{id}: no events in the answer to {key}: {tries:?}; nginx logged:\n{}",
                                Nginx::errors(&nginx_dir)
                            )
                        });
                    let mut acked = acknowledged.lock().unwrap();
                    acked.push((id.clone(), last));
                    if acked.len() == KILL_AFTER {
                        // A node dies under play: SIGKILL, no chance to finish anything.
                        if let Some(mut node) = first.lock().unwrap().take() {
                            node.kill();
                        }
                    }
                }
                (id, players)
            })
        })
        .collect();
    let games: Vec<(String, Vec<Player>)> =
        clients.into_iter().map(|c| c.join().unwrap()).collect();
    assert!(
        first.lock().unwrap().is_none(),
        "the node was killed under play"
    );
    let errors = errors.lock().unwrap();
    assert!(errors.is_empty(), "clients saw errors: {errors:?}");

    // Every acknowledged command is stored, read through nginx (the surviving node).
    let app = TestApp::attach(&proxy.base);
    let acknowledged = acknowledged.lock().unwrap();
    assert!(
        acknowledged.len() > KILL_AFTER,
        "play went on after the kill"
    );
    for (id, players) in &games {
        let stored = versions(&app, &players[0], id);
        assert_eq!(
            stored,
            (1..=stored.len() as u64).collect::<Vec<_>>(),
            "{id}: no gap"
        );
        for (_, version) in acknowledged.iter().filter(|(g, _)| g == id) {
            assert!(
                stored.contains(version),
                "{id}: acknowledged version {version} is lost"
            );
        }
    }

    // Each game's requests went to one node (the shipped config's affinity), until the one
    // killed under it: then to the other.
    let routes = Nginx::routes(&nginx_dir);
    let mut moved = 0;
    for (id, _) in &games {
        let nodes = routes.get(id).cloned().unwrap_or_default();
        let mut changes = nodes.windows(2).filter(|pair| pair[0] != pair[1]);
        match changes.next() {
            None => {}
            Some(pair) => {
                assert_eq!(
                    pair[0], killed,
                    "{id} left a node that was not killed: {nodes:?}"
                );
                assert!(
                    changes.next().is_none(),
                    "{id} went back and forth: {nodes:?}"
                );
                moved += 1;
            }
        }
    }
    assert!(
        moved > 0,
        "no game was routed to the node killed, so none had to move (1 run in 4,096): {routes:?}"
    );
    drop(second);
}

// ---------------------------------------------------------------------------------------
// A full disk under sled

/// A small tmpfs mounted for one test (as root), unmounted when dropped.
struct SmallDisk {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(megabytes: u64) -> SmallDisk {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("disk");
        std::fs::create_dir(&path).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(&path)
            .status()
            .expect("mount runs");
        assert!(
            status.success(),
            "this test mounts a small tmpfs to fill its disk: run it as root (or with CAP_SYS_ADMIN)"
        );
        SmallDisk { path, _dir: dir }
    }

    /// Writes a file until the disk is full.
    fn fill(&self) -> PathBuf {
        let filler = self.path.join("filler");
        let mut file = std::fs::File::create(&filler).unwrap();
        let block = vec![0u8; 64 * 1024];
        while file.write_all(&block).is_ok() {}
        let _ = file.sync_all();
        filler
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.path).status();
    }
}

#[test]
fn a_full_disk_under_sled_is_answered_503_fails_readiness_and_liveness_and_a_restart_recovers() {
    let disk = SmallDisk::mount(64);
    let data = disk.path.join("data");
    // systemd's notify socket, as the unit's `Type=notify` and `WatchdogSec=` make systemd
    // set it: a unix datagram socket, and the watchdog's interval (here 0.4 s).
    let sockets = tempfile::tempdir().unwrap();
    let notify_path = sockets.path().join("notify");
    let notify = std::os::unix::net::UnixDatagram::bind(&notify_path).unwrap();
    notify
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut server = Server::start_with_env(
        &data,
        &["--store-cache-mb", "8"],
        &[
            ("NOTIFY_SOCKET", notify_path.to_str().unwrap()),
            ("WATCHDOG_USEC", "400000"),
        ],
    );
    let app = &server.app;
    let notice = || {
        let mut buffer = [0u8; 256];
        let n = notify.recv(&mut buffer).expect("a notice to systemd");
        String::from_utf8_lossy(&buffer[..n]).into_owned()
    };
    assert_eq!(notice(), "READY=1");
    for _ in 0..3 {
        assert_eq!(notice(), "WATCHDOG=1", "pinged while healthy");
    }
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let mut acknowledged = versions(app, &players[0], &id).len();
    assert_eq!(status_of(app, "/ready"), StatusCode::OK);

    let filler = disk.fill();
    // Moves until the store fails (sled writes through its own buffers first).
    let mut failed = None;
    for step in 0..200 {
        let game = app.game(None, &id);
        if game["status"] == "finished" {
            break;
        }
        let seat = game["to_act"][0].as_u64().unwrap() as usize;
        let command = a_move(app, &players[seat], &id);
        let answer = post_command(app, &players[seat], &id, &command, &format!("k{step}"));
        let status = answer.status();
        let body: Value = answer.json().unwrap_or(Value::Null);
        if status == StatusCode::OK {
            acknowledged = body["events"].as_array().unwrap().last().unwrap()["version"]
                .as_u64()
                .unwrap() as usize;
            continue;
        }
        failed = Some((status, body));
        break;
    }
    let (status, body) = failed.expect("the full disk fails a write");
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(
        body["code"] == "store_unavailable" || body["code"] == "outcome_unknown",
        "{body}"
    );
    assert_eq!(status_of(app, "/ready"), StatusCode::SERVICE_UNAVAILABLE);
    // sled takes no write again until reopened: liveness fails, so the node is restarted.
    assert_eq!(status_of(app, "/health"), StatusCode::SERVICE_UNAVAILABLE);
    // ... and systemd's watchdog is pinged no more (what was sent before is read first).
    notify.set_nonblocking(true).unwrap();
    while notify.recv(&mut [0u8; 256]).is_ok() {}
    notify.set_nonblocking(false).unwrap();
    notify
        .set_read_timeout(Some(Duration::from_millis(1500)))
        .unwrap();
    let after = notify.recv(&mut [0u8; 256]);
    assert!(
        after.is_err(),
        "a watchdog ping after /health failed: {after:?}"
    );
    assert_eq!(
        app.game(Some(&players[0]), &id)["id"],
        id.as_str(),
        "reads are served"
    );

    std::fs::remove_file(filler).unwrap();
    server.kill();
    let server = Server::start(&data, &[]);
    let stored = versions(&server.app, &players[0], &id);
    assert!(
        stored.len() >= acknowledged,
        "every acknowledged event is there: {} of {acknowledged}",
        stored.len()
    );
    assert_eq!(status_of(&server.app, "/ready"), StatusCode::OK);
    assert_eq!(status_of(&server.app, "/health"), StatusCode::OK);
}

/// A request through nginx while the database is stopped: the node's own answer, with its
/// status, `Retry-After` and problem code; never nginx's.
fn answered_by_a_node(
    response: reqwest::blocking::Response,
) -> (StatusCode, Option<String>, Value) {
    let status = response.status();
    let retry_after = response
        .headers()
        .get("Retry-After")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let content_type = response
        .headers()
        .get("Content-Type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = response.text().unwrap_or_default();
    assert!(
        content_type.starts_with("application/json")
            || content_type.starts_with("application/problem+json"),
        "{status}: not JSON but {content_type:?}: {body}"
    );
    let body: Value = serde_json::from_str(&body).expect("a JSON body");
    assert!(
        !body["detail"]
            .as_str()
            .unwrap_or_default()
            .starts_with("No server"),
        "nginx answered, not a node: {body}"
    );
    (status, retry_after, body)
}

#[test]
fn behind_the_shipped_nginx_a_stopped_database_is_answered_503_by_the_nodes_and_play_goes_on_at_once_when_it_is_back(
) {
    let cluster = cluster::Cluster::private();
    let url = cluster.new_database();
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("secrets.key");
    let args: [&str; 4] = ["--database", &url, "--secrets-key", key.to_str().unwrap()];
    let first = Server::start(&dir.path().join("a"), &args);
    let second = Server::start(&dir.path().join("b"), &args);
    let address = |server: &Server| server.app.base.trim_start_matches("http://").to_string();
    let proxy = Nginx::start([address(&first).as_str(), address(&second).as_str()]);
    let app = TestApp::attach(&proxy.base);
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let mut turn = 0;
    let mut play = |key: &str| {
        let player = &players[turn % 2];
        let command = a_move(&app, player, &id);
        let answer = post_command(&app, player, &id, &command, key);
        if answer.status() == StatusCode::OK {
            turn += 1;
        }
        answer
    };
    assert_eq!(play("before").status(), StatusCode::OK);
    // A body over the 64 KiB of a command but under an import's limit reaches a node, whose
    // answer is its own JSON problem (nginx once refused it with an HTML 413).
    let record = format!(
        "{{\"format\":\"record\",\"record\":\"{}\"}}",
        "x".repeat(100_000)
    );
    let (status, _, body) = answered_by_a_node(
        app.post("/v1/imports", Some(&players[0]))
            .header("Content-Type", "application/json")
            .body(record)
            .send()
            .expect("an answer"),
    );
    assert!(
        status.is_client_error() && status != StatusCode::PAYLOAD_TOO_LARGE,
        "{status}: {body}"
    );

    cluster.stop();
    // Every kind of request, each several times (nginx spreads them over both nodes): the
    // nodes' own 503 with Retry-After, or 200 where the node needs no database (liveness).
    for n in 0..6 {
        // A read the node answers from memory (the game held folded) or refuses.
        let (status, retry_after, body) = answered_by_a_node(
            app.get(&format!("/v1/games/{id}"), Some(&players[0]))
                .send()
                .expect("an answer"),
        );
        if status != StatusCode::OK {
            assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
            assert_eq!(body["code"], "store_unavailable", "{body}");
            assert!(retry_after.is_some(), "a Retry-After: {body}");
        }
        let (status, retry_after, body) = answered_by_a_node(
            app.post("/v1/games", Some(&players[1]))
                .json(&json!({"kind": "avalanche-chess", "seats": 2}))
                .send()
                .expect("an answer"),
        );
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert_eq!(body["code"], "store_unavailable", "{body}");
        assert!(retry_after.is_some(), "a Retry-After: {body}");

        let command = json!({"type": "offer_draw"});
        let (status, retry_after, body) = answered_by_a_node(post_command(
            &app,
            &players[0],
            &id,
            &command,
            &format!("during-{n}"),
        ));
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert_eq!(body["code"], "store_unavailable", "{body}");
        assert!(retry_after.is_some(), "a Retry-After: {body}");

        let (status, _, body) =
            answered_by_a_node(app.get("/health", None).send().expect("an answer"));
        assert_eq!(status, StatusCode::OK, "liveness does not fail: {body}");
        let (status, _, body) =
            answered_by_a_node(app.get("/ready", None).send().expect("an answer"));
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "not ready: {body}");
    }

    // Back: the first requests are answered, by whichever node, with nothing to wait for.
    cluster.start_again();
    for n in 0..4 {
        let answer = play(&format!("after-start-{n}"));
        assert_eq!(answer.status(), StatusCode::OK, "{:?}", answer.text());
        let read = app
            .get(&format!("/v1/games/{id}"), Some(&players[1]))
            .send();
        assert_eq!(read.expect("an answer").status(), StatusCode::OK);
    }

    // A restart while the nodes sit idle ends every pooled connection (57P01): the first
    // commands after it go on new connections, not refused once per connection.
    std::thread::sleep(Duration::from_millis(200));
    cluster.restart();
    for n in 0..6 {
        let answer = play(&format!("after-restart-{n}"));
        assert_eq!(answer.status(), StatusCode::OK, "{:?}", answer.text());
    }
    drop((first, second));
}

/// "With `--metrics-allow 127.0.0.1` and the shipped nginx config, `curl -H 'X-Forwarded-For:
/// 8.8.8.8' .../backup` answered 200 with every running game's deck order and hands." The node
/// as the operator's documentation sets it up behind nginx (nginx on this machine named as a
/// trusted proxy, the metrics allowed to this machine), a card game running on it.
#[test]
fn the_backup_and_the_metrics_are_not_served_through_the_shipped_nginx() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        &dir.path().join("data"),
        &[
            "--metrics-allow",
            "127.0.0.1",
            "--trusted-proxies",
            "127.0.0.1",
        ],
    );
    let node = server.app.base.trim_start_matches("http://").to_string();
    let proxy = Nginx::start([node.as_str(), node.as_str()]);
    let (id, _players) = server.app.full_game("avalanche", 2, json!({}));
    let client = reqwest::blocking::Client::new();
    for path in ["/backup", "/metrics"] {
        for forwarded in [None, Some("8.8.8.8"), Some("127.0.0.1")] {
            let mut request = client.get(format!("{}{path}", proxy.base));
            if let Some(address) = forwarded {
                request = request.header("X-Forwarded-For", address);
            }
            let answer = request.send().unwrap();
            let status = answer.status();
            let body = answer.text().unwrap();
            assert_eq!(
                status,
                StatusCode::NOT_FOUND,
                "{path} as {forwarded:?}: {body}"
            );
            assert!(!body.contains(&id), "{path} as {forwarded:?}: {body}");
        }
    }
    // On the node's public listener itself, from this machine: not there either.
    assert_eq!(
        server.app.get("/backup", None).send().unwrap().status(),
        StatusCode::NOT_FOUND
    );
    // The admin listener serves them to this machine; a forwarded request is judged by the
    // client its trusted proxy names.
    let backup = server.app.admin_get("/backup").send().unwrap();
    assert_eq!(backup.status(), StatusCode::OK);
    assert!(backup.text().unwrap().contains(&id));
    for path in ["/backup", "/metrics"] {
        let forwarded = server
            .app
            .admin_get(path)
            .header("X-Forwarded-For", "8.8.8.8")
            .send()
            .unwrap();
        assert_eq!(forwarded.status(), StatusCode::FORBIDDEN, "{path}");
    }
    assert_eq!(
        server.app.admin_get("/metrics").send().unwrap().status(),
        StatusCode::OK
    );
}

/// The unit's install steps (its opening comment) as root: the service user, its folders, and
/// the binary started as that user with the unit's settings, as systemd would start it. Each
/// step runs as written, with the folders moved under a temporary root (the user is made only
/// when it does not exist yet: a machine that ran the steps once has it).
#[test]
fn the_systemd_units_install_steps_work_as_written_and_the_service_user_makes_its_key() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::os::unix::process::CommandExt;
    assert!(
        common::debian::is_root(),
        "this test makes the unit's service user: run it as root"
    );
    let unit = std::fs::read_to_string(deploy().join("avalanche.service")).unwrap();
    let steps: Vec<&str> = unit
        .lines()
        .filter_map(|l| l.strip_prefix("#   "))
        .collect();
    let step = |start: &str| -> String {
        steps
            .iter()
            .find(|s| s.starts_with(start))
            .unwrap_or_else(|| panic!("no `{start}` step in the unit: {steps:?}"))
            .to_string()
    };
    let root = tempfile::tempdir().unwrap();
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let moved = |text: &str| {
        text.replace("/etc/", &format!("{}/etc/", root.path().display()))
            .replace("/var/lib/", &format!("{}/var/lib/", root.path().display()))
            .replace(
                "/usr/local/",
                &format!("{}/usr/local/", root.path().display()),
            )
            .replace(
                "target/release/avalanche",
                &common::binary::path().display().to_string(),
            )
    };
    let sh = |line: &str| {
        let output = Command::new("sh").arg("-c").arg(line).output().unwrap();
        assert!(
            output.status.success(),
            "`{line}`: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    for dir in ["etc", "var/lib", "usr/local/bin"] {
        std::fs::create_dir_all(root.path().join(dir)).unwrap();
    }
    sh(&moved(&step("install -m 0755")));
    let useradd = step("useradd ");
    let user = useradd.split_whitespace().last().unwrap().to_string();
    let exists = Command::new("id")
        .arg(&user)
        .output()
        .unwrap()
        .status
        .success();
    if !exists {
        sh(&useradd);
    }
    sh(&moved(&step("install -d ")));
    let id = |flag: &str| -> u32 {
        let out = Command::new("id").args([flag, &user]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    };
    let (uid, gid) = (id("-u"), id("-g"));

    // What systemd does for the unit: its StateDirectory owned by the user with its mode.
    let value = |key: &str| -> String {
        unit.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .unwrap_or_else(|| panic!("the unit sets {key}"))
            .to_string()
    };
    let state = root.path().join("var/lib").join(value("StateDirectory"));
    let mode = u32::from_str_radix(&value("StateDirectoryMode"), 8).unwrap();
    std::fs::create_dir_all(&state).unwrap();
    std::os::unix::fs::chown(&state, Some(uid), Some(gid)).unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(mode)).unwrap();

    // The unit's settings, on a free port, and its ExecStart, as its user.
    let port = free_port();
    let admin = free_port();
    let mut command = Command::new(moved(value("ExecStart").split_whitespace().next().unwrap()));
    command.args(value("ExecStart").split_whitespace().skip(1));
    for line in unit.lines().filter_map(|l| l.strip_prefix("Environment=")) {
        let (key, val) = line.split_once('=').unwrap();
        let val = match key {
            "AVALANCHE_ADDR" => format!("127.0.0.1:{port}"),
            "AVALANCHE_ADMIN_ADDR" => format!("127.0.0.1:{admin}"),
            _ => moved(val),
        };
        command.env(key, val);
    }
    assert_eq!(value("User"), user);
    let mut child = command
        .env_remove("NOTIFY_SOCKET")
        .uid(uid)
        .gid(gid)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let app = TestApp::attach(&format!("http://127.0.0.1:{port}"));
    let started = Instant::now();
    while status_of(&app, "/health") != StatusCode::OK {
        if let Some(exit) = child.try_wait().unwrap() {
            let mut said = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut said)
                .unwrap();
            panic!("the service stopped ({exit}): {said}");
        }
        assert!(started.elapsed() < Duration::from_secs(30), "no /health");
        std::thread::sleep(Duration::from_millis(100));
    }
    let key = root.path().join("etc/avalanche/secrets.key");
    let made = std::fs::metadata(&key).expect("the service made its key");
    assert_eq!(made.uid(), uid, "the key is the service user's");
    assert_eq!(made.mode() & 0o777, 0o600, "the key is owner-only");
    let dir = std::fs::metadata(root.path().join("etc/avalanche")).unwrap();
    assert_eq!(dir.uid(), uid);
    assert_eq!(dir.mode() & 0o777, 0o700);
    child.kill().unwrap();
    child.wait().unwrap();
}
