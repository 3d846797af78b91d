//! An agreed takeback is durable before its fork is written. When the store refuses the fork
//! (here PostgreSQL, made to refuse every new stream) the players are not left with a game
//! that says play goes on in a fork, and no fork: the server tries again until the store takes
//! it, and a server started after a crash in between writes it. Never twice.

use crate::browser_harness;
use crate::cluster;
use crate::common;

use crate::player_stream::{listen, NDJSON};
use app::forks::RETRY;
use common::binary::Server;
use common::play::{play_to_end, SendOk};
use common::{eventually, ok_json, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// Makes the database refuse (or take again) every new stream: a game's first append.
fn refuse_new_streams(database: &str, refuse: bool) {
    let sql = if refuse {
        "CREATE FUNCTION refuse_stream() RETURNS trigger LANGUAGE plpgsql AS
             $$ BEGIN RAISE EXCEPTION 'no new streams in this test'; END $$;
         CREATE TRIGGER refuse_stream BEFORE INSERT ON streams
             FOR EACH ROW EXECUTE FUNCTION refuse_stream();"
    } else {
        "DROP TRIGGER refuse_stream ON streams; DROP FUNCTION refuse_stream();"
    };
    cluster::Cluster::shared().psql(database, sql);
}

/// A game of chess a few moves in, a takeback asked by White and accepted by Black while the
/// database refuses new streams; returns the game, its players and the version agreed.
fn agree_a_takeback(app: &TestApp, database: &str, seed: u64) -> (String, Vec<Player>, u64) {
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    play_to_end(app, &id, &players, seed, 4, |_| {});
    let asked = ok_json(
        app.play(&players[0], &id, &json!({"type": "request_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    let back_to = asked["events"][0]["data"]["version"].as_u64().unwrap();
    refuse_new_streams(database, true);
    let accepted = ok_json(
        app.play(&players[1], &id, &json!({"type": "accept_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    assert_eq!(accepted["game"]["status"], "finished", "{accepted}");
    assert_eq!(
        forks(app, &id),
        Vec::<String>::new(),
        "no fork while refused"
    );
    (id, players, back_to)
}

fn forks(app: &TestApp, id: &str) -> Vec<String> {
    let forks = ok_json(
        app.get(&format!("/v1/games/{id}/forks"), None).send(),
        StatusCode::OK,
    );
    forks["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect()
}

/// The fork of `id` goes on from `back_to` with the players at their seats, plays to its
/// end and passes its audit.
fn goes_on_in_its_fork(app: &TestApp, id: &str, players: &[Player], back_to: u64) {
    let [fork] = forks(app, id).try_into().expect("one fork");
    let summary = app.game(Some(&players[0]), &fork);
    assert_eq!(summary["parent"], json!({"game": id, "version": back_to}));
    assert_eq!(summary["status"], "active");
    for (seat, player) in players.iter().enumerate() {
        assert_eq!(summary["seats"][seat]["player_id"], player.id.as_str());
    }
    let parent: Value = app.game(None, id);
    assert_eq!(parent["continued_in"], fork.as_str(), "{parent}");
    let end = play_to_end(app, &fork, players, 9, 2_000, |_| {});
    assert_eq!(end["status"], "finished");
    let audit = ok_json(
        app.get(&format!("/v1/games/{fork}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "{audit}");
}

/// A fresh database, and the files of the servers started on it (its secrets' key, its log),
/// in a temporary directory.
struct Place {
    url: String,
    database: String,
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let url = cluster::Cluster::shared().new_database();
        let database = url.rsplit('/').next().unwrap().to_string();
        let dir = tempfile::tempdir().expect("a directory");
        std::fs::create_dir(dir.path().join("unused")).expect("a directory");
        Place { url, database, dir }
    }

    fn log(&self) -> std::path::PathBuf {
        self.dir.path().join("server.log")
    }

    /// A server on the database, its warnings appended to the log.
    fn start(&self) -> Server {
        let key = self.dir.path().join("secrets.key");
        let args = [
            "--database",
            &self.url,
            "--secrets-key",
            key.to_str().expect("UTF-8"),
        ];
        Server::start_logging_at(&self.dir.path().join("unused"), &args, &self.log(), "warn")
    }
}

#[test]
fn an_agreed_takeback_whose_fork_was_refused_goes_on_in_a_fork_once_the_store_takes_it() {
    let place = Place::new();
    let database = &place.database;

    // A crash while the fork is owed: the next server writes it.
    let mut server = place.start();
    let (crashed, players, back_to) = agree_a_takeback(&server.app, database, 1);
    server.kill();
    refuse_new_streams(database, false);
    let server = place.start();
    eventually(
        Duration::from_secs(10),
        "the owed fork written after the restart",
        || !forks(&server.app, &crashed).is_empty(),
    );
    goes_on_in_its_fork(&server.app, &crashed, &players, back_to);

    // A running server tries again until the store takes the fork.
    let (refused, players, back_to) = agree_a_takeback(&server.app, database, 2);
    let mut told = listen(
        &server.app.base,
        "/v1/players/me/stream",
        &players[1].token,
        NDJSON,
        None,
    );
    std::thread::sleep(RETRY + Duration::from_secs(1));
    assert_eq!(forks(&server.app, &refused), Vec::<String>::new());
    refuse_new_streams(database, false);
    eventually(
        RETRY * 3,
        "the refused fork written once the store takes it",
        || !forks(&server.app, &refused).is_empty(),
    );
    // The players are told of the game that goes on, as of any fork of theirs.
    let fork = forks(&server.app, &refused).remove(0);
    told.until(Duration::from_secs(10), "the fork's start", |lines| {
        lines
            .iter()
            .any(|l| l["type"] == "game_started" && l["game_id"] == fork.as_str())
    });
    goes_on_in_its_fork(&server.app, &refused, &players, back_to);

    // Neither is written twice by a server started again.
    drop(server);
    let server = place.start();
    std::thread::sleep(Duration::from_secs(1));
    for id in [&crashed, &refused] {
        assert_eq!(forks(&server.app, id).len(), 1, "{id} has one fork");
    }
    let log = std::fs::read_to_string(place.log()).expect("the log");
    assert!(
        log.contains("takeback agreed but its fork failed: trying again"),
        "{log}"
    );
    assert_eq!(
        log.matches("an agreed takeback's fork written late")
            .count(),
        2,
        "{log}"
    );
}

/// Waits until the browser script writes `file` into `sync`; if the script ends first, its
/// failure is the test's.
fn script_says(sync: &Path, file: &str, script: &std::thread::JoinHandle<Value>) {
    let start = std::time::Instant::now();
    while !sync.join(file).exists() {
        if script.is_finished() {
            panic!("the browser script ended before it wrote {file}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "the browser script wrote no {file}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn both_players_pages_say_the_game_that_goes_on_is_coming_and_move_on_to_it_once_written() {
    let place = Place::new();
    let database = &place.database;
    let sync = place.dir.path().join("sync");
    std::fs::create_dir(&sync).expect("a directory");
    let server = place.start();
    let (base, shared) = (server.app.base.clone(), sync.clone());
    let script = std::thread::spawn(move || {
        let shared = shared.to_str().expect("a UTF-8 path").to_string();
        browser_harness::run_with("late-fork.mjs", &base, &[("SYNC", &shared)])
    });
    script_says(&sync, "asked", &script);
    refuse_new_streams(database, true);
    std::fs::write(sync.join("refusing"), "").expect("written");
    script_says(&sync, "noticed", &script);
    refuse_new_streams(database, false);
    let result = match script.join() {
        Ok(result) => result,
        Err(failure) => std::panic::resume_unwind(failure),
    };
    browser_harness::no_overflow_nor_unnamed(&result);
    let superseded = result["superseded"].as_str().expect("the superseded game");
    assert_eq!(
        forks(&server.app, superseded),
        vec![result["game"]
            .as_str()
            .expect("the game that went on")
            .to_string()]
    );
}
