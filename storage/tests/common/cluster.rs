//! A private PostgreSQL cluster for the tests of one test binary: `initdb` into a temporary
//! directory, its own port on 127.0.0.1 and its own socket directory, run as the unprivileged
//! `postgres` user when the tests run as root (PostgreSQL refuses to run as root). One cluster
//! is shared by all the tests of a binary; each test takes a fresh database in it.
//!
//! When the server programs are missing, root installs Debian's `postgresql` package; anyone
//! else gets a failure that says what to install. Nothing is skipped.
//!
//! The server stops when the test binary ends, however it ends: a small watchdog shell waits
//! for the test process to disappear, then stops the server (`pg_ctl stop -m immediate`) and
//! removes the directory.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

pub struct Cluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    databases: AtomicU64,
    /// The server's options, to start it again after [`Cluster::stop`].
    options: String,
}

static SHARED: OnceLock<Cluster> = OnceLock::new();

impl Cluster {
    /// The cluster of this test binary, started on first use.
    pub fn shared() -> &'static Cluster {
        SHARED.get_or_init(Cluster::start)
    }

    /// A new, empty database in the cluster; its connection string.
    pub fn new_database(&self) -> String {
        let name = format!(
            "test_{}",
            self.databases.fetch_add(1, Ordering::Relaxed) + 1
        );
        self.psql("postgres", &format!("CREATE DATABASE {name}"));
        self.url(&name)
    }

    /// The connection string of database `name`.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// Runs one SQL command in database `name` with `psql`; panics with its output on failure.
    pub fn psql(&self, database: &str, sql: &str) -> String {
        let output = Command::new(self.bin.join("psql"))
            .args(["-h", "127.0.0.1", "-U", "postgres", "-X", "-q", "-A", "-t"])
            .args([
                "-v",
                "ON_ERROR_STOP=1",
                "-p",
                &self.port.to_string(),
                "-d",
                database,
            ])
            .args(["-c", sql])
            .stdin(Stdio::null())
            .output()
            .expect("psql runs");
        assert!(
            output.status.success(),
            "psql {sql:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    }

    fn start() -> Cluster {
        Cluster::start_listening(None)
    }

    /// A cluster of its own, for a test that stops or restarts it.
    pub fn private() -> Cluster {
        Cluster::start_listening(None)
    }

    /// Stops the server as an operator's `systemctl stop postgresql` does (`pg_ctl stop -m
    /// fast`: every session is ended with `57P01`), waiting until it has stopped.
    pub fn stop(&self) {
        self.pg_ctl(&["-m", "fast", "-w", "stop"]);
    }

    /// Starts the server again after [`Cluster::stop`], waiting until it takes connections.
    pub fn start_again(&self) {
        self.pg_ctl(&["-o", &self.options, "-w", "-t", "60", "start"]);
    }

    /// Restarts the server (`pg_ctl restart -m fast`), waiting until it takes connections.
    pub fn restart(&self) {
        self.pg_ctl(&[
            "-o",
            &self.options,
            "-m",
            "fast",
            "-w",
            "-t",
            "60",
            "restart",
        ]);
    }

    fn pg_ctl(&self, args: &[&str]) {
        run(as_server_user(is_root(), &self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(self.dir.join("data"))
            .arg("-l")
            .arg(self.dir.join("server.log"))
            .args(args));
    }

    /// A cluster of its own (not the shared one) that also listens on `address` and lets
    /// `client` (an IPv4 address) connect from there, for a test that reaches it from another
    /// network namespace.
    pub fn private_on(address: &str, client: &str) -> Cluster {
        Cluster::start_listening(Some((address, client)))
    }

    fn start_listening(also: Option<(&str, &str)>) -> Cluster {
        let bin = server_programs();
        let root = is_root();
        let dir = std::env::temp_dir().join(format!(
            "avalanche-pg-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default()
        ));
        std::fs::create_dir_all(&dir).expect("the cluster's directory is created");
        if root {
            run(Command::new("chown").arg("postgres:postgres").arg(&dir));
        }
        let data = dir.join("data");
        run(as_server_user(root, &bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-locale",
                "--no-sync",
            ]));
        if let Some((_, client)) = also {
            use std::io::Write;
            let hba = data.join("pg_hba.conf");
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&hba)
                .expect("pg_hba.conf");
            writeln!(file, "host all all {client}/32 trust").expect("pg_hba.conf is written");
        }
        let port = free_port();
        let listen = match also {
            Some((address, _)) => format!("127.0.0.1,{address}"),
            None => "127.0.0.1".to_string(),
        };
        // fsync off: the tests cannot observe a machine's crash, and every test creates a
        // database; commits still go through the WAL and answer after it is written.
        let options = format!(
            "-p {port} -k {} -c listen_addresses={listen} -c max_connections=400 -c fsync=off",
            dir.display()
        );
        start_watchdog(root, &bin, &dir, &data);
        run(as_server_user(root, &bin.join("pg_ctl"))
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(dir.join("server.log"))
            .args(["-o", &options, "-w", "-t", "60", "start"]));
        Cluster {
            bin,
            dir,
            port,
            databases: AtomicU64::new(0),
            options,
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn directory(&self) -> &Path {
        &self.dir
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// `program` run as the `postgres` user when we are root, else as ourselves.
fn as_server_user(root: bool, program: &Path) -> Command {
    if root {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn run(command: &mut Command) {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{command:?} cannot start: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The directory of `initdb`, `pg_ctl` and `psql`, installing Debian's `postgresql` when root.
fn server_programs() -> PathBuf {
    if let Some(found) = find_server_programs() {
        return found;
    }
    assert!(
        is_root(),
        "the PostgreSQL tests need the PostgreSQL server programs (initdb, pg_ctl, psql): \
         install them with `sudo apt-get install postgresql` (Debian, Ubuntu) or put their \
         directory on PATH"
    );
    run(Command::new("apt-get").args(["-o", "DPkg::Lock::Timeout=600", "update"]));
    run(Command::new("apt-get")
        .env("DEBIAN_FRONTEND", "noninteractive")
        .args([
            "install",
            "-y",
            "-o",
            "DPkg::Lock::Timeout=600",
            "postgresql",
        ]));
    find_server_programs().expect("initdb is installed by Debian's postgresql package")
}

fn find_server_programs() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default();
    let complete = |dir: &Path| {
        ["initdb", "pg_ctl", "psql"]
            .iter()
            .all(|p| dir.join(p).exists())
    };
    // Debian's versioned directories first (newest first): PATH often has only the client.
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.path().join("bin"))
                .collect()
        })
        .unwrap_or_default();
    debian.sort_by_key(|dir| {
        dir.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    debian
        .into_iter()
        .rev()
        .chain(on_path)
        .find(|dir| complete(dir))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port")
}

/// Stops the server and removes its directory once this test process has ended.
fn start_watchdog(root: bool, bin: &Path, dir: &Path, data: &Path) {
    let stop = format!(
        "{} {} -D {} -m immediate stop",
        if root { "runuser -u postgres --" } else { "" },
        bin.join("pg_ctl").display(),
        data.display()
    );
    let script = format!(
        "while [ -d /proc/{pid} ]; do sleep 0.2; done; {stop} >/dev/null 2>&1; rm -rf {dir}",
        pid = std::process::id(),
        dir = dir.display()
    );
    // Never waited for: it outlives this process on purpose, and then belongs to init.
    #[allow(clippy::zombie_processes)]
    Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the cluster's watchdog starts");
}
