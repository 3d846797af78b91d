//! The real `avalanche` binary on PostgreSQL (`--database postgres://...`): a game of every
//! kind played to its end, the server killed and started again on the same database, and
//! every game read back as it was and passing its audit. The database is a private cluster
//! this test binary starts (`storage/tests/common/cluster.rs`).

use crate::common;

use crate::cluster;

use common::binary::Server;
use common::play::play_to_end;
use common::{ok_json, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// The kinds of game, with seats and create options that keep random play short.
fn every_kind() -> Vec<(&'static str, usize, Value)> {
    vec![
        ("avalanche-chess", 2, json!({})),
        ("avalanche", 3, json!({})),
        ("ski-runs", 2, json!({})),
        ("vamanos", 2, json!({"options": {"target": 30}})),
        ("altitude", 2, json!({})),
        ("altitude", 1, json!({})),
    ]
}

fn audit(app: &TestApp, id: &str) -> Value {
    ok_json(
        app.get(&format!("/v1/games/{id}/audit"), None).send(),
        StatusCode::OK,
    )
}

#[test]
fn games_of_every_kind_played_on_postgres_survive_a_restart_and_pass_their_audit() {
    let url = cluster::Cluster::shared().new_database();
    let unused = tempfile::tempdir().expect("a directory");
    // The key of the database's secrets lives apart from the (unused) sled directory.
    let keys = tempfile::tempdir().expect("a directory");
    let key = keys.path().join("secrets.key");
    let key = key.to_str().expect("a UTF-8 path");
    let mut server = Server::start(unused.path(), &["--database", &url, "--secrets-key", key]);
    let mut played = Vec::new();
    for (seed, (kind, seats, extra)) in (1..).zip(every_kind()) {
        let (id, players) = server.app.full_game(kind, seats, extra);
        let end = play_to_end(&server.app, &id, &players, seed, 5_000, |_| {});
        assert_eq!(end["status"], "finished", "{kind} reached no result: {end}");
        let events = server.app.events(None, &id, 0);
        played.push((kind, id, end, events));
    }
    // Nothing was written to the sled directory: everything is in PostgreSQL.
    assert!(
        std::fs::read_dir(unused.path())
            .expect("lists")
            .next()
            .is_none(),
        "the server on PostgreSQL wrote into --data"
    );

    server.kill();
    let server = Server::start(unused.path(), &["--database", &url, "--secrets-key", key]);
    for (kind, id, end, events) in &played {
        assert_eq!(
            &server.app.game(None, id),
            end,
            "{kind} reads back as it ended"
        );
        assert_eq!(
            &server.app.events(None, id, 0),
            events,
            "{kind}'s events read back as written"
        );
        let answer = audit(&server.app, id);
        assert_eq!(answer["valid"], true, "{kind}: {answer}");
        assert_eq!(answer["report"]["events"], end["version"]);
    }
    // The lobby's lists come from the tag index: every finished game is listed.
    let finished = ok_json(
        server
            .app
            .get("/v1/games?status=finished&limit=100", None)
            .send(),
        StatusCode::OK,
    );
    let listed = finished.to_string();
    for (kind, id, _, _) in &played {
        assert!(
            listed.contains(id.as_str()),
            "{kind} {id} is listed as finished"
        );
    }
}

#[test]
fn a_server_pointed_at_an_unreachable_database_says_so_and_exits() {
    let unused = tempfile::tempdir().expect("a directory");
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let output = std::process::Command::new(common::binary::path())
        .args(["--addr", "127.0.0.1:0", "--data"])
        .arg(unused.path())
        .args([
            "--database",
            &format!("postgres://someone:hunter2@127.0.0.1:{port}/nothing"),
        ])
        .arg("--secrets-key")
        .arg(unused.path().join("secrets.key"))
        .output()
        .expect("the binary runs");
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("cannot open the database"), "{said}");
    assert!(
        said.contains("postgres://someone@127.0.0.1/nothing"),
        "{said}"
    );
    assert!(
        !said.contains("hunter2"),
        "the password stays out of messages: {said}"
    );
}

#[test]
fn a_server_on_postgres_without_a_secrets_key_says_which_option_it_needs() {
    let unused = tempfile::tempdir().expect("a directory");
    let output = std::process::Command::new(common::binary::path())
        .args(["--addr", "127.0.0.1:0", "--data"])
        .arg(unused.path())
        .args(["--database", "postgres://someone@127.0.0.1:1/nothing"])
        .env_remove("AVALANCHE_SECRETS_KEY")
        .output()
        .expect("the binary runs");
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("needs --secrets-key FILE"),
        "it says what to give: {said}"
    );
}

#[test]
fn a_node_is_not_ready_while_its_database_refuses_it_and_ready_again_after() {
    let cluster = cluster::Cluster::shared();
    let url = cluster.new_database();
    let name = url.rsplit('/').next().expect("a database name").to_string();
    let unused = tempfile::tempdir().expect("a directory");
    let keys = tempfile::tempdir().expect("a directory");
    let key = keys.path().join("secrets.key");
    let key = key.to_str().expect("a UTF-8 path");
    let server = Server::start(unused.path(), &["--database", &url, "--secrets-key", key]);
    let ready = |server: &Server| {
        server
            .app
            .get("/ready", None)
            .send()
            .expect("an answer")
            .status()
    };
    assert_eq!(ready(&server), StatusCode::OK);

    // The database refuses every connection, and the node's are cut.
    cluster.psql(
        "postgres",
        &format!("ALTER DATABASE {name} ALLOW_CONNECTIONS false"),
    );
    cluster.psql(
        "postgres",
        &format!("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"),
    );
    assert_eq!(ready(&server), StatusCode::SERVICE_UNAVAILABLE);
    // Alive all the same: a load balancer stops sending it requests, nothing restarts it.
    assert_eq!(
        server
            .app
            .get("/health", None)
            .send()
            .expect("an answer")
            .status(),
        StatusCode::OK
    );

    cluster.psql(
        "postgres",
        &format!("ALTER DATABASE {name} ALLOW_CONNECTIONS true"),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while ready(&server) != StatusCode::OK {
        assert!(
            std::time::Instant::now() < deadline,
            "ready again once the database answers"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}
