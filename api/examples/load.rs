//! The load benchmark: the real server on a temporary (or given) database, on 127.0.0.1 port 0,
//! and `--clients` concurrent HTTP clients playing random legal games of every kind on it.
//!
//! ```sh
//! cargo run --release -p api --example load -- --games 13 --clients 64 --seconds 20
//! cargo run --release -p api --example load -- --prefill 1000000 --data /tmp/db --seconds 20
//! cargo run --release -p api --example load -- --cold-start --data /tmp/db
//! cargo run --release -p api --example load -- --database postgres://localhost/bench
//! cargo run --release -p api --example load -- --binary target/release/avalanche
//! cargo run --release -p api --example load -- --binary target/release/avalanche \
//!     --database postgres://localhost/bench --nodes 3
//! ```
//!
//! Every command is durable before it is answered, as in production. Each command costs a
//! `GET /legal` and the command's POST, both timed: the POSTs' latency is the commands'; the
//! reads' is reported on a line of its own. `--prefill`
//! first stores older games (recorded random games, appended through `storage::SledStore` as the
//! server appends them, many games at once), to see whether history slows commands down.
//!
//! Beside commands/s and latency it reports the CPU time the server and the clients spent
//! during the timed play, per command. In one process (the default) it reads every thread's
//! time from `/proc/self/task/*/stat`: the clients are the main thread and the client
//! runtime's threads (named `load-client`), the server everything else (its actix workers,
//! the store's committer and flusher, sled's threads). With `--binary` the server is that
//! `avalanche` binary in its own process (on a temporary database, no limits, `RUST_LOG=warn`),
//! and its CPU time is read from `/proc/<pid>/stat`: so two builds of the server can be
//! compared under the same clients. `--binary` with `--database` and `--nodes N` starts N such
//! servers on one PostgreSQL database, as behind a load balancer without affinity: each request
//! goes to the next node in turn, so the commands of one game are decided by every node; the
//! server CPU is then the nodes' together, and PostgreSQL's processes are reported apart. With
//! `--affinity`, every request about one game goes to one node chosen by the game's id, as
//! `deploy/nginx.conf` routes them; `--workers K` gives each server K threads answering requests.
//! Figures and the exact commands are in BENCHMARKS.md ("Load").

mod common;

use clap::Parser;
use domain::log::GameLog;
use domain::registry::{GameKind, LiveGame};
use domain::table::Status;
use domain::testing::play_random_log;
use domain::{Registry, Seed};
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use storage::{Batch, NewEvent, SledStore as Store};

/// The server's allocator, as in the `avalanche` binary: jemalloc with one arena (the clients
/// share it in one process; `--binary` measures the binary as it runs).
#[global_allocator]
static ALLOCATOR: api::allocator::Allocator = api::allocator::Allocator {};

