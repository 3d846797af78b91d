//! Tokens on two servers of one PostgreSQL database: each keeps the tokens it looked up in
//! memory, and a revocation on one is known on the other at once (a notification over the
//! connection that listens for appends): the token is refused there, and its open stream and
//! waiting long-poll there end within a second.

use crate::common;

use crate::cluster;

use common::{ok_json, Player, TestApp};
use domain::Registry;
use reqwest::StatusCode;
use serde_json::json;
use std::io::Read;
use std::net::TcpListener;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A server on the database at `url`, in this process; its base URL.
pub(crate) fn node(url: &str, key: Arc<app::sealing::SecretsKey>) -> TestApp {
    let store = storage::PostgresStore::open(url).expect("the database opens");
    let listener = TcpListener::bind("127.0.0.1:0").expect("free port");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = api::startup::run_with(
                listener,
                store,
                Registry::standard(),
                key,
                app::webhooks::delivery::DeliverySettings::default(),
                api::state::CapacitySettings::default(),
                app::limits::LimitSettings::unlimited(),
            )
            .expect("server starts");
            let _ = server.await;
        })
    });
    let app = TestApp::attach(&base);
    for _ in 0..200 {
        if app.client.get(app.url("/health")).send().is_ok() {
            return app;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("the node did not start");
}

/// Reads a stream to its end on a thread: its text and when it ended.
fn follow(app: &TestApp, path: &str, player: &Player) -> mpsc::Receiver<(String, Instant)> {
    let (sender, receiver) = mpsc::channel();
    let mut response = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
        .get(app.url(path))
        .bearer_auth(&player.token)
        .send()
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    std::thread::spawn(move || {
        let mut text = String::new();
        let mut buffer = [0u8; 4096];
        while let Ok(n) = response.read(&mut buffer) {
            if n == 0 {
                break;
            }
            text.push_str(&String::from_utf8_lossy(&buffer[..n]));
        }
        let _ = sender.send((text, Instant::now()));
    });
    receiver
}

#[test]
fn a_token_revoked_on_one_node_stops_acting_and_streaming_on_the_other_at_once() {
    let url = cluster::Cluster::shared().new_database();
    let key = Arc::new(app::sealing::SecretsKey::generate().expect("a key"));
    let one = node(&url, key.clone());
    let two = node(&url, key);

    let ana = one.create_player("Ana");
    let ben = one.create_player("Ben");
    let game = one.create_game(&ana, json!({"kind": "avalanche", "seats": 2}));
    one.join(&ben, &game);
    // A second token of Ben's, as a thief would mint.
    let issued = ok_json(
        one.post("/v1/players/me/tokens", Some(&ben)).send(),
        StatusCode::CREATED,
    );
    let stolen = Player {
        id: ben.id.clone(),
        token: issued["token"].as_str().unwrap().to_string(),
    };
    // Node two knows it (it is in its memory now).
    for _ in 0..3 {
        let me = ok_json(
            two.get("/v1/players/me", Some(&stolen)).send(),
            StatusCode::OK,
        );
        assert_eq!(me["id"], ben.id.as_str());
    }
    let stream = follow(&two, &format!("/v1/games/{game}/stream"), &stolen);
    let waiting = {
        let (base, token, game) = (two.base.clone(), stolen.token.clone(), game.clone());
        std::thread::spawn(move || {
            let answer = reqwest::blocking::Client::new()
                .get(format!("{base}/v1/games/{game}/events?after=1000&wait=30"))
                .bearer_auth(token)
                .send()
                .unwrap();
            (answer.status(), Instant::now())
        })
    };
    std::thread::sleep(Duration::from_millis(300));

    // Revoked on node one.
    let revoked_at = Instant::now();
    let revoked = one
        .client
        .delete(one.url("/v1/players/me/tokens/current"))
        .bearer_auth(&stolen.token)
        .send()
        .unwrap();
    assert_eq!(revoked.status(), StatusCode::NO_CONTENT);

    // Refused on node two well before its memory would have expired.
    let refused = loop {
        let answer = two.get("/v1/players/me", Some(&stolen)).send().unwrap();
        if answer.status() == StatusCode::UNAUTHORIZED {
            break Instant::now();
        }
        assert!(
            revoked_at.elapsed() < Duration::from_secs(1),
            "node two still takes the revoked token"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(refused - revoked_at < Duration::from_secs(1));
    let (text, ended) = stream
        .recv_timeout(Duration::from_secs(5))
        .expect("the stream on node two ends");
    assert!(
        ended - revoked_at < Duration::from_secs(1),
        "the stream ended {:?} after the revocation",
        ended - revoked_at
    );
    assert!(text.contains("event: token_revoked"), "{text}");
    let (status, answered) = waiting.join().unwrap();
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(answered - revoked_at < Duration::from_secs(1));
    // Ben's own token still acts on both.
    for app in [&one, &two] {
        ok_json(app.get("/v1/players/me", Some(&ben)).send(), StatusCode::OK);
    }
}
