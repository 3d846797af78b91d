//! Two stores on one PostgreSQL database, as two server processes would hold them: each one's
//! waiting readers wake on the other's appends, versions and idempotency keys hold across
//! both, and a listener whose connection is cut catches up once it is back.

use crate::common;

use crate::cluster;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{batch, command_batch};
use storage::{AppendError, PostgresStore, Storage};

fn two_nodes() -> (Arc<dyn Storage>, Arc<dyn Storage>, String) {
    let (one, other, url) = two_postgres_nodes();
    (Arc::new(one), Arc::new(other), url)
}

fn two_postgres_nodes() -> (PostgresStore, PostgresStore, String) {
    let url = cluster::Cluster::shared().new_database();
    let open = || PostgresStore::open_with(&url, 2).expect("the PostgreSQL store opens");
    (open(), open(), url)
}

/// Two nodes whose listeners are connected (see [`listening`]).
async fn two_listening_nodes() -> (Arc<dyn Storage>, Arc<dyn Storage>, String) {
    let (one, other, url) = two_postgres_nodes();
    listening(&[&one, &other]).await;
    (Arc::new(one), Arc::new(other), url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_waiting_on_one_node_wakes_when_the_other_appends() {
    let (one, other, _) = two_nodes();
    one.append("game-1", 0, batch(1)).await.expect("appends");
    let waiter = {
        let other = other.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let head = other.wait_for("game-1", 1, Duration::from_secs(60)).await;
            (head, started.elapsed())
        })
    };
    let mut positions = other.subscribe_all();
    tokio::time::sleep(Duration::from_millis(200)).await;
    one.append("game-1", 1, batch(2)).await.expect("appends");
    let (head, waited) = waiter.await.expect("the waiter finishes");
    assert_eq!(head, 3);
    assert!(
        waited < Duration::from_secs(10),
        "woken, not timed out: {waited:?}"
    );
    let seen = tokio::time::timeout(
        Duration::from_secs(10),
        positions.wait_for(|position| *position >= 3),
    )
    .await
    .expect("the other node announces the position")
    .map(|position| *position)
    .expect("the store is open");
    assert_eq!(seen, 3);
}

