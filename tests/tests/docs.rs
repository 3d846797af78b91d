//! Docs that stay true: the shell sessions of README.md and docs/api.md run against the real
//! binary, every setting of `avalanche --help` is in docs/operating.md, every link and
//! repository path the docs name exists, the stated minimum Rust covers the locked
//! dependencies, and one version shows everywhere.

use crate::common;

use common::binary::{self, Server};
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The address the sessions are written for, replaced by the test server's.
const DOCUMENTED_URL: &str = "http://127.0.0.1:8080";
/// What a session block may take at most (its long-polls wait a second or two).
const SESSION_TIMEOUT: Duration = Duration::from_secs(120);
/// Printed by the test between two blocks of a session, to tell their outputs apart.
const BLOCK_END: &str = "@@docs-block-end@@";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the repository")
        .to_path_buf()
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(root().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The pages the project writes for its readers (the rules pages are checked for links too).
fn pages() -> Vec<String> {
    let mut pages: Vec<String> = [
        "README.md",
        "CHANGELOG.md",
        "BENCHMARKS.md",
        "api/web/README.md",
    ]
    .map(String::from)
    .to_vec();
    for dir in ["docs", "docs/rules"] {
        let mut found: Vec<String> = std::fs::read_dir(root().join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(Result::ok)
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".md"))
            .map(|name| format!("{dir}/{name}"))
            .collect();
        found.sort();
        pages.extend(found);
    }
    pages
}

/// A fenced block: its info string, its text and the line it starts on.
struct Block {
    info: String,
    text: String,
    line: usize,
}

fn fenced_blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (number, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        match open.take() {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some(Block {
                        info: info.trim().to_string(),
                        text: String::new(),
                        line: number + 1,
                    });
                }
            }
            Some(mut block) => {
                if trimmed.starts_with("```") {
                    blocks.push(block);
                } else {
                    block.text.push_str(line);
                    block.text.push('\n');
                    open = Some(block);
                }
            }
        }
    }
    assert!(open.is_none(), "a fenced block is never closed");
    blocks
}

/// The blocks a reader can paste: ```` ```sh runnable ````.
fn runnable(markdown: &str) -> Vec<Block> {
    fenced_blocks(markdown)
        .into_iter()
        .filter(|b| b.info.split_whitespace().collect::<Vec<_>>() == ["sh", "runnable"])
        .collect()
}

