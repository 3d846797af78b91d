//! A store written before secrets were sealed: its seeds and webhook secrets are in clear. A
//! server starting on it reads them as they are, seals them in place once, and then reads
//! the same secrets sealed; no stream changes.

use app::sealing::{stored_in_clear, SecretsKey};
use app::webhooks::delivery::DeliverySettings;
use app::webhooks::{Webhook, Webhooks};
use app::{Games, NewGame};
use domain::engine::Viewer;
use domain::Registry;
use std::sync::Arc;
use storage::{MemoryStore, Storage};

fn new_game(kind: &str, seats: usize) -> NewGame {
    NewGame {
        kind: kind.to_string(),
        variant: None,
        options: None,
        seats,
        seat: None,
        time_control: None,
        rated: false,
        spectators_room: false,
    }
}

#[tokio::test]
async fn seeds_in_clear_are_read_then_sealed_once_and_the_games_stay_as_they_were() {
    let store: Arc<dyn Storage> = Arc::new(MemoryStore::new());
    let registry = Arc::new(Registry::standard());
    let key = Arc::new(SecretsKey::generate().expect("a key"));
    let games = Games::new(store.clone(), registry.clone(), key.clone(), 100);
    let mut ids = Vec::new();
    for (kind, seats) in [("avalanche", 3), ("ski-runs", 2), ("altitude", 2)] {
        let slot = games
            .create("p-1", new_game(kind, seats))
            .await
            .expect("created");
        ids.push(slot.lock().await.id.clone());
    }
    // As an older server wrote them: the same seeds, in clear.
    let mut seeds = Vec::new();
    for id in &ids {
        let sealed = store.secret(id, "seed").expect("reads").expect("a seed");
        assert!(
            !stored_in_clear(&sealed),
            "a new server seals what it writes"
        );
        let seed = key.open_seeds(id, "seed", &sealed).expect("opens");
        assert!(store.replace_secret(id, "seed", &seed).expect("replaces"));
        seeds.push(seed);
    }
    let events = store.read_all(0, 10_000).expect("reads");

    // A server starting on it reads them as they are...
    let games = Games::new(store.clone(), registry.clone(), key.clone(), 100);
    let mut views = Vec::new();
    for id in &ids {
        let slot = games.slot(id).expect("folds with its seed in clear");
        let slot = slot.lock().await;
        views.push(slot.game.view(Viewer::Spectator));
    }
    // ...seals them once...
    assert_eq!(games.seal_legacy_secrets().expect("seals"), ids.len());
    assert_eq!(games.seal_legacy_secrets().expect("seals"), 0, "once");
    for (id, seed) in ids.iter().zip(&seeds) {
        let stored = store.secret(id, "seed").expect("reads").expect("a seed");
        assert!(!stored_in_clear(&stored), "{id} is sealed now");
        assert_eq!(&key.open_seeds(id, "seed", &stored).expect("opens"), seed);
    }
    assert_eq!(store.read_all(0, 10_000).expect("reads"), events);

    // ...and the next server folds the same games from the sealed seeds.
    let next = Games::new(store.clone(), registry, key, 100);
    for (id, view) in ids.iter().zip(&views) {
        let slot = next.slot(id).expect("folds with its seed sealed");
        let slot = slot.lock().await;
        assert_eq!(&slot.game.view(Viewer::Spectator), view);
    }
}

#[tokio::test]
async fn a_webhook_secret_in_clear_is_sealed_when_the_webhooks_start() {
    let store: Arc<dyn Storage> = Arc::new(MemoryStore::new());
    let registry = Arc::new(Registry::standard());
    let key = Arc::new(SecretsKey::generate().expect("a key"));
    let hook = Webhook {
        id: "wh-0123456789abcdef".into(),
        player_id: "p-1".into(),
        url: "https://example.com/avalanche".into(),
        secret: "whsec_0011223344556677".into(),
        created_at: chrono::Utc::now(),
        failing: None,
    };
    // As an older server wrote it.
    let record = serde_json::to_vec(&hook).expect("serializes");
    store
        .put_record("webhooks", "p-1/wh-0123456789abcdef", &record)
        .expect("writes");

    let webhooks = Webhooks::start(
        store.clone(),
        registry,
        key.clone(),
        DeliverySettings::default(),
        Arc::new(app::leases::Leases::new(store.clone())),
    )
    .expect("the webhooks start");

    let stored = store
        .get_record("webhooks", "p-1/wh-0123456789abcdef")
        .expect("reads")
        .expect("still there");
    assert!(
        !String::from_utf8_lossy(&stored).contains("whsec_0011223344556677"),
        "sealed in its record"
    );
    let listed = webhooks.list("p-1").expect("lists");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].secret, "whsec_0011223344556677");
}
