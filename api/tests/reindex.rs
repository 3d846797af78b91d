//! A store written before the `status_kind` index entry existed: its games are found by a list
//! filtered by status and kind before the reindex (by walking the status) and after it (by the
//! entry the reindex added), the reindex changes no stream, and it runs once per store.

use app::lists::GameFilter;
use app::sealing::SecretsKey;
use app::{Games, NewGame};
use domain::table::Status;
use domain::Registry;
use std::sync::Arc;
use storage::{MemoryStore, Storage};

fn new_game(kind: &str) -> NewGame {
    NewGame {
        kind: kind.to_string(),
        variant: None,
        options: None,
        seats: 2,
        seat: None,
        time_control: None,
        rated: false,
        spectators_room: false,
    }
}

fn open_of(kind: &str) -> GameFilter {
    GameFilter {
        kind: Some(kind.to_string()),
        status: Some(Status::Open),
        after: None,
        limit: 50,
    }
}

async fn ids(games: &Games, filter: &GameFilter) -> Vec<String> {
    let mut ids = Vec::new();
    for slot in games.list(filter).expect("the list answers").items {
        ids.push(slot.lock().await.id.clone());
    }
    ids
}

/// Takes away every game's `status_kind` and `open_seat` entries, as a store written before
/// them has them.
async fn as_written_by_an_older_server(store: &dyn Storage) {
    for id in store
        .streams_tagged("listed", "all", None, usize::MAX)
        .expect("the index reads")
    {
        let head = store.head(&id).expect("reads");
        let older: Vec<_> = store
            .tags(&id)
            .expect("reads")
            .into_iter()
            .filter(|(name, _)| name != "status_kind" && name != "open_seat")
            .collect();
        store.retag(&id, head, older).await.expect("retags");
    }
}

#[tokio::test]
async fn an_older_stores_games_are_listed_by_status_and_kind_before_and_after_the_reindex() {
    let store: Arc<dyn Storage> = Arc::new(MemoryStore::new());
    let registry = Arc::new(Registry::standard());
    let key = Arc::new(SecretsKey::generate().expect("a key"));
    let games = Games::new(store.clone(), registry.clone(), key.clone(), 100);
    let mut altitude = Vec::new();
    for n in 0..3 {
        let slot = games
            .create(&format!("p-{n}"), new_game("altitude"))
            .await
            .expect("created");
        altitude.push(slot.lock().await.id.clone());
        games
            .create(&format!("p-{n}"), new_game("avalanche-chess"))
            .await
            .expect("created");
    }
    altitude.sort();
    as_written_by_an_older_server(store.as_ref()).await;
    assert!(store
        .streams_tagged("status_kind", "open/altitude", None, 10)
        .expect("reads")
        .is_empty());
    let events_before = store.read_all(0, 10_000).expect("reads");

    // A server starting on it: before the reindex, the list walks the status.
    let games = Games::new(store.clone(), registry.clone(), key.clone(), 100);
    assert!(!games.index_is_current());
    assert_eq!(ids(&games, &open_of("altitude")).await, altitude);
    let mut paged = open_of("altitude");
    paged.limit = 2;
    let first = ids(&games, &paged).await;
    paged.after = first.last().cloned();
    let rest = ids(&games, &paged).await;
    assert_eq!([first, rest].concat(), altitude);

    assert_eq!(games.reindex().await.expect("reindexes"), 6);

    assert!(games.index_is_current());
    assert_eq!(
        store
            .streams_tagged("status_kind", "open/altitude", None, 10)
            .expect("reads"),
        altitude
    );
    assert_eq!(ids(&games, &open_of("altitude")).await, altitude);
    for n in 0..3 {
        assert_eq!(
            store
                .streams_tagged("open_seat", &format!("p-{n}"), None, 10)
                .expect("reads")
                .len(),
            2,
            "each creator holds an open seat in two games"
        );
    }
    assert_eq!(store.read_all(0, 10_000).expect("reads"), events_before);

    // Once per store: the next server finds it done and changes nothing.
    let next = Games::new(store.clone(), registry, key, 100);
    assert_eq!(next.reindex().await.expect("reindexes"), 0);
    assert!(next.index_is_current());
}

#[tokio::test]
async fn a_new_store_is_current_after_its_first_start() {
    let store: Arc<dyn Storage> = Arc::new(MemoryStore::new());
    let key = Arc::new(SecretsKey::generate().expect("a key"));
    let games = Games::new(store.clone(), Arc::new(Registry::standard()), key, 100);
    assert_eq!(games.reindex().await.expect("reindexes"), 0);
    assert!(games.index_is_current());
    games
        .create("p-1", new_game("altitude"))
        .await
        .expect("created");
    assert_eq!(ids(&games, &open_of("altitude")).await.len(), 1);
}

#[tokio::test]
async fn an_older_stores_challenges_are_indexed_by_who_they_invite() {
    let store: Arc<dyn Storage> = Arc::new(MemoryStore::new());
    // A challenge issued by a server before challenges had index entries: none.
    let issued = storage::NewEvent {
        event_type: "challenge_issued".to_string(),
        schema_version: 1,
        payload: serde_json::json!({"type": "challenge_issued", "by": "p-1",
            "kind": "avalanche-chess", "invited": ["p-2"]}),
    };
    store
        .append_blocking(
            "c-older",
            0,
            storage::Batch::new("player:p-1", vec![issued]),
        )
        .expect("appended");
    assert!(store.tags("c-older").expect("reads").is_empty());
    let events_before = store.read_all(0, 10_000).expect("reads");
    let key = Arc::new(SecretsKey::generate().expect("a key"));
    let games = Games::new(store.clone(), Arc::new(Registry::standard()), key, 100);
    assert_eq!(games.reindex().await.expect("reindexes"), 1);
    assert!(games.index_is_current());
    assert_eq!(
        store
            .streams_tagged("invited", "p-2", None, 10)
            .expect("reads"),
        ["c-older"]
    );
    assert_eq!(store.read_all(0, 10_000).expect("reads"), events_before);
}