/// The output a block promises: its `# => ` lines, in order.
fn promised(block: &Block) -> Vec<String> {
    block
        .text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("# => "))
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// `curl` and `jq`, which the sessions use, installed now (as root) when missing.
fn ensure_session_tools() {
    let missing: Vec<&str> = ["curl", "jq"]
        .into_iter()
        .filter(|program| {
            !Command::new(program)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
        .collect();
    if !missing.is_empty() {
        common::debian::install("the documentation sessions", &missing);
    }
}

/// The built `avalanche` binary, or a failure that says how to build it.
fn avalanche() -> PathBuf {
    let path = binary::path();
    assert!(
        path.exists(),
        "{} is missing: `cargo test --workspace` builds it, or run `cargo build -p api --bin avalanche`",
        path.display()
    );
    path
}

/// Runs the runnable blocks of `page` in order, in one shell, against a fresh server with its
/// default settings, and checks each block's exit and promised output.
fn run_session(page: &str) {
    let blocks = runnable(&read(page));
    assert!(
        blocks.len() >= 3,
        "{page} has {} runnable blocks; its session has gone missing",
        blocks.len()
    );
    let data = tempfile::tempdir().expect("a temporary directory");
    let server = Server::start_with_limits(&data.path().join("data"), &[]);
    let mut script = String::from("set -euo pipefail\n");
    for block in &blocks {
        script.push_str(&block.text.replace(DOCUMENTED_URL, &server.app.base));
        script.push_str(&format!("\necho {BLOCK_END}\n"));
    }
    let (status, stdout, stderr) = run_bash(&script);
    let outputs: Vec<&str> = stdout.split(&format!("{BLOCK_END}\n")).collect();
    let finished = outputs.len() - 1;
    if let Some(block) = blocks.get(finished) {
        panic!(
            "{page}: the block at line {} failed ({status}):\n{}\nits output:\n{}\nerrors:\n{stderr}",
            block.line, block.text, outputs[finished]
        );
    }
    assert!(status.success(), "{page}: the session failed: {stderr}");
    for (block, output) in blocks.iter().zip(&outputs) {
        let expected = promised(block);
        if expected.is_empty() {
            continue;
        }
        let got: Vec<&str> = output.lines().collect();
        assert_eq!(
            got, expected,
            "{page}: the block at line {} printed something else than its `# =>` lines",
            block.line
        );
    }
}

/// `bash -c script`, killed after [`SESSION_TIMEOUT`].
fn run_bash(script: &str) -> (std::process::ExitStatus, String, String) {
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(script)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash runs");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).ok();
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).ok();
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for bash") {
            break status;
        }
        if started.elapsed() > SESSION_TIMEOUT {
            child.kill().ok();
            child.wait().ok();
            panic!("the session did not end within {SESSION_TIMEOUT:?}:\n{script}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (
        status,
        out.join().expect("stdout read"),
        err.join().expect("stderr read"),
    )
}

#[test]
fn the_readme_session_plays_a_move_as_pasted() {
    ensure_session_tools();
    avalanche();
    run_session("README.md");
}

#[test]
fn the_api_tour_runs_as_pasted() {
    ensure_session_tools();
    avalanche();
    run_session("docs/api.md");
}

/// The flags and environment variables of one `--help` text.
fn settings_of(help: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut flags = BTreeSet::new();
    let mut variables = BTreeSet::new();
    for word in help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']') {
        if let Some(flag) = word.strip_prefix("--") {
            let flag: String = flag
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if !flag.is_empty() && flag != "help" && flag != "version" {
                flags.insert(format!("--{flag}"));
            }
        }
    }
    for part in help.split("[env: ").skip(1) {
        let name: String = part
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        variables.insert(name);
    }
    (flags, variables)
}

fn help(args: &[&str]) -> String {
    let output = Command::new(avalanche())
        .args(args)
        .arg("--help")
        .env_clear()
        .output()
        .expect("avalanche --help runs");
    assert!(output.status.success(), "avalanche {args:?} --help failed");
    String::from_utf8(output.stdout).expect("help is UTF-8")
}

#[test]
fn every_setting_of_the_binary_is_in_operating_md() {
    let main = help(&[]);
    let commands: Vec<String> = main
        .split("Commands:")
        .nth(1)
        .expect("`avalanche --help` lists its commands")
        .lines()
        .skip(1) // the rest of the line `Commands:`
        .map_while(|line| {
            let line = line.trim();
            (!line.is_empty()).then(|| line.split_whitespace().next().unwrap_or("").to_string())
        })
        .filter(|command| command != "help")
        .collect();
    for expected in ["serve", "openapi", "audit", "migrate"] {
        assert!(
            commands.iter().any(|c| c == expected),
            "`avalanche --help` no longer lists `{expected}`: {commands:?}"
        );
    }
    let (mut flags, mut variables) = settings_of(&main);
    for command in &commands {
        let (f, v) = settings_of(&help(&[command]));
        flags.extend(f);
        variables.extend(v);
    }
    assert!(
        flags.len() >= 20,
        "too few flags read from --help: {flags:?}"
    );

    let operating = read("docs/operating.md");
    let missing: Vec<&String> = flags
        .iter()
        .filter(|flag| !operating.contains(&format!("`{flag}`")))
        .chain(
            variables
                .iter()
                .filter(|v| !operating.contains(&format!("`{v}`"))),
        )
        .collect();
    assert!(
        missing.is_empty(),
        "docs/operating.md does not name these settings of `avalanche --help`: {missing:?}"
    );
    for command in &commands {
        assert!(
            operating.contains(&format!("`avalanche {command}")),
            "docs/operating.md has no section for `avalanche {command}`"
        );
    }

    // And the other way: no page names a setting the binary does not have.
    for page in pages() {
        let text = read(&page);
        for part in text.split("AVALANCHE_").skip(1) {
            let name: String = part
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            let variable = format!("AVALANCHE_{name}");
            // `AVALANCHE_URL` is the clients' and fuzzer's, not the server's.
            if name.is_empty() || variable == "AVALANCHE_URL" {
                continue;
            }
            assert!(
                variables.contains(&variable),
                "{page} names {variable}, which `avalanche --help` does not know"
            );
        }
    }
}

