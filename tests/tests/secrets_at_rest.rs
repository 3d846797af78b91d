//! Secrets at rest: the games' seeds and the webhooks' signing secrets are sealed with a key
//! kept apart from the database, so that no file of the database holds them in clear; a
//! server given another key than the store's refuses to start.

use crate::common;

use common::binary::{self, Server};
use common::play::SendOk;
use common::{ok_json, Player, TestApp};
use reqwest::StatusCode;
use serde_json::json;
use std::path::Path;

/// Every byte of every file under `dir`.
fn every_file(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("lists") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            files.extend(every_file(&path));
        } else {
            files.push((
                path.display().to_string(),
                std::fs::read(&path).expect("reads"),
            ));
        }
    }
    files
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A chess game that White resigns at once: its seed is revealed, so the test knows it.
fn resigned_game(app: &TestApp) -> (String, Vec<Player>) {
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    ok_json(
        app.play(&players[0], &id, &json!({"type": "resign"}))
            .send_ok(),
        StatusCode::OK,
    );
    (id, players)
}

const WEBHOOK_ARGS: &[&str] = &["--webhook-allow-http", "--webhook-allow-host", "127.0.0.1"];

#[test]
fn no_file_of_the_store_holds_a_seed_or_a_webhook_secret_and_the_key_is_the_owners_alone() {
    let data = tempfile::tempdir().expect("a directory");
    let mut server = Server::start(data.path(), WEBHOOK_ARGS);
    let (ended, players) = resigned_game(&server.app);
    // A game still running keeps its seed: it must be in the store, sealed.
    let (running, _) = server.app.full_game("avalanche", 3, json!({}));
    let hook = ok_json(
        server
            .app
            .post("/v1/players/me/webhooks", Some(&players[0]))
            .json(&json!({"url": "http://127.0.0.1:9/avalanche"}))
            .send(),
        StatusCode::CREATED,
    );
    let secret = hook["secret"].as_str().expect("the secret, shown once");
    let seed = server.app.game(None, &ended)["seed"]
        .as_str()
        .expect("the seed is revealed at the end")
        .to_string();
    let seed = hex::decode(&seed).expect("hex");
    assert_eq!(seed.len(), 32);
    server.kill();

    let files = every_file(data.path());
    assert!(!files.is_empty());
    for (path, bytes) in &files {
        assert!(
            !contains(bytes, &seed),
            "{path} holds the seed of {ended} in clear"
        );
        assert!(
            !contains(bytes, secret.as_bytes()),
            "{path} holds the webhook's secret in clear"
        );
    }
    let key = data.path().join("secrets.key");
    let text = std::fs::read_to_string(&key).expect("the key was made beside the data");
    assert_eq!(text.trim().len(), 64, "32 bytes in hex");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "only its owner reads the key");
    }

    // Started again with its key, the server reads everything back.
    let server = Server::start(data.path(), WEBHOOK_ARGS);
    let app = &server.app;
    assert_eq!(
        hex::decode(app.game(None, &ended)["seed"].as_str().expect("seed")).expect("hex"),
        seed
    );
    let audit = ok_json(
        app.get(&format!("/v1/games/{ended}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "{audit}");
    assert_eq!(app.game(None, &running)["status"], "active");
    let listed = ok_json(
        app.get("/v1/players/me/webhooks", Some(&players[0])).send(),
        StatusCode::OK,
    );
    assert_eq!(listed["items"][0]["id"], hook["id"], "{listed}");
    assert!(
        !listed.to_string().contains("whsec_"),
        "a listing never shows the secret: {listed}"
    );
}

#[test]
fn a_server_given_another_key_than_its_stores_refuses_to_start_and_says_why() {
    let data = tempfile::tempdir().expect("a directory");
    let mut server = Server::start(data.path(), &[]);
    resigned_game(&server.app);
    server.kill();

    // Another server's key: made by a server of another store.
    let elsewhere = tempfile::tempdir().expect("a directory");
    let other = elsewhere.path().join("other.key");
    let other_key = other.to_str().expect("a path in UTF-8");
    Server::start(
        &elsewhere.path().join("data"),
        &["--secrets-key", other_key],
    )
    .kill();
    let output = std::process::Command::new(binary::path())
        .args(["--addr", "127.0.0.1:0", "--data"])
        .arg(data.path())
        .arg("--secrets-key")
        .arg(&other)
        .output()
        .expect("the binary runs");
    assert!(!output.status.success(), "it must not serve");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("is not the key this store's secrets were sealed with"),
        "{said}"
    );
    assert!(said.contains("other.key"), "it names the key file: {said}");

    let malformed = elsewhere.path().join("malformed.key");
    std::fs::write(&malformed, "not a key\n").expect("writes");
    let output = std::process::Command::new(binary::path())
        .args(["--addr", "127.0.0.1:0", "--data"])
        .arg(data.path())
        .arg("--secrets-key")
        .arg(&malformed)
        .output()
        .expect("the binary runs");
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("is not 64 hexadecimal digits"), "{said}");
}
