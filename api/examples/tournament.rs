//! The tournament benchmark: a tournament played to its end through the application layer on a
//! real store, as a server drives it, with the time of each part.
//!
//! ```sh
//! cargo build --release -p api --example tournament
//! target/release/examples/tournament --data /tmp/swiss-1000 --players 1000 --rounds 9
//! target/release/examples/tournament --postgres postgres://... --players 1000 --rounds 9
//! target/release/examples/tournament --data /tmp/league-50 --format league --divisions 50
//! ```
//!
//! A Swiss of `--players` over `--rounds` rounds, or (`--format league`) a league of
//! `--divisions` divisions of `--division-size` players (each division a round robin, each pair
//! once), of Avalanche Chess: the players join through `Club::tournament_act`, and its creator
//! starts it. Each round, every game is ended by a resignation of a seat drawn from a fixed
//! seed, through `Games::play`, followed by `Club::game_written`, which copies the result into
//! the tournament, as the server does after a command. The last result of a round closes it,
//! pairs the next one and starts its games: that call is timed whole ("close and pair"), with
//! the CPU this process spent in it. Beside it, on the tournament folded from its stored
//! events, the pure parts are timed alone: `standings::standings` and the decision that pairs
//! the next round (`tournament::decide` of the round's last result). Then `--reads` reads of
//! the tournament as `GET /v1/tournaments/{id}` asks it (standings and crosstable), with the
//! size of its JSON; and for a league its next edition, created and started (its divisions
//! built again from the standings, its first round paired and its games started), timed.

mod draw;

use app::club::tournaments::{LeagueDivisions, NextEdition};
use app::club::tournaments::{NewTournament, TournamentAct};
use app::club::Club;
use app::sealing::{SecretsKey, DEFAULT_KEY_FILE};
use app::{Games, PlayerCommand};
use clap::Parser;
use domain::tournament::{self, standings, Command, Format, Tournament, TournamentEvent};
use domain::Registry;
use draw::Draw;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use storage::Storage;

#[derive(Parser)]
struct Args {
    /// A sled store's folder (made when missing; give a new one each run); or `--postgres`
    /// (an empty database).
    #[arg(long)]
    data: Option<PathBuf>,
    #[arg(long)]
    postgres: Option<String>,
    /// `swiss` or `league`.
    #[arg(long, default_value = "swiss", value_parser = ["swiss", "league"])]
    format: String,
    /// A Swiss's players.
    #[arg(long, default_value_t = 1000)]
    players: usize,
    /// A Swiss's rounds.
    #[arg(long, default_value_t = 9)]
    rounds: u32,
    /// A league's divisions.
    #[arg(long, default_value_t = 50)]
    divisions: usize,
    /// A league's players in each division.
    #[arg(long, default_value_t = 10)]
    division_size: usize,
    /// Timed reads of the finished tournament.
    #[arg(long, default_value_t = 20)]
    reads: usize,
}

/// The server's allocator, as in the `avalanche` binary.
#[global_allocator]
static ALLOCATOR: api::allocator::Allocator = api::allocator::Allocator {};

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

fn cpu_seconds() -> f64 {
    // utime + stime of this process, in clock ticks (100 a second on Linux).
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let fields: Vec<&str> = s.rsplit(')').next()?.split_whitespace().collect();
            let ticks =
                fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
            Some(ticks / 100.0)
        })
        .unwrap_or(0.0)
}

