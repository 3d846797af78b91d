//! Moving up from sled to PostgreSQL: `avalanche migrate --from DIR --to postgres://...` copies
//! a store holding games of every kind (finished, running, timed, forked, sealed by a
//! takeback) exactly, audits them, refuses to copy into a database that holds anything, and
//! the server on PostgreSQL then serves every game as it was and plays on.

use crate::common;

use crate::cluster;

use common::binary::{self, Server};
use common::play::{play_to_end, SendOk};
use common::{ok_json, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::process::Command;

/// A game made before the move, and how it looked then.
struct Made {
    what: String,
    id: String,
    players: Vec<Player>,
    summary: Value,
    events: Value,
}

/// Plays `commands` random game commands of `id`; returns the versions they reached.
fn play_some(app: &TestApp, id: &str, players: &[Player], seed: u64, commands: usize) -> Vec<u64> {
    let mut versions = Vec::new();
    play_to_end(app, id, players, seed, commands, |answer| {
        versions.push(answer["version"].as_u64().expect("version"))
    });
    versions
}

fn forks_of(app: &TestApp, id: &str) -> Vec<String> {
    ok_json(
        app.get(&format!("/v1/games/{id}/forks"), None).send(),
        StatusCode::OK,
    )["items"]
        .as_array()
        .expect("forks")
        .iter()
        .map(|fork| fork["id"].as_str().expect("fork id").to_string())
        .collect()
}

/// Games of every kind and state on `app`: (what, id, players).
fn make_games(app: &TestApp) -> Vec<(String, String, Vec<Player>)> {
    let mut games = Vec::new();
    let mut chess_versions = Vec::new();
    for (seed, (kind, seats, extra)) in (1..).zip([
        ("avalanche-chess", 2, json!({})),
        ("avalanche", 3, json!({})),
        ("ski-runs", 2, json!({})),
        ("vamanos", 2, json!({"options": {"target": 30}})),
        ("altitude", 1, json!({})),
    ]) {
        let (id, players) = app.full_game(kind, seats, extra);
        let mut versions = Vec::new();
        let end = play_to_end(app, &id, &players, seed, 5_000, |answer| {
            versions.push(answer["version"].as_u64().expect("version"))
        });
        assert_eq!(end["status"], "finished", "{kind}: {end}");
        if kind == "avalanche-chess" {
            chess_versions = versions;
        }
        games.push((format!("finished {kind}"), id, players));
    }
    // An analysis fork of the finished chess game.
    let (chess, chess_players) = (games[0].1.clone(), games[0].2.clone());
    ok_json(
        app.post(&format!("/v1/games/{chess}/forks"), Some(&chess_players[0]))
            .json(&json!({"version": chess_versions[1]}))
            .send(),
        StatusCode::CREATED,
    );
    let fork = forks_of(app, &chess).pop().expect("the fork is listed");
    games.push((
        "analysis fork".into(),
        fork,
        vec![chess_players[0].clone(); 2],
    ));

    let (running, players) = app.full_game("avalanche", 3, json!({}));
    play_some(app, &running, &players, 9, 5);
    games.push(("running avalanche".into(), running, players));

    let hour = json!({"time_control": {"type": "seconds_per_move", "seconds": 3600}});
    let (timed, players) = app.full_game("avalanche-chess", 2, hour);
    play_some(app, &timed, &players, 10, 3);
    games.push(("timed chess".into(), timed, players));

    // A card game taken back: the game is sealed (its seed kept) while its fork runs.
    let (sealed, players) = app.full_game("avalanche", 2, json!({}));
    play_some(app, &sealed, &players, 2, 4);
    let request = json!({"type": "request_takeback"});
    ok_json(
        app.play(&players[1], &sealed, &request).send_ok(),
        StatusCode::OK,
    );
    let accept = json!({"type": "accept_takeback"});
    ok_json(
        app.play(&players[0], &sealed, &accept).send_ok(),
        StatusCode::OK,
    );
    assert!(app.game(None, &sealed)["seed"].is_null(), "sealed");
    let fork = forks_of(app, &sealed).pop().expect("the takeback's fork");
    games.push(("sealed avalanche".into(), sealed, players.clone()));
    games.push(("takeback fork".into(), fork, players));
    games
}

fn migrate(from: &std::path::Path, to: &str) -> std::process::Output {
    Command::new(binary::path())
        .arg("migrate")
        .arg("--from")
        .arg(from)
        .args(["--to", to])
        .env("RUST_LOG", "warn")
        .output()
        .expect("avalanche migrate runs")
}

#[test]
fn a_sled_store_with_games_of_every_kind_moves_to_postgres_and_is_served_from_there() {
    let data = tempfile::tempdir().expect("a directory");
    let mut server = Server::start(data.path(), &[]);
    let made: Vec<Made> = make_games(&server.app)
        .into_iter()
        .map(|(what, id, players)| Made {
            summary: server.app.game(None, &id),
            events: server.app.events(None, &id, 0),
            what,
            id,
            players,
        })
        .collect();
    server.kill();

    let url = cluster::Cluster::shared().new_database();
    let output = migrate(data.path(), &url);
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "migrate failed: {said}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(said.contains("the copy is identical"), "{said}");
    assert!(
        said.contains(&format!("audited {} games", made.len())),
        "every game is audited: {said}"
    );

    let again = migrate(data.path(), &url);
    assert!(
        !again.status.success(),
        "a second copy into the same database is refused"
    );
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("not empty"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // Served with the key the sled store's secrets were sealed with (made in its directory).
    let unused = tempfile::tempdir().expect("a directory");
    let key = data.path().join("secrets.key");
    let key = key.to_str().expect("a UTF-8 path");
    let server = Server::start(unused.path(), &["--database", &url, "--secrets-key", key]);
    let app = &server.app;
    for game in &made {
        assert_eq!(app.game(None, &game.id), game.summary, "{}", game.what);
        assert_eq!(app.events(None, &game.id, 0), game.events, "{}", game.what);
    }
    // The players and their tokens came along: the running game plays on.
    let running = made
        .iter()
        .find(|g| g.what == "running avalanche")
        .expect("the running game");
    let before = app.game(None, &running.id)["version"]
        .as_u64()
        .expect("version");
    let after = play_some(app, &running.id, &running.players, 4, 1);
    assert!(after[0] > before, "the running game went on from {before}");
    let me = ok_json(
        app.get("/v1/players/me", Some(&running.players[0])).send(),
        StatusCode::OK,
    );
    assert_eq!(me["id"], running.players[0].id.as_str(), "{me}");
    // Finished games pass their audit on the new server.
    for game in made.iter().filter(|g| g.what.starts_with("finished")) {
        let audit = ok_json(
            app.get(&format!("/v1/games/{}/audit", game.id), None)
                .send(),
            StatusCode::OK,
        );
        assert_eq!(audit["valid"], true, "{}: {audit}", game.what);
    }
}