/// GitHub's anchor of a heading.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut inside = false;
    let mut found = BTreeSet::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
        } else if !inside && line.starts_with('#') {
            found.insert(anchor(line.trim_start_matches('#')));
        }
    }
    found
}

/// The targets of the Markdown links of a page, outside code blocks.
fn links(markdown: &str) -> Vec<String> {
    let mut inside = false;
    let mut found = Vec::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
            continue;
        }
        if inside {
            continue;
        }
        for part in line.split("](").skip(1) {
            if let Some(end) = part.find(')') {
                found.push(part[..end].to_string());
            }
        }
    }
    found
}

/// What a page names in backticks that looks like a file or folder of this repository.
fn repository_paths(markdown: &str) -> Vec<String> {
    const TOP: [&str; 8] = [
        "domain/", "storage/", "api/", "tests/", "openapi/", "tools/", "docs/", ".ci/",
    ];
    markdown
        .split('`')
        .skip(1)
        .step_by(2)
        .flat_map(|code| code.split_whitespace())
        .map(|word| word.trim_end_matches([',', ';', ':', ')', '.']))
        .filter(|word| TOP.iter().any(|top| word.starts_with(top)))
        .filter(|word| !word.contains(['<', '{', '*', '$', '>']))
        .map(String::from)
        .collect()
}