/// The tournament's events as stored, decoded.
fn stored_events(store: &dyn Storage, id: &str) -> Vec<TournamentEvent> {
    let mut events = Vec::new();
    loop {
        let page = store
            .read_stream(id, events.len() as u64, 10_000)
            .expect("the tournament reads");
        if page.is_empty() {
            return events;
        }
        for envelope in page {
            events.push(serde_json::from_value(envelope.payload).expect("a tournament event"));
        }
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args = Args::parse();
    let (store, key_file): (Arc<dyn Storage>, PathBuf) = match (&args.data, &args.postgres) {
        (_, Some(url)) => (
            Arc::new(storage::PostgresStore::open(url).expect("PostgreSQL opens")),
            std::env::temp_dir().join(format!("tournament-bench-{}.key", std::process::id())),
        ),
        (Some(data), None) => (
            Arc::new(storage::SledStore::open(data).expect("sled opens")),
            data.join(DEFAULT_KEY_FILE),
        ),
        (None, None) => panic!("give --data or --postgres"),
    };
    assert!(
        store.read_all(0, 1).expect("the log reads").is_empty(),
        "give an empty store"
    );
    let registry = Arc::new(Registry::standard());
    let key = SecretsKey::load_or_create(&key_file).expect("the key");
    key.bind(store.as_ref()).expect("the store's key");
    let games = Games::new(store.clone(), registry.clone(), Arc::new(key), 10_000);
    let club = Club::new(store.clone(), registry);
    club.catch_up().await.expect("the club folds the log");

    let league = args.format == "league";
    let count = if league {
        args.divisions * args.division_size
    } else {
        args.players
    };
    let players: Vec<String> = (0..count).map(|i| format!("p-{i:016x}")).collect();
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let created = club
        .create_tournament(
            &games,
            &players[0],
            NewTournament {
                name: if league {
                    "Benchmark league".into()
                } else {
                    "Benchmark Swiss".into()
                },
                kind: "avalanche-chess".into(),
                variant: None,
                options: None,
                format: if league {
                    Format::League
                } else {
                    Format::Swiss
                },
                seats: 2,
                rounds: if league { None } else { Some(args.rounds) },
                time_control: None,
                rated: false,
                entry_until: chrono::Utc::now() + chrono::Duration::days(1),
                min_players: 2,
                max_players: count,
                starts_at: None,
                league: league.then_some(LeagueDivisions {
                    division_size: args.division_size,
                    promoted: 2,
                    relegated: 2,
                }),
            },
        )
        .await
        .expect("the tournament");
    let id = created.id;
    let t = Instant::now();
    for player in &players {
        club.tournament_act(&games, &id, player, TournamentAct::Join)
            .await
            .expect("a join");
    }
    println!(
        "{count} players entered in {:.2} s ({:.2} ms a join)",
        ms(t) / 1000.0,
        ms(t) / count as f64
    );
    let (t, start_cpu) = (Instant::now(), cpu_seconds());
    let started = club
        .tournament_act(&games, &id, &players[0], TournamentAct::Start)
        .await
        .expect("the start");
    println!(
        "start (seeding, {} divisions, round 1 paired, its {} games started): {:.0} ms; CPU {:.2} s",
        started.divisions.len(),
        started.rounds_played.first().map_or(0, |r| r.tables.len()),
        ms(t),
        cpu_seconds() - start_cpu
    );

    let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
    println!("round | games | results copied in, p50 / max ms | close and pair, ms; its CPU, s | standings alone, ms | pairing decision alone, ms");
    for round in 1.. {
        let now = club.tournament(&id).await.expect("the tournament");
        let Some(paired) = now.rounds_played.iter().find(|r| r.round == round) else {
            break;
        };
        let tables: Vec<(String, Vec<String>)> = paired
            .tables
            .iter()
            .map(|t| (t.game.clone(), t.players.clone()))
            .collect();
        let mut copied = Vec::new();
        let (mut close, mut close_cpu) = (0.0, 0.0);
        let (mut alone_standings, mut alone_pairing) = (0.0, 0.0);
        for (n, (game, seats)) in tables.iter().enumerate() {
            let loser = &seats[draw.below(seats.len())];
            let played = games
                .play(PlayerCommand {
                    game,
                    player: loser,
                    command: serde_json::json!({"type": "resign"}),
                    expected: None,
                    key: None,
                })
                .await
                .expect("a resignation");
            let last = n + 1 == tables.len();
            if last {
                // The pure parts, on the tournament as stored before this last result.
                let events = stored_events(store.as_ref(), &id);
                let state = Tournament::fold(&events);
                let t = Instant::now();
                std::hint::black_box(standings::standings(&state));
                alone_standings = ms(t);
                let result = result_of(&played.envelopes, game, round, n + 1, seats.len());
                let seed = domain::Seed([0; 32]);
                let t = Instant::now();
                let decided = tournament::decide(
                    &state,
                    &id,
                    &Command::RecordResult(result),
                    chrono::Utc::now(),
                    &seed,
                )
                .expect("the last result is decided");
                alone_pairing = ms(t);
                assert!(
                    decided.iter().any(|e| matches!(
                        e,
                        TournamentEvent::RoundPaired { .. }
                            | TournamentEvent::TournamentFinished { .. }
                    )),
                    "round {round}'s last result pairs the next or ends the tournament"
                );
            }
            let (t, cpu) = (Instant::now(), cpu_seconds());
            club.game_written(&games, game).await;
            if last {
                close = ms(t);
                close_cpu = cpu_seconds() - cpu;
            } else {
                copied.push(ms(t));
            }
        }
        copied.sort_by(f64::total_cmp);
        println!(
            "{round} | {} | {:.2} / {:.1} | {close:.0}; {close_cpu:.2} | {alone_standings:.1} | {alone_pairing:.1}",
            tables.len(),
            copied.get(copied.len() / 2).copied().unwrap_or(0.0),
            copied.last().copied().unwrap_or(0.0),
        );
    }
    let finished = club.tournament(&id).await.expect("the tournament");
    assert_eq!(
        format!("{:?}", finished.status),
        "Finished",
        "the tournament ends after its rounds"
    );
    println!(
        "played to its end in {:.1} s wall, {:.1} s CPU of this process",
        wall.elapsed().as_secs_f64(),
        cpu_seconds() - cpu
    );
    let mut reads = Vec::new();
    let mut bytes = 0;
    for _ in 0..args.reads {
        let t = Instant::now();
        let out = club.tournament(&id).await.expect("the tournament");
        bytes = serde_json::to_vec(&out).expect("JSON").len();
        reads.push(ms(t));
    }
    reads.sort_by(f64::total_cmp);
    println!(
        "GET /v1/tournaments/{{id}} as the route builds it (standings, crosstable, JSON): p50 {:.1} ms, max {:.1} ms, {} bytes ({} reads)",
        reads[reads.len() / 2],
        reads[reads.len() - 1],
        bytes,
        args.reads
    );
    if league {
        next_edition(&club, &games, &id, &players[0]).await;
    }
}

/// League `id`'s next edition created by `creator` and started, each timed: the divisions
/// built again from the standings (promotion and relegation), round 1 paired and its games
/// started.
async fn next_edition(club: &Club, games: &Games, id: &str, creator: &str) {
    let (t, cpu) = (Instant::now(), cpu_seconds());
    let next = club
        .next_edition(
            games,
            id,
            creator,
            NextEdition {
                entry_until: chrono::Utc::now() + chrono::Duration::days(1),
                starts_at: None,
            },
        )
        .await
        .expect("the next edition");
    println!(
        "next edition created ({} players carried in): {:.0} ms",
        next.players.len(),
        ms(t)
    );
    let t = Instant::now();
    let started = club
        .tournament_act(games, &next.id, creator, TournamentAct::Start)
        .await
        .expect("the next edition starts");
    let games_started = started.rounds_played.first().map_or(0, |r| r.tables.len());
    println!(
        "next edition started ({} divisions, {} moves, round 1's {games_started} games started): {:.0} ms; CPU of both, {:.2} s",
        started.divisions.len(),
        started.moves.len(),
        ms(t),
        cpu_seconds() - cpu
    );
}

/// The result the driver copies in for `game` (table `table` of `round`), from its events.
fn result_of(
    envelopes: &[storage::Envelope],
    game: &str,
    round: u32,
    table: usize,
    seats: usize,
) -> domain::tournament::GameResultEvent {
    let finished = envelopes
        .iter()
        .find(|e| e.event_type == "finished")
        .expect("the resignation ends the game");
    let outcome: domain::Outcome =
        serde_json::from_value(finished.payload["outcome"].clone()).expect("its outcome");
    let places = domain::rating::places(&outcome, seats).expect("places");
    domain::tournament::GameResultEvent {
        round,
        table,
        game: game.to_string(),
        places,
        scores: outcome.scores.clone(),
        draw: outcome.draw,
        reason: outcome.reason.clone(),
    }
}
