//! A league over HTTP: seven chess players in two divisions play their round robins to the
//! end, the creator builds the next edition (a player leaves, a newcomer enters), which starts
//! by itself at its start time with the promotion and relegation written out; a tournament
//! whose start time comes without its minimum is cancelled.

use crate::common;
use crate::tournaments::{act, check_finished, entered, play_out, players, tournament};

use common::play::SendOk;
use common::{ok_json, problem, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .expect("an array")
        .iter()
        .map(|p| p.as_str().expect("a player").to_string())
        .collect()
}

/// Each division's players, in standings order, from a finished league's standings.
fn standings_by_division(t: &Value) -> Vec<Vec<String>> {
    let mut divisions: Vec<Vec<String>> = Vec::new();
    for row in t["standings"].as_array().expect("standings") {
        let d = row["division"].as_u64().expect("a division") as usize;
        if divisions.len() < d {
            divisions.resize(d, Vec::new());
        }
        divisions[d - 1].push(row["player"].as_str().expect("player").to_string());
    }
    divisions
}

/// Reads tournament `id` until its status is `status` (the driver acts every two seconds).
fn wait_for(app: &TestApp, id: &str, status: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let t = tournament(app, id);
        if t["status"] == status {
            return t;
        }
        assert!(Instant::now() < deadline, "{id} never {status}: {t}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn next(app: &TestApp, by: &Player, id: &str, body: &Value) -> reqwest::blocking::Response {
    app.post(&format!("/v1/tournaments/{id}/next"), Some(by))
        .json(body)
        .send()
        .expect("request")
}

fn in_seconds(seconds: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::seconds(seconds)).to_rfc3339()
}

