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

/// The settings that turn every quota and rate limit off.
const UNLIMITED: &[&str] = &[
    "--limit-players-per-hour",
    "0",
    "--limit-games-per-hour",
    "0",
    "--limit-open-seats",
    "0",
    "--limit-commands-per-second",
    "0",
    "--limit-streams",
    "0",
    "--limit-forks-per-hour",
    "0",
    "--limit-imports-per-hour",
    "0",
    "--limit-vacation-changes-per-day",
    "0",
    "--limit-messages-per-hour",
    "0",
    "--limit-tokens",
    "0",
    "--limit-tokens-per-hour",
    "0",
    "--limit-connections-per-address",
    "0",
];

/// A running binary and a [`TestApp`] that talks to it.
pub struct Server {
    pub child: Child,
    pub app: TestApp,
}

impl Server {
    /// Starts the binary over `data` with `args` besides the address and data directory, and
    /// waits until it answers.
    /// The tests play fast, so the binary runs without quotas or rate limits here, as
    /// `TestApp::spawn` does; `start_with_limits` keeps the binary's own.
    pub fn start(data: &Path, args: &[&str]) -> Server {
        let mut all = UNLIMITED.to_vec();
        all.extend_from_slice(args);
        Server::start_with_output(data, &all, Stdio::null(), "warn")
    }

    /// `start` with the binary's default limits, and `args`.
    pub fn start_with_limits(data: &Path, args: &[&str]) -> Server {
        Server::start_with_output(data, args, Stdio::null(), "warn")
    }

    /// `start`, its log (level `info`) written to the file `log`.
    pub fn start_logging(data: &Path, log: &Path) -> Server {
        let file = std::fs::File::create(log).expect("the log file");
        Server::start_with_output(data, &[], Stdio::from(file), "info")
    }

    /// `start` with `args`, its warnings and what it says of its leases written to the file
    /// `log` (appended to, so that a restarted server's log follows the first one's).
    pub fn start_logging_with(data: &Path, args: &[&str], log: &Path) -> Server {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("the log file");
        let mut all = UNLIMITED.to_vec();
        all.extend_from_slice(args);
        Server::start_with_output(data, &all, Stdio::from(file), "warn,app::leases=info")
    }

    /// `start` (without limits) with `args`, its log at `level` written to the file `log`
    /// (appended to).
    pub fn start_logging_at(data: &Path, args: &[&str], log: &Path, level: &str) -> Server {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("the log file");
        let mut all = UNLIMITED.to_vec();
        all.extend_from_slice(args);
        Server::start_with_output(data, &all, Stdio::from(file), level)
    }

    /// `start_logging_at` in a process allowed only `files` open files (its soft and hard
    /// limit, set by util-linux's `prlimit` before the binary starts).
    pub fn start_with_open_files(
        data: &Path,
        args: &[&str],
        files: u64,
        log: &Path,
        level: &str,
    ) -> Server {
        let file = std::fs::File::create(log).expect("the log file");
        let mut all = UNLIMITED.to_vec();
        all.extend_from_slice(args);
        let present = Command::new("prlimit")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            present,
            "this test needs util-linux's prlimit: install it (apt-get install util-linux)"
        );
        let mut command = Command::new("prlimit");
        command
            .arg(format!("--nofile={files}:{files}"))
            .arg("--")
            .arg(path());
        Server::start_command(command, data, &all, Stdio::from(file), level)
    }

    /// `start` with the variables `env` set in the process (as a service manager sets them).
    pub fn start_with_env(data: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut command = Command::new(path());
        command.envs(env.iter().copied());
        let mut all = UNLIMITED.to_vec();
        all.extend_from_slice(args);
        Server::start_command(command, data, &all, Stdio::null(), "warn")
    }

    fn start_with_output(data: &Path, args: &[&str], output: Stdio, level: &str) -> Server {
        Server::start_command(Command::new(path()), data, args, output, level)
    }

    fn start_command(
        mut command: Command,
        data: &Path,
        args: &[&str],
        output: Stdio,
        level: &str,
    ) -> Server {
        let free = || {
            TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port()
        };
        let (port, admin) = (free(), free());
        let mut child = command
            .args(["--addr", &format!("127.0.0.1:{port}")])
            .args(["--admin-addr", &format!("127.0.0.1:{admin}"), "--data"])
            .arg(data)
            .args(args)
            .env("RUST_LOG", level)
            .stdout(output)
            .stderr(Stdio::null())
            .spawn()
            .expect("the avalanche binary starts (cargo test --workspace builds it)");
        let mut app = TestApp::attach(&format!("http://127.0.0.1:{port}"));
        app.admin = Some(format!("http://127.0.0.1:{admin}"));
        // On a loaded machine (every test's server, PostgreSQL and Chromium on 2 cores) a start
        // takes seconds; a server that exited is said at once.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while std::time::Instant::now() < deadline {
            if app.client.get(app.url("/health")).send().is_ok() {
                return Server { child, app };
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("the server exited before it answered: {status}");
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        child.kill().ok();
        child.wait().ok();
        panic!("the server did not answer within 60 s");
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