#[test]
fn versions_and_command_ids_hold_across_nodes() {
    let (one, other, _) = two_nodes();
    let first = one
        .append_blocking("game-1", 0, command_batch(2, "create"))
        .expect("appends");
    // The other node retries the same command: it gets the first answer, nothing appended.
    let retried = other
        .append_blocking("game-1", 0, command_batch(2, "create"))
        .expect("a retry is not an error");
    assert!(retried.duplicate);
    assert_eq!(retried.last_position, first.last_position);
    // A command decided on a version the other node has moved past is a conflict.
    other
        .append_blocking("game-1", 2, batch(1))
        .expect("appends");
    assert_eq!(
        one.append_blocking("game-1", 2, batch(1)),
        Err(AppendError::Conflict {
            expected: 2,
            actual: 3
        })
    );
    assert_eq!(one.head("game-1").expect("reads"), 3);
    assert_eq!(
        one.read_all(0, 10).expect("reads"),
        other.read_all(0, 10).expect("reads")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_whose_connection_is_cut_catches_up_when_it_is_back() {
    let (one, other, url) = two_nodes();
    let mut positions = other.subscribe_all();
    let waiter = {
        let other = other.clone();
        tokio::spawn(async move { other.wait_for("game-1", 0, Duration::from_secs(60)).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Cut both nodes' listening connections, then append while they are down.
    let database = url.rsplit('/').next().expect("a database name").to_string();
    let cut = cluster::Cluster::shared().psql(
        &database,
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
         WHERE application_name = 'avalanche-listener' AND datname = current_database()",
    );
    assert_eq!(cut, "2", "both listeners were connected");
    one.append("game-1", 0, batch(4)).await.expect("appends");
    let head = tokio::time::timeout(Duration::from_secs(20), waiter)
        .await
        .expect("the waiter wakes once its node listens again")
        .expect("the waiter finishes");
    assert_eq!(head, 4);
    let seen = tokio::time::timeout(
        Duration::from_secs(20),
        positions.wait_for(|position| *position >= 4),
    )
    .await
    .expect("the position is announced after the reconnection")
    .map(|position| *position)
    .expect("the store is open");
    assert_eq!(seen, 4);
}

#[test]
fn a_lease_is_held_by_one_node_at_a_time_and_passes_on_when_its_holder_goes() {
    let (one, other, _) = two_nodes();
    assert!(
        one.try_lease("clock").expect("asks"),
        "the first node takes the free lease"
    );
    assert!(one.holds_lease("clock"));
    assert!(
        !other.try_lease("clock").expect("asks"),
        "held by the first node"
    );
    assert!(!other.holds_lease("clock"));
    // Another lease is another lock.
    assert!(other.try_lease("webhook:wh-1").expect("asks"));
    assert!(!one.try_lease("webhook:wh-1").expect("asks"));
    // Released, it is free for the other node.
    one.release_lease("clock");
    assert!(!one.holds_lease("clock"));
    assert!(other.try_lease("clock").expect("asks"));
    // The holder goes (its process, and so its connection, ends): the lease is free at once.
    drop(other);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !one.try_lease("clock").expect("asks") {
        assert!(
            Instant::now() < deadline,
            "the lease of a node gone is freed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(one.try_lease("webhook:wh-1").expect("asks"));
}

#[test]
fn a_node_whose_lease_connection_breaks_knows_it_no_longer_holds_its_leases() {
    let (one, other, url) = two_nodes();
    assert!(one.try_lease("clock").expect("asks"));
    let database = url.rsplit('/').next().expect("a database name").to_string();
    let cut = cluster::Cluster::shared().psql(
        &database,
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
         WHERE application_name = 'avalanche-leases' AND datname = current_database()",
    );
    assert_eq!(
        cut, "1",
        "only the first node's leases' connection was open"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while one.holds_lease("clock") {
        assert!(
            Instant::now() < deadline,
            "the broken connection is noticed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(other.try_lease("clock").expect("asks"), "the lease is free");
    assert!(!one.try_lease("clock").expect("asks again, reconnected"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broadcast_from_one_node_reaches_the_other_at_once() {
    let (one, other, _) = two_nodes();
    let mut heard_there = other.subscribe_broadcasts();
    let mut heard_here = one.subscribe_broadcasts();
    // The listeners connect in the background: send until the other node hears.
    let started = Instant::now();
    let delivered = loop {
        one.broadcast("token-revoked abc").await.expect("sent");
        match tokio::time::timeout(Duration::from_millis(500), heard_there.recv()).await {
            Ok(message) => break message.expect("the store is open"),
            Err(_) => assert!(
                started.elapsed() < Duration::from_secs(10),
                "the other node never heard"
            ),
        }
    };
    assert_eq!(delivered, "token-revoked abc");
    let sent = Instant::now();
    one.broadcast("second").await.expect("sent");
    loop {
        let message = tokio::time::timeout(Duration::from_secs(1), heard_there.recv())
            .await
            .expect("within a second")
            .expect("the store is open");
        if message == "second" {
            break;
        }
    }
    assert!(sent.elapsed() < Duration::from_secs(1));
    // The sender's own subscribers hear each message once, at once.
    let mut mine = Vec::new();
    while let Ok(message) = heard_here.try_recv() {
        mine.push(message);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    while let Ok(message) = heard_here.try_recv() {
        mine.push(message);
    }
    assert_eq!(mine.last().map(String::as_str), Some("second"));
    assert_eq!(
        mine.iter().filter(|m| *m == "second").count(),
        1,
        "{mine:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_hears_the_heads_of_its_own_and_the_others_appends_never_ahead() {
    let (one, other, _) = two_listening_nodes().await;
    assert_eq!(one.heard_head("game-h"), None, "nothing heard yet");
    one.append("game-h", 0, batch(2)).await.expect("appends");
    assert_eq!(one.heard_head("game-h"), Some(2), "its own append, at once");
    other.append("game-h", 2, batch(1)).await.expect("appends");
    assert_eq!(other.heard_head("game-h"), Some(3));
    // The first node hears the other's append by its notification, soon.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let heard = one.heard_head("game-h");
        assert!(heard <= Some(3), "never ahead of the stream: {heard:?}");
        if heard == Some(3) {
            break;
        }
        assert!(Instant::now() < deadline, "not heard: {heard:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(one.head("game-h").expect("reads"), 3);
}

/// Waits until every node's listener is connected: a head learnt before a listener first
/// connects is not kept (the connection starts a new epoch, as a reconnection does).
async fn listening(nodes: &[&PostgresStore]) {
    for node in nodes {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !node.gauges().listener_connected {
            assert!(Instant::now() < deadline, "the listener connects");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_settled_head_holds_every_append_another_node_acknowledged_before_it_was_asked() {
    let (one, other, _) = two_listening_nodes().await;
    // The other node's own appends keep coming, as under load: its fences ride on them.
    let busy = Busy::start(&other);
    let (mut settled, rounds) = (0, 300);
    for version in 0..rounds {
        // Acknowledged by one node, then asked of the other: what a player who moves on
        // one server and reads on another does.
        let acknowledged = one
            .append("game-s", version, batch(1))
            .await
            .expect("appends")
            .last_version;
        if let Some(head) = other.settled_head("game-s").await {
            assert!(
                head >= acknowledged,
                "settled at {head}, but {acknowledged} was acknowledged before it was asked"
            );
            assert!(head <= acknowledged, "never ahead of the stream: {head}");
            settled += 1;
        }
    }
    busy.stop().await;
    assert!(
        settled > rounds / 2,
        "the fence answered {settled} of {rounds} times while the node appended"
    );
    // With no append of its own waiting or on its way, and none coming, the node cannot
    // tell without a read: the caller reads.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        other.settled_head("game-s").await,
        None,
        "no group to ride on"
    );
    // A stream the node never heard of is not known settled either.
    assert_eq!(one.settled_head("game-never").await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_settled_head_is_never_behind_an_acknowledged_append_while_its_listener_is_cut() {
    let (one, other, url) = two_listening_nodes().await;
    let busy = Busy::start(&other);
    let mut version = one
        .append("game-c", 0, batch(1))
        .await
        .expect("appends")
        .last_version;
    let deadline = Instant::now() + Duration::from_secs(10);
    while other.settled_head("game-c").await != Some(version) {
        assert!(
            Instant::now() < deadline,
            "the fence answers while the node appends"
        );
    }
    // Both listeners cut: the notices committed until they listen again are lost to them.
    let database = url.rsplit('/').next().expect("a database name").to_string();
    cluster::Cluster::shared().psql(
        &database,
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
         WHERE application_name = 'avalanche-listener' AND datname = current_database()",
    );
    let (mut settled_after, deadline) = (0, Instant::now() + Duration::from_secs(20));
    while settled_after < 5 {
        assert!(
            Instant::now() < deadline,
            "the fence answers again once the listener is back"
        );
        version = one
            .append("game-c", version, batch(1))
            .await
            .expect("appends")
            .last_version;
        if let Some(head) = other.settled_head("game-c").await {
            assert!(
                head >= version,
                "settled at {head} with {version} acknowledged before: a notice lost to the cut"
            );
            settled_after += 1;
        }
    }
    busy.stop().await;
}

/// A node's own appends, one after another on four streams of its own until stopped, as under
/// load.
struct Busy {
    stop: Arc<std::sync::atomic::AtomicBool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Busy {
    fn start(node: &Arc<dyn Storage>) -> Busy {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let tasks = (0..4)
            .map(|n| {
                let (node, stop) = (Arc::clone(node), Arc::clone(&stop));
                tokio::spawn(async move {
                    let stream = format!("busy-{n}");
                    let mut head = 0;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        head = match node.append(&stream, head, batch(1)).await {
                            Ok(appended) => appended.last_version,
                            // An append whose outcome is unknown: its stream's head tells.
                            Err(_) => node.head(&stream).unwrap_or(head),
                        };
                    }
                })
            })
            .collect();
        Busy { stop, tasks }
    }

    async fn stop(self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for task in self.tasks {
            task.await.expect("the appends end");
        }
    }
}