#[test]
fn a_league_of_two_divisions_plays_to_its_end_and_its_next_edition_starts_on_time() {
    let app = TestApp::spawn();
    let mut everyone = players(&app, 8);
    let newcomer = everyone.pop().expect("eight");
    let id = entered(
        &app,
        &everyone,
        json!({"name": "Chess league", "kind": "avalanche-chess", "format": "league", "seats": 2,
            "league": {"division_size": 4, "promoted": 1, "relegated": 1}}),
    );
    let started = tournament(&app, &id);
    // Seven players in divisions of at most four: two, of four and three.
    let divisions: Vec<Vec<String>> = started["divisions"]
        .as_array()
        .expect("divisions")
        .iter()
        .map(strings)
        .collect();
    assert_eq!(
        divisions.iter().map(Vec::len).collect::<Vec<_>>(),
        vec![4, 3],
        "{started}"
    );
    assert_eq!(started["league"]["edition"], 1);
    assert_eq!(
        started["tie_breaks"],
        json!(["sonneborn_berger", "head_to_head"])
    );
    let early = next(
        &app,
        &everyone[0],
        &id,
        &json!({"entry_until": in_seconds(60)}),
    );
    assert_eq!(problem(early, StatusCode::CONFLICT), "edition_not_finished");

    let first = play_out(&app, &id, &everyone, 61);
    check_finished(&app, &first, 7, true);
    // Each division met within itself: every pair of a division once, no pair across.
    for round in first["rounds_played"].as_array().expect("rounds") {
        for table in round["tables"].as_array().expect("tables") {
            let seats = strings(&table["players"]);
            assert!(
                divisions
                    .iter()
                    .any(|d| seats.iter().all(|p| d.contains(p))),
                "a game across divisions: {table}"
            );
        }
    }
    assert_eq!(first["rounds_played"].as_array().expect("rounds").len(), 3);
    let ranked = standings_by_division(&first);
    for (division, players) in ranked.iter().zip(&divisions) {
        let mut a = division.clone();
        let mut b = players.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b, "the standings keep the divisions");
    }
    for row in first["standings"].as_array().expect("standings") {
        let of = row["division"].as_u64().expect("division") as usize;
        assert!(row["rank"].as_u64().expect("rank") as usize <= divisions[of - 1].len());
    }
    assert_eq!(
        first["standings"][4]["rank"], 1,
        "ranks count within a division"
    );

    // Only its creator builds the next edition, once.
    let by_id = |name: &str| {
        everyone
            .iter()
            .find(|p| p.id == name)
            .expect("a player")
            .clone()
    };
    let body = json!({"entry_until": in_seconds(15), "starts_at": in_seconds(15)});
    let other = next(&app, &everyone[1], &id, &body);
    assert_eq!(problem(other, StatusCode::FORBIDDEN), "forbidden");
    let second = ok_json(
        next(&app, &everyone[0], &id, &body).send_ok(),
        StatusCode::CREATED,
    );
    let again = next(&app, &everyone[0], &id, &body);
    assert_eq!(problem(again, StatusCode::CONFLICT), "next_edition_exists");
    let second_id = second["id"].as_str().expect("id").to_string();
    assert_eq!(second["status"], "open");
    assert_eq!(second["league"]["edition"], 2);
    assert_eq!(second["league"]["previous"], id.as_str());
    assert_eq!(second["league"]["carried"], json!(ranked));
    assert_eq!(tournament(&app, &id)["next_edition"], second_id.as_str());
    let mut carried = strings(&second["players"]);
    let mut all = ranked.concat();
    carried.sort();
    all.sort();
    assert_eq!(carried, all, "the players of the last edition are entered");

    // A tournament due at the same time without its minimum is cancelled then.
    let lonely = ok_json(
        app.post("/v1/tournaments", Some(&newcomer))
            .json(
                &json!({"name": "Lonely cup", "kind": "avalanche-chess", "format": "round_robin",
                "seats": 2, "entry_until": in_seconds(15), "starts_at": in_seconds(15),
                "min_players": 4, "max_players": 8}),
            )
            .send(),
        StatusCode::CREATED,
    );
    let lonely_id = lonely["id"].as_str().expect("id");
    ok_json(
        act(&app, &newcomer, lonely_id, "join").send_ok(),
        StatusCode::OK,
    );

    // The first division's second leaves; a newcomer enters.
    let leaver = by_id(&ranked[0][1]);
    ok_json(
        act(&app, &leaver, &second_id, "withdraw").send_ok(),
        StatusCode::OK,
    );
    ok_json(
        act(&app, &newcomer, &second_id, "join").send_ok(),
        StatusCode::OK,
    );

    let running = wait_for(&app, &second_id, "running");
    let divisions: Vec<Vec<String>> = running["divisions"]
        .as_array()
        .expect("divisions")
        .iter()
        .map(strings)
        .collect();
    // Division one kept its first and third, lost its last (down) and gained the second
    // division's winner; division two: who came down, the rest of it, then the newcomer.
    let (one, two) = (&ranked[0], &ranked[1]);
    let mut expected_one = vec![one[0].clone(), one[2].clone(), two[0].clone()];
    let mut got_one = divisions[0].clone();
    expected_one.sort();
    got_one.sort();
    assert_eq!(got_one, expected_one, "{running}");
    assert_eq!(
        divisions[1],
        vec![
            one[3].clone(),
            two[1].clone(),
            two[2].clone(),
            newcomer.id.clone()
        ],
        "{running}"
    );
    let moves = running["moves"].as_array().expect("moves");
    for (player, from, to) in [
        (&leaver.id, json!(1), Value::Null),
        (&two[0], json!(2), json!(1)),
        (&one[3], json!(1), json!(2)),
        (&newcomer.id, Value::Null, json!(2)),
    ] {
        assert!(
            moves
                .iter()
                .any(|m| m["player"] == player.as_str() && m["from"] == from && m["to"] == to),
            "{player} from {from} to {to}: {moves:?}"
        );
    }
    assert_eq!(moves.len(), 4, "{moves:?}");

    let cancelled = wait_for(&app, lonely_id, "cancelled");
    assert!(
        cancelled["cancelled"]
            .as_str()
            .expect("a reason")
            .contains("1 joined, fewer than the 4 players this tournament starts with"),
        "{cancelled}"
    );
    let late = act(&app, &everyone[2], lonely_id, "join");
    assert_eq!(problem(late, StatusCode::CONFLICT), "tournament_started");
    let listed = ok_json(
        app.get("/v1/tournaments?status=cancelled", None).send(),
        StatusCode::OK,
    );
    assert!(listed["items"]
        .as_array()
        .expect("items")
        .iter()
        .any(|t| t["id"] == lonely_id));

    // The second edition plays to its end, audited.
    let mut seated: Vec<Player> = everyone
        .iter()
        .filter(|p| p.id != leaver.id)
        .cloned()
        .collect();
    seated.push(newcomer);
    let end = play_out(&app, &second_id, &seated, 62);
    check_finished(&app, &end, 7, true);
}