/// The five games, and the options the benchmark plays them with.
const KINDS: &[(&str, Option<&str>)] = &[
    ("avalanche-chess", None),
    ("avalanche", None),
    ("ski-runs", None),
    ("vamanos", Some(r#"{"target":30}"#)),
    ("altitude", None),
];

#[derive(Parser, Debug)]
#[command(about = "Load benchmark of the avalanche server")]
struct Args {
    /// Games of every kind played at once (so 5 times this many games in all).
    #[arg(long, default_value_t = 13)]
    games: usize,
    /// Concurrent clients; each plays one command at a time on its share of the games.
    #[arg(long, default_value_t = 64)]
    clients: usize,
    /// Seats of every game.
    #[arg(long, default_value_t = 2)]
    seats: usize,
    /// Stop after this many seconds of play...
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// ...or after this many commands, whichever comes first.
    #[arg(long, default_value_t = 1_000_000)]
    max_commands: u64,
    /// Store about this many events of older games before the load starts.
    #[arg(long, default_value_t = 0)]
    prefill: u64,
    /// The database directory (kept); a temporary one when absent.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Run the server on this PostgreSQL database instead of sled (an empty one, so that the
    /// bytes per event are the load's); not with `--prefill` or `--cold-start`.
    #[arg(long)]
    database: Option<String>,
    /// Only measure a cold start on `--data`: open the store, start, first requests.
    #[arg(long)]
    cold_start: bool,
    /// Threads of the clients' runtime (the server has its own workers, one per core).
    #[arg(long, default_value_t = 2)]
    client_threads: usize,
    /// Run this `avalanche` binary as the server, in its own process, instead of the server
    /// in this process (not with `--prefill` or `--cold-start`); on `--database` when given.
    #[arg(long)]
    binary: Option<PathBuf>,
    /// With `--binary` and `--database`: this many server processes on the one database, every
    /// request sent to the next in turn.
    #[arg(long, default_value_t = 1)]
    nodes: usize,
    /// With `--nodes`: send every request about one game (`/v1/games/{id}...`) to one node,
    /// chosen by the game's id; the others still go to the next node in turn.
    #[arg(long)]
    affinity: bool,
    /// With `--binary`: each server's `--workers` (its threads answering requests); the
    /// server's own default (one per core) when not given.
    #[arg(long)]
    workers: Option<usize>,
}

fn main() {
    let args = Args::parse();
    let temporary = tempfile::tempdir().expect("a temporary directory");
    let dir = args
        .data
        .clone()
        .unwrap_or_else(|| temporary.path().to_path_buf());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.client_threads)
        .thread_name(CLIENT_THREAD)
        .enable_all()
        .build()
        .expect("a runtime");
    assert!(
        args.nodes == 1 || (args.binary.is_some() && args.database.is_some()),
        "--nodes is for --binary on a --database"
    );
    if let Some(url) = &args.database {
        assert!(
            args.prefill == 0 && !args.cold_start,
            "--prefill and --cold-start are for sled"
        );
        let store = storage::PostgresStore::open(url).expect("the PostgreSQL store opens");
        let before = *storage::EventStore::subscribe_all(&store).borrow();
        let report = match &args.binary {
            Some(binary) => {
                let key = dir.join("secrets.key");
                runtime.block_on(async {
                    let mut nodes = Vec::new();
                    for _ in 0..args.nodes {
                        // One after another: the first creates the tables, the others find them.
                        nodes.push(
                            External::start(binary, &Place::Database(url, &key), args.workers)
                                .await,
                        );
                    }
                    let pids: Vec<u32> = nodes.iter().map(|n| n.child.id()).collect();
                    let bases: Vec<String> = nodes.iter().map(|n| n.base.clone()).collect();
                    let report = load(&bases, &args, &|| external_cpu(&pids)).await;
                    for node in nodes {
                        node.stop();
                    }
                    report
                })
            }
            None => {
                let server = Server::start(store.clone());
                runtime.block_on(async {
                    let report =
                        load(std::slice::from_ref(&server.base), &args, &in_process_cpu).await;
                    server.stop().await;
                    report
                })
            }
        };
        report.print(&args);
        report_postgres(&store, before);
        return;
    }
    if args.cold_start {
        runtime.block_on(cold_start(&dir));
        return;
    }
    if let Some(binary) = &args.binary {
        assert!(
            args.prefill == 0,
            "--prefill is for the server in this process"
        );
        let report = runtime.block_on(async {
            let server = External::start(binary, &Place::Data(&dir), args.workers).await;
            let pid = server.child.id();
            let report = load(std::slice::from_ref(&server.base), &args, &|| {
                external_cpu(&[pid])
            })
            .await;
            server.stop();
            report
        });
        report.print(&args);
        return;
    }
    let store = Store::open(&dir).expect("the store opens");
    if args.prefill > 0 {
        runtime.block_on(prefill(&store, args.prefill, args.seats));
    }
    let before = stored_events(&store);
    let flushes_before = store.flush_count();
    let server = Server::start(store.clone());
    let report = runtime.block_on(async {
        let report = load(std::slice::from_ref(&server.base), &args, &in_process_cpu).await;
        server.stop().await;
        report
    });
    let after = stored_events(&store);
    let flushes = store.flush_count() - flushes_before;
    report.print(&args);
    let size = store.size_on_disk().expect("size on disk");
    println!(
        "stored events: {before} before the load, {after} after; {:.1} MB on disk, {:.0} bytes per event",
        size as f64 / 1e6,
        size as f64 / after.max(1) as f64
    );
    // Group commit: the fewer flushes for the same events, the more appends share each one.
    println!(
        "flushes to disk during the load: {flushes}, {:.1} events a flush",
        (after - before) as f64 / flushes.max(1) as f64
    );
}

/// The events stored by the load on PostgreSQL, and the room they take.
fn report_postgres(store: &storage::PostgresStore, before: u64) {
    let after = *storage::EventStore::subscribe_all(store).borrow();
    let size = store.size_on_disk().expect("size on disk");
    println!(
        "stored events: {before} before the load, {after} after; {:.1} MB in PostgreSQL's tables and indexes, {:.0} bytes per event",
        size as f64 / 1e6,
        size as f64 / after.max(1) as f64
    );
}

/// The last durable position of the global log: the number of events stored.
fn stored_events(store: &Store) -> u64 {
    *store.subscribe_all().borrow()
}

/// The server on its own thread and actix runtime, as the black-box tests start it.
struct Server {
    base: String,
    handle: actix_web::dev::ServerHandle,
    thread: std::thread::JoinHandle<()>,
}

impl Server {
    fn start(store: impl Into<storage::Opened> + Send + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let base = format!("http://{}", listener.local_addr().expect("an address"));
        let (sender, receiver) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                // No quotas or rate limits: the benchmark's clients are few players playing
                // as fast as they can.
                let server = api::startup::run_with(
                    listener,
                    store,
                    Registry::standard(),
                    Arc::new(app::sealing::SecretsKey::generate().expect("a key")),
                    app::webhooks::delivery::DeliverySettings::default(),
                    api::state::CapacitySettings::default(),
                    app::limits::LimitSettings::unlimited(),
                )
                .expect("the server starts");
                sender.send(server.handle()).expect("main waits");
                let _ = server.await;
            })
        });
        let handle = receiver.recv().expect("the server's handle");
        Server {
            base,
            handle,
            thread,
        }
    }

    async fn stop(self) {
        self.handle.stop(true).await;
        self.thread.join().expect("the server thread ends");
    }
}

