//! A node whose way to the database goes dark without a reset, as when its machine loses power
//! or its network goes: the node runs in a network namespace of its own, joined to the
//! database's host by a virtual link, and the test takes the link down. Nothing closes the
//! node's connections, so only timeouts can tell: the node must count its leases lost within
//! seconds, and the database must end the dead node's session (freeing its clock lease) soon
//! after, so that another node keeps the clock within seconds rather than after TCP's two
//! hours; a read on the cut-off node is answered 503 within seconds; and once the link is
//! back, the node reads the database again. Needs root (network namespaces), iproute2's `ip`
//! and `curl`, which root installs when they are missing.

use crate::cluster::Cluster;
use crate::common::binary::{self, Server};
use crate::common::debian;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn run(command: &mut Command) {
    let output = command.output().expect("the command runs");
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A network namespace with one virtual link to this one, removed when dropped.
struct Namespace {
    /// iproute2's `ip`, and curl, installed when missing.
    ip: PathBuf,
    curl: PathBuf,
    name: String,
    host_link: String,
    /// This side's address, and the namespace's.
    host: String,
    inside: String,
}

impl Namespace {
    fn new() -> Namespace {
        assert!(
            debian::is_root(),
            "this test makes a network namespace: run the tests as root"
        );
        let n = std::process::id() % 100_000;
        let octet = 1 + (std::process::id() % 250);
        let space = Namespace {
            ip: debian::program(&["/usr/sbin/ip", "/usr/bin/ip", "/sbin/ip"], "iproute2"),
            curl: debian::program(&["/usr/bin/curl"], "curl"),
            name: format!("avalanche-{n}"),
            host_link: format!("avh{n}"),
            host: format!("10.213.{octet}.1"),
            inside: format!("10.213.{octet}.2"),
        };
        let inside_link = format!("avn{n}");
        run(space.ip().args(["netns", "add", &space.name]));
        run(space.ip().args([
            "link",
            "add",
            &space.host_link,
            "type",
            "veth",
            "peer",
            "name",
            &inside_link,
        ]));
        run(space
            .ip()
            .args(["link", "set", &inside_link, "netns", &space.name]));
        run(space.ip().args([
            "addr",
            "add",
            &format!("{}/30", space.host),
            "dev",
            &space.host_link,
        ]));
        run(space.ip().args(["link", "set", &space.host_link, "up"]));
        for args in [
            vec![
                "addr",
                "add",
                &format!("{}/30", space.inside),
                "dev",
                &inside_link,
            ],
            vec!["link", "set", &inside_link, "up"],
            vec!["link", "set", "lo", "up"],
        ] {
            run(space
                .ip()
                .args(["netns", "exec", &space.name])
                .arg(&space.ip)
                .args(args));
        }
        space
    }

    fn ip(&self) -> Command {
        Command::new(&self.ip)
    }

    /// The link goes down: from now on nothing passes either way, and nothing is reset.
    fn cut(&self) {
        run(self.ip().args(["link", "set", &self.host_link, "down"]));
    }

    /// The link comes back.
    fn mend(&self) {
        run(self.ip().args(["link", "set", &self.host_link, "up"]));
    }

    /// The status of a GET of `url` made from inside the namespace, and how long it took
    /// (`000` when nothing answered within a minute).
    fn get(&self, url: &str) -> (String, Duration) {
        let started = Instant::now();
        let output = self
            .ip()
            .args(["netns", "exec", &self.name])
            .arg(&self.curl)
            .args(["-s", "-o", "/dev/null"])
            .args(["-w", "%{http_code}", "--max-time", "60", url])
            .output()
            .expect("curl runs in the namespace");
        let status = String::from_utf8_lossy(&output.stdout).trim().to_string();
        (status, started.elapsed())
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = self.ip().args(["link", "del", &self.host_link]).status();
        let _ = self.ip().args(["netns", "del", &self.name]).status();
    }
}

/// The binary in the namespace, answering on its address there, on database `url`.
fn start_inside(
    space: &Namespace,
    data: &Path,
    url: &str,
    key: &str,
    log: &Path,
) -> (Child, String) {
    let port = 20_000 + std::process::id() % 20_000;
    let address = format!("{}:{port}", space.inside);
    let file = std::fs::File::create(log).expect("the log file");
    let mut child = space
        .ip()
        .args(["netns", "exec", &space.name])
        .arg(binary::path())
        .args(["--addr", &address, "--data"])
        .arg(data)
        .args(["--database", url, "--secrets-key", key])
        .args(["--database-connections", "2", "--workers", "1"])
        .env("RUST_LOG", "warn,app::leases=info")
        .stdout(Stdio::from(file))
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts in the namespace");
    let client = reqwest::blocking::Client::new();
    let started = Instant::now();
    while client
        .get(format!("http://{address}/health"))
        .timeout(Duration::from_secs(1))
        .send()
        .is_err()
    {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("the node in the namespace did not answer");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (child, format!("http://{address}"))
}

fn log_says(log: &Path, what: &str) -> bool {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .any(|line| line.contains(what))
}

/// Whether `server` keeps the clock now, from its metrics.
fn keeps_clock(server: &Server) -> bool {
    server
        .app
        .client
        .get(server.app.admin_url("/metrics"))
        .send()
        .and_then(|r| r.text())
        .unwrap_or_default()
        .lines()
        .any(|line| line.trim() == "avalanche_clock_keeper 1")
}

/// Polls `done` every 100 ms for at most `limit`; how long it took, if it came true.
fn within(limit: Duration, mut done: impl FnMut() -> bool) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if done() {
            return Some(started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

#[test]
fn a_node_cut_off_from_the_database_without_a_reset_gives_the_clock_up_within_seconds() {
    let space = Namespace::new();
    let cluster = Cluster::private_on(&space.host, &space.inside);
    let database = cluster.new_database();
    let name = database.rsplit('/').next().expect("a database name");
    let from_inside = format!(
        "postgres://postgres@{}:{}/{name}",
        space.host,
        cluster.port()
    );
    let dir = tempfile::tempdir().expect("a directory");
    let key = dir.path().join("secrets.key");
    let key = key.to_str().expect("a UTF-8 path").to_string();
    let (inside_log, outside_log) = (
        dir.path().join("inside.log"),
        dir.path().join("outside.log"),
    );

    // The node in the namespace starts first and keeps the clock.
    let (mut inside, base) = start_inside(
        &space,
        &dir.path().join("inside"),
        &from_inside,
        &key,
        &inside_log,
    );
    // A read the node answers from the database: a game it does not know.
    let unknown = format!("{base}/v1/games/g-0000000000000000");
    assert_eq!(space.get(&unknown).0, "404", "the node reads the database");
    assert!(
        within(Duration::from_secs(10), || log_says(
            &inside_log,
            "lease taken"
        ))
        .is_some(),
        "the first node takes the clock: {}",
        std::fs::read_to_string(&inside_log).unwrap_or_default()
    );
    let outside = Server::start_logging_with(
        &dir.path().join("outside"),
        &[
            "--database",
            &database,
            "--secrets-key",
            &key,
            "--workers",
            "1",
        ],
        &outside_log,
    );
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        !keeps_clock(&outside),
        "the second node waits while the first keeps the clock"
    );

    space.cut();
    let cut = Instant::now();
    let (read, gave_up, took_over) = std::thread::scope(|scope| {
        let read = scope.spawn(|| space.get(&unknown));
        let gave_up = within(Duration::from_secs(10), || {
            log_says(&inside_log, "leases lost")
        })
        .map(|_| cut.elapsed());
        let took_over =
            within(Duration::from_secs(40), || keeps_clock(&outside)).map(|_| cut.elapsed());
        (read.join().expect("the read"), gave_up, took_over)
    });
    // Once the link is back, the node reads the database again, on new connections.
    space.mend();
    let mended = Instant::now();
    let back = within(Duration::from_secs(40), || space.get(&unknown).0 == "404");
    let _ = inside.kill();
    let _ = inside.wait();
    let gave_up = gave_up.unwrap_or_else(|| {
        panic!(
            "the cut-off node counted its leases lost within 10 s: {}",
            std::fs::read_to_string(&inside_log).unwrap_or_default()
        )
    });
    let took_over = took_over.expect("the other node keeps the clock within 40 s of the cut");
    // The cut-off node gave the lease up before the other took it: never two keepers.
    assert!(
        gave_up < took_over,
        "the cut-off node gave its leases up {gave_up:?} after the cut, the other took the clock {took_over:?} after it"
    );
    assert!(
        back.is_some(),
        "the node reads the database again within 40 s of the link's return: {}",
        std::fs::read_to_string(&inside_log).unwrap_or_default()
    );
    let back = mended.elapsed();
    // A reader of the cut-off node is told the store is unavailable within seconds.
    assert!(
        read.0 == "503" && read.1 < Duration::from_secs(30),
        "a read on the cut-off node answered {} after {:?}",
        read.0,
        read.1
    );
    println!(
        "leases given up after {gave_up:?}; the clock kept by the other node {took_over:?} \
         after the cut; a read answered {} after {:?}; reads again {back:?} after the link's return",
        read.0, read.1
    );
    assert!(
        log_says(&outside_log, "lease taken"),
        "the other node's log says it took the clock"
    );
}
