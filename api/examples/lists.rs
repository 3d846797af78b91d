//! The list benchmark: memory and cold latency of the lists on a store of many games, measured
//! on the real binary (one or more builds, taken in turns), each in its own process.
//!
//! ```sh
//! cargo build --release -p api --examples --bin avalanche
//! target/release/examples/lists --data /tmp/lists-db --games 50000 --player-games 10000 \
//!     --binary target/release/avalanche --binary /path/to/older/avalanche --rounds 3
//! ```
//!
//! First (only when `--data` holds no store yet) it stores `--games` games through the
//! application layer, as the server stores them: each created by its first player; two in
//! three joined by a second player (so active), half of those then resigned (finished). One
//! game in `--rare-every` is Altitude, the others are the four other games in turn. One
//! registered player holds a seat in the first `--player-games` games; the others belong to
//! players made up for the purpose. That player's token is kept beside the store
//! (`<data>.token`).
//!
//! Then, for each round and each binary in turn, with a server started afresh before each
//! cold figure (its cache of folded games empty; the operating system's file cache warm, as
//! after a restart):
//! - `GET /v1/players/me/games` as that player: the time to the first answer, and its size;
//! - `GET /v1/games?status=open&kind=altitude`: the time to the first answer;
//! - every page of `GET /v1/games?limit=200`, twice: the server's resident memory (`VmRSS`
//!   from `/proc/<pid>/status`) before, at its highest while paging, and after each pass.
//!
//! Figures and the exact commands are in BENCHMARKS.md ("Lists and memory").

mod common;

use app::players::Players;
use app::sealing::{SecretsKey, DEFAULT_KEY_FILE};
use app::{Games, NewGame, PlayerCommand};
use clap::Parser;
use domain::Registry;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use storage::{SledStore, Storage};

/// The four games a list shows most of; Altitude is the rare one.
const COMMON: &[&str] = &["avalanche-chess", "avalanche", "ski-runs", "vamanos"];

#[derive(Parser, Debug)]
#[command(about = "List benchmark of the avalanche server")]
struct Args {
    /// The database directory (kept; filled first if it holds no store).
    #[arg(long)]
    data: PathBuf,
    /// Games to store when filling.
    #[arg(long, default_value_t = 50_000)]
    games: usize,
    /// How many of them one registered player holds a seat in.
    #[arg(long, default_value_t = 10_000)]
    player_games: usize,
    /// One game in this many is Altitude.
    #[arg(long, default_value_t = 100)]
    rare_every: usize,
    /// A server binary to measure (`avalanche`); give several to compare them in turns.
    #[arg(long, required = true)]
    binary: Vec<PathBuf>,
    /// How many times each binary is measured.
    #[arg(long, default_value_t = 1)]
    rounds: usize,
}

fn main() {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(run(Args::parse()));
}

async fn run(args: Args) {
    let token_file = args.data.with_extension("token");
    if !args.data.exists() {
        let started = Instant::now();
        let token = fill(&args).await;
        std::fs::write(&token_file, &token).expect("the token is kept");
        println!(
            "filled {} with {} games in {:.1} s",
            args.data.display(),
            args.games,
            started.elapsed().as_secs_f64()
        );
    }
    let token = std::fs::read_to_string(&token_file).expect("the token of the filled store");
    println!(
        "| round | binary | me/games first page, cold | status=open&kind=altitude, cold | RSS at start | highest RSS while paging | RSS after pass 1 | RSS after pass 2 | pages a pass | time a pass |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for round in 1..=args.rounds {
        for binary in &args.binary {
            let figures = measure(binary, &args.data, &token).await;
            println!(
                "| {round} | {} | {:.1} ms ({} games, {} bytes) | {:.1} ms ({} games) | {:.0} MB | {:.0} MB | {:.0} MB | {:.0} MB | {} | {:.1} s |",
                binary.display(),
                figures.mine_ms,
                figures.mine_games,
                figures.mine_bytes,
                figures.rare_ms,
                figures.rare_games,
                figures.rss_start_mb,
                figures.rss_peak_mb,
                figures.rss_first_pass_mb,
                figures.rss_end_mb,
                figures.pages,
                figures.paging_s
            );
        }
    }
}

/// Stores the games through the application layer; returns the registered player's token.
async fn fill(args: &Args) -> String {
    let store: Arc<dyn Storage> = Arc::new(SledStore::open(&args.data).expect("the store opens"));
    let registry = Arc::new(Registry::standard());
    // The key the server run on this directory will find there.
    let key = SecretsKey::load_or_create(&args.data.join(DEFAULT_KEY_FILE)).expect("the key");
    key.bind(store.as_ref()).expect("the store's key");
    let games = Arc::new(Games::new(store.clone(), registry, Arc::new(key), 1_000));
    let (player, token) = Players::new(store.clone())
        .create("Lister")
        .await
        .expect("a player");
    let mut next = 0;
    while next < args.games {
        let chunk: Vec<usize> = (next..(next + 256).min(args.games)).collect();
        next += chunk.len();
        let made = futures_util::future::join_all(chunk.into_iter().map(|n| {
            let games = games.clone();
            let first = if n < args.player_games {
                player.id.clone()
            } else {
                format!("p-{n:016x}")
            };
            let kind = if n.is_multiple_of(args.rare_every) {
                "altitude"
            } else {
                COMMON[n % COMMON.len()]
            };
            async move { make_game(&games, n, &first, kind).await }
        }))
        .await;
        for made in made {
            made.expect("a game is stored");
        }
        if next % 10_000 < 256 {
            println!("stored {next} games");
        }
    }
    // As the server's first start on a store it wrote: its index is current.
    games.reindex().await.expect("the index is current");
    token
}

