//! The gauges of a node's connections to PostgreSQL in `/metrics`, on the real binary and a
//! real database: the pool's connections in use and idle and the requests waiting for one move
//! under load and settle after it; the listener's gauge drops when its connection is killed
//! (`pg_terminate_backend`) and comes back, counting the reconnection. Reads of games played
//! at once ride on the node's appends, and are counted.

use crate::common;
use common::play::play_to_end;
use common::{eventually, metric, metric_in};

use crate::cluster;

use common::binary::Server;
use common::TestApp;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[test]
fn the_pool_gauges_move_under_load_and_the_listener_gauge_drops_when_its_connection_is_killed_and_comes_back(
) {
    let cluster = cluster::Cluster::shared();
    let url = cluster.new_database();
    let name = url.rsplit_once('/').unwrap().1.to_string();
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("secrets.key");
    // One connection in the pool, so that a few clients at once must wait for it.
    let server = Server::start(
        &dir.path().join("data"),
        &[
            "--database",
            &url,
            "--secrets-key",
            key.to_str().unwrap(),
            "--database-connections",
            "1",
        ],
    );
    let app = &server.app;
    eventually(Duration::from_secs(10), "the listener connects", || {
        metric(app, "avalanche_postgres_listener_connected") == Some(1)
    });
    assert_eq!(
        metric(app, "avalanche_postgres_listener_reconnections_total"),
        Some(0)
    );
    // The node on PostgreSQL takes no backup of its own: pg_dump does.
    let backup = app.admin_get("/backup").send().unwrap();
    assert_eq!(
        common::problem(backup, reqwest::StatusCode::CONFLICT),
        "backup_not_here"
    );
    let (id, _players) = app.full_game("avalanche-chess", 2, json!({}));

    // Load: clients read the game's events and create players, all through the one connection.
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..6)
        .map(|n| {
            let (stop, base, id) = (stop.clone(), app.url(""), id.clone());
            std::thread::spawn(move || {
                let client = TestApp::attach(base.trim_end_matches('/'));
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let _ = client.get(&format!("/v1/games/{id}/events"), None).send();
                    client.create_player(&format!("load-{n}-{i}"));
                    i += 1;
                }
            })
        })
        .collect();
    let (mut most_in_use, mut most_waiting) = (0, 0);
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(4) {
        let page = app.admin_get("/metrics").send().unwrap().text().unwrap();
        let in_use = metric_in(&page, "avalanche_postgres_connections_in_use").expect("in use");
        let idle = metric_in(&page, "avalanche_postgres_connections_idle").expect("idle");
        assert_eq!(in_use + idle, 1, "the pool holds one connection");
        most_in_use = most_in_use.max(in_use);
        most_waiting = most_waiting
            .max(metric_in(&page, "avalanche_postgres_requests_waiting").expect("waiting"));
        std::thread::sleep(Duration::from_millis(10));
    }
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.join().unwrap();
    }
    assert_eq!(most_in_use, 1, "the connection was seen in use");
    assert!(
        most_waiting >= 1,
        "requests were seen waiting: {most_waiting}"
    );
    eventually(Duration::from_secs(10), "the pool settles", || {
        metric(app, "avalanche_postgres_requests_waiting") == Some(0)
            && metric(app, "avalanche_postgres_connections_idle") == Some(1)
    });

    // The listener's connection is killed, and the database takes no new connection for a
    // while: the gauge drops and stays down.
    cluster.psql(
        "postgres",
        &format!("ALTER DATABASE {name} ALLOW_CONNECTIONS false"),
    );
    cluster.psql(
        "postgres",
        &format!(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
             WHERE datname = '{name}' AND application_name = 'avalanche-listener'"
        ),
    );
    eventually(Duration::from_secs(10), "the listener gauge drops", || {
        metric(app, "avalanche_postgres_listener_connected") == Some(0)
    });
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        metric(app, "avalanche_postgres_listener_connected"),
        Some(0)
    );
    assert_eq!(
        metric(app, "avalanche_postgres_listener_reconnections_total"),
        Some(0)
    );

    cluster.psql(
        "postgres",
        &format!("ALTER DATABASE {name} ALLOW_CONNECTIONS true"),
    );
    eventually(Duration::from_secs(10), "the listener comes back", || {
        metric(app, "avalanche_postgres_listener_connected") == Some(1)
    });
    assert_eq!(
        metric(app, "avalanche_postgres_listener_reconnections_total"),
        Some(1)
    );
}

#[test]
fn reads_of_games_played_at_once_ride_on_the_nodes_appends_and_each_shows_the_move_before_it() {
    let cluster = cluster::Cluster::shared();
    let url = cluster.new_database();
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("secrets.key");
    let server = Server::start(
        &dir.path().join("data"),
        &["--database", &url, "--secrets-key", key.to_str().unwrap()],
    );
    let app = &server.app;
    eventually(Duration::from_secs(10), "the listener connects", || {
        metric(app, "avalanche_postgres_listener_connected") == Some(1)
    });
    let fenced = r#"avalanche_game_reads_total{how="fenced"}"#;
    let read = r#"avalanche_game_reads_total{how="read"}"#;
    let before = (metric(app, fenced), metric(app, read));
    // Six games played at once: while one game's move is being stored, another's reads wait
    // for the node's next group of appends rather than read the database.
    let games: Vec<_> = (0..6)
        .map(|_| app.full_game("avalanche-chess", 2, json!({})))
        .collect();
    let players: Vec<_> = games
        .into_iter()
        .enumerate()
        .map(|(n, (id, players))| {
            let base = app.url("");
            std::thread::spawn(move || {
                let client = TestApp::attach(base.trim_end_matches('/'));
                play_to_end(&client, &id, &players, n as u64, 60, |answer| {
                    // Each read after a move shows it.
                    let version = answer["game"]["version"].as_u64().expect("version");
                    let game = client.game(None, &id);
                    assert!(
                        game["version"].as_u64() >= Some(version),
                        "{version} acknowledged, then read: {game}"
                    );
                });
            })
        })
        .collect();
    for player in players {
        player.join().unwrap();
    }
    let (fenced, read) = (metric(app, fenced), metric(app, read));
    assert!(
        fenced > before.0,
        "reads answered after a fence: {before:?} before, {fenced:?} after ({read:?} read)"
    );
    assert!(read.is_some(), "reads that read are counted too");
}
