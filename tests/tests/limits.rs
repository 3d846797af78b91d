//! Quotas and rate limits: "player creation per client address, games created and open seats
//! held per player, commands per player per second, concurrent streams per player; excess
//! answered 429 with Retry-After and a problem that says which limit; a test for each."

use crate::common;

use app::limits::LimitSettings;
use common::binary::Server;
use common::TestApp;
use reqwest::blocking::Response;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

fn none() -> LimitSettings {
    LimitSettings::unlimited()
}

/// The problem of a 429, after checking its `Retry-After` and the limit it names.
fn limited(response: Response, limit: &str) -> Value {
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = response
        .headers()
        .get("Retry-After")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("a Retry-After in seconds");
    assert!(retry_after >= 1);
    let problem: Value = response.json().expect("a problem");
    assert_eq!(problem["code"], "rate_limited");
    assert_eq!(problem["details"]["limit"], limit, "{problem}");
    assert_eq!(problem["details"]["retry_after_seconds"], retry_after);
    problem
}

#[test]
fn players_created_from_one_address_are_limited() {
    let app = TestApp::spawn_limited(LimitSettings {
        players_per_hour_per_address: 3,
        ..none()
    });
    for n in 0..3 {
        app.create_player(&format!("P{n}"));
    }
    let refused = app
        .post("/v1/players", None)
        .json(&json!({"name": "P4"}))
        .send()
        .unwrap();
    let problem = limited(refused, "players_per_address");
    assert!(problem["detail"]
        .as_str()
        .unwrap()
        .contains("players created"));
}

#[test]
fn games_created_by_one_player_are_limited_and_others_are_not() {
    let app = TestApp::spawn_limited(LimitSettings {
        games_per_hour_per_player: 2,
        ..none()
    });
    let ana = app.create_player("Ana");
    let ben = app.create_player("Ben");
    for _ in 0..2 {
        app.create_game(&ana, json!({"kind": "altitude", "seats": 2}));
    }
    let refused = app
        .post("/v1/games", Some(&ana))
        .json(&json!({"kind": "altitude", "seats": 2}))
        .send()
        .unwrap();
    limited(refused, "games_per_player");
    app.create_game(&ben, json!({"kind": "altitude", "seats": 2}));
}

#[test]
fn open_seats_held_by_one_player_are_limited_until_a_game_starts() {
    let app = TestApp::spawn_limited(LimitSettings {
        open_seats_per_player: 2,
        ..none()
    });
    let ana = app.create_player("Ana");
    let ben = app.create_player("Ben");
    let first = app.create_game(&ana, json!({"kind": "altitude", "seats": 2}));
    app.create_game(&ana, json!({"kind": "avalanche", "seats": 3}));
    let refused = app
        .post("/v1/games", Some(&ana))
        .json(&json!({"kind": "altitude", "seats": 2}))
        .send()
        .unwrap();
    let problem = limited(refused, "open_seats_per_player");
    assert!(problem["detail"].as_str().unwrap().contains("2 games"));
    // Joining a game that then still waits is one more open seat too.
    let bens = app.create_game(&ben, json!({"kind": "avalanche", "seats": 3}));
    let refused = app
        .post(&format!("/v1/games/{bens}/join"), Some(&ana))
        .send()
        .unwrap();
    limited(refused, "open_seats_per_player");
    // A join that starts the game is always taken; once started, the seat is no longer open.
    app.join(&ben, &first);
    app.create_game(&ana, json!({"kind": "altitude", "seats": 2}));
}

#[test]
fn commands_of_one_player_are_limited_per_second() {
    let app = TestApp::spawn_limited(LimitSettings {
        commands_per_second_per_player: 1,
        ..none()
    });
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    // The joins spent the second seat's two at once; it may play again after a second.
    let white = &players[0];
    let draw = |player: &common::Player| {
        app.post(&format!("/v1/games/{id}/commands"), Some(player))
            .json(&json!({"type": "offer_draw"}))
            .send()
            .unwrap()
    };
    let mut statuses = Vec::new();
    for _ in 0..4 {
        statuses.push(draw(white));
        if statuses.last().unwrap().status() == StatusCode::TOO_MANY_REQUESTS {
            break;
        }
    }
    let last = statuses.pop().unwrap();
    limited(last, "commands_per_player");
    std::thread::sleep(Duration::from_millis(1100));
    let again = draw(white);
    assert_ne!(again.status(), StatusCode::TOO_MANY_REQUESTS);
}

