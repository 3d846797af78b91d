//! The `avalanche` command: `serve` (the default) starts the HTTP server; `openapi` prints the
//! API document; `audit FILE` audits a game log or a chess record without a server; `migrate`
//! copies a sled store into PostgreSQL; `backup` and `restore` copy a running sled store into
//! a file and back into a new folder.

use api::configuration::{Cli, Subcommand};
use clap::Parser;
use std::process::ExitCode;

/// jemalloc with one arena (see `api/src/allocator.rs`).
#[global_allocator]
static ALLOCATOR: api::allocator::Allocator = api::allocator::Allocator {};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Subcommand::Serve(cli.serve)) {
        Subcommand::Serve(settings) => {
            api::telemetry::init(settings.log_format);
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
        Subcommand::Backup(args) => match api::backup::command::backup(&args) {
            Ok(summary) => {
                print!("{summary}");
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("avalanche backup: {error}");
                ExitCode::FAILURE
            }
        },
        Subcommand::Moderate(args) => match api::moderate::run(&args) {
            Ok(said) => {
                println!("{said}");
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("avalanche moderate: {error}");
                ExitCode::FAILURE
            }
        },
        Subcommand::Restore(args) => match api::backup::restore::restore(&args.from, &args.data) {
            Ok(restored) => {
                print!("{restored}");
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("avalanche restore: {error}");
                ExitCode::FAILURE
            }
        },
        Subcommand::Ratings(args) => match api::offline::recompute_ratings(&args) {
            Ok(json) => {
                println!("{json}");
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("avalanche ratings: {error}");
                ExitCode::FAILURE
            }
        },
        Subcommand::Openapi => {
            print!("{}", api::openapi::pretty(&domain::Registry::standard()));
            ExitCode::SUCCESS
        }
    }
}