/// The name of the clients' threads, which the CPU accounting tells from the server's.
const CLIENT_THREAD: &str = "load-client";

/// CPU time used so far: by the server and by the clients.
#[derive(Clone, Copy, Default)]
struct Cpu {
    server: Duration,
    clients: Duration,
    /// PostgreSQL's processes, when the servers are external and use it.
    database: Duration,
    /// The task switches of the server's live threads (voluntary: a thread went to sleep;
    /// involuntary: it was preempted). A count, so it does not vary with the machine's speed
    /// as CPU time does: each is a wake-up or a preemption the server paid for.
    server_switches: u64,
}

/// The task switches in a `/proc/.../status` file, voluntary and involuntary.
fn status_switches(status: &str) -> u64 {
    status
        .lines()
        .filter(|line| {
            line.starts_with("voluntary_ctxt_switches:")
                || line.starts_with("nonvoluntary_ctxt_switches:")
        })
        .filter_map(|line| line.split_whitespace().nth(1)?.parse::<u64>().ok())
        .sum()
}

/// The task switches of the threads of `/proc/<pid>` (`self` for this process) that `keep`
/// selects by thread id and name.
fn switches(pid: &str, keep: impl Fn(&str, &str) -> bool) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    let mut total = 0;
    for task in tasks.flatten() {
        let tid = task.file_name().to_string_lossy().into_owned();
        let name =
            std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/comm")).unwrap_or_default();
        if keep(&tid, name.trim_end()) {
            let status = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/status"))
                .unwrap_or_default();
            total += status_switches(&status);
        }
    }
    total
}

/// User plus system time in a `/proc/.../stat` line, and the thread's name. The name is in
/// parentheses and may hold spaces, so the fields are counted after its closing one.
fn stat_times(stat: &str) -> Option<(String, Duration)> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat.get(open + 1..close)?.to_string();
    // After the name: state (field 3) ... utime is field 14, stime field 15.
    let fields: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // `/proc` counts in USER_HZ, which is 100 on Linux whatever the kernel's own tick.
    Some((name, Duration::from_millis((utime + stime) * 10)))
}

fn read_stat(path: &str) -> Option<(String, Duration)> {
    stat_times(&std::fs::read_to_string(path).ok()?)
}

