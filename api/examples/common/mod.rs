//! What the examples that run a built `avalanche` binary share: a port for it, waiting for it to
//! answer, and stopping it as an operator does.

use std::net::TcpListener;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// A port free on 127.0.0.1 now, for a server to listen on.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Waits until the server at `base` answers `GET /health`; panics after `limit`.
pub async fn wait_until_up(base: &str, limit: Duration) {
    let started = Instant::now();
    while reqwest::get(format!("{base}/health")).await.is_err() {
        assert!(
            started.elapsed() < limit,
            "the server at {base} answers within {} s",
            limit.as_secs()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Stops a server with SIGINT, as an operator stops it (its store closed cleanly), and waits
/// for it to end.
pub fn stop(mut child: Child) {
    let _ = Command::new("kill")
        .arg("-INT")
        .arg(child.id().to_string())
        .status();
    let _ = child.wait();
}