/// Game number `n`: open, active or finished by `n`.
async fn make_game(games: &Games, n: usize, first: &str, kind: &str) -> Result<(), String> {
    let new = NewGame {
        kind: kind.to_string(),
        variant: None,
        options: None,
        seats: 2,
        seat: None,
        time_control: None,
        rated: false,
        spectators_room: false,
    };
    let slot = games.create(first, new).await.map_err(|e| e.to_string())?;
    let id = slot.lock().await.id.clone();
    let second = format!("q-{n:016x}");
    let play = |player: &'static str, command: Value| {
        let player = if player == "first" {
            first.to_string()
        } else {
            second.clone()
        };
        let id = id.clone();
        async move {
            games
                .play(PlayerCommand {
                    game: &id,
                    player: &player,
                    command,
                    expected: None,
                    key: None,
                })
                .await
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    };
    if !n.is_multiple_of(3) {
        play("second", json!({"type": "join", "seat": null})).await?;
    }
    if n % 3 == 2 {
        play("first", json!({"type": "resign"})).await?;
    }
    Ok(())
}

struct Figures {
    mine_ms: f64,
    mine_games: usize,
    mine_bytes: usize,
    rare_ms: f64,
    rare_games: usize,
    rss_start_mb: f64,
    rss_peak_mb: f64,
    rss_first_pass_mb: f64,
    rss_end_mb: f64,
    pages: usize,
    paging_s: f64,
}

/// One binary's figures: three server starts, one per cold figure and one for the paging.
async fn measure(binary: &Path, data: &Path, token: &str) -> Figures {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(600))
        .build()
        .expect("a client");

    let server = Server::start(binary, data).await;
    let asked = Instant::now();
    let mine = client
        .get(format!("{}/v1/players/me/games", server.base))
        .bearer_auth(token)
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .expect("my games")
        .bytes()
        .await
        .expect("my games");
    let mine_ms = asked.elapsed().as_secs_f64() * 1e3;
    let mine_games = serde_json::from_slice::<Value>(&mine)
        .ok()
        .and_then(|v| v["items"].as_array().map(Vec::len))
        .unwrap_or(0);
    server.stop();

    let server = Server::start(binary, data).await;
    let asked = Instant::now();
    let rare: Value = client
        .get(format!(
            "{}/v1/games?status=open&kind=altitude&limit=200",
            server.base
        ))
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .expect("the open Altitude games")
        .json()
        .await
        .expect("the open Altitude games");
    let rare_ms = asked.elapsed().as_secs_f64() * 1e3;
    server.stop();

    let server = Server::start(binary, data).await;
    let rss_start_mb = server.rss_mb();
    let mut rss_peak_mb = rss_start_mb;
    let mut pages = 0;
    let paging = Instant::now();
    // Twice through every page: memory that is bounded does not grow on the second pass.
    let mut rss_after_passes = Vec::new();
    for _pass in 0..2 {
        let mut after: Option<String> = None;
        loop {
            let mut url = format!("{}/v1/games?limit=200", server.base);
            if let Some(after) = &after {
                url.push_str(&format!("&after={after}"));
            }
            let page: Value = client
                .get(url)
                .send()
                .await
                .and_then(|r| r.error_for_status())
                .expect("a page of games")
                .json()
                .await
                .expect("a page of games");
            pages += 1;
            if pages % 10 == 0 {
                rss_peak_mb = rss_peak_mb.max(server.rss_mb());
            }
            match page["next"].as_str() {
                Some(next) => after = Some(next.to_string()),
                None => break,
            }
        }
        rss_after_passes.push(server.rss_mb());
    }
    let paging_s = paging.elapsed().as_secs_f64() / 2.0;
    let rss_end_mb = rss_after_passes[1];
    let rss_first_pass_mb = rss_after_passes[0];
    rss_peak_mb = rss_peak_mb.max(rss_first_pass_mb).max(rss_end_mb);
    pages /= 2;
    server.stop();
    Figures {
        mine_ms,
        mine_games,
        mine_bytes: mine.len(),
        rare_ms,
        rare_games: rare["items"].as_array().map_or(0, Vec::len),
        rss_start_mb,
        rss_peak_mb,
        rss_first_pass_mb,
        rss_end_mb,
        pages,
        paging_s,
    }
}

/// The server binary in its own process on a free port.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    async fn start(binary: &Path, data: &Path) -> Server {
        let port = common::free_port();
        let child = Command::new(binary)
            .arg("--addr")
            .arg(format!("127.0.0.1:{port}"))
            .arg("--data")
            .arg(data)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{} starts: {e}", binary.display()));
        let base = format!("http://127.0.0.1:{port}");
        common::wait_until_up(&base, Duration::from_secs(120)).await;
        Server { child, base }
    }

    /// The server's resident memory, in MB.
    fn rss_mb(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the server's status");
        let kb: f64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse().ok())
            .expect("VmRSS");
        kb / 1024.0
    }

    fn stop(self) {
        common::stop(self.child);
    }
}
