//! The club benchmark: a generated club written straight into a store, then the rebuild of
//! every rating from the log and the club's pages read from memory.
//!
//! ```sh
//! cargo build --release -p api --examples
//! target/release/examples/club --data /tmp/club-db --players 5000 --games 100000 --running 2000
//! target/release/examples/club --postgres postgres://... --players 5000 --games 100000
//! ```
//!
//! The generator appends, for each game, the events the club's book reads, in their stored
//! form, one batch a game: `created` (rated, with its kind, variant and seats), a
//! `seat_taken` a seat, `started` and, but for the `--running` last ones, `finished` with a
//! random result. The kinds, variants and seat counts are every rated pool's in turn (the
//! solitaire is never rated, so never generated); players are drawn at random among
//! `--players`. `--challenges` open challenges wait in the waiting room.
//!
//! Then, in this process: `app::club::recompute` (what `avalanche ratings --recompute` and
//! the start of a node run) folds the whole log from scratch, timed, in games a second; the
//! resident memory (`VmRSS`) before and after; the book is followed by a `Club` as a server
//! holds it; and `--reads` times each of a random player's page, the leaderboard of the
//! first pool and the waiting room's open challenges, as the routes ask them (p50, p99).

mod draw;

use app::club::challenges::ChallengeFilter;
use app::club::Club;
use clap::Parser;
use domain::Registry;
use draw::Draw;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use storage::{Batch, NewEvent, Storage};

#[derive(Parser)]
struct Args {
    /// A sled store's folder (made when missing); or `--postgres`.
    #[arg(long)]
    data: Option<PathBuf>,
    #[arg(long)]
    postgres: Option<String>,
    #[arg(long, default_value_t = 5000)]
    players: usize,
    /// Games in all, finished and running.
    #[arg(long, default_value_t = 100_000)]
    games: usize,
    #[arg(long, default_value_t = 2000)]
    running: usize,
    #[arg(long, default_value_t = 200)]
    challenges: usize,
    /// Appends at once while generating.
    #[arg(long, default_value_t = 64)]
    writers: usize,
    /// Timed reads of each page.
    #[arg(long, default_value_t = 2000)]
    reads: usize,
}

/// The server's allocator, as in the `avalanche` binary (whose `ratings --recompute` and start
/// run the rebuild timed here): jemalloc with one arena.
#[global_allocator]
static ALLOCATOR: api::allocator::Allocator = api::allocator::Allocator {};

fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .unwrap_or(0.0)
        / 1024.0
}

fn event(event_type: &str, payload: Value) -> NewEvent {
    NewEvent {
        event_type: event_type.to_string(),
        schema_version: 1,
        payload,
    }
}

fn batch(actor: &str, events: Vec<NewEvent>) -> Batch {
    Batch::new(actor.to_string(), events)
}

/// Every rated pool's setup: kind, variant, seats.
fn setups(registry: &Registry) -> Vec<(String, Option<String>, usize)> {
    let mut found = Vec::new();
    let mut pools = std::collections::HashSet::new();
    for kind in registry.kinds() {
        let info = kind.info();
        let variants: Vec<Option<String>> = if info.variants.is_empty() {
            vec![None]
        } else {
            info.variants.iter().cloned().map(Some).collect()
        };
        for variant in variants {
            for seats in info.min_seats.max(2)..=info.max_seats {
                if let Some((pool, _)) = kind.rating_pool(variant.as_deref(), seats) {
                    // Each pool once, and each seat count of a multiplayer pool.
                    if pools.insert(format!("{pool}/{seats}")) {
                        found.push((info.id.to_string(), variant.clone(), seats));
                    }
                }
            }
        }
    }
    found
}

fn percentile(mut times: Vec<f64>, p: f64) -> f64 {
    times.sort_by(f64::total_cmp);
    times[((times.len() as f64 * p) as usize).min(times.len() - 1)]
}