/// Server and clients in this process: the clients are the main thread and the client
/// runtime's threads; the server is the rest of the process (its threads that have ended
/// included, as the process's own figure counts them).
fn in_process_cpu() -> Cpu {
    let (_, total) = read_stat("/proc/self/stat").expect("/proc/self/stat");
    let main = std::process::id().to_string();
    let mut clients = Duration::ZERO;
    for task in std::fs::read_dir("/proc/self/task").expect("/proc/self/task") {
        let Ok(task) = task else { continue };
        let tid = task.file_name().to_string_lossy().into_owned();
        let Some((name, time)) = read_stat(&format!("/proc/self/task/{tid}/stat")) else {
            continue;
        };
        if tid == main || name.starts_with(CLIENT_THREAD) {
            clients += time;
        }
    }
    Cpu {
        server: total.saturating_sub(clients),
        clients,
        database: postgres_cpu(),
        server_switches: switches("self", |tid, name| {
            tid != main && !name.starts_with(CLIENT_THREAD)
        }),
    }
}

/// The servers in processes `pids`, the clients in this one, and every PostgreSQL process on
/// the machine (its backends serve the servers).
fn external_cpu(pids: &[u32]) -> Cpu {
    let server = pids
        .iter()
        .map(|pid| {
            read_stat(&format!("/proc/{pid}/stat"))
                .expect("the server's stat")
                .1
        })
        .sum();
    let (_, clients) = read_stat("/proc/self/stat").expect("/proc/self/stat");
    Cpu {
        server,
        clients,
        database: postgres_cpu(),
        server_switches: pids
            .iter()
            .map(|pid| switches(&pid.to_string(), |_, _| true))
            .sum(),
    }
}

/// CPU time of the processes named `postgres` now alive (a backend that has ended is not
/// counted: the servers keep their connections open through the run).
fn postgres_cpu() -> Duration {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Duration::ZERO;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| read_stat(&format!("/proc/{}/stat", e.file_name().to_string_lossy())))
        .filter(|(name, _)| name == "postgres")
        .map(|(_, time)| time)
        .sum()
}

/// Where an external server keeps its games.
enum Place<'a> {
    /// A sled directory of its own.
    Data(&'a std::path::Path),
    /// A PostgreSQL database, and the secrets key file every node shares.
    Database(&'a str, &'a std::path::Path),
}

/// An `avalanche` binary in its own process on a free port, over a database in `dir`.
struct External {
    child: std::process::Child,
    base: String,
}

impl External {
    async fn start(
        binary: &std::path::Path,
        place: &Place<'_>,
        workers: Option<usize>,
    ) -> External {
        let port = common::free_port();
        // No quotas or rate limits, and no per-request log lines, as in this process.
        let mut command = std::process::Command::new(binary);
        command.args(["--addr", &format!("127.0.0.1:{port}")]);
        if let Some(workers) = workers {
            command.args(["--workers", &workers.to_string()]);
        }
        match place {
            Place::Data(dir) => command.arg("--data").arg(dir),
            Place::Database(url, key) => command
                .args(["--database", url])
                .arg("--secrets-key")
                .arg(key),
        };
        let child = command
            .args([
                "--limit-players-per-hour",
                "0",
                "--limit-games-per-hour",
                "0",
            ])
            .args([
                "--limit-open-seats",
                "0",
                "--limit-commands-per-second",
                "0",
            ])
            .args(["--limit-streams", "0"])
            // 65 clients from one address, and no other quota in the way of the measure.
            .args([
                "--limit-connections-per-address",
                "0",
                "--limit-tokens",
                "0",
            ])
            .args([
                "--limit-tokens-per-hour",
                "0",
                "--limit-forks-per-hour",
                "0",
            ])
            .args([
                "--limit-imports-per-hour",
                "0",
                "--limit-vacation-changes-per-day",
                "0",
            ])
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{} starts: {e}", binary.display()));
        let base = format!("http://127.0.0.1:{port}");
        common::wait_until_up(&base, Duration::from_secs(60)).await;
        External { child, base }
    }

    fn stop(self) {
        common::stop(self.child);
    }
}

