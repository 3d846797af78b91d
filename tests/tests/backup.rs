//! `avalanche backup` and `avalanche restore` on the real binary: a backup taken while clients
//! play, restored into a new folder, serves every game again (every event acknowledged before
//! the backup began, each finished game's audit valid, tokens acting, play going on), and a
//! backup cut short or changed, a folder not empty, another key and a PostgreSQL store are
//! refused with clear messages.

use crate::common;

use common::binary::{self, Server};
use common::play::play_to_end;
use common::{ok_json, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn avalanche(args: &[&str]) -> Output {
    Command::new(binary::path())
        .args(args)
        .output()
        .expect("the avalanche binary runs")
}

/// `avalanche backup --to file` of `app`'s store, which must succeed.
fn take_backup(app: &TestApp, file: &Path) -> Output {
    let backup = avalanche(&[
        "backup",
        "--to",
        file.to_str().unwrap(),
        "--server",
        &app.admin_url(""),
    ]);
    assert!(backup.status.success(), "{}", said(&backup));
    backup
}

fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The events of game `id` as `app` serves them to `player`, all pages.
fn all_events(app: &TestApp, player: &Player, id: &str) -> Vec<Value> {
    let mut events = Vec::new();
    loop {
        let page = app.events(Some(player), id, events.len() as u64);
        let got = page["events"].as_array().expect("events").clone();
        if got.is_empty() {
            return events;
        }
        events.extend(got);
    }
}

/// The ids and statuses of the games `app` lists under `status`, all pages.
fn listed(app: &TestApp, status: &str) -> Vec<(String, String)> {
    let mut games = Vec::new();
    let mut after = String::new();
    loop {
        let path = if after.is_empty() {
            format!("/v1/games?status={status}&limit=200")
        } else {
            format!("/v1/games?status={status}&limit=200&after={after}")
        };
        let page = ok_json(app.get(&path, None).send(), StatusCode::OK);
        let items = page["items"].as_array().expect("a page of games").clone();
        games.extend(items.iter().map(|g| {
            (
                g["id"].as_str().expect("id").to_string(),
                g["status"].as_str().expect("status").to_string(),
            )
        }));
        match page["next"].as_str() {
            Some(next) => after = next.to_string(),
            None => return games,
        }
    }
}

/// A game being played, and the highest version acknowledged to its players so far.
struct Played {
    players: Vec<Player>,
    acknowledged: u64,
}

#[test]
fn a_backup_taken_under_load_restores_into_a_new_folder_with_every_acknowledged_event() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("secrets.key");
    let key_arg = key.to_str().unwrap();
    let server = Server::start(&dir.path().join("data"), &["--secrets-key", key_arg]);
    let app = &server.app;

    // Finished games of every kind with hidden cards or not, before the load.
    let mut finished = Vec::new();
    for (n, kind) in ["avalanche-chess", "avalanche", "ski-runs"]
        .iter()
        .enumerate()
    {
        let (id, players) = app.full_game(kind, 2, json!({}));
        let end = play_to_end(app, &id, &players, n as u64, 2000, |_| {});
        if end["status"] == "finished" {
            finished.push((id, players));
        }
    }
    assert!(!finished.is_empty(), "some game finished");

    // Clients play while the backup is taken.
    let games: Arc<Mutex<BTreeMap<String, Played>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..3)
        .map(|n| {
            let (games, stop, base) = (games.clone(), stop.clone(), app.url(""));
            std::thread::spawn(move || {
                let app = TestApp::attach(&base);
                let mut round = 0;
                while !stop.load(Ordering::Relaxed) {
                    let kind = ["avalanche-chess", "altitude", "vamanos"][(n + round) % 3];
                    let (id, players) = app.full_game(kind, 2, json!({}));
                    let version = app.game(None, &id)["version"].as_u64().unwrap();
                    games.lock().unwrap().insert(
                        id.clone(),
                        Played {
                            players: players.clone(),
                            acknowledged: version,
                        },
                    );
                    let mut moves = 0;
                    play_to_end(&app, &id, &players, round as u64, 400, |answer| {
                        moves += 1;
                        let version = answer["version"].as_u64().expect("version");
                        let mut games = games.lock().unwrap();
                        let played = games.get_mut(&id).unwrap();
                        played.acknowledged = played.acknowledged.max(version);
                    });
                    assert!(moves > 0);
                    round += 1;
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(2));
    // What was acknowledged before the backup began must be in it.
    let before: BTreeMap<String, u64> = games
        .lock()
        .unwrap()
        .iter()
        .map(|(id, played)| (id.clone(), played.acknowledged))
        .collect();
    let file = dir.path().join("club.backup");
    let backup = take_backup(app, &file);
    assert!(
        said(&backup).contains("received"),
        "a progress line: {}",
        said(&backup)
    );
    eprintln!("{}", said(&backup));
    // It holds every player's record: readable by its owner only.
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the backup is written {mode:o}");
    std::thread::sleep(Duration::from_secs(1));
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.join().unwrap();
    }
    assert!(!before.is_empty());

    // A second backup over the same name is refused; the first one is kept.
    let again = avalanche(&[
        "backup",
        "--to",
        file.to_str().unwrap(),
        "--server",
        &app.admin_url(""),
    ]);
    assert!(!again.status.success());
    assert!(said(&again).contains("exists already"), "{}", said(&again));

    let restored = dir.path().join("restored");
    let restore = avalanche(&[
        "restore",
        "--from",
        file.to_str().unwrap(),
        "--data",
        restored.to_str().unwrap(),
    ]);
    assert!(restore.status.success(), "{}", said(&restore));
    assert!(said(&restore).contains("restored"), "{}", said(&restore));

    // A restore into a folder that is not empty is refused and changes nothing.
    let listing = |path: &Path| {
        let mut names: Vec<_> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    let files = listing(&restored);
    let twice = avalanche(&[
        "restore",
        "--from",
        file.to_str().unwrap(),
        "--data",
        restored.to_str().unwrap(),
    ]);
    assert!(!twice.status.success());
    assert!(said(&twice).contains("is not empty"), "{}", said(&twice));
    assert_eq!(listing(&restored), files);

    // The key is not in the backup: without it, or under another key, the server refuses to
    // start, with the messages it always gives.
    let start = |key: Option<&Path>| {
        let mut command = Command::new(binary::path());
        command
            .args(["--addr", "127.0.0.1:0", "--data"])
            .arg(&restored);
        if let Some(key) = key {
            command.arg("--secrets-key").arg(key);
        }
        let output = command.output().unwrap();
        assert!(!output.status.success());
        said(&output)
    };
    let missing = start(None);
    assert!(missing.contains("is missing"), "{missing}");
    let other_key = dir.path().join("other.key");
    std::fs::write(&other_key, "ab".repeat(32)).unwrap();
    let wrong = start(Some(&other_key));
    assert!(
        wrong.contains("is not the key this store's secrets were sealed with"),
        "{wrong}"
    );

    let copy = Server::start(&restored, &["--secrets-key", key_arg]);
    let back = &copy.app;
    let all = games.lock().unwrap();
    let mut checked = 0;
    for (id, acknowledged) in &before {
        let player = &all[id].players[0];
        let original = all_events(app, player, id);
        let restored = all_events(back, player, id);
        assert!(
            restored.len() as u64 >= *acknowledged,
            "{id}: {} events restored, {acknowledged} acknowledged before the backup",
            restored.len()
        );
        // What an event shows may differ: a game that ended after the backup has its
        // secrets revealed in the original, and not yet in the copy.
        let identity = |events: &[Value]| -> Vec<Value> {
            events
                .iter()
                .map(|e| json!([e["version"], e["type"], e["actor"], e["recorded_at"]]))
                .collect()
        };
        assert_eq!(
            identity(&restored),
            identity(&original[..restored.len()]),
            "{id}: the restored events are the original ones"
        );
        checked += restored.len();
    }
    assert!(checked > 0);
    for (id, players) in &finished {
        assert_eq!(
            all_events(back, &players[0], id),
            all_events(app, &players[0], id)
        );
        let audit = ok_json(
            back.get(&format!("/v1/games/{id}/audit"), None).send(),
            StatusCode::OK,
        );
        assert_eq!(audit["valid"], true, "{id}: {audit}");
    }
    // Each game is listed under the status it has (its index entries were copied as of its
    // last copied event, also for the games that moved on while the backup was written).
    let mut statuses = BTreeMap::new();
    for status in ["open", "active", "finished"] {
        for (id, shown) in listed(back, status) {
            assert_eq!(shown, status, "{id} is listed as {status}");
            statuses.insert(id, shown);
        }
    }
    for id in before.keys().chain(finished.iter().map(|(id, _)| id)) {
        let status = back.game(None, id)["status"].as_str().unwrap().to_string();
        assert_eq!(
            statuses.get(id),
            Some(&status),
            "{id} is listed under its status"
        );
    }
    // Tokens act: a player of the restored store plays on in a running game.
    let (id, played) = before
        .keys()
        .map(|id| (id, &all[id]))
        .find(|(id, _)| back.game(None, id)["status"] == "active")
        .expect("a game still running in the backup");
    let me = ok_json(
        back.get("/v1/players/me", Some(&played.players[0])).send(),
        StatusCode::OK,
    );
    assert_eq!(me["id"], played.players[0].id.as_str(), "{me}");
    let game = back.game(None, id);
    let seat = game["to_act"][0].as_u64().unwrap() as usize;
    common::play::play_first(back, id, &played.players[seat]);
}

#[test]
fn a_backup_cut_short_or_changed_is_refused_and_nothing_is_restored() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("data"), &[]);
    let app = &server.app;
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    play_to_end(app, &id, &players, 3, 12, |_| {});
    let file = dir.path().join("club.backup");
    take_backup(app, &file);
    let whole = std::fs::read(&file).unwrap();

    let restore = |bytes: &[u8], name: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let target = dir.path().join(format!("{name}-restored"));
        let output = avalanche(&[
            "restore",
            "--from",
            path.to_str().unwrap(),
            "--data",
            target.to_str().unwrap(),
        ]);
        assert!(!output.status.success(), "{name} was restored");
        assert!(!target.exists(), "{name}: nothing is written");
        said(&output)
    };
    // Cut short: at a line's end and within a line.
    let lines: Vec<usize> = whole
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect();
    let at_line = restore(&whole[..lines[lines.len() - 2]], "cut-at-line");
    assert!(at_line.contains("is cut short"), "{at_line}");
    let within = restore(&whole[..whole.len() / 2], "cut-within");
    assert!(within.contains("is cut short"), "{within}");
    // Changed: one event's payload altered, the file otherwise whole.
    let text = String::from_utf8(whole.clone()).unwrap();
    let changed = text.replacen("\"schema_version\":1", "\"schema_version\":2", 1);
    assert_ne!(changed, text, "an event is in the backup");
    let changed = restore(changed.as_bytes(), "changed");
    assert!(
        changed.contains("was changed after it was written"),
        "{changed}"
    );
    let not_one = restore(b"hello\n", "not-a-backup");
    assert!(not_one.contains("is not a backup"), "{not_one}");

    // On PostgreSQL the command says to use pg_dump, and fails.
    let postgres = avalanche(&[
        "backup",
        "--to",
        dir.path().join("pg.backup").to_str().unwrap(),
        "--database",
        "postgres://postgres@127.0.0.1:5432/avalanche",
    ]);
    assert!(!postgres.status.success());
    assert!(said(&postgres).contains("pg_dump"), "{}", said(&postgres));

    // The whole file restores.
    let target = dir.path().join("whole-restored");
    let output = avalanche(&[
        "restore",
        "--from",
        file.to_str().unwrap(),
        "--data",
        target.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", said(&output));
}

#[test]
fn a_restored_store_holds_its_mail_until_the_operator_releases_it() {
    use common::mailbox::{free_port, Sink};
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("secrets.key");
    let key = key.to_str().unwrap();
    let mut sink = Sink::start();
    let (server, _) = crate::mail::server(&sink, &dir.path().join("data"), &["--secrets-key", key]);
    let app = &server.app;
    let ann = crate::mail::player_with_mail(&server, &mut sink, "Ann", "ann@players.test");
    // The relay goes away: the notices of Ann's new game wait in the outbox, and are in the
    // backup.
    drop(sink);
    let bob = app.create_player("Bob");
    let game = app.create_game(&ann, json!({"kind": "avalanche-chess", "seats": 2}));
    app.join(&bob, &game);
    common::eventually(Duration::from_secs(20), "a mail waiting", || {
        common::metric(app, "avalanche_mail_waiting").is_some_and(|n| n >= 1)
    });
    let file = dir.path().join("club.backup");
    take_backup(app, &file);
    let restored = dir.path().join("restored");
    let (from, to) = (file.to_str().unwrap(), restored.to_str().unwrap());
    let restore = avalanche(&["restore", "--from", from, "--data", to]);
    assert!(restore.status.success(), "{}", said(&restore));
    assert!(
        said(&restore).contains("its mail is held"),
        "the restore says so: {}",
        said(&restore)
    );
    drop(server);

    // The restored server has a relay that works, and sends nothing while held.
    let mut relay = Sink::start_on(free_port());
    let (copy, _) = crate::mail::server(&relay, &restored, &["--secrets-key", key]);
    let back = &copy.app;
    common::eventually(Duration::from_secs(20), "the outbox held", || {
        common::metric(back, "avalanche_mail_held") == Some(1)
    });
    let waiting = common::metric(back, "avalanche_mail_waiting").unwrap();
    assert!(waiting >= 1, "{waiting} mails waiting");
    // The worker looks at the outbox every poll (well under a second) and retries every
    // 100 ms here: three seconds is many passes.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        relay.all().is_empty(),
        "mail was sent while held: {:?}",
        relay.all().iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    assert_eq!(
        common::metric(back, "avalanche_mail_waiting"),
        Some(waiting)
    );

    // Released from the public listener: not found there. From this machine on the admin
    // listener: sent.
    let public = back.post("/mail/release", None).send().unwrap();
    assert_eq!(public.status(), StatusCode::NOT_FOUND);
    assert!(relay.all().is_empty());
    let released = ok_json(
        back.client.post(back.admin_url("/mail/release")).send(),
        StatusCode::OK,
    );
    assert_eq!(released["released"], true);
    let mail = relay.next("the held notice, once released", |m| {
        m.rcpt_to == "ann@players.test"
    });
    assert_eq!(mail.to, "ann@players.test");
    common::eventually(Duration::from_secs(10), "nothing held", || {
        common::metric(back, "avalanche_mail_held") == Some(0)
    });
    let again = ok_json(
        back.client.post(back.admin_url("/mail/release")).send(),
        StatusCode::OK,
    );
    assert_eq!(again["released"], false);
}
