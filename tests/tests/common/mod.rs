//! `TestApp`: the real server on a free port over a temporary database, and one method a call.
#![allow(dead_code)] // each test file uses its own part of the helper

pub mod binary;
pub mod debian;
pub mod mailbox;
pub mod play;

use domain::Registry;
use reqwest::blocking::{Client, RequestBuilder, Response};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::net::TcpListener;
use std::time::{Duration, Instant};

pub struct TestApp {
    pub base: String,
    /// The admin listener's base URL (`/metrics`, `/backup`), when the test knows it.
    pub admin: Option<String>,
    pub client: Client,
    _dir: tempfile::TempDir,
}

/// A player of the tests: id and token.
#[derive(Clone, Debug)]
pub struct Player {
    pub id: String,
    pub token: String,
}

impl TestApp {
    /// Starts the server on port 0 with an empty database, without quotas or rate limits (the
    /// tests play fast; `tests/limits.rs` tests the limits with `spawn_limited`).
    pub fn spawn() -> TestApp {
        TestApp::spawn_with(app::webhooks::delivery::DeliverySettings::default())
    }

    /// `spawn`, with webhook deliveries as given (such as the hosts they may reach).
    pub fn spawn_with(delivery: app::webhooks::delivery::DeliverySettings) -> TestApp {
        TestApp::start(delivery, app::limits::LimitSettings::unlimited())
    }

    /// `spawn`, with the quotas and rate limits as given.
    pub fn spawn_limited(limits: app::limits::LimitSettings) -> TestApp {
        TestApp::start(app::webhooks::delivery::DeliverySettings::default(), limits)
    }

    /// `spawn`, writing its mail as `.eml` files into `folder` (as a server without a relay).
    pub fn spawn_with_mail_folder(folder: &std::path::Path) -> TestApp {
        TestApp::start_with_mail(
            app::webhooks::delivery::DeliverySettings::default(),
            app::limits::LimitSettings::unlimited(),
            app::mail::MailSettings {
                folder: Some(folder.to_path_buf()),
                ..app::mail::MailSettings::default()
            },
        )
    }

    fn start(
        delivery: app::webhooks::delivery::DeliverySettings,
        limits: app::limits::LimitSettings,
    ) -> TestApp {
        TestApp::start_with_mail(delivery, limits, app::mail::MailSettings::default())
    }

