//! `GET /v1/games/{id}/events` (pages and long-poll) and `GET /v1/games/{id}/stream` (SSE).

use crate::common;

use common::{ok_json, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::time::Duration;

#[test]
fn events_come_in_pages_after_a_version() {
    let app = TestApp::spawn();
    let (id, _) = app.full_game("avalanche-chess", 2, json!({}));
    let all = app.events(None, &id, 0);
    let total = all["events"].as_array().unwrap().len();
    assert_eq!(all["version"].as_u64().unwrap() as usize, total);
    let page: Value = app
        .get(&format!("/v1/games/{id}/events?after=1&limit=1"), None)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(page["events"].as_array().unwrap().len(), 1);
    assert_eq!(page["events"][0]["version"], 2);
    assert_eq!(page["events"][0]["type"], "seat_taken");
}

#[test]
fn a_long_poll_is_woken_by_a_command() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let v = app.game(None, &id)["version"].as_u64().unwrap();
    let page = std::thread::scope(|scope| {
        let waiting = scope.spawn(|| {
            ok_json(
                app.get(&format!("/v1/games/{id}/events?after={v}&wait=30"), None)
                    .send(),
                StatusCode::OK,
            )
        });
        std::thread::sleep(Duration::from_millis(300));
        ok_json(
            Ok(app.play(
                &players[0],
                &id,
                &json!({"type": "turn", "move": "Nf3", "push": "a6"}),
            )),
            StatusCode::OK,
        );
        waiting.join().unwrap()
    });
    let events = page["events"].as_array().unwrap();
    assert_eq!(
        events.len(),
        1,
        "the long-poll returned with the new event: {page}"
    );
    assert_eq!(events[0]["version"], v + 1);
    assert_eq!(events[0]["data"]["event"]["notation"], "Nf3/a6");
}

#[test]
fn a_long_poll_without_news_returns_empty_after_its_wait() {
    let app = TestApp::spawn();
    let (id, _) = app.full_game("avalanche-chess", 2, json!({}));
    let v = app.game(None, &id)["version"].as_u64().unwrap();
    let page = ok_json(
        app.get(&format!("/v1/games/{id}/events?after={v}&wait=1"), None)
            .send(),
        StatusCode::OK,
    );
    assert!(page["events"].as_array().unwrap().is_empty());
}

/// Reads a server-sent event stream to its end: (id, event type, data) of each event.
fn read_stream(response: reqwest::blocking::Response) -> Vec<(u64, String, Value)> {
    let mut events = Vec::new();
    let (mut id, mut kind, mut data) = (None, None, None);
    for line in BufReader::new(response).lines() {
        let line = line.expect("stream line");
        if let Some(v) = line.strip_prefix("id: ") {
            id = v.parse::<u64>().ok();
        } else if let Some(v) = line.strip_prefix("event: ") {
            kind = Some(v.to_string());
        } else if let Some(v) = line.strip_prefix("data: ") {
            data = serde_json::from_str::<Value>(v).ok();
        } else if line.is_empty() {
            if let (Some(i), Some(k), Some(d)) = (id.take(), kind.take(), data.take()) {
                events.push((i, k, d));
            }
        }
    }
    events
}

#[test]
fn the_stream_delivers_every_event_once_in_order_and_ends_with_the_game() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let spectator_stream = app
        .get(&format!("/v1/games/{id}/stream"), None)
        .send()
        .unwrap();
    assert_eq!(spectator_stream.status(), StatusCode::OK);
    assert!(spectator_stream.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let events = std::thread::scope(|scope| {
        let reader = scope.spawn(|| read_stream(spectator_stream));
        for (player, command) in [
            (0, json!({"type": "turn", "move": "e4", "push": "a6"})),
            (1, json!({"type": "turn", "move": "e5", "push": "h3"})),
            (0, json!({"type": "offer_draw"})),
            (1, json!({"type": "accept_draw"})),
        ] {
            std::thread::sleep(Duration::from_millis(50));
            ok_json(
                Ok(app.play(&players[player], &id, &command)),
                StatusCode::OK,
            );
        }
        reader.join().unwrap()
    });
    let final_version = app.game(None, &id)["version"].as_u64().unwrap();
    let ids: Vec<u64> = events.iter().map(|e| e.0).collect();
    assert_eq!(
        ids,
        (1..=final_version).collect::<Vec<_>>(),
        "each event once, in order"
    );
    assert_eq!(events.last().unwrap().1, "seed_revealed");
    let types: Vec<&str> = events.iter().map(|e| e.1.as_str()).collect();
    assert!(types.contains(&"draw_accepted"));
    // Resuming after the third event gives the rest.
    let resumed = app
        .get(&format!("/v1/games/{id}/stream"), None)
        .header("Last-Event-ID", "3")
        .send()
        .unwrap();
    let rest = read_stream(resumed);
    assert_eq!(rest.first().map(|e| e.0), Some(4));
    assert_eq!(rest.len() as u64, final_version - 3);
}

/// Reads frames of a stream until `count` events have come (the stream stays open).
fn read_events(response: reqwest::blocking::Response, count: usize) -> Vec<Value> {
    let mut data = Vec::new();
    for line in BufReader::new(response).lines() {
        let line = line.expect("stream line");
        if let Some(v) = line.strip_prefix("data: ") {
            data.push(serde_json::from_str::<Value>(v).expect("event json"));
            if data.len() == count {
                break;
            }
        }
    }
    data
}

#[test]
fn the_stream_is_shaped_for_its_viewer_like_the_event_pages() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche", 3, json!({}));
    let version = app.game(None, &id)["version"].as_u64().unwrap() as usize;
    for reader in [Some(&players[1]), None] {
        let stream = app
            .get(&format!("/v1/games/{id}/stream"), reader)
            .send()
            .unwrap();
        let streamed = read_events(stream, version);
        let paged = app.events(reader, &id, 0)["events"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(streamed, paged, "the stream shows what the pages show");
    }
    let seat_stream = read_events(
        app.get(&format!("/v1/games/{id}/stream"), Some(&players[1]))
            .send()
            .unwrap(),
        version,
    );
    let spectator_stream = read_events(
        app.get(&format!("/v1/games/{id}/stream"), None)
            .send()
            .unwrap(),
        version,
    );
    assert_ne!(
        seat_stream, spectator_stream,
        "a seat sees its own hand in the deal, a spectator does not"
    );
}