#[test]
fn streams_held_open_by_one_player_are_limited_and_freed_when_they_end() {
    let app = TestApp::spawn_limited(LimitSettings {
        streams_per_player: 2,
        ..none()
    });
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let ana = &players[0];
    let open = |player: &common::Player| {
        app.client
            .get(app.url(&format!("/v1/games/{id}/stream")))
            .bearer_auth(&player.token)
            .send()
            .unwrap()
    };
    let first = open(ana);
    let second = open(ana);
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(second.status(), StatusCode::OK);
    // A long-poll waits among the same streams.
    let poll = app
        .get(
            &format!("/v1/games/{id}/events?after=1000&wait=5"),
            Some(ana),
        )
        .send()
        .unwrap();
    limited(poll, "streams_per_player");
    limited(open(ana), "streams_per_player");
    // Ben's are his own.
    assert_eq!(open(&players[1]).status(), StatusCode::OK);
    drop(first);
    let started = std::time::Instant::now();
    loop {
        let third = open(ana);
        if third.status() == StatusCode::OK {
            break;
        }
        // The server learns that a client left when a keep-alive (every 15 s) fails to be
        // written: within two of them.
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "a closed stream frees its place"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The real binary has limits on by default, each a setting.
#[test]
fn the_binary_limits_by_default_and_each_limit_is_a_setting() {
    // By default: one player may hold at most 16 streams.
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with_limits(dir.path(), &[]);
    let (id, players) = server.app.full_game("altitude", 2, json!({}));
    let streams: Vec<Response> = (0..16)
        .map(|_| {
            server
                .app
                .get(&format!("/v1/games/{id}/stream"), Some(&players[0]))
                .send()
                .unwrap()
        })
        .collect();
    assert!(streams.iter().all(|s| s.status() == StatusCode::OK));
    let seventeenth = server
        .app
        .get(&format!("/v1/games/{id}/stream"), Some(&players[0]))
        .send()
        .unwrap();
    limited(seventeenth, "streams_per_player");
    drop(server);

    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with_limits(dir.path(), &["--limit-players-per-hour", "2"]);
    for n in 0..2 {
        server.app.create_player(&format!("P{n}"));
    }
    let refused = server
        .app
        .post("/v1/players", None)
        .json(&json!({"name": "P3"}))
        .send()
        .unwrap();
    limited(refused, "players_per_address");
}

#[test]
fn forks_by_one_player_are_limited_an_hour() {
    let app = TestApp::spawn_limited(LimitSettings {
        forks_per_hour_per_player: 2,
        ..none()
    });
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let version = app.game(None, &id)["version"].as_u64().expect("version");
    let fork = |player: &common::Player| {
        app.post(&format!("/v1/games/{id}/forks"), Some(player))
            .json(&json!({"version": version}))
            .send()
            .unwrap()
    };
    for _ in 0..2 {
        assert_eq!(fork(&players[0]).status(), StatusCode::CREATED);
    }
    let problem = limited(fork(&players[0]), "forks_per_player");
    assert!(problem["detail"].as_str().unwrap().contains("forks"));
    // Nothing was stored for the refused fork.
    let forks: Value = app
        .get(&format!("/v1/games/{id}/forks"), None)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(forks["items"].as_array().map(Vec::len), Some(2), "{forks}");
    assert_eq!(fork(&players[1]).status(), StatusCode::CREATED);
}

#[test]
fn imports_by_one_player_are_limited_an_hour() {
    let app = TestApp::spawn_limited(LimitSettings {
        imports_per_hour_per_player: 2,
        ..none()
    });
    let ana = app.create_player("Ana");
    let import = || {
        app.post("/v1/imports", Some(&ana))
            .json(&json!({"format": "record", "variant": "standard", "record": "1. zz9 *"}))
            .send()
            .unwrap()
    };
    for _ in 0..2 {
        assert_ne!(import().status(), StatusCode::TOO_MANY_REQUESTS);
    }
    limited(import(), "imports_per_player");
}

#[test]
fn vacation_changes_are_limited_and_one_that_changes_nothing_writes_nothing() {
    let app = TestApp::spawn_limited(LimitSettings {
        vacation_changes_per_day_per_player: 4,
        ..none()
    });
    let (id, players) = app.full_game(
        "avalanche-chess",
        2,
        json!({"time_control": {"type": "seconds_per_move", "seconds": 3600}}),
    );
    let ana = &players[0];
    let toggle = |method: reqwest::Method| {
        app.client
            .request(method, app.url("/v1/players/me/vacation"))
            .bearer_auth(&ana.token)
            .send()
            .unwrap()
    };
    let version = || app.game(None, &id)["version"].as_u64().expect("version");
    let before = version();
    assert_eq!(toggle(reqwest::Method::POST).status(), StatusCode::OK);
    let away = version();
    assert!(away > before, "the clock stopped in the game");
    // Going away again changes nothing, and writes nothing.
    assert_eq!(toggle(reqwest::Method::POST).status(), StatusCode::CONFLICT);
    assert_eq!(version(), away);
    assert_eq!(toggle(reqwest::Method::DELETE).status(), StatusCode::OK);
    let back = version();
    assert!(back > away);
    // The fourth change of the day (the refused one counted) is the last.
    assert_eq!(toggle(reqwest::Method::POST).status(), StatusCode::OK);
    let last = version();
    assert!(last > back);
    limited(
        toggle(reqwest::Method::DELETE),
        "vacation_changes_per_player",
    );
    assert_eq!(version(), last, "a refused change writes nothing");
}

/// A player created as sent through a proxy that says the client is `client`.
fn create_behind(app: &TestApp, client: &str) -> Response {
    app.post("/v1/players", None)
        .header("X-Forwarded-For", client)
        .json(&json!({"name": "P"}))
        .send()
        .unwrap()
}

#[test]
fn behind_a_trusted_proxy_each_forwarded_client_counts_and_ipv6_by_its_64() {
    let app = TestApp::spawn_limited(LimitSettings {
        players_per_hour_per_address: 2,
        trusted_proxies: vec!["127.0.0.1/32".parse().unwrap()],
        ..none()
    });
    for _ in 0..2 {
        assert_eq!(
            create_behind(&app, "198.51.100.1").status(),
            StatusCode::CREATED
        );
    }
    limited(create_behind(&app, "198.51.100.1"), "players_per_address");
    // What the client wrote itself, left of what the proxy appended, is not believed.
    limited(
        create_behind(&app, "198.51.100.7, 198.51.100.1"),
        "players_per_address",
    );
    assert_eq!(
        create_behind(&app, "198.51.100.2").status(),
        StatusCode::CREATED
    );
    // Three addresses of one IPv6 /64 are one client.
    for n in 1..=2 {
        let address = format!("2001:db8:1:2::{n}");
        assert_eq!(create_behind(&app, &address).status(), StatusCode::CREATED);
    }
    limited(
        create_behind(&app, "2001:db8:1:2:ffff::3"),
        "players_per_address",
    );
    assert_eq!(
        create_behind(&app, "2001:db8:1:3::1").status(),
        StatusCode::CREATED
    );
}

#[test]
fn forwarded_for_from_an_untrusted_peer_is_ignored() {
    let app = TestApp::spawn_limited(LimitSettings {
        players_per_hour_per_address: 2,
        ..none()
    });
    for n in 0..2 {
        let client = format!("198.51.100.{n}");
        assert_eq!(create_behind(&app, &client).status(), StatusCode::CREATED);
    }
    limited(create_behind(&app, "198.51.100.9"), "players_per_address");
}
