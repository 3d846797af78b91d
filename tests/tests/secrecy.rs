//! Nothing secret leaks over HTTP: a spectator and every seat read every endpoint after every
//! command; once the game is over (and its whole log public), each answer must be exactly what
//! the rules show that viewer at that version. The engines' own tests prove that those views
//! and redacted events hold no other seat's card and no undrawn card; equality here proves the
//! server adds nothing to them, in views, event pages and command answers alike.

use crate::common;

use common::play::play_to_end;
use common::{Player, TestApp};
use domain::engine::Viewer;
use domain::Registry;
use serde_json::{json, Value};

/// What one reader got at one version.
struct Reading {
    viewer: Viewer,
    version: u64,
    view: Value,
    events: Vec<Value>,
}

fn read_all(app: &TestApp, id: &str, players: &[Player], readings: &mut Vec<Reading>) {
    let mut readers: Vec<(Option<&Player>, Viewer)> = players
        .iter()
        .enumerate()
        .map(|(seat, p)| (Some(p), Viewer::Seat(seat)))
        .collect();
    readers.push((None, Viewer::Spectator));
    for (player, viewer) in readers {
        let game = app.game(player, id);
        if game["status"] == "finished" {
            continue;
        }
        assert!(
            game.get("seed").is_none(),
            "the seed stays secret while the game runs"
        );
        let version = game["version"].as_u64().unwrap();
        let page = app.events(player, id, 0);
        if page["version"].as_u64() != Some(version) {
            continue; // moved on in between (cannot happen here: one client plays)
        }
        readings.push(Reading {
            viewer,
            version,
            view: game["view"].clone(),
            events: page["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["data"].clone())
                .collect(),
        });
    }
}

fn nothing_leaks(kind: &str, seats: usize, extra: Value) {
    let app = TestApp::spawn();
    let (id, players) = app.full_game(kind, seats, extra);
    let mut readings = Vec::new();
    let mut answers = Vec::new();
    read_all(&app, &id, &players, &mut readings);
    let end = play_to_end(&app, &id, &players, 11, 3_000, |answer| {
        answers.push(answer.clone());
        read_all(&app, &id, &players, &mut readings);
    });
    assert_eq!(end["status"], "finished");

    // The whole log, public now.
    let log: Vec<Value> = app.events(None, &id, 0)["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["data"].clone())
        .collect();
    let registry = Registry::standard();
    let rules = registry.get(kind).unwrap();
    for reading in &readings {
        let at = rules.fold(&log[..reading.version as usize]).unwrap();
        assert_eq!(
            reading.view,
            at.view(reading.viewer),
            "view of {:?} at {}",
            reading.viewer,
            reading.version
        );
        for (i, seen) in reading.events.iter().enumerate() {
            assert_eq!(
                seen,
                &rules.redact(&log[i], reading.viewer),
                "event {} for {:?}",
                i + 1,
                reading.viewer
            );
        }
    }
    // Command answers: the events as their player may see them.
    for answer in &answers {
        let Some(seat) = answer["game"]["your_seat"].as_u64() else {
            continue;
        };
        if answer["game"]["status"] == "finished" {
            continue;
        }
        for event in answer["events"].as_array().unwrap() {
            let version = event["version"].as_u64().unwrap() as usize;
            assert_eq!(
                event["data"],
                rules.redact(&log[version - 1], Viewer::Seat(seat as usize))
            );
        }
    }
    assert!(
        readings.len() > 50,
        "enough readings to mean something: {}",
        readings.len()
    );
}

#[test]
fn nothing_secret_leaks_in_avalanche() {
    nothing_leaks("avalanche", 3, json!({}));
}

#[test]
fn nothing_secret_leaks_in_ski_runs() {
    nothing_leaks("ski-runs", 3, json!({}));
}

#[test]
fn nothing_secret_leaks_in_vamanos() {
    nothing_leaks("vamanos", 2, json!({"options": {"target": 15}}));
}

#[test]
fn nothing_secret_leaks_in_altitude() {
    nothing_leaks("altitude", 2, json!({}));
}

/// A direct look, independent of the engines' own redaction: in the card game, a seat's view
/// holds its own hand and no other, and a spectator's holds none.
#[test]
fn another_seats_hand_is_never_in_a_view() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche", 3, json!({}));
    for (seat, player) in players.iter().enumerate() {
        let view = &app.game(Some(player), &id)["view"];
        for other in view["seats"].as_array().unwrap() {
            let hand = &other["hand"];
            if other["seat"] == seat {
                assert!(
                    hand.is_array() || hand.is_object(),
                    "own hand shown: {view}"
                );
            } else {
                assert!(hand.is_null(), "seat {seat} sees another hand: {view}");
            }
        }
        assert!(view["draw_pile"].is_null());
    }
    let view = &app.game(None, &id)["view"];
    assert!(view["seats"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["hand"].is_null()));
}
