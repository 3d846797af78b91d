//! Browser tests: a Node script in `tests/browser/` drives Debian's headless `chromium` through
//! `playwright-core` against the real `avalanche` binary. What they need is installed when
//! missing (chromium and fonts with `apt-get` when root, `playwright-core` with `npm ci` from
//! the committed lock file); otherwise the test fails saying exactly what to install. Nothing
//! is skipped.
#![allow(dead_code)] // each browser test uses its own part of the harness

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// One browser test at a time installs (tests of one file run on several threads).
static INSTALL: Mutex<()> = Mutex::new(());

pub const CHROMIUM: &str = "/usr/bin/chromium";

/// `tests/browser/`: the scripts, `package.json` and `package-lock.json`.
pub fn scripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("browser")
}

/// `target/`: the test binary is `target/<profile>/deps/<name>`.
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.ancestors()
        .nth(3)
        .expect("the test binary lives in target/<profile>/deps")
        .to_path_buf()
}

/// `target/screenshots/`, where the scripts save their PNGs.
pub fn screenshots_dir() -> PathBuf {
    target_dir().join("screenshots")
}

fn found(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Chromium, Node and `playwright-core` are there, installed now if they were not.
pub fn ensure_tools() {
    let _guard = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let mut missing = Vec::new();
    if !Path::new(CHROMIUM).exists() {
        // The fonts draw the chess glyphs and the text the same on every machine.
        missing.extend(["chromium", "fonts-dejavu-core"]);
    }
    if !found("node") || !found("npm") {
        missing.extend(["nodejs", "npm"]);
    }
    if !missing.is_empty() {
        crate::common::debian::install("the browser tests", &missing);
    }
    let dir = scripts_dir();
    let installed = ["playwright-core", "axe-core"].iter().all(|package| {
        dir.join(format!("node_modules/{package}/package.json"))
            .exists()
    });
    if !installed {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .status()
            .expect("npm runs");
        assert!(
            status.success(),
            "`npm ci` in {} failed: the browser tests need playwright-core and axe-core from the npm registry",
            dir.display()
        );
    }
}

/// Runs `tests/browser/<script>` against the server at `base` and returns the JSON of its
/// `RESULT` line; the test fails with the script's output if it fails or finds a problem
/// (a console error, a request leaving 127.0.0.1, a token in a URL).
pub fn run(script: &str, base: &str) -> Value {
    run_with(script, base, &[])
}

/// [`run`] with more of the script's environment (`name`, `value`).
pub fn run_with(script: &str, base: &str, env: &[(&str, &str)]) -> Value {
    ensure_tools();
    let output = Command::new("node")
        .arg(scripts_dir().join(script))
        .envs(env.iter().copied())
        .env("BASE_URL", base)
        .env("SCREENSHOTS", screenshots_dir())
        .env("CHROMIUM", CHROMIUM)
        .current_dir(scripts_dir())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let result: Value = stdout
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("RESULT "))
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or(Value::Null);
    assert!(
        output.status.success(),
        "{script} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
    assert!(
        result.is_object(),
        "{script} printed no RESULT line:\n{stdout}\n{stderr}"
    );
    let problems = &result["problems"];
    for (kind, what) in [
        ("consoleErrors", "the browser console showed errors"),
        ("foreignRequests", "requests left 127.0.0.1"),
        ("urlsWithToken", "a token appeared in a URL"),
    ] {
        let list = problems[kind].as_array().cloned().unwrap_or_default();
        assert!(list.is_empty(), "{what}: {list:#?}");
    }
    result
}

/// The median of some numbers (the draw times of several loads).
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// What every browser script reports about its pages: no page scrolls sideways, every control
/// has a name, and every screenshot it names was written.
pub fn no_overflow_nor_unnamed(result: &Value) {
    for (shot, overflow) in result["overflow"].as_object().expect("overflow") {
        assert!(
            overflow.as_f64() <= Some(0.0),
            "{shot} scrolls sideways by {overflow}"
        );
    }
    for (page, unnamed) in result["unnamed"].as_object().expect("checked pages") {
        assert_eq!(
            unnamed,
            &serde_json::json!([]),
            "{page}: controls without a name"
        );
    }
    for shot in result["screenshots"].as_array().expect("screenshots") {
        let path = shot.as_str().expect("a path");
        assert!(std::path::Path::new(path).exists(), "{path}");
    }
}
