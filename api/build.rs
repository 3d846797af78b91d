//! Embeds the web client (`web/`) in the binary: writes `$OUT_DIR/web_files.rs`, a table of
//! every file's path, bytes (by `include_bytes!`) and an entity tag, and tells cargo to build
//! again whenever anything under `web/` changes (a file edited, added or removed).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("web");
    println!("cargo:rerun-if-changed=web");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    files.sort();
    let mut out =
        String::from("/// The web client's files: path under `web/`, bytes, entity tag.\n");
    out.push_str("pub static FILES: &[(&str, &[u8], &str)] = &[\n");
    for (name, path) in &files {
        let bytes = std::fs::read(path).expect("a web file is readable");
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            out,
            "    ({name:?}, include_bytes!({:?}), \"\\\"{:016x}\\\"\"),",
            path.display().to_string(),
            fnv1a(&bytes)
        )
        .expect("writing to a String");
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    std::fs::write(dest.join("web_files.rs"), out).expect("OUT_DIR is writable");
}

/// Every file under `dir`, with its path relative to `root` written with `/`.
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "README.md" {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, files);
        } else {
            let relative = path
                .strip_prefix(root)
                .expect("under root")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            files.push((relative, path));
        }
    }
}

/// FNV-1a, 64 bits: a cheap fingerprint for the entity tag (not a security measure).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}
