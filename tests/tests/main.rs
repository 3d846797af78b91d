//! The black-box tests: the real server over HTTP, in a real browser and on PostgreSQL. Each file is a
//! module of this one binary, so the dependency graph is linked once.

mod browser_harness;
#[path = "../../storage/tests/common/cluster.rs"]
mod cluster;
mod common;

mod backup;
mod browser_account;
mod browser_cards;
mod browser_chess;
mod browser_club;
mod browser_records;
mod browser_table;
mod clocks;
mod club;
mod commands;
mod complete_games;
mod continuations;
mod docs;
mod endings;
mod events;
mod forks;
mod health;
mod imports;
mod layers;
mod limits;
mod lobby;
mod mail;
mod mail_delivery;
mod mail_notices;
mod mail_postgres;
mod mail_recovery;
mod manners;
mod names;
mod openapi_contract;
mod operations;
mod paging;
mod player_stream;
mod postgres;
mod postgres_gauges;
mod postgres_migrate;
mod postgres_nodes;
mod postgres_partition;
mod postgres_retries;
mod postgres_settings;
mod postgres_tokens;
mod replay;
mod restart;
mod schema_limits;
mod secrecy;
mod secrets_at_rest;
mod slow_clients;
mod takeback_forks;
mod takebacks;
mod tokens;
mod webhooks;