/// Opens the store in `dir`, starts the server and times the first requests.
async fn cold_start(dir: &std::path::Path) {
    let started = Instant::now();
    let store = Store::open(dir).expect("the store opens");
    let opened = started.elapsed();
    let events = stored_events(&store);
    // An older game (from `--prefill`) if there is one: it must be folded from disk.
    let some_game = store
        .streams_tagged("listed", "all", Some("old-"), 1)
        .expect("the index reads")
        .pop()
        .or_else(|| {
            store
                .streams_tagged("listed", "all", None, 1)
                .expect("the index reads")
                .pop()
        });
    let server = Server::start(store.clone());
    let client = reqwest::Client::new();
    let health = client
        .get(format!("{}/health", server.base))
        .send()
        .await
        .and_then(|r| r.error_for_status());
    let first = started.elapsed();
    assert!(health.is_ok(), "the server answers: {health:?}");
    if let Some(id) = some_game {
        let asked = Instant::now();
        let game = client
            .get(format!("{}/v1/games/{id}", server.base))
            .send()
            .await
            .expect("an answer");
        let status = game.status();
        let body = game.bytes().await.expect("a body");
        println!(
            "first look at a stored game ({id}, {status}, {} bytes, folded from disk): {:.2} ms",
            body.len(),
            asked.elapsed().as_secs_f64() * 1e3
        );
    }
    server.stop().await;
    println!(
        "cold start with {events} stored events: store open {:.1} ms, open + start + first answer (GET /health) {:.1} ms",
        opened.as_secs_f64() * 1e3,
        first.as_secs_f64() * 1e3
    );
}

/// Stores about `target` events of older games: recorded random games of every kind, each
/// appended command by command exactly as the server appends them (same batches, tags and
/// seed), under fresh ids, by many concurrent writers so that they share each flush.
async fn prefill(store: &Store, target: u64, seats: usize) {
    let started = Instant::now();
    let registry = Arc::new(Registry::standard());
    // A few recorded games per kind, copied under fresh ids: recording is the slow part.
    let mut recorded = Vec::new();
    for (n, (id, options)) in KINDS.iter().enumerate() {
        let kind = registry.get(id).expect("registered");
        for g in 0..8u64 {
            let options = options.map(|o| serde_json::from_str(o).expect("options"));
            let mut seed = [n as u8; 32];
            seed[..8].copy_from_slice(&g.to_le_bytes());
            let game = play_random_log(kind, None, options, seats, Seed(seed), g, 2_000)
                .unwrap_or_else(|e| panic!("{id}: {e}"));
            let events = game.events.len() as u64;
            recorded.push(((game, Seed(seed)), events));
        }
    }
    let recorded = Arc::new(recorded);
    let written = Arc::new(AtomicU64::new(0));
    let next = Arc::new(AtomicU64::new(0));
    let writers: Vec<_> = (0..256)
        .map(|_| {
            let (store, registry) = (store.clone(), registry.clone());
            let (recorded, written, next) = (recorded.clone(), written.clone(), next.clone());
            tokio::spawn(async move {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let ((game, seed), events) = &recorded[n as usize % recorded.len()];
                    let events = *events;
                    // Reserve the game's events first, so that the total overshoots by one game
                    // at most.
                    if written.fetch_add(events, Ordering::Relaxed) >= target {
                        written.fetch_sub(events, Ordering::Relaxed);
                        next.fetch_sub(1, Ordering::Relaxed);
                        break;
                    }
                    append_game(&store, &registry, &format!("old-{n}"), game, *seed).await;
                }
            })
        })
        .collect();
    for writer in writers {
        writer.await.expect("a writer");
    }
    let elapsed = started.elapsed().as_secs_f64();
    let events = written.load(Ordering::Relaxed);
    println!(
        "prefill: {events} events of {} older games in {elapsed:.1} s ({:.0} events/s)",
        next.load(Ordering::Relaxed),
        events as f64 / elapsed
    );
}

/// Appends a recorded game as stream `id` in one batch (with the seed and the index entries the
/// server would leave): one flush a game rather than one a command keeps the prefill of a
/// million events within minutes. The events, the log and the index are the same as the
/// server's; only the `batches` tree holds one record a game instead of one a command.
async fn append_game(store: &Store, registry: &Registry, id: &str, game: &GameLog, seed: Seed) {
    let kind: &dyn GameKind = registry.get(&game.kind).expect("registered");
    let live: Box<dyn LiveGame> = kind.fold(&game.payloads()).expect("folds");
    let events = game
        .events
        .iter()
        .map(|e| NewEvent {
            event_type: e.event_type.clone(),
            schema_version: 1,
            payload: e.payload.clone(),
        })
        .collect();
    let batch = Batch {
        events,
        actor: "player:p0".to_string(),
        command_id: None,
        command: game.commands.last().and_then(|c| c.command.clone()),
        recorded_at: chrono::Utc::now(),
        tags: Some(app::index::tags(live.as_ref())),
        secrets: vec![("seed".to_string(), seed.0.to_vec())],
    };
    store
        .append(id, 0, batch)
        .await
        .expect("the prefill appends");
}

