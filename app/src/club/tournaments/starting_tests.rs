//! The driver starts a round's games together, a bounded number at a time: on a store whose
//! game creations wait for one another, as appends wait for a shared commit.

use super::*;
use crate::sealing::SecretsKey;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use storage::{
    Appended, BoxFuture, Coordination, Envelope, EventStore, MemoryStore, RecordStore,
    StorageError, StoredCommand,
};
use tokio::sync::watch;

/// How long a game's creation waits for the others before it goes on alone.
const PATIENCE: Duration = Duration::from_secs(1);

/// A memory store whose game creations (a game stream's first append) wait until `STARTING`
/// of them are under way, or `PATIENCE` passed; it counts the most under way at once.
struct Gathering {
    inner: MemoryStore,
    under_way: AtomicUsize,
    most: AtomicUsize,
    gathered: watch::Sender<bool>,
}

impl EventStore for Gathering {
    fn append<'a>(
        &'a self,
        stream: &'a str,
        expected_version: u64,
        batch: Batch,
    ) -> BoxFuture<'a, Result<Appended, AppendError>> {
        if expected_version != 0 || !stream.starts_with("g-") {
            return self.inner.append(stream, expected_version, batch);
        }
        Box::pin(async move {
            let now = self.under_way.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            if now >= STARTING {
                self.gathered.send_replace(true);
            }
            let mut gathered = self.gathered.subscribe();
            let _ = tokio::time::timeout(PATIENCE, gathered.wait_for(|g| *g)).await;
            let appended = self.inner.append(stream, expected_version, batch).await;
            self.under_way.fetch_sub(1, Ordering::SeqCst);
            appended
        })
    }
    fn retag<'a>(
        &'a self,
        stream: &'a str,
        expected_version: u64,
        tags: Vec<(String, String)>,
    ) -> BoxFuture<'a, Result<(), AppendError>> {
        self.inner.retag(stream, expected_version, tags)
    }
    fn append_blocking(
        &self,
        stream: &str,
        expected_version: u64,
        batch: Batch,
    ) -> Result<Appended, AppendError> {
        self.inner.append_blocking(stream, expected_version, batch)
    }
    fn store_id(&self) -> u64 {
        self.inner.store_id()
    }
    fn head(&self, stream: &str) -> Result<u64, StorageError> {
        self.inner.head(stream)
    }
    fn appended_for(
        &self,
        stream: &str,
        command_id: &str,
    ) -> Result<Option<Appended>, StorageError> {
        self.inner.appended_for(stream, command_id)
    }
    fn read_stream(
        &self,
        stream: &str,
        after_version: u64,
        limit: usize,
    ) -> Result<Vec<Envelope>, StorageError> {
        self.inner.read_stream(stream, after_version, limit)
    }
    fn read_all(&self, after_position: u64, limit: usize) -> Result<Vec<Envelope>, StorageError> {
        self.inner.read_all(after_position, limit)
    }
    fn command(&self, stream: &str, version: u64) -> Result<Option<StoredCommand>, StorageError> {
        self.inner.command(stream, version)
    }
    fn streams_tagged(
        &self,
        name: &str,
        value: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StorageError> {
        self.inner.streams_tagged(name, value, after, limit)
    }
    fn tags(&self, stream: &str) -> Result<Vec<(String, String)>, StorageError> {
        self.inner.tags(stream)
    }
    fn secret(&self, stream: &str, name: &str) -> Result<Option<Vec<u8>>, StorageError> {
        self.inner.secret(stream, name)
    }
    fn replace_secret(&self, stream: &str, name: &str, value: &[u8]) -> Result<bool, StorageError> {
        self.inner.replace_secret(stream, name, value)
    }
    fn wait_for<'a>(
        &'a self,
        stream: &'a str,
        after_version: u64,
        timeout: Duration,
    ) -> BoxFuture<'a, u64> {
        self.inner.wait_for(stream, after_version, timeout)
    }
    fn subscribe_all(&self) -> watch::Receiver<u64> {
        self.inner.subscribe_all()
    }
}

impl Coordination for Gathering {
    fn shared(&self) -> bool {
        self.inner.shared()
    }
    fn try_lease(&self, name: &str) -> Result<bool, StorageError> {
        self.inner.try_lease(name)
    }
    fn holds_lease(&self, name: &str) -> bool {
        self.inner.holds_lease(name)
    }
    fn release_lease(&self, name: &str) {
        self.inner.release_lease(name)
    }
    fn broadcast<'a>(&'a self, message: &'a str) -> BoxFuture<'a, Result<(), StorageError>> {
        self.inner.broadcast(message)
    }
    fn subscribe_broadcasts(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.inner.subscribe_broadcasts()
    }
}

impl RecordStore for Gathering {
    fn put_record(&self, tree: &str, key: &str, value: &[u8]) -> Result<(), StorageError> {
        self.inner.put_record(tree, key, value)
    }
    fn put_record_async<'a>(
        &'a self,
        tree: &'a str,
        key: &'a str,
        value: &'a [u8],
    ) -> BoxFuture<'a, Result<(), StorageError>> {
        self.inner.put_record_async(tree, key, value)
    }
    fn get_record(&self, tree: &str, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        self.inner.get_record(tree, key)
    }
    fn records_with_prefix(
        &self,
        tree: &str,
        prefix: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, StorageError> {
        self.inner.records_with_prefix(tree, prefix)
    }
    fn remove_record_async<'a>(
        &'a self,
        tree: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, StorageError>> {
        self.inner.remove_record_async(tree, key)
    }
}

#[tokio::test]
async fn a_rounds_games_are_started_together_a_bounded_number_at_a_time() {
    let store = Arc::new(Gathering {
        inner: MemoryStore::new(),
        under_way: AtomicUsize::new(0),
        most: AtomicUsize::new(0),
        gathered: watch::channel(false).0,
    });
    let shared: Arc<dyn storage::Storage> = store.clone();
    let registry = Arc::new(domain::Registry::standard());
    let key = Arc::new(SecretsKey::generate().expect("a key"));
    let games = Games::new(shared.clone(), registry.clone(), key, 64);
    let club = Club::new(shared, registry);
    // Twice the bound of tables in round 1.
    let players: Vec<String> = (0..4 * STARTING).map(|i| format!("p{i}")).collect();
    let created = club
        .create_tournament(
            &games,
            &players[0],
            NewTournament {
                name: "Gathered Swiss".into(),
                kind: "avalanche-chess".into(),
                variant: None,
                options: None,
                format: Format::Swiss,
                seats: 2,
                rounds: Some(1),
                time_control: None,
                rated: false,
                entry_until: Utc::now() + chrono::Duration::days(1),
                min_players: 2,
                max_players: players.len(),
                starts_at: None,
                league: None,
            },
        )
        .await
        .expect("created");
    for player in &players {
        club.tournament_act(&games, &created.id, player, TournamentAct::Join)
            .await
            .expect("joined");
    }
    let started = club
        .tournament_act(&games, &created.id, &players[0], TournamentAct::Start)
        .await
        .expect("started");

    let round = &started.rounds_played[0];
    assert_eq!(round.tables.len(), 2 * STARTING);
    let book = club.read();
    for table in &round.tables {
        let game = book
            .games
            .get(&table.game)
            .expect("the table's game is made");
        assert!(game.started, "{} is seated in full", table.game);
    }
    // One after another, each creation would have waited alone; unbounded, all at once.
    assert_eq!(store.most.load(Ordering::SeqCst), STARTING);
}
