//! The real `avalanche` binary, started on a free port over a data directory, so that tests
//! can kill it (SIGKILL) and start it again on the same database.

use super::TestApp;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// `target/<profile>/avalanche`, built by `cargo test --workspace` beside the tests.
pub fn path() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target directory");
    dir.join(format!("avalanche{}", std::env::consts::EXE_SUFFIX))
}

/// A running binary and a [`TestApp`] that talks to it.
pub struct Server {
    pub child: Child,
    pub app: TestApp,
}

impl Server {
    /// Starts the binary over `data` with `args` besides the address and data directory, and
    /// waits until it answers.
    pub fn start(data: &Path, args: &[&str]) -> Server {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Command::new(path())
            .args(["--addr", &format!("127.0.0.1:{port}"), "--data"])
            .arg(data)
            .args(args)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the avalanche binary starts (cargo test --workspace builds it)");
        let app = TestApp::attach(&format!("http://127.0.0.1:{port}"));
        for _ in 0..200 {
            if app.client.get(app.url("/health")).send().is_ok() {
                return Server { child, app };
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        child.kill().ok();
        child.wait().ok();
        panic!("the server did not answer");
    }

    /// A crash: SIGKILL, no chance to flush or shut down.
    pub fn kill(&mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().ok();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}