async fn generate(store: &Arc<dyn Storage>, registry: &Registry, args: &Args) {
    let setups = setups(registry);
    eprintln!("pools' setups: {setups:?}");
    let players: Vec<String> = (0..args.players).map(|i| format!("p-{i:016x}")).collect();
    let mut rng = Draw(0x9e37_79b9_7f4a_7c15);
    let started = Instant::now();
    let mut pending = Vec::new();
    for n in 0..args.games {
        let (kind, variant, seats) = setups[n % setups.len()].clone();
        let mut seated: Vec<String> = Vec::new();
        while seated.len() < seats {
            let p = players[rng.below(players.len())].clone();
            if !seated.contains(&p) {
                seated.push(p);
            }
        }
        let mut events = vec![event(
            "created",
            json!({"type": "created", "kind": kind, "setup": {"variant": variant, "seats": seats, "rated": true}}),
        )];
        for (seat, player) in seated.iter().enumerate() {
            events.push(event(
                "seat_taken",
                json!({"type": "seat_taken", "seat": seat, "player": player}),
            ));
        }
        events.push(event("started", json!({"type": "started"})));
        if n < args.games - args.running {
            let outcome = if rng.below(10) == 0 {
                json!({"winners": [], "draw": true, "reason": "agreed"})
            } else {
                json!({"winners": [rng.below(seats)], "draw": false, "reason": "resignation"})
            };
            events.push(event(
                "finished",
                json!({"type": "finished", "outcome": outcome}),
            ));
        }
        let stream = format!("g-{n:016x}");
        let store = store.clone();
        let actor = format!("player:{}", seated[0]);
        pending.push(tokio::spawn(async move {
            store
                .append(&stream, 0, batch(&actor, events))
                .await
                .expect("appended");
        }));
        if pending.len() >= args.writers {
            for task in pending.drain(..) {
                task.await.expect("an append");
            }
        }
        if n % 10_000 == 9_999 {
            eprintln!(
                "{} games written, {:.0} s",
                n + 1,
                started.elapsed().as_secs_f64()
            );
        }
    }
    for task in pending.drain(..) {
        task.await.expect("an append");
    }
    for n in 0..args.challenges {
        let (kind, variant, seats) = setups[n % setups.len()].clone();
        let by = &players[n % players.len()];
        let issued = json!({"type": "challenge_issued", "by": by, "kind": kind, "variant": variant,
            "seats": seats, "rated": true, "expires_at": chrono::Utc::now() + chrono::Duration::days(7)});
        store
            .append(
                &format!("c-{n:016x}"),
                0,
                batch(
                    &format!("player:{by}"),
                    vec![event("challenge_issued", issued)],
                ),
            )
            .await
            .expect("a challenge appended");
    }
    eprintln!(
        "generated: {} games, {} challenges in {:.1} s",
        args.games,
        args.challenges,
        started.elapsed().as_secs_f64()
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args = Args::parse();
    let store: Arc<dyn Storage> = match (&args.data, &args.postgres) {
        (_, Some(url)) => Arc::new(storage::PostgresStore::open(url).expect("PostgreSQL opens")),
        (Some(data), None) => Arc::new(storage::SledStore::open(data).expect("sled opens")),
        (None, None) => panic!("give --data or --postgres"),
    };
    let registry = Arc::new(Registry::standard());
    if store.read_all(0, 1).expect("the log reads").is_empty() {
        generate(&store, &registry, &args).await;
    }

    let before = rss_mb();
    let started = Instant::now();
    let book = app::club::recompute(store.as_ref(), &registry).expect("the recompute");
    let took = started.elapsed().as_secs_f64();
    let games = book.games.len();
    let players = book.players.len();
    let pools: Vec<String> = book.pools.keys().cloned().collect();
    let after = rss_mb();
    drop(book);
    println!(
        "rebuild: {games} games ({players} players, {} pools) in {took:.2} s: {:.0} games/s; resident memory {before:.0} MB before, {after:.0} MB with the book",
        pools.len(),
        games as f64 / took
    );

    // The club as a server holds it.
    let club = Club::new(store.clone(), registry.clone());
    club.catch_up().await.expect("the club folds the log");
    println!(
        "resident memory with the server's club folded: {:.0} MB",
        rss_mb()
    );
    let names = |_: &str| -> Option<String> { None };
    let mut rng = Draw(0x2545_f491_4f6c_dd1d);
    let (mut page, mut board, mut room) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..args.reads {
        let id = format!("p-{:016x}", rng.below(args.players));
        let player = app::players::Player {
            display_name: id.clone(),
            name: id.clone(),
            id,
            created_at: chrono::Utc::now(),
        };
        let t = Instant::now();
        let shown = club.player_page(&player, &names).await.expect("a page");
        page.push(t.elapsed().as_secs_f64() * 1000.0);
        std::hint::black_box(shown);
        let t = Instant::now();
        let rows = club
            .leaderboard(&pools[0], 50, &names)
            .await
            .expect("a board");
        board.push(t.elapsed().as_secs_f64() * 1000.0);
        std::hint::black_box(rows);
        let t = Instant::now();
        let filter = ChallengeFilter {
            kind: None,
            open_to: None,
            of: None,
        };
        let open = club.challenges(&filter, &names).await.expect("the room");
        room.push(t.elapsed().as_secs_f64() * 1000.0);
        std::hint::black_box(open);
    }
    for (what, times) in [
        ("a player's page", page),
        ("a leaderboard (50 rows)", board),
        ("the waiting room", room),
    ] {
        println!(
            "{what}: p50 {:.3} ms, p99 {:.3} ms ({} reads)",
            percentile(times.clone(), 0.5),
            percentile(times, 0.99),
            args.reads
        );
    }
}
