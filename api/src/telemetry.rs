//! Logs a person can follow: `RUST_LOG` sets the level (default `info`). Colours only on a
//! terminal: a log written to a file or a journal carries no escape codes.

use std::io::IsTerminal;

pub fn init() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stdout().is_terminal())
        .try_init();
}