/// What the clients read of a game summary.
#[derive(Deserialize)]
struct Summary {
    id: String,
    status: Status,
    to_act: Vec<usize>,
}

#[derive(Deserialize)]
struct Answer {
    game: Summary,
}

#[derive(Deserialize)]
struct LegalList {
    commands: Vec<LegalOut>,
}

#[derive(Deserialize)]
struct LegalOut {
    /// Kept as the server wrote it and posted back as is: the client reads only its type.
    command: Box<RawValue>,
}

/// The type of a legal command, the one field the client looks at.
#[derive(Deserialize)]
struct CommandType<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
}

impl LegalOut {
    /// Whether the random player may choose it: never resign nor deal in draws, so games are
    /// played out.
    fn playable(&self) -> bool {
        let kind = serde_json::from_str::<CommandType>(self.command.get())
            .ok()
            .and_then(|c| c.kind);
        !matches!(
            kind.as_deref(),
            Some("resign" | "offer_draw" | "accept_draw" | "decline_draw")
        )
    }
}

#[derive(Deserialize)]
struct PlayerCreated {
    token: String,
}

/// A game a client plays: its kind, its players' tokens by seat, and what it last saw.
struct Table {
    kind: usize,
    tokens: Vec<String>,
    game: Summary,
}

/// A small deterministic random source for the clients' choices.
struct Chooser(u64);

impl Chooser {
    fn below(&mut self, n: usize) -> usize {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

struct Client {
    http: reqwest::Client,
    /// The servers; each request goes to the next one in turn. Parsed once: a request's URL
    /// is a copy with its path set, not a string parsed again (host and all) every time.
    bases: Vec<reqwest::Url>,
    next: std::sync::atomic::AtomicUsize,
    /// Whether a game's requests all go to the node its id chooses.
    affinity: bool,
}

impl Client {
    /// `path` on the next server, or on its game's (`--affinity`).
    fn url(&self, path: &str) -> reqwest::Url {
        let game = path
            .strip_prefix("/v1/games/")
            .and_then(|rest| rest.split('/').next())
            .filter(|id| self.affinity && id.starts_with("g-"));
        let n = match game {
            // FNV-1a of the id.
            Some(id) => id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
                (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
            }) as usize,
            None => self.next.fetch_add(1, Ordering::Relaxed),
        };
        let mut url = self.bases[n % self.bases.len()].clone();
        url.set_path(path);
        url
    }

    async fn post<T: for<'de> Deserialize<'de>, B: serde::Serialize + ?Sized>(
        &self,
        path: &str,
        token: Option<&str>,
        body: &B,
    ) -> Result<T, String> {
        let mut request = self.http.post(self.url(path)).json(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        read(request.send().await).await
    }

    async fn get<T: for<'de> Deserialize<'de>>(
        &self,
        path: &str,
        token: &str,
    ) -> Result<T, String> {
        let request = self.http.get(self.url(path)).bearer_auth(token);
        read(request.send().await).await
    }

    /// A new game of kind `kind` with every seat taken by one of `tokens`.
    async fn new_game(&self, kind: usize, tokens: Vec<String>) -> Result<Table, String> {
        let (id, options) = KINDS[kind];
        let mut body = json!({"kind": id, "seats": tokens.len()});
        if let Some(options) = options {
            body["options"] = serde_json::from_str(options).map_err(|e| e.to_string())?;
        }
        let created: Summary = self.post("/v1/games", Some(&tokens[0]), &body).await?;
        let mut game = created;
        for token in &tokens[1..] {
            let answer: Answer = self
                .post(
                    &format!("/v1/games/{}/join", game.id),
                    Some(token),
                    &json!({}),
                )
                .await?;
            game = answer.game;
        }
        Ok(Table { kind, tokens, game })
    }
}

async fn read<T: for<'de> Deserialize<'de>>(
    response: reqwest::Result<reqwest::Response>,
) -> Result<T, String> {
    let response = response.map_err(|e| with_causes(&e))?;
    let status = response.status();
    let body = response.bytes().await.map_err(|e| e.to_string())?;
    if !status.is_success() {
        return Err(format!("{status}: {}", String::from_utf8_lossy(&body)));
    }
    serde_json::from_slice(&body).map_err(|e| format!("{e}: {}", String::from_utf8_lossy(&body)))
}

/// An error and every cause under it ("error sending request" alone does not say why).
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        text.push_str(&format!(": {inner}"));
        cause = inner.source();
    }
    text
}

