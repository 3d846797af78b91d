//! The real binary, killed with SIGKILL in the middle of a game and started again on the same
//! database: every acknowledged command is still there and play goes on.

use crate::common;

use common::binary::Server;
use common::play::is_table_command;
use common::{ok_json, Chooser, Player};
use reqwest::blocking::Client;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

fn post(
    client: &Client,
    url: String,
    token: Option<&str>,
    body: &Value,
) -> reqwest::Result<reqwest::blocking::Response> {
    let request = client.post(url).json(body);
    match token {
        Some(t) => request.bearer_auth(t),
        None => request,
    }
    .send()
}

#[test]
fn a_game_survives_kill_9_with_every_acknowledged_command() {
    let dir = tempfile::tempdir().unwrap();
    let client = Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let mut server = Server::start(dir.path(), &[]);
    let mut tokens = Vec::new();
    for name in ["Ana", "Ben", "Cai"] {
        let created = ok_json(
            post(
                &client,
                format!("{}/v1/players", server.app.base),
                None,
                &json!({"name": name}),
            ),
            StatusCode::CREATED,
        );
        tokens.push(created["token"].as_str().unwrap().to_string());
    }
    let game = ok_json(
        post(
            &client,
            format!("{}/v1/games", server.app.base),
            Some(&tokens[0]),
            &json!({"kind": "avalanche", "seats": 3}),
        ),
        StatusCode::CREATED,
    );
    let id = game["id"].as_str().unwrap().to_string();
    for token in &tokens[1..] {
        ok_json(
            post(
                &client,
                format!("{}/v1/games/{id}/join", server.app.base),
                Some(token),
                &json!({}),
            ),
            StatusCode::OK,
        );
    }
    let mut chooser = Chooser::new(3);
    let mut acknowledged = 0;
    for round in 0..4 {
        // Play some commands; remember the last acknowledged version and each seat's view.
        for _ in 0..15 {
            let summary: Value = client
                .get(format!("{}/v1/games/{id}", server.app.base))
                .send()
                .unwrap()
                .json()
                .unwrap();
            if summary["status"] == "finished" {
                break;
            }
            let seat = summary["to_act"][0].as_u64().unwrap() as usize;
            let legal: Value = client
                .get(format!("{}/v1/games/{id}/legal", server.app.base))
                .bearer_auth(&tokens[seat])
                .send()
                .unwrap()
                .json()
                .unwrap();
            let commands: Vec<&Value> = legal["commands"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| &l["command"])
                .filter(|c| !is_table_command(c))
                .collect();
            let command = commands[chooser.below(commands.len())];
            let answer = ok_json(
                post(
                    &client,
                    format!("{}/v1/games/{id}/commands", server.app.base),
                    Some(&tokens[seat]),
                    command,
                ),
                StatusCode::OK,
            );
            acknowledged = answer["version"].as_u64().unwrap();
        }
        let views: Vec<Value> = tokens
            .iter()
            .map(|t| {
                client
                    .get(format!("{}/v1/games/{id}", server.app.base))
                    .bearer_auth(t)
                    .send()
                    .unwrap()
                    .json()
                    .unwrap()
            })
            .collect();
        // Crash: no chance to flush or shut down.
        server.kill();
        server = Server::start(dir.path(), &[]);
        for (token, before) in tokens.iter().zip(&views) {
            let after: Value = client
                .get(format!("{}/v1/games/{id}", server.app.base))
                .bearer_auth(token)
                .send()
                .unwrap()
                .json()
                .unwrap();
            assert_eq!(
                after["version"], acknowledged,
                "round {round}: every acknowledged command survived"
            );
            assert_eq!(
                after["view"], before["view"],
                "round {round}: the same game after the restart"
            );
        }
        // Players and tokens survived too.
        let me = client
            .get(format!("{}/v1/players/me", server.app.base))
            .bearer_auth(&tokens[2])
            .send()
            .unwrap();
        assert_eq!(me.status(), StatusCode::OK);
    }
    assert!(acknowledged > 30);
}

/// The server records a timeout "even if nobody calls", and a vacation holds across
/// a crash. One game's deadline passes while the server is down; the other's player is on
/// vacation when it is killed.
#[test]
fn deadlines_and_vacations_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &[]);
    let app = &server.app;
    let (ana, ben, cai) = (
        app.create_player("Ana"),
        app.create_player("Ben"),
        app.create_player("Cai"),
    );
    let timed_game = |creator: &Player, joiner: &Player| {
        let id = app.create_game(
            creator,
            json!({"kind": "avalanche-chess", "seats": 2, "seat": 0,
                "time_control": {"type": "seconds_per_move", "seconds": 1}}),
        );
        app.join(joiner, &id);
        id
    };
    // Ana is on vacation before her game starts; Ben's game runs.
    let on_vacation = app
        .post("/v1/players/me/vacation", Some(&ana))
        .send()
        .unwrap();
    assert_eq!(on_vacation.status(), StatusCode::OK);
    let paused = timed_game(&ana, &cai);
    let running = timed_game(&ben, &cai);
    server.kill();
    // Ben's deadline passes while nothing runs.
    std::thread::sleep(Duration::from_millis(1500));
    let server = Server::start(dir.path(), &[]);
    let app = &server.app;
    let mut over = app.game(None, &running);
    for _ in 0..100 {
        if over["status"] == "finished" {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        over = app.game(None, &running);
    }
    assert_eq!(
        over["status"], "finished",
        "the timeout was recorded after the restart"
    );
    assert_eq!(over["outcome"]["winners"], json!([1]));
    std::thread::sleep(Duration::from_millis(1500));
    let still = app.game(None, &paused);
    assert_eq!(still["status"], "active");
    assert_eq!(still["seats"][0]["clock"]["state"], "paused");
    let vacation = ok_json(
        app.get("/v1/players/me/vacation", Some(&ana)).send(),
        StatusCode::OK,
    );
    assert_eq!(vacation["on_vacation"], true);
}