    fn start_with_mail(
        delivery: app::webhooks::delivery::DeliverySettings,
        limits: app::limits::LimitSettings,
        mail: app::mail::MailSettings,
    ) -> TestApp {
        let dir = tempfile::tempdir().expect("temporary directory");
        let store = storage::SledStore::open(dir.path()).expect("store opens");
        let listener = TcpListener::bind("127.0.0.1:0").expect("free port");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let admin = TcpListener::bind("127.0.0.1:0").expect("free port");
        let admin_base = format!("http://{}", admin.local_addr().expect("address"));
        std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let server = api::startup::run_with_mail(
                    listener,
                    Some(admin),
                    store,
                    Registry::standard(),
                    std::sync::Arc::new(
                        app::sealing::SecretsKey::generate().expect("a secrets key"),
                    ),
                    delivery,
                    api::state::CapacitySettings::default(),
                    limits,
                    mail,
                    None,
                )
                .expect("server starts");
                let _ = server.await;
            })
        });
        let client = Client::builder()
            .timeout(Duration::from_secs(90))
            .build()
            .expect("client");
        let app = TestApp {
            base,
            admin: Some(admin_base),
            client,
            _dir: dir,
        };
        // On a loaded machine a start may take seconds: waited for up to a minute.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while std::time::Instant::now() < deadline {
            if app.client.get(app.url("/health")).send().is_ok() {
                return app;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the server did not start within 60 s");
    }

    /// The helper for a server already running at `base` (such as the real binary).
    pub fn attach(base: &str) -> TestApp {
        TestApp {
            base: base.to_string(),
            admin: None,
            client: Client::builder()
                .timeout(Duration::from_secs(90))
                .build()
                .expect("client"),
            _dir: tempfile::tempdir().expect("temporary directory"),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The URL of `path` on the admin listener (`/metrics`, `/backup`).
    pub fn admin_url(&self, path: &str) -> String {
        let admin = self
            .admin
            .as_deref()
            .expect("this test knows no admin listener of its server");
        format!("{admin}{path}")
    }

    /// A GET of `path` on the admin listener.
    pub fn admin_get(&self, path: &str) -> RequestBuilder {
        self.client.get(self.admin_url(path))
    }

    pub fn get(&self, path: &str, player: Option<&Player>) -> RequestBuilder {
        let request = self.client.get(self.url(path));
        match player {
            Some(p) => request.bearer_auth(&p.token),
            None => request,
        }
    }

    pub fn post(&self, path: &str, player: Option<&Player>) -> RequestBuilder {
        let request = self.client.post(self.url(path));
        match player {
            Some(p) => request.bearer_auth(&p.token),
            None => request,
        }
    }

    pub fn create_player(&self, name: &str) -> Player {
        let body = ok_json(
            self.post("/v1/players", None)
                .json(&json!({"name": name}))
                .send(),
            StatusCode::CREATED,
        );
        Player {
            id: body["player"]["id"].as_str().expect("id").to_string(),
            token: body["token"].as_str().expect("token").to_string(),
        }
    }

    /// Creates a game with `creator` seated; returns its id.
    pub fn create_game(&self, creator: &Player, body: Value) -> String {
        let game = ok_json(
            self.post("/v1/games", Some(creator)).json(&body).send(),
            StatusCode::CREATED,
        );
        game["id"].as_str().expect("game id").to_string()
    }

    pub fn join(&self, player: &Player, game: &str) -> Value {
        ok_json(
            self.post(&format!("/v1/games/{game}/join"), Some(player))
                .send(),
            StatusCode::OK,
        )
    }

    pub fn game(&self, player: Option<&Player>, game: &str) -> Value {
        ok_json(
            self.get(&format!("/v1/games/{game}"), player).send(),
            StatusCode::OK,
        )
    }

    pub fn legal(&self, player: &Player, game: &str) -> Value {
        ok_json(
            self.get(&format!("/v1/games/{game}/legal"), Some(player))
                .send(),
            StatusCode::OK,
        )
    }

    pub fn play(&self, player: &Player, game: &str, command: &Value) -> Response {
        self.post(&format!("/v1/games/{game}/commands"), Some(player))
            .json(command)
            .send()
            .expect("request")
    }

    pub fn events(&self, player: Option<&Player>, game: &str, after: u64) -> Value {
        ok_json(
            self.get(
                &format!("/v1/games/{game}/events?after={after}&limit=1000"),
                player,
            )
            .send(),
            StatusCode::OK,
        )
    }

    /// Creates `seats` players, a game of `kind` with `extra` fields, and seats them all.
    pub fn full_game(&self, kind: &str, seats: usize, extra: Value) -> (String, Vec<Player>) {
        let players: Vec<Player> = (0..seats)
            .map(|n| self.create_player(&format!("Player {n}")))
            .collect();
        let mut body = json!({"kind": kind, "seats": seats});
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        let id = self.create_game(&players[0], body);
        for player in &players[1..] {
            self.join(player, &id);
        }
        (id, players)
    }
}

/// The JSON body of a response that must have `status`.
pub fn ok_json(response: reqwest::Result<Response>, status: StatusCode) -> Value {
    let response = response.expect("request");
    let got = response.status();
    let body: Value = response.json().unwrap_or(Value::Null);
    assert_eq!(got, status, "unexpected answer: {body}");
    body
}

/// The `code` of a problem answer, checking its status and content type.
pub fn problem(response: Response, status: StatusCode) -> String {
    assert_eq!(response.status(), status);
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(
        content_type.starts_with("application/problem+json"),
        "{content_type}"
    );
    let body: Value = response.json().expect("problem body");
    assert!(
        !body["detail"].as_str().unwrap_or_default().is_empty(),
        "a sentence for people: {body}"
    );
    body["code"].as_str().expect("code").to_string()
}

/// A small deterministic chooser, so that failures can be replayed.
pub struct Chooser(u64);

impl Chooser {
    pub fn new(seed: u64) -> Chooser {
        Chooser(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Waits until `done` holds, checking every 50 ms, or panics with `what` after `within`.
pub fn eventually(within: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < within, "{what}: not within {within:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The value of the series `name` (without labels) in `app`'s `/metrics`, if written.
pub fn metric(app: &TestApp, name: &str) -> Option<u64> {
    let page = app.admin_get("/metrics").send().ok()?.text().ok()?;
    metric_in(&page, name)
}

/// The value of the series `name` (without labels) in a page of `/metrics`.
pub fn metric_in(page: &str, name: &str) -> Option<u64> {
    page.lines()
        .find_map(|line| line.strip_prefix(&format!("{name} ")))
        .and_then(|value| value.trim().parse().ok())
}
