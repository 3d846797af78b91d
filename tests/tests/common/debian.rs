//! Debian's packages that the tests need, installed now (as root) when missing; without root,
//! a test that needs one fails saying what to install. Nothing is skipped.

use std::path::PathBuf;
use std::process::Command;

/// Whether the tests run as root, and so may install what is missing.
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Installs Debian's `packages`, which `needed_by` needs (`apt-get update`, then `install`).
pub fn install(needed_by: &str, packages: &[&str]) {
    assert!(
        is_root(),
        "{needed_by} need {}: run `apt-get install -y {}` (as root) and try again",
        packages.join(" and "),
        packages.join(" ")
    );
    let apt = |args: &[&str]| {
        let status = Command::new("apt-get")
            .args(["-o", "DPkg::Lock::Timeout=600"])
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .expect("apt-get runs");
        assert!(
            status.success(),
            "`apt-get {}` failed: install {} by hand",
            args.join(" "),
            packages.join(" ")
        );
    };
    apt(&["update"]);
    let mut install = vec!["install", "-y", "--no-install-recommends"];
    install.extend_from_slice(packages);
    apt(&install);
}

/// The first of `paths` that exists, after installing Debian's `package` when none does.
pub fn program(paths: &[&str], package: &str) -> PathBuf {
    let found = || paths.iter().map(PathBuf::from).find(|p| p.exists());
    if let Some(path) = found() {
        return path;
    }
    install(&format!("these tests ({})", paths[0]), &[package]);
    found().unwrap_or_else(|| panic!("{} is missing after installing {package}", paths[0]))
}
