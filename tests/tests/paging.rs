//! "Every list the API returns ... returns a `next` cursor, or null when there is no more; the
//! order is stable": each list, walked page after page by its `next`, gives every item once,
//! in its order, and says null after its last page.

use crate::common;

use app::webhooks::address::AddressPolicy;
use app::webhooks::delivery::DeliverySettings;
use common::{ok_json, problem, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::Arc;

/// Walks `path` (with a `limit`) by its `next` cursors: every page's items, and how many pages.
fn walk(app: &TestApp, path: &str, player: Option<&Player>) -> (Vec<Value>, usize) {
    let mut items = Vec::new();
    let mut pages = 0;
    // A path that names where to begin (`after=`) begins there.
    let (path, mut after) = match path.split_once("&after=") {
        Some((path, after)) => (path, Some(after.to_string())),
        None => (path, None),
    };
    loop {
        let url = match &after {
            None => path.to_string(),
            Some(next) => format!("{path}&after={next}"),
        };
        let page = ok_json(app.get(&url, player).send(), StatusCode::OK);
        pages += 1;
        let got = page["items"].as_array().expect("items").clone();
        assert!(
            !got.is_empty() || pages == 1,
            "an empty page after a next: {url}"
        );
        items.extend(got);
        match &page["next"] {
            Value::Null => return (items, pages),
            Value::String(next) => after = Some(next.clone()),
            other => panic!("next is a string or null: {other}"),
        }
        assert!(pages < 100, "the walk ends");
    }
}

fn ids(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .map(|i| i["id"].as_str().expect("id").to_string())
        .collect()
}

/// Every item once: the same as the whole list in one page.
fn once_each(walked: &[Value], whole: &[Value], what: &str) {
    assert_eq!(
        ids(walked),
        ids(whole),
        "{what}: walked page by page vs whole"
    );
    let mut unique = ids(walked);
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), walked.len(), "{what}: nothing twice");
}

