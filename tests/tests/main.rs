//! The black-box tests: the real server over HTTP, in a real browser and on PostgreSQL. Each file is a
//! module of this one binary, so the dependency graph is linked once.

mod browser_harness;
#[path = "../../storage/tests/common/cluster.rs"]
mod cluster;
mod common;

mod browser_cards;
mod browser_chess;
mod clocks;
mod commands;
mod complete_games;
mod endings;
mod events;
mod forks;
mod health;
mod imports;
mod limits;
mod lobby;
mod manners;
mod openapi_contract;
mod postgres;
mod postgres_migrate;
mod postgres_nodes;
mod replay;
mod restart;
mod secrecy;
mod secrets_at_rest;
mod takebacks;
mod tokens;
mod webhooks;
mod browser_table;
mod continuations;
mod docs;
mod slow_clients;
mod mail;
mod mail_postgres;
mod names;
mod operations;
mod postgres_tokens;