/// What the clients measured.
struct Report {
    elapsed: Duration,
    latencies: Vec<u32>,
    /// The `GET /legal` before each command, in microseconds.
    reads: Vec<u32>,
    games_finished: u64,
    errors: u64,
    /// CPU time spent during the timed play.
    cpu: Cpu,
}

impl Report {
    fn print(&self, args: &Args) {
        let mut latencies = self.latencies.clone();
        latencies.sort_unstable();
        let at = |q: f64| quantile(&latencies, q);
        let mut reads = self.reads.clone();
        reads.sort_unstable();
        let commands = latencies.len();
        println!(
            "{} games ({} of every kind, {} seats), {} clients: {commands} commands in {:.1} s = {:.0} commands/s; \
             latency of the command POSTs p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {} games finished, {} errors",
            args.games * KINDS.len(),
            args.games,
            args.seats,
            args.clients,
            self.elapsed.as_secs_f64(),
            commands as f64 / self.elapsed.as_secs_f64(),
            at(0.5),
            at(0.99),
            latencies.last().map_or(0.0, |&m| m as f64 / 1e3),
            self.games_finished,
            self.errors
        );
        println!(
            "latency of the reads before them (GET /legal): p50 {:.2} ms, p99 {:.2} ms",
            quantile(&reads, 0.5),
            quantile(&reads, 0.99),
        );
        let per_command = |time: Duration| time.as_secs_f64() * 1e6 / commands.max(1) as f64;
        let seconds = self.elapsed.as_secs_f64().max(1e-9);
        println!(
            "CPU during the play: server {:.2} s = {:.0} µs a command ({:.2} cores), clients {:.2} s = {:.0} µs a command ({:.2} cores)",
            self.cpu.server.as_secs_f64(),
            per_command(self.cpu.server),
            self.cpu.server.as_secs_f64() / seconds,
            self.cpu.clients.as_secs_f64(),
            per_command(self.cpu.clients),
            self.cpu.clients.as_secs_f64() / seconds,
        );
        println!(
            "task switches of the server's threads during the play: {} = {:.1} a command",
            self.cpu.server_switches,
            self.cpu.server_switches as f64 / commands.max(1) as f64
        );
        if !self.cpu.database.is_zero() {
            println!(
                "CPU of PostgreSQL's processes during the play: {:.2} s = {:.0} µs a command ({:.2} cores)",
                self.cpu.database.as_secs_f64(),
                per_command(self.cpu.database),
                self.cpu.database.as_secs_f64() / seconds,
            );
        }
    }
}

/// The `q` quantile of `sorted` microseconds, in milliseconds (0 when there are none).
fn quantile(sorted: &[u32], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i] as f64 / 1e3
}

