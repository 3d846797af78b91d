//! A tournament's operations and channels, over HTTP and through the real binary: its export
//! as JSON (the log `avalanche audit` decides again, refusing a forged one) and as text (a
//! crosstable and rounds a person reads).

use crate::common;
use crate::tournaments::{entered, play_out};

use common::binary;
use common::{ok_json, problem, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::process::Command;

/// Four chess players, each meeting each once.
fn round_robin(app: &TestApp, names: &[&str]) -> (String, Vec<Player>) {
    let players: Vec<Player> = names.iter().map(|n| app.create_player(n)).collect();
    let id = entered(
        app,
        &players,
        json!({"name": "Ops cup", "kind": "avalanche-chess", "format": "round_robin", "seats": 2}),
    );
    (id, players)
}

pub(crate) fn export(app: &TestApp, id: &str, format: &str) -> reqwest::blocking::RequestBuilder {
    app.get(
        &format!("/v1/tournaments/{id}/export?format={format}"),
        None,
    )
}

/// `avalanche audit` of `log` written to a file: whether it exited 0, and what it printed.
pub(crate) fn audit_offline(log: &Value) -> (bool, String) {
    let dir = tempfile::tempdir().expect("a folder");
    let file = dir.path().join("tournament.json");
    std::fs::write(&file, serde_json::to_vec_pretty(log).expect("writes")).expect("written");
    let output = Command::new(binary::path())
        .arg("audit")
        .arg(&file)
        .output()
        .expect("the binary runs");
    let mut said = String::from_utf8_lossy(&output.stdout).to_string();
    said.push_str(&String::from_utf8_lossy(&output.stderr));
    (output.status.success(), said)
}

/// Points as the text writes them: `0`, `½`, `1`, `2½`.
fn written(points: f64) -> String {
    match ((points * 2.0).round() as i64 / 2, points.fract() != 0.0) {
        (0, true) => "½".to_string(),
        (whole, true) => format!("{whole}½"),
        (whole, false) => whole.to_string(),
    }
}

/// The index of the first event of `log` whose type is `kind`.
pub(crate) fn first_of(log: &Value, kind: &str) -> usize {
    log["events"]
        .as_array()
        .expect("events")
        .iter()
        .position(|e| e["payload"]["type"] == kind)
        .unwrap_or_else(|| panic!("a {kind} in {log}"))
}

#[test]
fn a_finished_tournaments_log_is_audited_without_a_server_and_a_forged_one_is_refused() {
    let app = TestApp::spawn();
    let (id, players) = round_robin(&app, &["Ada", "Ben", "Cy", "Dee"]);

    // Running: the log is there, but its seed is secret, so only the server audits it.
    let running = ok_json(export(&app, &id, "json").send(), StatusCode::OK);
    assert_eq!(running["format"], "avalanche-tournament-log");
    let (sound, said) = audit_offline(&running);
    assert!(!sound, "{said}");
    assert!(said.contains("has not finished"), "{said}");

    let finished = play_out(&app, &id, &players, 61);
    assert_eq!(finished["status"], "finished");
    let log = ok_json(export(&app, &id, "json").send(), StatusCode::OK);
    assert_eq!(log["tournament"], id);
    let events = log["events"].as_array().expect("events");
    let versions: Vec<u64> = events
        .iter()
        .map(|e| e["version"].as_u64().unwrap())
        .collect();
    assert_eq!(versions, (1..=events.len() as u64).collect::<Vec<_>>());
    assert_eq!(
        versions.len() as u64,
        finished["version"].as_u64().unwrap(),
        "every event of the stream"
    );
    let server = ok_json(
        app.get(&format!("/v1/tournaments/{id}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(server["valid"], true, "{server}");

    let (sound, said) = audit_offline(&log);
    assert!(sound, "{said}");
    assert!(
        said.starts_with(&format!("valid: tournament {id} \"Ops cup\"")),
        "{said}"
    );
    assert!(
        said.contains(&format!("{} events decided again", events.len())),
        "{said}"
    );
    assert!(said.contains("rounds: 3, players: 4"), "{said}");

    // A result changed after the fact: the standings no longer follow.
    let mut forged = log.clone();
    let at = first_of(&forged, "game_finished");
    let places = &mut forged["events"][at]["payload"]["places"];
    let swapped = json!([places[1].clone(), places[0].clone()]);
    if swapped == *places {
        // A draw: made a win.
        *places = json!([1, 2]);
        forged["events"][at]["payload"]["draw"] = json!(false);
    } else {
        *places = swapped;
    }
    let (sound, said) = audit_offline(&forged);
    assert!(!sound, "a changed result passes: {said}");
    assert!(said.starts_with("invalid at event "), "{said}");

    // A pairing changed: the seeding drawn from the seed pairs otherwise. The first round is
    // paired with the start, so the audit names the start's event (the one before it).
    let mut forged = log.clone();
    let at = first_of(&forged, "round_paired");
    assert_eq!(
        forged["events"][at - 1]["payload"]["type"],
        "tournament_started"
    );
    let table = &mut forged["events"][at]["payload"]["tables"][0]["players"];
    *table = json!([table[1].clone(), table[0].clone()]);
    let (sound, said) = audit_offline(&forged);
    assert!(!sound, "a changed pairing passes: {said}");
    assert!(
        said.starts_with(&format!("invalid at event {at}: ")),
        "{said}"
    );

    // Another seed revealed than the one committed to.
    let mut forged = log.clone();
    let at = first_of(&forged, "tournament_finished");
    forged["events"][at]["payload"]["seed"] = json!("00".repeat(32));
    let (sound, said) = audit_offline(&forged);
    assert!(!sound, "another seed passes: {said}");
    assert!(said.contains("not the one committed to"), "{said}");

    // An event left out.
    let mut forged = log.clone();
    forged["events"].as_array_mut().unwrap().remove(1);
    let (sound, said) = audit_offline(&forged);
    assert!(!sound, "a missing event passes: {said}");
    assert!(said.contains("numbered out of order"), "{said}");
}

#[test]
fn the_text_export_shows_standings_crosstable_and_every_round() {
    let app = TestApp::spawn();
    let (id, players) = round_robin(&app, &["Ada", "Ben", "Cy", "Dee"]);
    let finished = play_out(&app, &id, &players, 7);
    let response = export(&app, &id, "text").send().expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    let media = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(media.starts_with("text/plain"), "{media}");
    let text = response.text().expect("text");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Ops cup");
    assert!(
        lines[1].starts_with("avalanche-chess")
            && lines[1].contains("round robin, 2 seats a table"),
        "{text}"
    );
    assert!(lines[1].ends_with("finished"), "{text}");
    let seed = finished["seed"].as_str().expect("revealed");
    assert!(text.contains(&format!("Seed, revealed: {seed}")), "{text}");

    let display = |player: &str| {
        let page = ok_json(
            app.get(&format!("/v1/players/{player}"), None).send(),
            StatusCode::OK,
        );
        page["display_name"]
            .as_str()
            .unwrap_or_else(|| panic!("a display name: {page}"))
            .to_string()
    };

    // Standings: one line a player, in order, with rank, name, points and games.
    let standings = finished["standings"].as_array().expect("standings");
    let start = lines
        .iter()
        .position(|l| *l == "Standings")
        .expect("standings");
    assert!(lines[start + 1].contains("sonneborn berger"), "{text}");
    assert!(lines[start + 1].contains("head to head"), "{text}");
    for (n, row) in standings.iter().enumerate() {
        let line = lines[start + 2 + n];
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields[0], row["rank"].to_string(), "{line}");
        assert!(
            line.contains(&display(row["player"].as_str().unwrap())),
            "{line}"
        );
        assert!(
            fields.contains(&written(row["points"].as_f64().unwrap()).as_str()),
            "{line} shows {}",
            row["points"]
        );
        assert_eq!(fields.last(), Some(&"3"), "three games each: {line}");
    }

    // The crosstable: each cell what the row's player scored against the column's.
    let cross = lines
        .iter()
        .position(|l| *l == "Crosstable")
        .expect("crosstable");
    let rows = finished["crosstable"].as_array().expect("crosstable");
    for (n, row) in rows.iter().enumerate() {
        let line = lines[cross + 2 + n];
        let name = display(row["player"].as_str().unwrap());
        let after = &line[line.find(&name).expect("the name") + name.len()..];
        let cells: Vec<&str> = after.split_whitespace().collect();
        let expected: Vec<String> = row["against"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(column, cell)| match cell.as_f64() {
                _ if column == n => "x".to_string(),
                Some(points) => written(points),
                None => ".".to_string(),
            })
            .chain([written(row["points"].as_f64().unwrap())])
            .collect();
        assert_eq!(cells, expected, "{line}");
    }

    // Every round, every table with its players, result and game.
    for round in finished["rounds_played"].as_array().expect("rounds") {
        let title = format!("Round {}", round["round"]);
        let at = lines.iter().position(|l| *l == title).expect(&title);
        for (n, table) in round["tables"].as_array().unwrap().iter().enumerate() {
            let line = lines[at + 1 + n];
            let names: Vec<String> = table["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| display(p.as_str().unwrap()))
                .collect();
            let points: Vec<String> = table["points"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| written(p.as_f64().unwrap()))
                .collect();
            assert!(line.contains(&names.join(" - ")), "{line}");
            assert!(line.contains(&points.join("-")), "{line}");
            assert!(line.contains(table["game"].as_str().unwrap()), "{line}");
        }
    }
}

#[test]
fn an_export_in_an_unknown_format_or_of_no_tournament_is_refused() {
    let app = TestApp::spawn();
    let (id, _) = round_robin(&app, &["Ada", "Ben"]);
    let code = problem(
        export(&app, &id, "pdf").send().unwrap(),
        StatusCode::BAD_REQUEST,
    );
    assert_eq!(code, "bad_query");
    let code = problem(
        export(&app, "t-0000000000000000", "json").send().unwrap(),
        StatusCode::NOT_FOUND,
    );
    assert_eq!(code, "tournament_not_found");
}

#[test]
fn a_swiss_text_export_shows_its_crosstable_a_column_a_round() {
    let app = TestApp::spawn();
    let players: Vec<Player> = ["Ada", "Ben", "Cy", "Dee", "Eve"]
        .iter()
        .map(|n| app.create_player(n))
        .collect();
    let id = entered(
        &app,
        &players,
        json!({"name": "Ops swiss", "kind": "avalanche-chess", "format": "swiss", "seats": 2, "rounds": 2}),
    );
    let finished = play_out(&app, &id, &players, 11);
    let text = export(&app, &id, "text")
        .send()
        .expect("request")
        .text()
        .expect("text");
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == "Crosstable (by rounds)")
        .unwrap_or_else(|| panic!("{text}"));
    let header: Vec<&str> = lines[at + 1].split_whitespace().collect();
    assert_eq!(header, ["R1", "R2", "Points"], "{text}");
    for (n, row) in finished["crosstable"]
        .as_array()
        .expect("rows")
        .iter()
        .enumerate()
    {
        let line = lines[at + 2 + n];
        let cells: Vec<&str> = line.split_whitespace().rev().take(3).collect();
        let expected: Vec<String> = row["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| match r["opponents"].as_array().unwrap().as_slice() {
                [] => "bye".to_string(),
                others => format!(
                    "{}:{}",
                    others
                        .iter()
                        .map(|o| o.to_string())
                        .collect::<Vec<_>>()
                        .join(","),
                    written(r["points"].as_f64().unwrap())
                ),
            })
            .rev()
            .collect();
        assert_eq!(cells[0], written(row["points"].as_f64().unwrap()), "{line}");
        assert_eq!(cells[1..], expected[..], "{line}\n{text}");
    }
    assert!(
        text.contains("Bye: "),
        "five players, a bye a round: {text}"
    );
}