#[test]
fn every_link_and_repository_path_of_the_docs_exists() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = read(&page);
        let dir = Path::new(&page).parent().unwrap_or(Path::new(""));
        for target in links(&text) {
            if target.starts_with("http://") || target.starts_with("https://") {
                continue;
            }
            let (file, fragment) = match target.split_once('#') {
                Some((file, fragment)) => (file, Some(fragment)),
                None => (target.as_str(), None),
            };
            let resolved = if file.is_empty() {
                PathBuf::from(&page)
            } else {
                dir.join(file)
            };
            let full = root().join(&resolved);
            if !full.exists() {
                broken.push(format!("{page}: link to {target}: no such file"));
                continue;
            }
            if let Some(fragment) = fragment {
                let headings = anchors(&std::fs::read_to_string(&full).unwrap_or_default());
                if !headings.contains(fragment) {
                    broken.push(format!("{page}: link to {target}: no such heading"));
                }
            }
        }
        for path in repository_paths(&text) {
            if !root().join(&path).exists() {
                broken.push(format!("{page}: names `{path}`, which does not exist"));
            }
        }
        for (number, line) in text.lines().enumerate() {
            for machine in ["/work/", "/root/", "/home/", "/tmp/bash"] {
                if line.contains(machine) {
                    broken.push(format!(
                        "{page}:{}: names a path of a machine ({machine})",
                        number + 1
                    ));
                }
            }
            let lower = line.to_lowercase();
            let mut rest = lower.as_str();
            while let Some(at) = rest.find("issue ") {
                rest = &rest[at + "issue ".len()..];
                if rest.starts_with(|c: char| c.is_ascii_digit() || c == '#') {
                    broken.push(format!(
                        "{page}:{}: names an issue of a tracker a reader cannot see",
                        number + 1
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// `1.89` as numbers, for comparing.
fn parse_version(text: &str) -> Vec<u64> {
    let mut parts: Vec<u64> = text
        .split('.')
        .map(|part| {
            part.parse()
                .unwrap_or_else(|_| panic!("a Rust version: {text}"))
        })
        .collect();
    // `1.89.0` is `1.89`: trailing zeros compare as nothing.
    while parts.len() > 1 && parts.last() == Some(&0) {
        parts.pop();
    }
    parts
}

/// The `rust-version` of `[workspace.package]`.
fn stated_rust_version() -> String {
    let manifest = read("Cargo.toml");
    manifest
        .lines()
        .find_map(|line| line.strip_prefix("rust-version = "))
        .map(|v| v.trim().trim_matches('"').to_string())
        .expect("Cargo.toml states a rust-version")
}

#[test]
fn the_stated_minimum_rust_covers_every_locked_dependency() {
    let stated = stated_rust_version();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let host = String::from_utf8(
        Command::new("rustc")
            .args(["--print", "host-tuple"])
            .output()
            .expect("rustc runs")
            .stdout,
    )
    .expect("UTF-8");
    let output = Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", host.trim()])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON");
    let packages = metadata["packages"].as_array().expect("packages");
    assert!(packages.len() > 100, "too few packages: {}", packages.len());
    let mut newest = (vec![0], String::new());
    let mut too_new = Vec::new();
    for package in packages {
        let Some(version) = package["rust_version"].as_str() else {
            continue;
        };
        let name = format!("{} {}", package["name"], package["version"]);
        let needed = parse_version(version);
        if needed > parse_version(&stated) {
            too_new.push(format!("{name} needs Rust {version}"));
        }
        if needed > newest.0 {
            newest = (needed, name);
        }
    }
    assert!(
        too_new.is_empty(),
        "Cargo.toml states rust-version {stated}, but {}",
        too_new.join(", ")
    );
    let ours: Vec<_> = packages
        .iter()
        .filter(|p| p["source"].is_null())
        .map(|p| {
            (
                p["name"].to_string(),
                p["rust_version"].as_str().map(String::from),
            )
        })
        .collect();
    assert!(
        ours.iter()
            .all(|(_, v)| v.as_deref() == Some(stated.as_str())),
        "every crate of the workspace takes the workspace's rust-version: {ours:?}"
    );
    let readme = read("README.md");
    assert!(
        readme.contains(&format!("Rust **{stated}**"))
            && readme.contains(&format!("Rust {stated} or newer")),
        "README.md states another minimum Rust than Cargo.toml's {stated}"
    );
    assert!(
        newest.0 == parse_version(&stated),
        "Cargo.toml states {stated}, but no locked dependency needs more than {:?} ({}): lower it",
        newest.0,
        newest.1
    );
}

#[test]
fn one_version_shows_everywhere() {
    let version = env!("CARGO_PKG_VERSION");
    let output = Command::new(avalanche())
        .arg("--version")
        .output()
        .expect("avalanche --version runs");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("avalanche {version}")
    );
    let document: serde_json::Value =
        serde_json::from_str(&read("openapi/openapi.json")).expect("the document");
    assert_eq!(document["info"]["version"], version);
    let changelog = read("CHANGELOG.md");
    assert!(
        changelog.contains(&format!("## [{version}] - ")),
        "CHANGELOG.md has no section for version {version}"
    );
    assert!(changelog.contains("## [Unreleased]"));

    let data = tempfile::tempdir().expect("a temporary directory");
    let server = Server::start(&data.path().join("data"), &[]);
    let metrics = server
        .app
        .admin_get("/metrics")
        .send()
        .expect("metrics")
        .text()
        .expect("text");
    assert!(
        metrics
            .lines()
            .any(|line| line == format!("avalanche_build_info{{version=\"{version}\"}} 1")),
        "no build info for {version} in /metrics"
    );
    let served: serde_json::Value = server
        .app
        .get("/openapi.json", None)
        .send()
        .expect("the document")
        .json()
        .expect("JSON");
    assert_eq!(served["info"]["version"], version);
}
