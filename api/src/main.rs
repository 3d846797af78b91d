//! The `avalanche` command: `serve` (the default) starts the HTTP server; `openapi` prints the
//! API document; `audit FILE` audits a game log or a chess record without a server; `migrate`
//! copies a sled store into PostgreSQL.

use api::configuration::{Cli, Subcommand};
use clap::Parser;
use std::process::ExitCode;

/// With the feature `mimalloc`, mimalloc rather than glibc's malloc: the server allocates and
/// frees many small JSON values a request, and mimalloc does it with about 8% less CPU a
/// command, for some 35 MB more resident memory (BENCHMARKS.md, "Lists and memory").
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    api::allocator::one_malloc_arena();
    let cli = Cli::parse();
    match cli.command.unwrap_or(Subcommand::Serve(cli.serve)) {
        Subcommand::Serve(settings) => {
            api::telemetry::init();
            match api::startup::serve_blocking(settings) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("avalanche: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        Subcommand::Audit(args) => {
            let (sound, summary) = api::offline::audit_file(&args);
            print!("{summary}");
            if sound {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Subcommand::Migrate(args) => {
            match api::migrate::migrate(&args.from, &args.to, args.secrets_key.as_deref()) {
                Ok(migrated) => {
                    print!("{migrated}");
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("avalanche migrate: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        Subcommand::Openapi => {
            print!("{}", api::openapi::pretty(&domain::Registry::standard()));
            ExitCode::SUCCESS
        }
    }
}