#[test]
fn every_list_walked_by_its_next_cursors_gives_each_item_once() {
    let app = TestApp::spawn_with(DeliverySettings {
        addresses: Arc::new(AddressPolicy {
            allow_http: true,
            allowed_hosts: vec!["127.0.0.1".into()],
        }),
        ..DeliverySettings::default()
    });
    let ana = app.create_player("Ana");
    let ben = app.create_player("Ben");
    // Seven games of Ana's: five started with Ben (Ana to act in those where she is White),
    // two open.
    let mut games = Vec::new();
    for n in 0..7 {
        let seat = if n % 2 == 0 { 0 } else { 1 };
        let id = app.create_game(
            &ana,
            json!({"kind": "avalanche-chess", "seats": 2, "seat": seat}),
        );
        if n < 5 {
            app.join(&ben, &id);
        }
        games.push(id);
    }

    // The lobby, by id; a page's `next` is its last id.
    let (all, _) = walk(&app, "/v1/games?limit=200", None);
    assert_eq!(all.len(), 7);
    let (walked, pages) = walk(&app, "/v1/games?limit=2", None);
    assert_eq!(pages, 4);
    once_each(&walked, &all, "GET /v1/games");
    let mut sorted = ids(&walked);
    sorted.sort();
    assert_eq!(ids(&walked), sorted, "in id order");
    let (open, pages) = walk(&app, "/v1/games?status=open&limit=1", None);
    assert_eq!((open.len(), pages), (2, 2));
    // A page that ends the list says so (no empty page to fetch).
    let whole = ok_json(app.get("/v1/games?limit=7", None).send(), StatusCode::OK);
    assert_eq!(whole["next"], Value::Null);

    // My games, by id, and where it is my turn, most urgent first.
    let (mine, _) = walk(&app, "/v1/players/me/games?limit=200", Some(&ana));
    let (walked, pages) = walk(&app, "/v1/players/me/games?limit=3", Some(&ana));
    assert_eq!(pages, 3);
    once_each(&walked, &mine, "GET /v1/players/me/games");
    let (turn, _) = walk(&app, "/v1/players/me/games?turn=mine&limit=200", Some(&ana));
    assert_eq!(turn.len(), 3, "Ana is White in three started games");
    let (walked, pages) = walk(&app, "/v1/players/me/games?turn=mine&limit=1", Some(&ana));
    assert_eq!(pages, 3);
    once_each(&walked, &turn, "GET /v1/players/me/games?turn=mine");
    // A game of the first page leaves the list before the next page is asked for: the walk
    // goes on where it was, nothing skipped, nothing twice.
    let first = ok_json(
        app.get("/v1/players/me/games?turn=mine&limit=1", Some(&ana))
            .send(),
        StatusCode::OK,
    );
    let gone = first["items"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(
        app.play(
            &ana,
            &gone,
            &json!({"type": "turn", "move": "e2e4", "push": "a6"})
        )
        .status(),
        StatusCode::OK
    );
    let next = first["next"].as_str().unwrap();
    let (rest, _) = walk(
        &app,
        &format!("/v1/players/me/games?turn=mine&limit=1&after={next}"),
        Some(&ana),
    );
    assert_eq!(ids(&rest), ids(&turn[1..]));

    // Forks of a game, by id.
    let parent = &games[0];
    for _ in 0..3 {
        ok_json(
            app.post(&format!("/v1/games/{parent}/forks"), Some(&ana))
                .json(&json!({"version": 4}))
                .send(),
            StatusCode::CREATED,
        );
    }
    let (forks, _) = walk(&app, &format!("/v1/games/{parent}/forks?limit=200"), None);
    assert_eq!(forks.len(), 3);
    let (walked, pages) = walk(&app, &format!("/v1/games/{parent}/forks?limit=2"), None);
    assert_eq!(pages, 2);
    once_each(&walked, &forks, "GET /v1/games/{id}/forks");

    // Tokens, oldest first; the walk goes on after a token revoked meanwhile.
    for n in 0..5 {
        ok_json(
            app.post("/v1/players/me/tokens", Some(&ana))
                .json(&json!({"label": format!("device {n}")}))
                .send(),
            StatusCode::CREATED,
        );
    }
    let (tokens, _) = walk(&app, "/v1/players/me/tokens?limit=200", Some(&ana));
    assert_eq!(tokens.len(), 6);
    let (walked, pages) = walk(&app, "/v1/players/me/tokens?limit=2", Some(&ana));
    assert_eq!(pages, 3);
    once_each(&walked, &tokens, "GET /v1/players/me/tokens");
    let first = ok_json(
        app.get("/v1/players/me/tokens?limit=2", Some(&ana)).send(),
        StatusCode::OK,
    );
    let last_of_first = first["items"][1]["id"].as_str().unwrap();
    assert_eq!(
        app.client
            .delete(app.url(&format!("/v1/players/me/tokens/{last_of_first}")))
            .bearer_auth(&ana.token)
            .send()
            .unwrap()
            .status(),
        StatusCode::NO_CONTENT
    );
    let next = first["next"].as_str().unwrap();
    let (rest, _) = walk(
        &app,
        &format!("/v1/players/me/tokens?limit=2&after={next}"),
        Some(&ana),
    );
    assert_eq!(ids(&rest), ids(&tokens[2..]));

    // Webhooks, by id.
    for n in 0..3 {
        ok_json(
            app.post("/v1/players/me/webhooks", Some(&ben))
                .json(&json!({"url": format!("http://127.0.0.1:9/hook{n}")}))
                .send(),
            StatusCode::CREATED,
        );
    }
    let (hooks, _) = walk(&app, "/v1/players/me/webhooks?limit=200", Some(&ben));
    assert_eq!(hooks.len(), 3);
    let (walked, pages) = walk(&app, "/v1/players/me/webhooks?limit=2", Some(&ben));
    assert_eq!(pages, 2);
    once_each(&walked, &hooks, "GET /v1/players/me/webhooks");

    // The games offered, in the server's order.
    let (kinds, pages) = walk(&app, "/v1/kinds?limit=200", None);
    assert_eq!((kinds.len(), pages), (5, 1));
    let (walked, pages) = walk(&app, "/v1/kinds?limit=2", None);
    assert_eq!(pages, 3);
    let names = |items: &[Value]| -> Vec<String> {
        items
            .iter()
            .map(|k| k["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&walked), names(&kinds));

    // The event log: `next` is the version to read after, null once a page reaches the
    // game's version.
    let game = &games[0];
    let mut events = Vec::new();
    let mut after = 0;
    let mut pages = 0;
    loop {
        let page = ok_json(
            app.get(
                &format!("/v1/games/{game}/events?after={after}&limit=2"),
                None,
            )
            .send(),
            StatusCode::OK,
        );
        pages += 1;
        let got = page["events"].as_array().unwrap();
        events.extend(got.iter().map(|e| e["version"].as_u64().unwrap()));
        match page["next"].as_u64() {
            Some(next) => {
                assert_eq!(Some(next), events.last().copied());
                after = next;
            }
            None => {
                assert!(page["next"].is_null());
                assert_eq!(events.last().copied(), page["version"].as_u64());
                break;
            }
        }
    }
    let version = app.game(None, game)["version"].as_u64().unwrap();
    assert_eq!(events, (1..=version).collect::<Vec<_>>());
    assert_eq!(pages as u64, version.div_ceil(2));

    // Nothing asked for is refused, in every list.
    for path in [
        "/v1/games?limit=0",
        "/v1/players/me/games?limit=0",
        "/v1/players/me/tokens?limit=0",
        "/v1/players/me/webhooks?limit=0",
        "/v1/kinds?limit=0",
    ] {
        let refused = app.get(path, Some(&ana)).send().unwrap();
        assert_eq!(
            common::problem(refused, StatusCode::BAD_REQUEST),
            "bad_query",
            "{path}"
        );
    }
}

/// A cursor that no page gave (garbage) is refused as such, rather than read as "after
/// everything" (an empty page, as if the list had ended); so is a `limit` beyond the
/// document's `maximum`, which the document says and the server now keeps.
#[test]
fn a_cursor_no_page_gave_and_a_limit_beyond_the_maximum_are_refused() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let game = app.create_game(&ana, json!({"kind": "avalanche-chess", "seats": 2}));
    let contract: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../openapi/openapi.json"
        ))
        .expect("the committed document"),
    )
    .expect("JSON");
    for (template, path) in [
        ("/v1/games", "/v1/games".to_string()),
        ("/v1/players/me/games", "/v1/players/me/games".to_string()),
        (
            "/v1/players/me/games",
            "/v1/players/me/games?turn=mine".to_string(),
        ),
        ("/v1/games/{id}/forks", format!("/v1/games/{game}/forks")),
        (
            "/v1/players/me/webhooks",
            "/v1/players/me/webhooks".to_string(),
        ),
        ("/v1/players/me/tokens", "/v1/players/me/tokens".to_string()),
        ("/v1/kinds", "/v1/kinds".to_string()),
    ] {
        let join = if path.contains('?') { '&' } else { '?' };
        for garbage in ["zzz", "g-", "g-!!", "999999"] {
            let answer = app
                .get(&format!("{path}{join}after={garbage}"), Some(&ana))
                .send()
                .expect("an answer");
            assert_eq!(
                problem(answer, StatusCode::BAD_REQUEST),
                "bad_query",
                "{path} after={garbage}"
            );
        }
        let most = contract["paths"][template]["get"]["parameters"]
            .as_array()
            .and_then(|ps| ps.iter().find(|p| p["name"] == "limit"))
            .and_then(|p| p["schema"]["maximum"].as_u64())
            .unwrap_or_else(|| panic!("{template} declares its largest limit"));
        let beyond = app
            .get(&format!("{path}{join}limit={}", most + 1), Some(&ana))
            .send()
            .expect("an answer");
        assert_eq!(
            problem(beyond, StatusCode::BAD_REQUEST),
            "bad_query",
            "{path} limit={}",
            most + 1
        );
        let at_most = app
            .get(&format!("{path}{join}limit={most}"), Some(&ana))
            .send()
            .expect("an answer");
        assert_eq!(at_most.status(), StatusCode::OK, "{path} limit={most}");
    }
    // A well-formed id that is no item of the list still begins after it, as before.
    let page = ok_json(
        app.get("/v1/games?after=g-0000000000000000", None).send(),
        StatusCode::OK,
    );
    assert!(
        page["items"]
            .as_array()
            .is_some_and(|items| !items.is_empty()),
        "{page}"
    );
}