/// Sets up the games, then lets every client play until the time or the count is up.
/// `cpu` reads the CPU time used so far; the report gives what the timed play used.
async fn load(bases: &[String], args: &Args, cpu: &dyn Fn() -> Cpu) -> Report {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(args.clients)
        // The server closes a connection idle for 5 s: let it go first, or a request sent on
        // it as it closes fails ("connection closed before message completed"). With several
        // nodes each connection waits longer between requests, and this happened.
        .pool_idle_timeout(Duration::from_secs(4))
        .build()
        .expect("a client");
    let client = Arc::new(Client {
        http,
        bases: bases
            .iter()
            .map(|base| reqwest::Url::parse(base).expect("a server's address"))
            .collect(),
        next: Default::default(),
        affinity: args.affinity,
    });
    // Every game gets its own players; game n goes to client n % clients.
    let mut tables: Vec<Vec<Table>> = (0..args.clients).map(|_| Vec::new()).collect();
    for n in 0..args.games * KINDS.len() {
        let mut tokens = Vec::new();
        for seat in 0..args.seats {
            let player: PlayerCreated = client
                .post(
                    "/v1/players",
                    None,
                    &json!({"name": format!("p{n}-{seat}")}),
                )
                .await
                .expect("a player");
            tokens.push(player.token);
        }
        let table = client
            .new_game(n % KINDS.len(), tokens)
            .await
            .expect("a game");
        tables[n % args.clients].push(table);
    }
    let cpu_before = cpu();
    let started = Instant::now();
    let deadline = started + Duration::from_secs(args.seconds);
    let budget = Arc::new(AtomicU64::new(args.max_commands));
    let tasks: Vec<_> = tables
        .into_iter()
        .enumerate()
        .filter(|(_, tables)| !tables.is_empty())
        .map(|(n, tables)| {
            let (client, budget) = (client.clone(), budget.clone());
            tokio::spawn(play(client, tables, n as u64, deadline, budget))
        })
        .collect();
    let mut report = Report {
        elapsed: Duration::ZERO,
        latencies: Vec::new(),
        reads: Vec::new(),
        games_finished: 0,
        errors: 0,
        cpu: Cpu::default(),
    };
    for task in tasks {
        let (latencies, reads, finished, errors) = task.await.expect("a client");
        report.latencies.extend(latencies);
        report.reads.extend(reads);
        report.games_finished += finished;
        report.errors += errors;
    }
    report.elapsed = started.elapsed();
    let cpu_after = cpu();
    report.cpu = Cpu {
        server: cpu_after.server.saturating_sub(cpu_before.server),
        clients: cpu_after.clients.saturating_sub(cpu_before.clients),
        database: cpu_after.database.saturating_sub(cpu_before.database),
        server_switches: cpu_after
            .server_switches
            .saturating_sub(cpu_before.server_switches),
    };
    report
}

/// One client: a command at a time, round the games it holds, until the deadline or budget.
async fn play(
    client: Arc<Client>,
    mut tables: Vec<Table>,
    n: u64,
    deadline: Instant,
    budget: Arc<AtomicU64>,
) -> (Vec<u32>, Vec<u32>, u64, u64) {
    let mut chooser = Chooser(0x9E37_79B9_7F4A_7C15 ^ (n + 1).wrapping_mul(0xA24B_AED4_963E_E407));
    let (mut latencies, mut reads) = (Vec::new(), Vec::new());
    let (mut finished, mut errors) = (0, 0);
    'play: loop {
        for table in tables.iter_mut() {
            if Instant::now() >= deadline
                || budget
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(1))
                    .is_err()
            {
                break 'play;
            }
            if table.game.status == Status::Finished {
                finished += 1;
                match client.new_game(table.kind, table.tokens.clone()).await {
                    Ok(new) => *table = new,
                    Err(e) => {
                        eprintln!("a new game failed: {e}");
                        errors += 1;
                        break 'play;
                    }
                }
            }
            let seat = table.game.to_act[chooser.below(table.game.to_act.len())];
            let token = &table.tokens[seat];
            let asked = Instant::now();
            let legal: LegalList = match client
                .get(&format!("/v1/games/{}/legal", table.game.id), token)
                .await
            {
                Ok(legal) => legal,
                Err(e) => {
                    eprintln!("legal failed: {e}");
                    errors += 1;
                    break 'play;
                }
            };
            reads.push(micros(asked.elapsed()));
            let commands: Vec<&RawValue> = legal
                .commands
                .iter()
                .filter(|l| l.playable())
                .map(|l| &*l.command)
                .collect();
            let command = commands[chooser.below(commands.len())];
            let sent = Instant::now();
            let answer: Result<Answer, String> = client
                .post(
                    &format!("/v1/games/{}/commands", table.game.id),
                    Some(token),
                    command,
                )
                .await;
            let took = sent.elapsed();
            match answer {
                Ok(answer) => {
                    latencies.push(micros(took));
                    table.game = answer.game;
                }
                Err(e) => {
                    eprintln!("a command failed: {e}");
                    errors += 1;
                    break 'play;
                }
            }
        }
    }
    (latencies, reads, finished, errors)
}

fn micros(time: Duration) -> u32 {
    time.as_micros().min(u128::from(u32::MAX)) as u32
}
